// The observed cluster's records as observations change them. What a controller that keeps something per node is
// told: the nodes whose record changed since it last looked, each once, whatever changed them (added, Ready,
// updated, draining, gone, a pod bound, nominated or released); a NodeClaim created before its instance, then
// launched or not; deleted NodeClaims held by their finalizer.
#include "state/cluster_state.h"

#include <gtest/gtest.h>

#include "units.h"

namespace scalewright::state {
namespace {

NodeRecord node_record(const std::string& name) {
  NodeRecord record;
  record.node.meta.name = name;
  record.node.capacity.set(Symbol("cpu"), 4000);
  record.node.capacity.set(Symbol("memory"), 16 * kGi);
  record.node.capacity.set(Symbol("pods"), 110);
  record.node.allocatable = record.node.capacity;
  record.nodepool = "default";
  return record;
}

Pod pod_named(const std::string& name) {
  Pod pod;
  pod.meta.name = name;
  pod.meta.namespace_ = "default";
  Container c;
  c.name = "c";
  c.requests.set(Symbol("cpu"), 100);
  pod.spec.containers.push_back(c);
  return pod;
}

using Names = std::vector<std::string>;

TEST(NodeChanges, NamesEachChangedNodeOnceSortedThenNothingUntilTheNextChange) {
  ClusterState state;
  NodeChanges changes(state);
  state.node_added(node_record("b"));
  NodeRecord& a = state.node_added(node_record("a"));
  state.node_ready(a);
  EXPECT_EQ(changes.take(), (Names{"a", "b"}));
  EXPECT_EQ(changes.take(), Names{});

  // A pod nominated to b (in flight), then moved to a and bound there: both nodes changed, b's nominee left it.
  PodRecord& pod = *state.pod_created(pod_named("p"), "", Instant{});
  state.pod_nominated(pod, Symbol("b"));
  EXPECT_EQ(changes.take(), Names{"b"});
  EXPECT_EQ(state.find_node("b")->busy, 1);
  state.pod_bound(pod, state.snapshot().find_node("a"), Instant(Duration(1000)));
  EXPECT_EQ(changes.take(), (Names{"a", "b"}));
  EXPECT_EQ(state.find_node("a")->busy, 1);
  EXPECT_EQ(state.find_node("b")->busy, 0);

  // The pod deleted, a drained and terminated: a alone, once.
  state.pod_deleted("default/p");
  state.node_draining(a);
  state.node_terminated(a, Instant(Duration(2000)));
  EXPECT_EQ(changes.take(), Names{"a"});
}

TEST(NodeChanges, ANominationToANodeNotThereIsNamedForItsReleaseAndEveryReaderIsTold) {
  ClusterState state;
  NodeChanges first(state);
  PodRecord& pod = *state.pod_created(pod_named("p"), "", Instant{});
  {
    NodeChanges second(state);
    state.pod_nominated(pod, Symbol("gone"));
    EXPECT_EQ(second.take(), Names{"gone"});
  }
  // A reader gone is told nothing more; the one left still is.
  state.nominations_released("gone");
  EXPECT_EQ(first.take(), Names{"gone"});
  EXPECT_TRUE(state.nominees().empty());
}

// A NodeClaim's record is made when it is created (no instance yet) and takes its instance when the launch answers;
// the pods nominated to it meanwhile stay counted on it.
TEST(NodeClaimRecord, TakesItsInstanceWhenLaunchedAndKeepsThePodsNominatedToIt) {
  ClusterState state;
  state.node_added(node_record("claim-1"));
  PodRecord& pod = *state.pod_created(pod_named("web-0"), "", Instant{});
  state.pod_nominated(pod, Symbol("claim-1"));
  ASSERT_EQ(state.find_node("claim-1")->busy, 1);

  NodeRecord launched = node_record("claim-1");
  launched.instance_id = "i-1";
  launched.instance_type = "m5.large";
  launched.node.meta.labels.set(Symbol("node.kubernetes.io/instance-type"), Symbol("m5.large"));
  state.node_launched(std::move(launched));
  const NodeRecord& record = *state.find_node("claim-1");
  EXPECT_EQ(record.instance_id, "i-1");
  EXPECT_EQ(record.instance_type, "m5.large");
  EXPECT_EQ(record.phase, NodePhase::Launching);
  EXPECT_EQ(record.busy, 1);
  EXPECT_EQ(state.live_nodes(), 1);
}

// In a real cluster the node can register before the launch's answer is observed: the node as observed stays (Ready,
// its labels), and the record only learns what the instance is.
TEST(NodeClaimRecord, ANodeReadyBeforeItsLaunchAnswerKeepsWhatWasObserved) {
  ClusterState state;
  NodeRecord& claim = state.node_added(node_record("claim-1"));
  claim.node.meta.labels.set(Symbol("topology.kubernetes.io/zone"), Symbol("us-east-1a"));
  state.node_ready(claim);
  NodeRecord launched = node_record("claim-1");
  launched.instance_id = "i-1";
  launched.zone = "us-east-1a";
  state.node_launched(std::move(launched));
  const NodeRecord& record = *state.find_node("claim-1");
  EXPECT_EQ(record.phase, NodePhase::Ready);
  EXPECT_EQ(record.instance_id, "i-1");
  EXPECT_EQ(record.node.meta.labels.find(Symbol("topology.kubernetes.io/zone"))->str(), "us-east-1a");
  EXPECT_EQ(state.snapshot().find_node("claim-1") != scheduling::kNoNode, true);
}

// A NodeClaim whose launch failed leaves no trace: not in the records, not a departure, not retired for the bill.
TEST(NodeClaimRecord, OneNotLaunchedLeavesWithoutATrace) {
  ClusterState state;
  state.node_added(node_record("claim-1"));
  const std::uint64_t capacity_changes = state.capacity_changes();
  state.nodeclaim_not_launched("claim-1");
  EXPECT_EQ(state.find_node("claim-1"), nullptr);
  EXPECT_EQ(state.live_nodes(), 0);
  EXPECT_EQ(state.capacity_changes(), capacity_changes);
  state.retire_terminated();
  EXPECT_TRUE(state.retired().empty());
}

TEST(NodeClaimRecord, DeletedNodeClaimsAreHeldUntilGoneOrReleased) {
  ClusterState state;
  state.nodeclaim_finalizing("claim-1", true);
  state.nodeclaim_finalizing("claim-2", true);
  state.nodeclaim_finalizing("claim-1", false);
  EXPECT_EQ(state.nodeclaims_finalizing(), std::set<std::string>{"claim-2"});
}

}  // namespace
}  // namespace scalewright::state
