// ClusterAutoscalerController resuming on a running cluster (`scalewright run`, a new leader): group "ng" is c.large
// (2 cpu) in zone-a and zone-b, --nodes=2:5:ng, and its Auto Scaling group's desired capacity is 3 before any node
// exists. What the cluster shows decides the target: the group's live nodes, at least its minimum; its desired
// capacity only while it has none.
#include "controllers/cluster_autoscaler_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"
#include "cloud/aws/auto_scaling_groups.h"
#include "config/cluster_autoscaler_flags.h"

namespace scalewright::controllers {
namespace {

using namespace fakes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class NodeGroups : public ::testing::Test, protected FakeCluster {
 protected:
  NodeGroups() {
    CloudNodeGroup asg;
    asg.name = "ng";
    asg.instance_type = "c.large";
    asg.zones = {"zone-a", "zone-b"};
    asg.min_size = 2;
    asg.max_size = 5;
    asg.desired_capacity = 3;
    Result<nodegroups::AutoscalerOptions> flags = config::parse_autoscaler_flags({"--nodes=2:5:ng"});
    Result<std::vector<nodegroups::NodeGroup>> built =
        cloud::aws::discover_node_groups({asg}, *flags, cloud.catalog());
    EXPECT_TRUE(built) << built.error().message;
    Result<ClusterAutoscalerLoop> loop =
        ClusterAutoscalerLoop::create(*flags, std::move(*built), {}, "flags");
    EXPECT_TRUE(loop) << loop.error().message;
    EXPECT_FALSE(cloud.node_groups().add(played_group(*loop->group("ng"))));
    groups = std::make_unique<ClusterAutoscalerController>(ports, lifecycle, termination, std::move(*loop));
  }

  // A node of the group found on the cluster, in `zone`.
  state::NodeRecord& group_node(const std::string& name) {
    state::NodeRecord& node = add_node(state, cloud, name, "", true, "c.large");
    node.node_group = "ng";
    cloud.node_groups().adopt("ng", *cloud.get(node.instance_id));  // the group's own, as its cloud knows it
    node.node.meta.labels.set(Symbol(nodegroups::kNodeGroupLabel), Symbol("ng"));
    return node;
  }
  std::int32_t target() const { return groups->loop().group("ng")->target_size; }

  NodeLifecycleController lifecycle{ports};
  TerminationController termination{ports};
  std::unique_ptr<ClusterAutoscalerController> groups;
};

TEST_F(NodeGroups, WithNoNodeYetTheGroupStartsAtItsDesiredCapacity) {
  groups->resume();
  EXPECT_EQ(target(), 3);
  // Zones in turn: a, b, a.
  const std::vector<std::string> launched = writer.calls_of("node_launched");
  ASSERT_THAT(launched, SizeIs(3));
  EXPECT_THAT(launched[0], ::testing::EndsWith("c.large zone-a on-demand"));
  EXPECT_THAT(launched[1], ::testing::EndsWith("c.large zone-b on-demand"));
  EXPECT_THAT(launched[2], ::testing::EndsWith("c.large zone-a on-demand"));
  // Each launched node carries its group's label: how the next leader finds it.
  for (const auto& [name, node] : state.nodes()) {
    ASSERT_NE(node.node.meta.labels.find(Symbol(nodegroups::kNodeGroupLabel)), nullptr) << name;
    EXPECT_EQ(node.node.meta.labels.find(Symbol(nodegroups::kNodeGroupLabel))->str(), "ng");
  }
}

TEST_F(NodeGroups, AnInstanceTheCloudHasNoCapacityForIsLetGoAndTheGroupBacksOff) {
  // zone-a has no on-demand c.large: every launch goes to zone-a (the group has no instance anywhere yet) and fails.
  cloud.out_of_capacity("c.large", "zone-a", cloud::CapacityType::OnDemand);
  groups->resume();
  EXPECT_THAT(cloud.calls, ElementsAre("launch c.large zone-a on-demand", "launch c.large zone-a on-demand",
                                       "launch c.large zone-a on-demand"));
  EXPECT_THAT(writer.calls_of("node_launched"), IsEmpty());
  EXPECT_THAT(writer.events_of("insufficient-capacity"),
              ElementsAre("0s ng: InsufficientInstanceCapacity: no capacity for 1 offerings",
                          "0s ng: InsufficientInstanceCapacity: no capacity for 1 offerings",
                          "0s ng: InsufficientInstanceCapacity: no capacity for 1 offerings"));
  // Each failed instance is deleted from the group, its target with it; CA's own target shrinks back the same.
  EXPECT_EQ(*cloud.node_groups().target_size("ng"), 0);
  EXPECT_THAT(*cloud.node_groups().nodes("ng"), IsEmpty());
  EXPECT_EQ(target(), 0);
}

TEST_F(NodeGroups, LiveNodesBelowTheMinimumAreToppedUpAndAnAbandonedScaleDownUntainted) {
  state::NodeRecord& old = group_node("ng-old");  // zone-a, left tainted by a leader that died mid scale-down
  writer.set_taint("ng-old", Taint{"ToBeDeletedByClusterAutoscaler", "", TaintEffect::NoSchedule}, true);
  writer.calls.clear();
  groups->resume();
  EXPECT_EQ(target(), 2);  // max(1 live, minimum 2), not the desired capacity 3
  EXPECT_EQ(*cloud.node_groups().target_size("ng"), 2);  // the group's cloud keeps the same
  EXPECT_THAT(writer.calls_of("taint"), ElementsAre("0s taint ng-old -ToBeDeletedByClusterAutoscaler"));
  EXPECT_THAT(old.node.taints, IsEmpty());
  const std::vector<std::string> launched = writer.calls_of("node_launched");
  ASSERT_THAT(launched, SizeIs(1));
  EXPECT_THAT(launched[0], ::testing::EndsWith("c.large zone-b on-demand"));  // the zone with fewer of its nodes
}

TEST_F(NodeGroups, MoreLiveNodesThanTheDesiredCapacityAreTheTarget) {
  for (const char* name : {"ng-1", "ng-2", "ng-3", "ng-4"}) group_node(name);
  groups->resume();
  EXPECT_EQ(target(), 4);  // an earlier leader scaled up to 4: kept, nothing launched
  EXPECT_THAT(writer.calls_of("node_launched"), IsEmpty());
  EXPECT_THAT(cloud.calls, IsEmpty());
  // And the scan runs from now on.
  EXPECT_THAT(clock.pending(), ElementsAre(kStart));
}

TEST_F(NodeGroups, PendingPodsAreToldWhichScaleUpTheyTriggeredAndWhyNotOnceWhileTheReasonHolds) {
  // Two nodes at the minimum, each full with a 1.5-CPU pod of its 2 CPUs. Two more 1.5-CPU pods need a node each:
  // ng 2 -> 4. A 3-CPU pod fits no c.large at all.
  for (const char* name : {"ng-1", "ng-2"}) {
    group_node(name);
    bind_pod(state, clock, add_pod(state, clock, std::string("running-") + name, 1500), name);
  }
  add_pod(state, clock, "web-0", 1500);
  add_pod(state, clock, "web-1", 1500);
  add_pod(state, clock, "big-0", 3000);
  groups->resume();
  clock.advance_to(kStart + 0s);
  EXPECT_EQ(target(), 4);
  auto pod_events = [&] {
    std::vector<std::string> out;
    for (const std::string& e : writer.object_events) {
      if (e.find(" Pod ") != std::string::npos) out.push_back(e);
    }
    return out;
  };
  EXPECT_THAT(pod_events(),
              ElementsAre("0s Pod default/web-0 TriggeredScaleUp: pod triggered scale-up: [{ng 2->4 (max: 5)}]",
                          "0s Pod default/web-1 TriggeredScaleUp: pod triggered scale-up: [{ng 2->4 (max: 5)}]",
                          "0s Pod default/big-0 NotTriggerScaleUp: pod didn't trigger scale-up: 1 Insufficient cpu"));
  // The next scan, 10 s on: the web pods wait for the two nodes coming up, and big-0's reason is the same: nothing
  // more is said.
  clock.advance_to(kStart + 10s);
  EXPECT_EQ(target(), 4);
  EXPECT_THAT(pod_events(), SizeIs(3));
}

// kube-controller-manager can put the not-ready taint back on a new node for a moment after it took it off. ng-3,
// launched for web-0's kind, is Ready but says so again: it is upcoming, not a registered node without room, and
// web-0 triggers no fourth node (Cluster Autoscaler counts a registered node not yet Ready as upcoming within
// --max-node-provision-time).
TEST_F(NodeGroups, ANewNodeTaintedNotReadyAgainIsStillUpcoming) {
  for (const char* name : {"ng-1", "ng-2"}) {
    group_node(name);
    bind_pod(state, clock, add_pod(state, clock, std::string("running-") + name, 1500), name);
  }
  group_node("ng-3");
  writer.set_taint("ng-3", Taint{std::string(well_known::taint_not_ready), "", TaintEffect::NoSchedule}, true);
  add_pod(state, clock, "web-0", 1500);
  groups->resume();
  clock.advance_to(kStart + 0s);
  EXPECT_EQ(target(), 3);
  EXPECT_THAT(writer.calls_of("node_launched"), IsEmpty());
}

}  // namespace
}  // namespace scalewright::controllers
