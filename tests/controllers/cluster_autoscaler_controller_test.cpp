// ClusterAutoscalerController resuming on a running cluster (`scalewright run`, a new leader): group "ng" is c.large
// (2 cpu) in zone-a and zone-b, --nodes=2:5:ng, and its Auto Scaling group's desired capacity is 3 before any node
// exists. What the cluster shows decides the target: the group's live nodes, at least its minimum; its desired
// capacity only while it has none.
#include "controllers/cluster_autoscaler_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"
#include "cloud/aws/auto_scaling_groups.h"
#include "cluster/observer.h"
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


// Two groups of c.large, --nodes=0:5:fast and --nodes=0:5:slow, each at desired capacity 1 with no node yet, and
// --max-node-provision-time=10m; group fast sets its own 2 minutes (its maxnodeprovisiontime option, as the Cluster
// API provider reads it from the group's annotation). The nodes the test does not register never become Ready.
class GroupOwnProvisionTime : public ::testing::Test, protected FakeCluster {
 protected:
  GroupOwnProvisionTime() {
    std::vector<CloudNodeGroup> asgs;
    for (const char* name : {"fast", "slow"}) {
      CloudNodeGroup asg;
      asg.name = name;
      asg.instance_type = "c.large";
      asg.zones = {"zone-a"};
      asg.max_size = 5;
      asg.desired_capacity = 1;
      asgs.push_back(asg);
    }
    Result<nodegroups::AutoscalerOptions> flags =
        config::parse_autoscaler_flags({"--nodes=0:5:fast", "--nodes=0:5:slow", "--max-node-provision-time=10m"});
    EXPECT_TRUE(flags) << flags.error().message;
    Result<std::vector<nodegroups::NodeGroup>> built = cloud::aws::discover_node_groups(asgs, *flags, cloud.catalog());
    EXPECT_TRUE(built) << built.error().message;
    (*built)[0].options.max_node_provision_time = Duration{2 * 60'000};
    Result<ClusterAutoscalerLoop> loop = ClusterAutoscalerLoop::create(*flags, std::move(*built), {}, "flags");
    EXPECT_TRUE(loop) << loop.error().message;
    for (const char* name : {"fast", "slow"}) {
      EXPECT_FALSE(cloud.node_groups().add(played_group(*loop->group(name))));
    }
    groups = std::make_unique<ClusterAutoscalerController>(ports, lifecycle, termination, std::move(*loop));
    lifecycle.set_node_groups(groups.get());  // as the simulator and `scalewright run` wire them
  }

  NodeLifecycleController lifecycle{ports};
  TerminationController termination{ports};
  std::unique_ptr<ClusterAutoscalerController> groups;
};

TEST_F(GroupOwnProvisionTime, ANodeThatNeverComesIsGivenUpAfterItsGroupsOwnProvisionTime) {
  groups->resume();
  EXPECT_THAT(writer.calls_of("node_launched"), ElementsAre("0s node_launched fast-new-1 c.large zone-a on-demand",
                                                            "0s node_launched slow-new-2 c.large zone-a on-demand"));
  // fast's node is given up at 2 minutes, its target back to 0; slow's waits the flag's 10 minutes.
  clock.advance_to(kStart + 2min - 1s);
  EXPECT_THAT(writer.events_of("registration-timeout"), IsEmpty());
  clock.advance_to(kStart + 2min);
  EXPECT_THAT(writer.events_of("registration-timeout"),
              ElementsAre("2m0s node fast-new-1 did not become Ready within 2m0s; deleted"));
  EXPECT_EQ(groups->loop().group("fast")->target_size, 0);
  EXPECT_EQ(groups->loop().group("slow")->target_size, 1);
  clock.advance_to(kStart + 10min);
  EXPECT_THAT(writer.events_of("registration-timeout"),
              ElementsAre("2m0s node fast-new-1 did not become Ready within 2m0s; deleted",
                          "10m0s node slow-new-2 did not become Ready within 10m0s; deleted"));
  EXPECT_EQ(groups->loop().group("slow")->target_size, 0);
}

// A registered node still tainted not-ready counts as upcoming for its group's provision time only (CA's
// still-starting node). Each group has one, launched at 0; two 1.5-CPU pods (one per c.large) arrive at 1 min and
// wait for them. At 2 min fast's node is past its group's 2 minutes: a registered node without room, so one pod
// still waits for slow's node (upcoming for the flag's 10 minutes) and the other raises a group, 2 -> 3 nodes.
TEST_F(GroupOwnProvisionTime, ARegisteredNodeNotYetReadyIsUpcomingForItsGroupsOwnProvisionTime) {
  const Taint not_ready{std::string(well_known::taint_not_ready), "", TaintEffect::NoSchedule};
  for (const char* group : {"fast", "slow"}) {
    const std::string name = std::string(group) + "-1";
    state::NodeRecord& node = add_node(state, cloud, name, "", true, "c.large");
    node.node_group = group;
    cloud.node_groups().adopt(group, *cloud.get(node.instance_id));
    node.node.meta.labels.set(Symbol(nodegroups::kNodeGroupLabel), Symbol(group));
    writer.set_taint(name, not_ready, true);
  }
  groups->resume();
  clock.advance_to(kStart + 1min);
  add_pod(state, clock, "web-0", 1500);
  add_pod(state, clock, "web-1", 1500);
  clock.advance_to(kStart + 1min + 50s);
  EXPECT_EQ(groups->loop().group("fast")->target_size, 1);
  EXPECT_EQ(groups->loop().group("slow")->target_size, 1);
  clock.advance_to(kStart + 2min);
  EXPECT_EQ(groups->loop().group("fast")->target_size + groups->loop().group("slow")->target_size, 3);
}

// --- a cloud that launches a group's instances after the raise (an Auto Scaling group) -------------------------

// As Cluster Autoscaler's AWS provider shows an Auto Scaling group: a raise returns no instance; the instances the
// test launches appear in nodes() as it launches them, and the rest of the target as placeholders
// (i-placeholder-ng-<n>), which carry `unfulfillable` once set (a failed scaling activity).
class FakeAutoScalingGroup final : public cloud::NodeGroupProvider {
 public:
  explicit FakeAutoScalingGroup(const cloud::Catalog& catalog) : catalog_(catalog) {}

  std::vector<std::string> calls;  // "increase 1", "delete i-1"
  std::int32_t target = 0;
  std::optional<cloud::CloudError> unfulfillable;

  // The group launched instance `id` of c.large in `zone`.
  void launch(const std::string& id, const std::string& zone) {
    cloud::GroupInstance item;
    item.instance.id = id;
    item.instance.instance_type = catalog_.find("c.large");
    item.instance.offering = *item.instance.instance_type->offering(zone, cloud::CapacityType::OnDemand);
    item.instance.provider_id = "aws:///" + zone + "/" + id;
    item.state = cloud::InstanceState::Running;
    instances_.push_back(std::move(item));
  }

  cloud::CloudResult<std::int32_t> target_size(const std::string&) const override { return target; }
  cloud::CloudResult<std::vector<cloud::GroupInstance>> increase_size(const std::string&, std::int32_t delta) override {
    calls.push_back(fmt::format("increase {}", delta));
    target += delta;
    unfulfillable.reset();  // failures before a change of size are old news
    return std::vector<cloud::GroupInstance>{};
  }
  cloud::CloudResult<cloud::Deleted> delete_nodes(const std::string&, const std::vector<std::string>& ids) override {
    for (const std::string& id : ids) {
      calls.push_back("delete " + id);
      if (id.starts_with("i-placeholder-")) {
        target = static_cast<std::int32_t>(instances_.size());
      } else if (std::erase_if(instances_, [&](const cloud::GroupInstance& i) { return i.instance.id == id; }) > 0) {
        --target;
      }
    }
    return cloud::Deleted{};
  }
  cloud::CloudResult<cloud::Deleted> decrease_target_size(const std::string&, std::int32_t delta) override {
    target -= delta;
    return cloud::Deleted{};
  }
  cloud::CloudResult<std::vector<cloud::GroupInstance>> nodes(const std::string&) const override {
    std::vector<cloud::GroupInstance> out = instances_;
    for (auto n = static_cast<std::int32_t>(instances_.size()); n < target; ++n) {
      cloud::GroupInstance placeholder;
      placeholder.instance.id = fmt::format("i-placeholder-ng-{}", n);
      placeholder.instance.node_name = placeholder.instance.id;
      placeholder.instance.provider_id = "aws:///zone-a/" + placeholder.instance.id;
      placeholder.error = unfulfillable;
      placeholder.placeholder = true;
      out.push_back(std::move(placeholder));
    }
    return out;
  }
  // The instance `id` left the group (its health check failed, someone terminated it).
  void lose(const std::string& id) {
    std::erase_if(instances_, [&](const cloud::GroupInstance& i) { return i.instance.id == id; });
  }

 private:
  const cloud::Catalog& catalog_;
  std::vector<cloud::GroupInstance> instances_;
};

// What `scalewright run` tells the controllers of a Node it observed (ClusterRuntime's listener).
struct RegistrationsTold : cluster::ObserverListener {
  explicit RegistrationsTold(NodeLifecycleController& lifecycle) : lifecycle(lifecycle) {}
  void node_registered(const std::string&) override {}
  void node_ready(const std::string& node) override { lifecycle.registered(node); }
  void pod_left(const std::string&) override {}
  void object_unreadable(const std::string&) override {}
  NodeLifecycleController& lifecycle;
};

// Group "ng" of c.large (2 cpu) in zone-a and zone-b, --nodes=0:5:ng, desired capacity 0, on an Auto Scaling group
// played by FakeAutoScalingGroup; an empty node is unneeded after 1 min, and scale-down may follow a scale-up at
// once. Nodes register through the real observer, as `scalewright run` sees them.
class AutoScalingGroupNodes : public ::testing::Test, protected FakeCluster {
 protected:
  AutoScalingGroupNodes() {
    CloudNodeGroup asg;
    asg.name = "ng";
    asg.instance_type = "c.large";
    asg.zones = {"zone-a", "zone-b"};
    asg.max_size = 5;
    Result<nodegroups::AutoscalerOptions> flags = config::parse_autoscaler_flags(
        {"--nodes=0:5:ng", "--scale-down-unneeded-time=1m", "--scale-down-delay-after-add=0s"});
    EXPECT_TRUE(flags) << flags.error().message;
    Result<std::vector<nodegroups::NodeGroup>> built = cloud::aws::discover_node_groups({asg}, *flags, cloud.catalog());
    EXPECT_TRUE(built) << built.error().message;
    Result<ClusterAutoscalerLoop> loop = ClusterAutoscalerLoop::create(*flags, std::move(*built), {}, "flags");
    EXPECT_TRUE(loop) << loop.error().message;
    groups = std::make_unique<ClusterAutoscalerController>(asg_ports, lifecycle, termination, std::move(*loop));
  }

  // The kubelet of instance `id` registers its Node `name` (an EC2 hostname), Ready, with the instance's providerID.
  void registers(const std::string& name, const std::string& id, const std::string& zone) {
    const nlohmann::json node = {
        {"metadata",
         {{"name", name},
          {"labels",
           {{"kubernetes.io/hostname", name},
            {"node.kubernetes.io/instance-type", "c.large"},
            {"topology.kubernetes.io/zone", zone}}}}},
        {"spec", {{"providerID", "aws:///" + zone + "/" + id}}},
        {"status",
         {{"capacity", {{"cpu", "2"}, {"memory", "4Gi"}, {"pods", "110"}}},
          {"allocatable", {{"cpu", "2"}, {"memory", "4Gi"}, {"pods", "110"}}},
          {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
    observer.observe(cluster::resources::nodes, cluster::Change::Added, node, clock.now());
  }
  std::int32_t target() const { return groups->loop().group("ng")->target_size; }

  FakeAutoScalingGroup asg{cloud.catalog()};
  Ports asg_ports{state, clock, writer, cloud, asg, launches};
  NodeLifecycleController lifecycle{asg_ports};
  TerminationController termination{asg_ports};
  std::unique_ptr<ClusterAutoscalerController> groups;
  cluster::TimeBase time{std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000))};
  RegistrationsTold told{lifecycle};
  cluster::ClusterObserver observer{state, cloud.catalog(), time, told};
};

TEST_F(AutoScalingGroupNodes, AnInstanceListedAfterTheRaiseIsTheGroupsNodeOnceItsNodeRegistersUnderItsOwnName) {
  state::PodRecord& web = add_pod(state, clock, "web-0", 1500);
  groups->resume();
  clock.advance_to(kStart + 0s);
  EXPECT_THAT(asg.calls, ElementsAre("increase 1"));  // ng 0 -> 1
  EXPECT_EQ(target(), 1);
  // 10 s on, the group has no instance yet, only its placeholder: web-0 waits for it, nothing more is raised.
  clock.advance_to(kStart + 10s);
  EXPECT_THAT(asg.calls, ElementsAre("increase 1"));
  EXPECT_THAT(writer.calls_of("node_launched"), IsEmpty());
  // The group launched i-1; the next scan plans the group's node on it, named after it until its Node registers.
  asg.launch("i-1", "zone-b");
  clock.advance_to(kStart + 20s);
  EXPECT_THAT(writer.calls_of("node_launched"), ElementsAre("20s node_launched i-1 c.large zone-b on-demand"));
  const state::NodeRecord* planned = state.find_node("i-1");
  ASSERT_NE(planned, nullptr);
  EXPECT_EQ(planned->phase, state::NodePhase::Launching);
  EXPECT_EQ(planned->node_group, "ng");
  EXPECT_EQ(planned->node.provider_id, "aws:///zone-b/i-1");
  // Its kubelet registers the Node under EC2's hostname, with the instance's providerID: it is the group's node.
  clock.advance_to(kStart + 25s);
  registers("ip-10-0-2-7.ec2.internal", "i-1", "zone-b");
  EXPECT_EQ(state.find_node("ip-10-0-2-7.ec2.internal"), nullptr);
  EXPECT_EQ(observer.node_names().object_of("i-1"), "ip-10-0-2-7.ec2.internal");
  EXPECT_EQ(planned->phase, state::NodePhase::Ready);
  EXPECT_THAT(writer.events_of("ready"), ElementsAre("25s node i-1 Ready (5s after launch)"));
  bind_pod(state, clock, web, "i-1");
  clock.advance_to(kStart + 30s);
  EXPECT_THAT(asg.calls, ElementsAre("increase 1"));
  EXPECT_EQ(target(), 1);
  // web-0 goes; the node is unneeded from the next scan (40 s) and, empty, is removed at the first scan more than
  // 1 min later: its Node by the state's name (the writer names the Node object), its instance through the group
  // by its id.
  state.pod_deleted("default/web-0");
  clock.advance_to(kStart + 110s);
  EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre("1m50s delete_node i-1"));
  EXPECT_THAT(asg.calls, ElementsAre("increase 1", "delete i-1"));
  EXPECT_EQ(target(), 0);
  EXPECT_EQ(asg.target, 0);
}

// Three pods of 1.5 CPU need three c.large: a group that launches later is raised by one, then by the other two in
// one call (CA raises an Auto Scaling group by the whole delta), not once per node.
TEST_F(AutoScalingGroupNodes, AScaleUpOfSeveralNodesRaisesTheGroupOnceItLaunchesLater) {
  for (const char* pod : {"web-0", "web-1", "web-2"}) add_pod(state, clock, pod, 1500);
  groups->resume();
  clock.advance_to(kStart + 0s);
  EXPECT_THAT(asg.calls, ElementsAre("increase 1", "increase 2"));
  EXPECT_EQ(target(), 3);
  EXPECT_EQ(asg.target, 3);
}

TEST_F(AutoScalingGroupNodes, PlaceholdersAreUpcomingAndOneThatCannotBeFulfilledBacksTheGroupOff) {
  add_pod(state, clock, "web-0", 1500);
  groups->resume();
  clock.advance_to(kStart + 30s);  // four scans: one raise, the placeholder awaited three times
  EXPECT_THAT(asg.calls, ElementsAre("increase 1"));
  EXPECT_THAT(writer.calls_of("node_launched"), IsEmpty());
  // The group's scaling activity failed: the placeholder is let go (the target back to 0) and the group backs off,
  // so web-0 triggers no raise while it lasts (5 min at first).
  asg.unfulfillable = cloud::CloudError{cloud::ErrorClass::InsufficientCapacity,
                                        "node group ng: placeholder-cannot-be-fulfilled", {}};
  clock.advance_to(kStart + 40s);
  EXPECT_THAT(asg.calls, ElementsAre("increase 1", "delete i-placeholder-ng-0"));
  EXPECT_THAT(writer.events_of("insufficient-capacity"),
              ElementsAre("40s ng: node group ng: placeholder-cannot-be-fulfilled"));
  EXPECT_EQ(target(), 0);
  EXPECT_EQ(asg.target, 0);
  clock.advance_to(kStart + 330s);
  EXPECT_THAT(asg.calls, SizeIs(2));
  // Once the back-off ends, web-0 raises the group again.
  clock.advance_to(kStart + 350s);
  EXPECT_THAT(asg.calls, ElementsAre("increase 1", "delete i-placeholder-ng-0", "increase 1"));
}

TEST_F(AutoScalingGroupNodes, AnInstanceThatLeftTheGroupBeforeItsNodeRegisteredStopsCounting) {
  asg.target = 1;
  asg.launch("i-1", "zone-a");
  groups->resume();
  ASSERT_NE(state.find_node("i-1"), nullptr);
  EXPECT_EQ(target(), 1);
  // The group replaced it (a failed health check) with i-2: i-1's planned node goes without a trace, i-2's comes.
  asg.lose("i-1");
  asg.launch("i-2", "zone-a");
  clock.advance_to(kStart + 0s);
  EXPECT_THAT(writer.calls_of("nodeclaim_not_launched"), ElementsAre("0s nodeclaim_not_launched i-1"));
  EXPECT_EQ(state.find_node("i-1"), nullptr);
  EXPECT_THAT(writer.calls_of("node_launched"),
              ElementsAre("0s node_launched i-1 c.large zone-a on-demand", "0s node_launched i-2 c.large zone-a on-demand"));
  EXPECT_THAT(asg.calls, IsEmpty());
}

TEST_F(AutoScalingGroupNodes, ANodeRegisteredBeforeTheControllerStartedIsTheGroupsByItsProviderId) {
  // Desired capacity 1, its instance i-9 running, its Node registered under EC2's hostname with no label of ours.
  asg.target = 1;
  asg.launch("i-9", "zone-b");
  registers("ip-10-0-9-9.ec2.internal", "i-9", "zone-b");
  ASSERT_NE(state.find_node("ip-10-0-9-9.ec2.internal"), nullptr);
  EXPECT_EQ(state.find_node("ip-10-0-9-9.ec2.internal")->node_group, "");
  groups->resume();
  const state::NodeRecord* node = state.find_node("ip-10-0-9-9.ec2.internal");
  EXPECT_EQ(node->node_group, "ng");
  EXPECT_EQ(node->instance_id, "i-9");
  EXPECT_EQ(node->phase, state::NodePhase::Ready);
  EXPECT_EQ(target(), 1);  // the group's one node: nothing launched, nothing raised
  EXPECT_THAT(asg.calls, IsEmpty());
  // Empty, it is unneeded from the first scan and removed at the first scan more than 1 min later, through its
  // group by its instance id.
  clock.advance_to(kStart + 70s);
  EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre("1m10s delete_node ip-10-0-9-9.ec2.internal"));
  EXPECT_THAT(asg.calls, ElementsAre("delete i-9"));
}

}  // namespace
}  // namespace scalewright::controllers
