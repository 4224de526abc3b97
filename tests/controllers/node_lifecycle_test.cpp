// NodeLifecycleController through fake ports: a NodeClaim of NodePool "default" launched at 0 s on instance i-1
// must be Ready within Karpenter's registration TTL, 15 min.
#include "controllers/node_lifecycle.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"

namespace scalewright::controllers {
namespace {

using namespace fakes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class NodeLifecycle : public ::testing::Test, protected FakeCluster {
 protected:
  NodeLifecycle() {
    instance = add_node(state, cloud, "default-abcde", "default", /*ready=*/false).instance_id;
    lifecycle.launched("default-abcde", NodeLifecycleController::kRegistrationTtl);
  }

  NodeLifecycleController lifecycle{ports};
  std::string instance;
};

TEST_F(NodeLifecycle, NodeClaimNotReadyWithin15MinutesIsDeletedAndItsInstanceTerminated) {
  clock.advance_to(kStart + 15min - 1ms);
  EXPECT_THAT(writer.calls, IsEmpty());

  clock.advance_to(kStart + 15min);
  EXPECT_THAT(writer.calls, ElementsAre("15m0s delete_node default-abcde"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate " + instance));
  EXPECT_FALSE(cloud.get(instance).ok());
  EXPECT_EQ(state.find_node("default-abcde")->phase, state::NodePhase::Terminated);
  EXPECT_THAT(writer.events_of("registration-timeout"),
              ElementsAre("15m0s NodeClaim default-abcde did not become Ready within 15m0s; deleted"));
}

TEST_F(NodeLifecycle, NodeClaimThatRegistersInTimeIsKept) {
  // Ready at 14 min: the deadline at 15 min is cancelled.
  clock.advance_to(kStart + 14min);
  state.node_ready(*state.find_node("default-abcde"));
  lifecycle.registered("default-abcde");
  EXPECT_THAT(clock.pending(), IsEmpty());

  clock.advance_to(kStart + 1h);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(cloud.calls, IsEmpty());
  EXPECT_EQ(state.find_node("default-abcde")->phase, state::NodePhase::Ready);
  EXPECT_THAT(writer.events_of("ready"), ElementsAre("14m0s node default-abcde Ready (14m0s after launch)"));
}

TEST_F(NodeLifecycle, NodeClaimLaunchedByAnEarlierLeaderKeepsItsDeadline) {
  // A new leader at 0 s finds default-xyz launched 10 min before (at -10 min): given up on at 5 min, not 15.
  add_node(state, cloud, "default-xyz", "default", /*ready=*/false);
  lifecycle.launched("default-xyz", NodeLifecycleController::kRegistrationTtl, kStart - 10min);
  clock.advance_to(kStart + 5min - 1ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(kStart + 5min);
  EXPECT_THAT(writer.calls, ElementsAre("5m0s delete_node default-xyz"));
}

TEST_F(NodeLifecycle, ReadyNodesAllocatableTotalSaturatesAndIsSummedAgainWhenANodeLeaves) {
  // The total behind the reports' allocation: two Ready nodes of 5Ei made -6Ei; it stops at 2^63 - 1, and when
  // one of them drains, the other's 5Ei is what is left (not 2^63 - 1 - 5Ei).
  for (const std::string name : {"huge-1", "huge-2"}) {
    state::NodeRecord& node = add_node(state, cloud, name, "default", /*ready=*/false);
    node.node.allocatable.set(resource_names::memory(), 5 * kEi);
    state.node_ready(node);
  }
  EXPECT_EQ(state.ready_allocatable().memory(), kLargestAmount);
  state.node_draining(*state.find_node("huge-1"));
  EXPECT_EQ(state.ready_allocatable().memory(), 5 * kEi);
}

}  // namespace
}  // namespace scalewright::controllers
