// DisruptionController through fake ports: emptiness, then consolidation. NodePool "default" has consolidateAfter
// 30 s (policy WhenEmpty for the emptiness tests); its nodes are Ready c.2xlarge instances the fake cloud started
// (i-1, i-2, ...). The test reconciles after each change, as the
// simulator does after every instant; the disruption passes are timers of the fake clock.
#include "controllers/disruption.h"

#include "disruption/drift.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"

namespace scalewright::controllers {
namespace {

using namespace fakes;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// Budget schedules read the wall clock: time 0 is Monday 2024-01-01, 00:00 UTC, as in the simulator.
constexpr std::chrono::sys_seconds kWallClockAtStart{std::chrono::sys_days{std::chrono::year{2024} / 1 / 1}};

class Disruption : public ::testing::Test, protected FakeCluster {
 protected:
  explicit Disruption(std::optional<IntOrPercent> budget = std::nullopt) {
    NodePool pool = provisioning::fixtures::make_nodepool("default");
    pool.consolidate_after = 30s;
    pool.consolidation_policy = ConsolidationPolicy::WhenEmpty;
    if (budget) pool.budgets = {DisruptionBudget{*budget, {}}};
    state.nodepool_applied(std::move(pool));
    writer.on_pod_terminated = [this](const std::string& node) { termination.pod_terminated(node); };
  }

  NodeNames names{7};
  NodeLifecycleController lifecycle{ports};
  TerminationController termination{ports};
  ProvisioningController provisioning{ports, names, lifecycle, {Duration(1'000), Duration(10'000)}};
  DisruptionController disruption{ports, termination, provisioning, kWallClockAtStart};

  // A PodDisruptionBudget "<app>" (maxUnavailable 0) over the pods labelled app=<app>: none may be evicted.
  void allow_no_eviction_of(const std::string& app) {
    PodDisruptionBudget pdb;
    pdb.meta.name = app;
    pdb.meta.namespace_ = "default";
    pdb.selector = LabelSelector{{provisioning::fixtures::requirement("app", SelectorOperator::In, {app})}};
    pdb.max_unavailable = IntOrPercent{0, false};
    state.pdb_applied(pdb);
  }

  // The NodePool's expireAfter and terminationGracePeriod.
  void expire(Duration expire_after, Duration termination_grace_period) {
    NodePool pool = *state.find_nodepool("default");
    pool.expire_after = expire_after;
    pool.termination_grace_period = termination_grace_period;
    state.nodepool_applied(std::move(pool));
  }

  // `node`, the only node deleted, is still there a moment before `at` and deleted at `at`.
  void expect_deleted_at(Duration at, const std::string& node) {
    clock.advance_to(at - 1ms);
    EXPECT_THAT(writer.calls_of("delete_node"), IsEmpty());
    clock.advance_to(at);
    EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre(format_duration(at) + " delete_node " + node));
  }

  // A pod of `cpu_milli` bound to `node` now.
  state::PodRecord& run_pod(const std::string& name, std::int64_t cpu_milli, const std::string& node) {
    state::PodRecord& pod = add_pod(state, clock, name, cpu_milli);
    bind_pod(state, clock, pod, node);
    return pod;
  }

  // The NodeClaim the test's replacement launched: "<time> node_launched <name> ...".
  std::string launched_node() const {
    std::vector<std::string> launched = writer.calls_of("node_launched");
    if (launched.size() != 1) return "";
    const std::string& call = launched.front();
    const std::size_t start = call.find("node_launched ") + 14;
    return call.substr(start, call.find(' ', start) - start);
  }
};

TEST_F(Disruption, EmptyNodeIsDeletedAfterConsolidateAfterAndItsInstanceTerminated) {
  // n1 is empty from 0 s, due at 30 s; n2 from 1 s, due at 31 s: the pass at 30 s leaves n2, empty 29 s then.
  const std::string instance = add_node(state, cloud, "n1", "default").instance_id;
  disruption.reconcile();
  clock.advance_to(1s);
  add_node(state, cloud, "n2", "default");
  disruption.reconcile();

  clock.advance_to(29'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_TRUE(cloud.get(instance).ok());

  clock.advance_to(30s);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate " + instance));
  EXPECT_FALSE(cloud.get(instance).ok());
  EXPECT_EQ(state.find_node("n1")->phase, state::NodePhase::Terminated);
  EXPECT_THAT(writer.events_of("removed"), ElementsAre("30s node n1 empty, removed after 30s"));

  disruption.reconcile();  // after the change, as the simulator settles every instant
  clock.advance_to(31s);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1", "31s delete_node n2"));
}

TEST_F(Disruption, AnEmptyNodeThatSaysDoNotDisruptIsKept) {
  // n1 says karpenter.sh/do-not-disrupt: "true" and is empty from 0 s; n2 is empty too and goes at 30 s.
  state::NodeRecord& n1 = add_node(state, cloud, "n1", "default");
  n1.node.meta.annotations["karpenter.sh/do-not-disrupt"] = "true";
  state.node_updated(n1);
  add_node(state, cloud, "n2", "default");
  disruption.reconcile();
  clock.advance_to(1h);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n2"));
}

TEST_F(Disruption, NodeThatGetsAPodBackBeforeConsolidateAfterIsKept) {
  add_node(state, cloud, "n1", "default");
  disruption.reconcile();  // empty since 0 s

  // A pod is bound there at 20 s: at 30 s the node is not empty, and stays however long the pod runs.
  clock.advance_to(20s);
  state::PodRecord& pod = add_pod(state, clock, "web-0", 500);
  bind_pod(state, clock, pod, "n1");
  disruption.reconcile();
  clock.advance_to(5min);
  EXPECT_THAT(writer.calls, IsEmpty());

  // Empty again at 5 min: its 30 s start over from then (5m30s), not from 0 s.
  state.pod_deleted("default/web-0");
  disruption.reconcile();
  clock.advance_to(5min + 29'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(5min + 30s);
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

  clock.advance_to(39'999ms);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1"));
  clock.advance_to(1min);
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
  clock.advance_to(1min);
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
  clock.advance_to(1min);
  EXPECT_THAT(writer.calls, ElementsAre("30s delete_node n1", "40s delete_node n2", "50s delete_node n3"));
}

TEST_F(Disruption, NotReadyNodeUsesTheBudget) {
  // Budget "1"; n3 stopped reporting (NotReady): nothing may go while it is there.
  NodePool pool = *state.find_nodepool("default");
  pool.budgets = {DisruptionBudget{IntOrPercent{1, false}, {}}};
  state.nodepool_applied(std::move(pool));
  for (const char* name : {"n1", "n2", "n3"}) add_node(state, cloud, name, "default");
  bind_pod(state, clock, add_pod(state, clock, "web-0", 500), "n3");
  state.find_node("n3")->failed_at = 0s;
  disruption.reconcile();
  clock.advance_to(1min);
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
  clock.advance_to(30s);
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
  clock.advance_to(9min + 59s);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(10min);
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
  clock.advance_to(1s);
  state.nominations_released("n1");
  disruption.reconcile();
  clock.advance_to(19'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(20s);
  EXPECT_THAT(writer.calls, ElementsAre("20s delete_node n1"));
}


// Consolidation: NodePool "default" with WhenEmptyOrUnderutilized, consolidateAfter 30 s, no requirements. Its
// nodes are on-demand c.2xlarge ($0.40/h); a replacement may be spot (c.large $0.04/h is the cheapest).
class Consolidation : public Disruption {
 protected:
  Consolidation() {
    NodePool pool = *state.find_nodepool("default");
    pool.consolidation_policy = ConsolidationPolicy::WhenEmptyOrUnderutilized;
    state.nodepool_applied(std::move(pool));
  }

};

TEST_F(Consolidation, UnderutilizedNodeIsReplacedOnlyOnceItsReplacementIsReady) {
  // n1 ($0.40/h) runs one 500m pod from 0 s. At 30 s (consolidateAfter) the command is computed, at 45 s checked
  // again and carried out: n1 tainted, a spot c.large launched; n1 is drained only when that node is Ready (60 s),
  // its pod evicted with its 30 s grace period, and n1 goes at 90 s.
  const std::string instance = add_node(state, cloud, "n1", "default").instance_id;
  run_pod("web-0", 500, "n1");
  disruption.reconcile();

  clock.advance_to(44'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.events_of("consolidation-planned"),
              ElementsAre("30s single-node replace 1 node (n1) by one node (c.large, g.xlarge, c.xlarge, ...) from "
                          "$0.0400/h: $0.4000/h → $0.0400/h saves $0.3600/h, 1 pod move; checked again in 15s"));
  clock.advance_to(45s);
  EXPECT_THAT(cloud.calls, ElementsAre("launch c.large zone-a spot"));
  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  EXPECT_THAT(writer.calls, ElementsAre("45s taint n1 +karpenter.sh/disrupted",
                                        "45s node_launched " + replacement + " c.large zone-a spot"));
  EXPECT_THAT(writer.object_events,
              Contains("45s Node n1 DisruptionTerminating: Disrupting Node: Underutilized/Replace; single-node replace "
                       "1 node (n1) by one node (c.large, g.xlarge, c.xlarge, ...) from $0.0400/h: $0.4000/h → "
                       "$0.0400/h saves $0.3600/h, 1 pod move"));

  clock.advance_to(59s);
  disruption.reconcile();  // the replacement is still launching: nothing is evicted
  EXPECT_THAT(writer.calls_of("evict"), IsEmpty());

  clock.advance_to(60s);
  state.node_ready(*state.find_node(replacement));
  disruption.reconcile();
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("1m0s evict default/web-0 grace=30s"));
  clock.advance_to(90s);
  // (The replacement goes too, empty for 30 s: the fakes have no ReplicaSet controller to recreate web-0 there.)
  EXPECT_THAT(writer.calls_of("delete_node"), Contains("1m30s delete_node n1"));
  EXPECT_FALSE(cloud.get(instance).ok());
}

TEST_F(Consolidation, ANodeThatEmptiesWhileACommandWaitsForItsReplacementGoesWhenTheCommandEnds) {
  // n1's command is carried out at 45 s and waits for its replacement, Ready only at 5m. n2's pod goes at 50 s:
  // n2 is due empty at 1m20s, but one command at a time: nothing goes before n1's drain ends (n1's pod evicted at
  // 5m with its 30 s grace period: 5m30s). (Before, the pass due for n2 found the command under way, did nothing
  // and was due again at once: the clock never moved on.)
  add_node(state, cloud, "n1", "default");
  add_node(state, cloud, "n2", "default");
  run_pod("web-0", 500, "n1");
  run_pod("web-1", 7600, "n2");  // n1's pod does not fit beside it: n1 is replaced, not deleted
  disruption.reconcile();
  clock.advance_to(50s);
  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  state.pod_deleted("default/web-1");
  disruption.reconcile();
  clock.advance_to(5min);
  EXPECT_THAT(writer.calls_of("delete_node"), IsEmpty());
  state.node_ready(*state.find_node(replacement));
  disruption.reconcile();
  clock.advance_to(6min);
  // Then the empty nodes, one per pass (10 % of the 2 nodes left, rounded up): the replacement (empty: the fakes
  // recreate no pod), due since 5m30s, and n2 the pass after.
  EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre("5m30s delete_node n1", "5m30s delete_node " + replacement,
                                                          "5m40s delete_node n2"));
}

TEST_F(Consolidation, APodNoNodePoolCanHoldDoesNotHoldConsolidationBack) {
  // "huge" asks 100 cpu, more than any type has: the provisioner says so when its batch closes (1 s), and the pod
  // stays pending, waiting for a change of its own rather than for capacity. n1 is still consolidated at 30 s.
  add_node(state, cloud, "n1", "default");
  run_pod("web-0", 500, "n1");
  add_pod(state, clock, "huge", 100'000);
  provisioning.reconcile();
  disruption.reconcile();
  clock.advance_to(2s);
  EXPECT_EQ(writer.calls_of("unschedulable").size(), 1u);
  clock.advance_to(30s);
  EXPECT_EQ(writer.events_of("consolidation-planned").size(), 1u);
}

TEST_F(Consolidation, ACommandThatNoLongerHoldsAfterFifteenSecondsIsAbandoned) {
  // Planned at 30 s; a pod bound to n1 at 40 s restarts its consolidateAfter, so at 45 s n1 is no candidate and
  // nothing is done: not even a taint to take off, none was put on before the check.
  add_node(state, cloud, "n1", "default");
  run_pod("web-0", 500, "n1");
  disruption.reconcile();
  clock.advance_to(40s);
  run_pod("web-1", 500, "n1");
  disruption.reconcile();
  clock.advance_to(45s);
  EXPECT_THAT(writer.events_of("consolidation-abandoned"),
              ElementsAre("45s single-node replace 1 node (n1) by one node (c.large, g.xlarge, c.xlarge, ...) from "
                          "$0.0400/h: $0.4000/h → $0.0400/h saves $0.3600/h, 1 pod move abandoned: node n1 is no "
                          "longer a candidate"));
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(cloud.calls, IsEmpty());
}

TEST_F(Consolidation, ForTheSameSavingTheCommandMovingFewerPodsWins) {
  // Only c.2xlarge on-demand may be launched. n1 (a 500m pod) and n2 (a 1-cpu pod): replacing both by one
  // c.2xlarge saves $0.40/h and moves 2 pods; deleting n1 (its pod onto n2) saves the same and moves 1.
  NodePool pool = *state.find_nodepool("default");
  pool.requirements.push_back({provisioning::fixtures::requirement(well_known::instance_type, SelectorOperator::In,
                                                                   {"c.2xlarge"}),
                               std::nullopt});
  pool.requirements.push_back({provisioning::fixtures::requirement(karpenter_labels::capacity_type,
                                                                   SelectorOperator::In, {"on-demand"}),
                               std::nullopt});
  state.nodepool_applied(std::move(pool));
  add_node(state, cloud, "n1", "default");
  add_node(state, cloud, "n2", "default");
  run_pod("small", 500, "n1");
  run_pod("big", 1000, "n2");
  disruption.reconcile();
  clock.advance_to(45s);
  EXPECT_THAT(writer.events_of("consolidation"),
              ElementsAre("45s single-node delete 1 node (n1): $0.4000/h → $0.0000/h saves $0.4000/h, 1 pod move"));
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("45s evict default/small grace=30s"));
  EXPECT_THAT(cloud.calls, IsEmpty());  // a delete launches nothing
}

TEST_F(Consolidation, DoNotDisruptAndBlockingPdbsKeepANodeAndSaySo) {
  add_node(state, cloud, "n1", "default");
  add_node(state, cloud, "n2", "default");
  Pod annotated = provisioning::fixtures::make_pod("batch", 500, 256 * kMi);
  annotated.meta.annotations["karpenter.sh/do-not-disrupt"] = "true";
  bind_pod(state, clock, *state.pod_created(annotated, "", clock.now()), "n1");
  state::PodRecord& web = add_pod(state, clock, "web-0", 500, "web");
  bind_pod(state, clock, web, "n2");
  allow_no_eviction_of("web");
  disruption.reconcile();
  clock.advance_to(2min);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.object_events,
              ElementsAre("30s Node n1 DisruptionBlocked: Pod \"default/batch\" has \"karpenter.sh/do-not-disrupt\" "
                          "annotation",
                          "30s Node n2 DisruptionBlocked: PDB \"default/web\" prevents pod evictions"));
}

TEST_F(Consolidation, ANodeNothingCheaperCanReplaceSaysWhyItStaysOnce) {
  // With on-demand only, c.large ($0.10/h) is the cheapest type that holds 1500m: n1, a c.large running 1500m, is
  // kept, and says why at its first look (30 s), not at every pass after.
  NodePool pool = *state.find_nodepool("default");
  pool.requirements.push_back(
      {LabelRequirement{Symbol("karpenter.sh/capacity-type"), SelectorOperator::In, {Symbol("on-demand")}}, {}});
  state.nodepool_applied(std::move(pool));
  add_node(state, cloud, "n1", "default", true, "c.large");
  run_pod("web-0", 1500, "n1");
  disruption.reconcile();
  clock.advance_to(5min);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.object_events,
              ElementsAre("30s Node n1 Unconsolidatable: no instance type that holds its pods costs less than "
                          "$0.1000/h"));
}

TEST_F(Consolidation, NodesComingDueOneAfterAnotherAreLookedAtOncePerPollPeriod) {
  // Three c.large on-demand nodes ($0.10/h, the cheapest that holds 1500m) get a 1500m pod at 0 s, 3 s and 6 s: due
  // at 30 s, 33 s and 36 s. Karpenter polls every 10 s: the pass at 30 s takes n1, the next, at 40 s, n2 and n3
  // together (one pass for each node coming due made passes over the whole cluster as many times as it has nodes).
  NodePool pool = *state.find_nodepool("default");
  pool.requirements.push_back(
      {LabelRequirement{Symbol("karpenter.sh/capacity-type"), SelectorOperator::In, {Symbol("on-demand")}}, {}});
  state.nodepool_applied(std::move(pool));
  for (int i = 1; i <= 3; ++i) {
    clock.advance_to((i - 1) * 3s);
    const std::string node = "n" + std::to_string(i);
    add_node(state, cloud, node, "default", true, "c.large");
    run_pod("web-" + std::to_string(i), 1500, node);
    disruption.reconcile();
  }
  clock.advance_to(5min);
  const std::string why = "Unconsolidatable: no instance type that holds its pods costs less than $0.1000/h";
  EXPECT_THAT(writer.object_events,
              ElementsAre("30s Node n1 " + why, "40s Node n2 " + why, "40s Node n3 " + why));
}

TEST_F(Consolidation, ACommandAbandonedAtItsCheckIsNotTriedAgainWhileNothingChanges) {
  // e (c.large, empty) and f (c.xlarge, 2500m used) say do-not-disrupt: they stay, and have room; c (c.xlarge) runs a
  // 2000m pod and two of 500m. At 30 s the search deletes c (largest first its pods fit on e and f); at 45 s the
  // check finds that kube-scheduler, taking the small pods first, would leave the 2000m pod no room, and abandons
  // it. Nothing changes after: c sits out, and the command is not planned again every poll period.
  for (const auto& [name, type] : {std::pair{"e", "c.large"}, std::pair{"f", "c.xlarge"}}) {
    state::NodeRecord& kept = add_node(state, cloud, name, "default", true, type);
    kept.node.meta.annotations["karpenter.sh/do-not-disrupt"] = "true";
    state.node_updated(kept);
  }
  add_node(state, cloud, "c", "default", true, "c.xlarge");
  run_pod("f-big", 2500, "f");
  run_pod("c-big", 2000, "c");
  run_pod("c-small-0", 500, "c");
  run_pod("c-small-1", 500, "c");
  disruption.reconcile();
  clock.advance_to(10min);
  ASSERT_EQ(writer.events_of("consolidation-abandoned").size(), 1u);
  EXPECT_THAT(writer.events_of("consolidation-abandoned").front(),
              ::testing::StartsWith("45s single-node delete 1 node (c)"));
  EXPECT_THAT(writer.events_of("consolidation-abandoned").front(),
              ::testing::EndsWith("abandoned: pod default/c-big would find no node if kube-scheduler took the pods "
                                  "smallest first"));
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.events_of("removed"), IsEmpty());
}

TEST_F(Disruption, ExpiredNodeIsDrainedAndItsTerminationGracePeriodEndsADrainAPdbHolds) {
  // expireAfter 10m, terminationGracePeriod 2m. web-0 is covered by a PDB that allows no eviction: the drain that
  // starts at 10m is refused every round, and at 12m the pod is deleted without eviction and n1 goes.
  expire(10min, 2min);
  const std::string instance = add_node(state, cloud, "n1", "default").instance_id;
  state::PodRecord& web = add_pod(state, clock, "web-0", 500, "web");
  bind_pod(state, clock, web, "n1");
  allow_no_eviction_of("web");
  disruption.reconcile();

  clock.advance_to(10min - 1ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(10min);
  EXPECT_THAT(writer.calls, ElementsAre("10m0s taint n1 +karpenter.sh/disrupted"));
  EXPECT_THAT(writer.events_of("expired"),
              ElementsAre("10m0s node n1 expired: launched 10m0s ago, its NodePool's expireAfter is 10m0s; draining "
                          "within its terminationGracePeriod of 2m0s"));
  expect_deleted_at(12min, "n1");
  EXPECT_THAT(cloud.calls, ElementsAre("terminate " + instance));
  ASSERT_EQ(writer.events_of("drain-deadline").size(), 1u);
  EXPECT_THAT(writer.events_of("drain-deadline").front(),
              ::testing::StartsWith("12m0s node n1 of default: its terminationGracePeriod of 2m0s is up; 1 pod deleted "
                                    "without eviction (default/web-0: "));
}

TEST_F(Disruption, ExpiryDrainLeavesADoNotDisruptPodUntilTheTerminationGracePeriod) {
  // expireAfter 10m, terminationGracePeriod 2m. web-0 is evicted when the drain starts; batch-0 says
  // karpenter.sh/do-not-disrupt, so it is not evicted (although no PDB covers it) and keeps n1 until 12m, when it
  // is deleted with the node.
  expire(10min, 2min);
  add_node(state, cloud, "n1", "default");
  run_pod("web-0", 500, "n1");
  Pod annotated = provisioning::fixtures::make_pod("batch-0", 500, 256 * kMi);
  annotated.meta.annotations["karpenter.sh/do-not-disrupt"] = "true";
  bind_pod(state, clock, *state.pod_created(annotated, "", clock.now()), "n1");
  disruption.reconcile();

  clock.advance_to(10min);
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("10m0s evict default/web-0 grace=30s"));
  EXPECT_THAT(writer.events_of("eviction-refused"),
              ElementsAre("10m0s eviction of default/batch-0 from node n1: the pod has karpenter.sh/do-not-disrupt: "
                          "\"true\", so it is not evicted and stays until the drain's deadline; retrying every 10s"));
  expect_deleted_at(12min, "n1");
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("10m0s evict default/web-0 grace=30s"));  // batch-0 never
}

TEST_F(Disruption, SpotInterruptionDrainsAtOnceAndLaunchesTheReplacementBesideTheDrain) {
  // n1 and n2 (c.2xlarge, 8 cpus) run a 5-cpu pod each: n1's pod fits nowhere else. The notice at 10 s launches
  // what it needs at once (the cheapest fit: c.2xlarge spot, $0.16/h) and evicts it in the same instant, without
  // waiting for the replacement to be Ready; n1 goes when its pod has run out its 30 s grace period.
  add_node(state, cloud, "n1", "default");
  add_node(state, cloud, "n2", "default");
  run_pod("n1-web", 5000, "n1");
  run_pod("n2-web", 5000, "n2");
  disruption.reconcile();
  clock.advance_to(10s);
  disruption.interruption_notice("n1", 2min);

  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  EXPECT_THAT(cloud.calls, Contains("launch c.2xlarge zone-a spot"));
  EXPECT_THAT(writer.calls, ElementsAre("10s node_launched " + replacement + " c.2xlarge zone-a spot",
                                        "10s taint n1 +karpenter.sh/disrupted", "10s evict default/n1-web grace=30s"));
  EXPECT_THAT(writer.events_of("interruption"),
              ElementsAre("10s spot interruption notice for node n1 (c.2xlarge zone-a), reclaimed in 2m0s; draining, "
                          "1 pod move; replacement launched at once: " + replacement));
  EXPECT_THAT(writer.object_events, Contains("10s Node n1 SpotInterrupted: Spot interruption warning: the instance is "
                                             "reclaimed in 2m0s"));
  clock.advance_to(40s);
  EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre("40s delete_node n1"));
}

TEST_F(Disruption, DriftedNodesAreReplacedOldestFirstWithinABudgetOfOne) {
  // n1 (launched at 0 s) and n2 (at 1 s) run a 5-cpu pod each on 8 cpus, stamped with the NodePool's template
  // hash. At 1 min a label is added to the template: both drift. The budget for Drifted is one node: n1 goes first,
  // replaced by a node launched for its pod (it fits on no other), and is drained once that is Ready; n2 is not
  // touched before n1 is gone.
  NodePool pool = *state.find_nodepool("default");
  pool.budgets = {DisruptionBudget{IntOrPercent{1, false}, {"Drifted"}}};
  state.nodepool_applied(pool);
  for (const char* name : {"n1", "n2"}) {
    state::NodeRecord& node = add_node(state, cloud, name, "default");
    node.nodepool_hash = pool.hash();
    node.nodepool_hash_version = std::string(kNodePoolHashVersion);
    run_pod(std::string(name) + "-web", 5000, name);
  }
  state.find_node("n2")->launched_at = 1s;
  disruption.reconcile();
  clock.advance_to(59s);
  EXPECT_THAT(writer.calls, IsEmpty());

  pool.template_labels.set(Symbol("team"), Symbol("checkout"));
  state.nodepool_applied(pool);
  clock.advance_to(1min);
  disruption.reconcile();
  clock.advance_to(1min);
  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  EXPECT_THAT(writer.calls_of("taint"), ElementsAre("1m0s taint n1 +karpenter.sh/disrupted"));
  EXPECT_THAT(writer.events_of("drift"),
              ElementsAre("1m0s node n1 drifted (NodePoolDrifted): replaced by " + replacement + ", 1 pod move"));

  clock.advance_to(90s);
  state.node_ready(*state.find_node(replacement));
  disruption.reconcile();
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("1m30s evict default/n1-web grace=30s"));
  clock.advance_to(2min - 1ms);
  EXPECT_THAT(writer.calls_of("taint"), Not(Contains(HasSubstr("taint n2"))));
  clock.advance_to(2min);
  EXPECT_THAT(writer.calls_of("delete_node"), Contains("2m0s delete_node n1"));
  disruption.reconcile();
  clock.advance_to(3min);
  EXPECT_THAT(writer.calls_of("taint"), Contains(HasSubstr("taint n2 +karpenter.sh/disrupted")));
}

}  // namespace
}  // namespace scalewright::controllers
