// Emptiness: empty NodePool nodes removed after consolidateAfter, within the budgets for reason Empty.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture.h"

namespace scalewright::controllers {
namespace {

using namespace disruption_fixtures;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(Disruption, EmptyNodeIsDeletedAfterConsolidateAfterAndItsInstanceTerminated) {
  // n1 is empty from 0 s, due at 30 s; n2 from 1 s, due at 31 s: the pass at 30 s leaves n2, empty 29 s then.
  const std::string instance = add_node(state, cloud, "n1", "default").instance_id;
  disruption.reconcile();
  clock.advance_to(kStart + 1s);
  add_node(state, cloud, "n2", "default");
  disruption.reconcile();

  clock.advance_to(kStart + 29'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_TRUE(cloud.get(instance).ok());

  clock.advance_to(kStart + 30s);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate " + instance));
  EXPECT_FALSE(cloud.get(instance).ok());
  EXPECT_EQ(state.find_node("n1")->phase, state::NodePhase::Terminated);
  EXPECT_THAT(writer.events_of("removed"), ElementsAre("30s node n1 empty, removed after 30s"));

  disruption.reconcile();  // after the change, as the simulator settles every instant
  clock.advance_to(kStart + 31s);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1", "31s delete_node n2"));
}

TEST_F(Disruption, AnEmptyNodeThatSaysDoNotDisruptIsKept) {
  // n1 says karpenter.sh/do-not-disrupt: "true" and is empty from 0 s; n2 is empty too and goes at 30 s.
  state::NodeRecord& n1 = add_node(state, cloud, "n1", "default");
  n1.node.meta.annotations["karpenter.sh/do-not-disrupt"] = "true";
  state.node_updated(n1);
  add_node(state, cloud, "n2", "default");
  disruption.reconcile();
  clock.advance_to(kStart + 1h);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n2"));
}

TEST_F(Disruption, NodeThatGetsAPodBackBeforeConsolidateAfterIsKept) {
  add_node(state, cloud, "n1", "default");
  disruption.reconcile();  // empty since 0 s

  // A pod is bound there at 20 s: at 30 s the node is not empty, and stays however long the pod runs.
  clock.advance_to(kStart + 20s);
  state::PodRecord& pod = add_pod(state, clock, "web-0", 500);
  bind_pod(state, clock, pod, "n1");
  disruption.reconcile();
  clock.advance_to(kStart + 5min);
  EXPECT_THAT(writer.calls, IsEmpty());

  // Empty again at 5 min: its 30 s start over from then (5m30s), not from 0 s.
  state.pod_deleted("default/web-0");
  disruption.reconcile();
  clock.advance_to(kStart + 5min + 29'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(kStart + 5min + 30s);
  EXPECT_THAT(writer.calls, ElementsAre("5m30s delete_node n1"));
}

class DisruptionBudgetOfOneNode : public Disruption {
 protected:
  DisruptionBudgetOfOneNode() : Disruption(IntOrPercent{1, false}) {}
};

TEST_F(DisruptionBudgetOfOneNode, RemovesOneEmptyNodePerPassTheNextTenSecondsLater) {
  // Three nodes empty since 0 s, all due at 30 s; budget nodes "1": one per pass, and a pass every 10 s while the
  // budget holds some back: 30, 40, 50 s.
  for (const char* name : {"n1", "n2", "n3"}) add_node(state, cloud, name, "default");
  disruption.reconcile();

  clock.advance_to(kStart + 39'999ms);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1"));
  clock.advance_to(kStart + 1min);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1", "40s delete_node n2", "50s delete_node n3"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate i-1", "terminate i-2", "terminate i-3"));
  EXPECT_THAT(clock.pending(), IsEmpty());
  // The NodePool is told once, at 30 s, while the budget holds nodes back (at 30 and 40 s); each node why it goes.
  const std::string empty = " DisruptionTerminating: Disrupting Node: Empty/Delete; empty since t=0s, its NodePool's "
                            "consolidateAfter is 30s";
  EXPECT_THAT(writer.object_events,
              ElementsAre("30s Node n1" + empty,
                          "30s NodePool default DisruptionBlocked: No allowed disruptions for disruption reason Empty "
                          "due to blocking budget",
                          "40s Node n2" + empty, "50s Node n3" + empty));
}

TEST_F(Disruption, BudgetForOtherReasonsDoesNotHoldEmptyNodesBack) {
  // "0" for Underutilized and Drifted (a business-hours freeze, say) says nothing of empty nodes; "1" for Empty
  // does: one per pass, at 30 and 40 s.
  NodePool pool = *state.find_nodepool("default");
  pool.budgets = {DisruptionBudget{IntOrPercent{0, false}, {"Underutilized", "Drifted"}},
                  DisruptionBudget{IntOrPercent{1, false}, {"Empty"}}};
  state.nodepool_applied(std::move(pool));
  for (const char* name : {"n1", "n2"}) add_node(state, cloud, name, "default");
  disruption.reconcile();
  clock.advance_to(kStart + 1min);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1", "40s delete_node n2"));
}

TEST_F(Disruption, NodeAlreadyDrainingUsesTheBudget) {
  // Budget "2"; n4 is draining (a spot interruption, say), so one more may go at a time: n1 at 30 s, n2 at 40 s, n3
  // at 50 s, where without n4 two would go at 30 s.
  NodePool pool = *state.find_nodepool("default");
  pool.budgets = {DisruptionBudget{IntOrPercent{2, false}, {}}};
  state.nodepool_applied(std::move(pool));
  for (const char* name : {"n1", "n2", "n3", "n4"}) add_node(state, cloud, name, "default");
  state.node_draining(*state.find_node("n4"));
  disruption.reconcile();
  clock.advance_to(kStart + 1min);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1", "40s delete_node n2", "50s delete_node n3"));
}

TEST_F(Disruption, NotReadyNodeUsesTheBudget) {
  // Budget "1"; n3 stopped reporting (NotReady): nothing may go while it is there.
  NodePool pool = *state.find_nodepool("default");
  pool.budgets = {DisruptionBudget{IntOrPercent{1, false}, {}}};
  state.nodepool_applied(std::move(pool));
  for (const char* name : {"n1", "n2", "n3"}) add_node(state, cloud, name, "default");
  bind_pod(state, clock, add_pod(state, clock, "web-0", 500), "n3");
  state.find_node("n3")->failed_at = kStart;
  disruption.reconcile();
  clock.advance_to(kStart + 1min);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.object_events,
              ElementsAre("30s NodePool default DisruptionBlocked: No allowed disruptions for disruption reason Empty "
                          "due to blocking budget"));
}

TEST_F(Disruption, NodeStillLaunchingIsNotCountedInThePercentage) {
  // The default 10% of 10 Ready nodes is 1; the eleventh, still launching, would make it 1.1, rounded up to 2.
  for (int i = 1; i <= 10; ++i) add_node(state, cloud, "n" + std::to_string(i), "default");
  add_node(state, cloud, "n11", "default", /*ready=*/false);
  disruption.reconcile();
  clock.advance_to(kStart + 30s);
  EXPECT_EQ(writer.calls_of("delete_node").size(), 1u);
}

TEST_F(Disruption, ScheduledBudgetHoldsEmptyNodesBackInsideItsWindow) {
  // "0" from midnight for 10 minutes, every day (UTC): n1, due at 30 s, waits for the pass at 10m, when the window
  // has closed.
  NodePool pool = *state.find_nodepool("default");
  DisruptionBudget freeze{IntOrPercent{0, false}, {}};
  freeze.window = BudgetWindow{CronSchedule::parse("@daily").value(), 10min};
  pool.budgets = {freeze, DisruptionBudget{}};
  state.nodepool_applied(std::move(pool));
  add_node(state, cloud, "n1", "default");
  disruption.reconcile();
  clock.advance_to(kStart + 9min + 59s);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(kStart + 10min);
  EXPECT_THAT(writer.calls, ElementsAre("10m0s delete_node n1"));
}

TEST_F(Disruption, NodeNominatedToLatelyIsNoCandidateForTwentySeconds) {
  // consolidateAfter 0s: n1 holds a pod's nomination at 0 s, which ends at 1 s with the pod not yet bound (in a real
  // cluster kube-scheduler binds a moment after the node is Ready). Empty from 1 s, it is removed at 20 s, 20 s after
  // the nomination was last seen, not at 1 s.
  NodePool pool = *state.find_nodepool("default");
  pool.consolidate_after = 0s;
  state.nodepool_applied(std::move(pool));
  add_node(state, cloud, "n1", "default");
  state::PodRecord& pod = add_pod(state, clock, "web-0", 500);
  state.pod_nominated(pod, Symbol("n1"));
  disruption.reconcile();
  clock.advance_to(kStart + 1s);
  state.nominations_released("n1");
  disruption.reconcile();
  clock.advance_to(kStart + 19'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(kStart + 20s);
  EXPECT_THAT(writer.calls, ElementsAre("20s delete_node n1"));
}

}  // namespace
}  // namespace scalewright::controllers
