// TerminationController through fake ports: a drain under a PodDisruptionBudget. Nodes n1 (drained, instance i-1)
// and n2 are Ready; web-0 runs on n1 and web-1 on n2, both app=web with a 30 s grace period; the PDB "web" has
// minAvailable 2. disruptionsAllowed = healthy - minAvailable = 2 - 2 = 0, so web-0 cannot be evicted until a third
// web pod is observed bound (3 - 2 = 1). The fake writer plays the kubelet: an evicted pod leaves the state when
// its grace period ends and the controller is told (pod_terminated).
#include "controllers/termination.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"

namespace scalewright::controllers {
namespace {

using namespace fakes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class Termination : public ::testing::Test, protected FakeCluster {
 protected:
  Termination() {
    add_node(state, cloud, "n1", "");
    add_node(state, cloud, "n2", "");
    web_pod("web-0", "n1");
    web_pod("web-1", "n2");
    PodDisruptionBudget pdb;
    pdb.meta.name = "web";
    pdb.meta.namespace_ = "default";
    pdb.selector = LabelSelector{{provisioning::fixtures::requirement("app", SelectorOperator::In, {"web"})}};
    pdb.min_available = IntOrPercent{2, false};
    state.pdb_applied(pdb);
    writer.on_pod_terminated = [this](const std::string& node) { termination.pod_terminated(node); };
  }

  void web_pod(const std::string& name, const std::string& node) {
    state::PodRecord& pod = add_pod(state, clock, name, 500, "web");
    pod.pod->spec.termination_grace_period_seconds = 30;
    bind_pod(state, clock, pod, node);
  }
  void drain(Duration max_pod_eviction_time) {
    const DrainRules rules{Taint{"ToBeDeletedByClusterAutoscaler", "", TaintEffect::NoSchedule},
                           max_pod_eviction_time, 10min, 3min};
    termination.drain("n1", "group-a", kStart, rules,
                      [this](const std::string& node, const std::string& group, bool deleted) {
                        finished.push_back(fmt::format("{} {} of {} {}", format_duration(since_start(clock.now())),
                                                       node, group, deleted ? "deleted" : "not deleted"));
                      });
  }

  TerminationController termination{ports};
  std::vector<std::string> finished;  // what the `finished` callback was told, when
};

TEST_F(Termination, DrainWaitsForThePdbThenDeletesTheNodeAfterTheEvictedPodsGracePeriod) {
  drain(10min);
  // Tainted, web-0's eviction refused (said once) and tried again every 10 s.
  EXPECT_THAT(writer.calls, ElementsAre("0s taint n1 +ToBeDeletedByClusterAutoscaler"));
  EXPECT_THAT(state.find_node("n1")->node.taints, SizeIs(1));
  ASSERT_THAT(writer.events_of("eviction-refused"), SizeIs(1));
  EXPECT_THAT(writer.events_of("eviction-refused")[0],
              HasSubstr("default/web-0 from node n1: cannot evict pod as it would violate the pod's disruption "
                        "budget default/web"));
  EXPECT_THAT(clock.pending(), ElementsAre(kStart + 10s));
  clock.advance_to(kStart + 20s);
  EXPECT_THAT(writer.calls_of("evict"), IsEmpty());
  EXPECT_THAT(clock.pending(), ElementsAre(kStart + 30s));
  EXPECT_THAT(writer.events_of("eviction-refused"), SizeIs(1));

  // A replacement is bound on n2 at 25 s: the retry at 30 s evicts web-0 with its 30 s grace period.
  clock.advance_to(kStart + 25s);
  web_pod("web-2", "n2");
  clock.advance_to(kStart + 30s);
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("30s evict default/web-0 grace=30s"));

  // The node goes when web-0 has stopped: at 30 + 30 = 60 s, not before.
  clock.advance_to(kStart + 59'999ms);
  EXPECT_THAT(writer.calls_of("delete_node"), IsEmpty());
  EXPECT_THAT(finished, IsEmpty());
  clock.advance_to(kStart + 60s);
  EXPECT_THAT(writer.calls, ElementsAre("0s taint n1 +ToBeDeletedByClusterAutoscaler",
                                        "30s evict default/web-0 grace=30s", "1m0s delete_node n1"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate i-1"));
  EXPECT_THAT(finished, ElementsAre("1m0s n1 of group-a deleted"));
  EXPECT_FALSE(termination.draining("n1"));
}

TEST_F(Termination, DrainThatCannotEvictWithinMaxPodEvictionTimeRemovesTheTaintAndFails) {
  // No replacement ever comes: refused at 0, 10, ..., 50 s; the round at 60 s = 0 + max_pod_eviction_time fails.
  drain(1min);
  clock.advance_to(kStart + 59'999ms);
  EXPECT_THAT(finished, IsEmpty());
  EXPECT_THAT(state.find_node("n1")->node.taints, SizeIs(1));

  clock.advance_to(kStart + 60s);
  EXPECT_THAT(writer.calls, ElementsAre("0s taint n1 +ToBeDeletedByClusterAutoscaler",
                                        "1m0s taint n1 -ToBeDeletedByClusterAutoscaler"));
  EXPECT_THAT(state.find_node("n1")->node.taints, IsEmpty());
  EXPECT_THAT(finished, ElementsAre("1m0s n1 of group-a not deleted"));
  EXPECT_THAT(writer.events_of("scale-down-failed"), SizeIs(1));
  EXPECT_THAT(cloud.calls, IsEmpty());
  EXPECT_FALSE(termination.draining("n1"));
  EXPECT_THAT(clock.pending(), IsEmpty());
}

TEST_F(Termination, APdbWithoutSelectorHoldsNoPodAndWeb0GoesAtOnce) {
  PodDisruptionBudget pdb = state.pdbs().front();
  pdb.selector.reset();
  state.pdb_applied(pdb);
  drain(10min);
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("0s evict default/web-0 grace=30s"));
  EXPECT_THAT(writer.events_of("eviction-refused"), IsEmpty());
}

TEST_F(Termination, APodThatTwoPdbsCoverIsNeverEvicted) {
  // "all" ({} selects every pod of default) allows 2 - 0 = 2 disruptions, "web" none: two budgets refuse anyway,
  // and go on refusing once web-2 gives "web" one to spare.
  PodDisruptionBudget all;
  all.meta.name = "all";
  all.meta.namespace_ = "default";
  all.selector = LabelSelector{};
  state.pdb_applied(all);
  drain(1min);
  ASSERT_THAT(writer.events_of("eviction-refused"), SizeIs(1));
  EXPECT_THAT(writer.events_of("eviction-refused")[0],
              HasSubstr("default/web-0 from node n1: the pod has more than one PodDisruptionBudget"));
  clock.advance_to(kStart + 5s);
  web_pod("web-2", "n2");
  clock.advance_to(kStart + 60s);
  EXPECT_THAT(writer.calls_of("evict"), IsEmpty());
  EXPECT_THAT(finished, ElementsAre("1m0s n1 of group-a not deleted"));
}

TEST_F(Termination, ARunningPodThatIsNotReadyIsEvictedUnderAlwaysAllowAndWaitsUnderIfHealthyBudget) {
  // web-0 Running but not Ready: 1 healthy (web-1) of minAvailable 2, so 0 disruptions allowed.
  state::PodRecord* web0 = state.find_pod("default/web-0");
  web0->pod->status.phase = PodPhase::Running;
  web0->pod->status.conditions.push_back({"Ready", "False", "ContainersNotReady"});
  // IfHealthyBudget: 1 healthy < 2 desired, refused.
  drain(10min);
  EXPECT_THAT(writer.calls_of("evict"), IsEmpty());
  ASSERT_THAT(writer.events_of("eviction-refused"), SizeIs(1));

  // AlwaysAllow: the retry at 10 s evicts it, though the budget still allows no disruption.
  PodDisruptionBudget pdb = state.pdbs().front();
  pdb.unhealthy_pod_eviction_policy = UnhealthyPodEvictionPolicy::AlwaysAllow;
  state.pdb_applied(pdb);
  clock.advance_to(kStart + 10s);
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("10s evict default/web-0 grace=30s"));
}

// A NodeClaim deleted by another hand (kubectl delete nodeclaim) and held by its finalizer: its Ready node is
// drained first (n3 runs no pod, so at once: tainted, deleted, its instance i-3 terminated), and at the next look,
// the node gone, the instance's termination is asked again (a leader that died mid-delete may not have) and the
// finalizer comes off, once.
TEST_F(Termination, DeletedNodeClaimIsDrainedThenItsFinalizerRemovedOnce) {
  add_node(state, cloud, "n3", "default");
  state.nodeclaim_finalizing("n3", true);
  termination.reconcile();
  EXPECT_THAT(writer.calls, ElementsAre("0s taint n3 +karpenter.sh/disrupted", "0s delete_node n3"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate i-3"));
  termination.reconcile();
  EXPECT_THAT(writer.calls_of("release_nodeclaim"), ElementsAre("0s release_nodeclaim n3"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate i-3", "terminate i-3"));
  termination.reconcile();
  EXPECT_THAT(writer.calls_of("release_nodeclaim"), SizeIs(1));
  // Gone from the API: nothing is held for it any more.
  state.nodeclaim_finalizing("n3", false);
  termination.reconcile();
  EXPECT_THAT(writer.calls_of("release_nodeclaim"), SizeIs(1));
}

// One whose node never registered has nothing to drain: the node object goes, the instance, then the finalizer.
TEST_F(Termination, DeletedNodeClaimThatNeverRegisteredIsReleasedAtOnce) {
  add_node(state, cloud, "n3", "default", /*ready=*/false);
  state.nodeclaim_finalizing("n3", true);
  termination.reconcile();
  EXPECT_THAT(writer.calls, ElementsAre("0s delete_node n3", "0s release_nodeclaim n3"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate i-3"));
}

}  // namespace
}  // namespace scalewright::controllers
