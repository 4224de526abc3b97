// What a controller that keeps something per node is told: the nodes whose record changed since it last looked,
// each once, whatever changed them (added, Ready, updated, draining, gone, a pod bound, nominated or released).
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
  PodRecord& pod = *state.pod_created(pod_named("p"), "", Duration(0));
  state.pod_nominated(pod, Symbol("b"));
  EXPECT_EQ(changes.take(), Names{"b"});
  EXPECT_EQ(state.find_node("b")->busy, 1);
  state.pod_bound(pod, state.snapshot().find_node("a"), Duration(1000));
  EXPECT_EQ(changes.take(), (Names{"a", "b"}));
  EXPECT_EQ(state.find_node("a")->busy, 1);
  EXPECT_EQ(state.find_node("b")->busy, 0);

  // The pod deleted, a drained and terminated: a alone, once.
  state.pod_deleted("default/p");
  state.node_draining(a);
  state.node_terminated(a, Duration(2000));
  EXPECT_EQ(changes.take(), Names{"a"});
}

TEST(NodeChanges, ANominationToANodeNotThereIsNamedForItsReleaseAndEveryReaderIsTold) {
  ClusterState state;
  NodeChanges first(state);
  PodRecord& pod = *state.pod_created(pod_named("p"), "", Duration(0));
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

}  // namespace
}  // namespace scalewright::state
