#include "nodegroups/scale_down.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "units.h"

namespace scalewright::nodegroups {
namespace {

using scheduling::ClusterSnapshot;
using scheduling::NodeId;


Pod make_pod(const std::string& name, std::int64_t cpu_milli, std::int64_t memory,
             const std::string& owner_kind = "ReplicaSet", const std::string& app = "web") {
  Pod pod;
  pod.meta.name = name;
  pod.meta.namespace_ = "default";
  pod.meta.labels.set(Symbol("app"), Symbol(app));
  if (!owner_kind.empty()) pod.meta.owner_references.push_back({"apps/v1", owner_kind, app, app + "-uid", true});
  Container c;
  c.name = "app";
  c.requests.set(resource_names::cpu(), cpu_milli);
  c.requests.set(resource_names::memory(), memory);
  pod.spec.containers.push_back(std::move(c));
  pod.status.phase = PodPhase::Running;
  return pod;
}

// A cluster of m5.xlarge-like nodes (4 cpu, 16 GiB, 110 pods) in node groups, with the planner's inputs.
struct Cluster {
  ClusterSnapshot snapshot;
  ScaleDownInput input;
  AutoscalerOptions options;
  ScaleDownPlanner planner;

  Cluster() { group("ng", 0, 0); }

  NodeGroup& group(const std::string& id, std::int32_t min_size, std::int32_t target_size) {
    for (NodeGroup& g : input.groups) {
      if (g.id == id) {
        g.min_size = min_size;
        g.target_size = target_size;
        return g;
      }
    }
    NodeGroup g;
    g.id = id;
    g.min_size = min_size;
    g.max_size = 100;
    g.target_size = target_size;
    input.groups.push_back(g);
    return input.groups.back();
  }

  NodeId node(const std::string& name, const std::string& group_id = "ng", std::int64_t gpus = 0) {
    Node n;
    n.meta.name = name;
    n.meta.labels.set(Symbol("kubernetes.io/hostname"), Symbol(name));
    n.capacity.set(resource_names::cpu(), 4000);
    n.capacity.set(resource_names::memory(), 16 * kGi);
    n.capacity.set(resource_names::pods(), 110);
    if (gpus > 0) n.capacity.set(Symbol("nvidia.com/gpu"), gpus);
    n.allocatable = n.capacity;
    n.conditions.push_back({"Ready", "True", ""});
    if (!group_id.empty()) input.group_of_node[name] = group_id;
    return snapshot.add_node(std::move(n));
  }

  // Bound as the API server shows a running pod: spec.nodeName set, which the removal simulation must clear.
  void pod(NodeId node, Pod p) {
    p.spec.node_name = snapshot.node(node).name();
    snapshot.add_pod(std::move(p), node);
  }
  void pod(NodeId node, const std::string& name, std::int64_t cpu, std::int64_t memory = kGi / 4,
           const std::string& owner = "ReplicaSet") {
    pod(node, make_pod(name, cpu, memory, owner));
  }

  // Replaces the node's status conditions, as the kubelet's status update does; its pods stay bound.
  void set_conditions(const std::string& name, std::vector<NodeCondition> conditions) {
    NodeId id = snapshot.find_node(name);
    Node n = *snapshot.node(id).node;
    n.conditions = std::move(conditions);
    std::vector<std::shared_ptr<const Pod>> bound;
    for (const auto& placed : snapshot.node(id).pods) bound.push_back(placed.pod);
    snapshot.remove_node(id);
    NodeId fresh = snapshot.add_node(std::move(n));
    for (auto& pod : bound) snapshot.add_pod(pod, fresh);
  }
  void not_ready(const std::string& name) { set_conditions(name, {{"Ready", "False", "KubeletNotReady"}}); }

  // What the actuator does after deleting a node: it leaves the snapshot and its group's target.
  void deleted(const std::string& name, const std::string& group_id = "ng") {
    snapshot.remove_node(snapshot.find_node(name));
    for (NodeGroup& g : input.groups) g.target_size -= g.id == group_id ? 1 : 0;
  }

  ScaleDownResult scan(Instant now) { return planner.update(snapshot, input, options, now); }
};

std::vector<std::string> names(const std::vector<UnneededNode>& nodes) {
  std::vector<std::string> out;
  for (const auto& n : nodes) out.push_back(n.node);
  std::sort(out.begin(), out.end());
  return out;
}

UnremovableReason reason_of(const ScaleDownResult& r, const std::string& node) {
  const UnremovableNode* u = r.find_unremovable(node);
  return u ? u->reason : UnremovableReason::NoReason;
}

TEST(ScaleDownUtilization, ExactlyAtTheThresholdIsNotUnderutilizedJustBelowIs) {
  // Upstream keeps a node at the threshold (eligibility: utilization >= threshold -> NotUnderutilized).
  // a: 2000m of 4000m = 0.5. b: 1996m of 4000m = 0.499, and its pod fits beside a's (3996m <= 4000m).
  Cluster c;
  c.group("ng", 0, 2);
  NodeId a = c.node("a");
  NodeId b = c.node("b");
  c.pod(a, "pa", 2000);
  c.pod(b, "pb", 1996);
  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(reason_of(r, "a"), UnremovableReason::NotUnderutilized);
  EXPECT_DOUBLE_EQ(r.find_unremovable("a")->utilization->utilization, 0.5);
  const UnneededNode* unneeded = r.find_unneeded("b");
  ASSERT_NE(unneeded, nullptr);
  EXPECT_DOUBLE_EQ(unneeded->utilization.cpu, 0.499);
  ASSERT_EQ(unneeded->pods_to_move.size(), 1u);
  EXPECT_EQ(unneeded->pods_to_move[0].destination, "a");
}

TEST(ScaleDownUtilization, MemoryRatioDominatesWhenLarger) {
  // cpu 1000m / 4000m = 0.25; memory 12 GiB / 16 GiB = 0.75 -> 0.75, above 0.5.
  Cluster c;
  NodeId a = c.node("a");
  c.pod(a, "pa", 1000, 12 * kGi);
  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(reason_of(r, "a"), UnremovableReason::NotUnderutilized);
  const NodeUtilization& u = *r.find_unremovable("a")->utilization;
  EXPECT_DOUBLE_EQ(u.cpu, 0.25);
  EXPECT_DOUBLE_EQ(u.memory, 0.75);
  EXPECT_DOUBLE_EQ(u.utilization, 0.75);
  EXPECT_EQ(u.resource, "memory");
}

TEST(ScaleDownUtilization, DaemonSetPodsLeaveTheRatioWithIgnoreDaemonSetsUtilization) {
  // idle: a DaemonSet pod of 1000m and a ReplicaSet pod of 1000m. Upstream's default counts both: 2000/4000 = 0.5,
  // not underutilized. With --ignore-daemonsets-utilization: 1000 / (4000 - 1000) = 0.333, and the ReplicaSet pod
  // fits on busy (3000m + 1000m = 4000m); the DaemonSet pod goes with the node.
  Cluster c;
  c.group("ng", 0, 2);
  NodeId busy = c.node("busy");
  NodeId idle = c.node("idle");
  c.pod(busy, "big", 3000);
  c.pod(idle, "fluentd-idle", 1000, kGi / 4, "DaemonSet");
  c.pod(idle, "web-1", 1000);
  EXPECT_EQ(reason_of(c.scan(kStart), "idle"), UnremovableReason::NotUnderutilized);

  c.options.ignore_daemonsets_utilization = true;
  ScaleDownResult r = c.scan(kStart);
  const UnneededNode* u = r.find_unneeded("idle");
  ASSERT_NE(u, nullptr);
  EXPECT_NEAR(u->utilization.cpu, 1.0 / 3.0, 1e-12);
  ASSERT_EQ(u->pods_to_move.size(), 1u);
  EXPECT_EQ(u->pods_to_move[0].pod->meta.name, "web-1");
  EXPECT_EQ(u->pods_to_move[0].destination, "busy");
  ASSERT_EQ(u->daemonset_pods.size(), 1u);
  EXPECT_FALSE(u->empty);
}

TEST(ScaleDownUtilization, GpuNodeIsJudgedByGpuAgainstTheGpuThreshold) {
  // 1 of 4 GPUs = 0.25, although cpu is 3500m / 4000m. Nowhere else has a GPU: NoPlaceToMovePods.
  Cluster c;
  c.group("ng", 0, 2);
  c.node("cpu-only");
  NodeId gpu = c.node("gpu", "ng", 4);
  Pod trainer = make_pod("trainer", 3500, kGi);
  trainer.spec.containers[0].requests.set(Symbol("nvidia.com/gpu"), 1);
  c.pod(gpu, trainer);
  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(reason_of(r, "gpu"), UnremovableReason::NoPlaceToMovePods);
  EXPECT_DOUBLE_EQ(r.find_unremovable("gpu")->utilization->utilization, 0.25);
  EXPECT_EQ(r.find_unremovable("gpu")->utilization->resource, "nvidia.com/gpu");
  c.options.scale_down_gpu_utilization_threshold = 0.2;
  EXPECT_EQ(reason_of(c.scan(kStart), "gpu"), UnremovableReason::NotUnderutilized);
}

// --- a group's own options (its autoscaling-options tags or annotations) over the flags ------------------------

TEST(ScaleDownGroupOptions, AGroupsOwnThresholdDecidesForItsNodesAndTheExplanationSaysWhose) {
  // Both groups have a node at 40 % cpu (1600m of 4000m) beside one at 50 % (2000m) with room for its pod
  // (2000m + 1600m <= 4000m). Under the flag's 0.5, a-low (0.4 < 0.5) is unneeded; group b sets 0.3, so b-low
  // (0.4 >= 0.3) is not underutilized. Memory: 0.25 GiB of 16 GiB = 1.6 %, printed 2 %.
  Cluster c;
  c.input.groups.clear();
  c.group("a", 0, 2);
  c.group("b", 0, 2).options.scale_down_utilization_threshold = 0.3;
  c.pod(c.node("a-busy", "a"), "pa", 2000);
  c.pod(c.node("a-low", "a"), "pa-low", 1600);
  c.pod(c.node("b-busy", "b"), "pb", 2000);
  c.pod(c.node("b-low", "b"), "pb-low", 1600);
  ScaleDownResult r = c.scan(kStart);
  EXPECT_EQ(names(r.unneeded), std::vector<std::string>{"a-low"});
  EXPECT_EQ(r.find_unneeded("a-low")->pods_to_move[0].destination, "a-busy");
  ASSERT_EQ(reason_of(r, "b-low"), UnremovableReason::NotUnderutilized);
  EXPECT_DOUBLE_EQ(r.find_unremovable("b-low")->utilization->utilization, 0.4);
  const NodeGroup* a = &c.input.groups[0];
  const NodeGroup* b = &c.input.groups[1];
  EXPECT_EQ(explain_unremovable(*r.find_unremovable("b-low"), c.options, b),
            "cpu 40% (memory 2%) is not below the group's autoscaling option scaledownutilizationthreshold 0.30");
  EXPECT_EQ(explain_unremovable(*r.find_unremovable("a-busy"), c.options, a),
            "cpu 50% (memory 2%) is not below --scale-down-utilization-threshold 0.50");
  // b-busy at 0.5 is above b's 0.3 as well; a-low goes after the flag's 10 minutes.
  EXPECT_EQ(reason_of(r, "b-busy"), UnremovableReason::NotUnderutilized);
  r = c.scan(kStart + 10 * kMinute + 10 * kSecond);
  ASSERT_EQ(names(r.delete_drain), std::vector<std::string>{"a-low"});
  EXPECT_EQ(explain_removal(r.delete_drain[0], c.options, a, kStart + 10 * kMinute + 10 * kSecond),
            "cpu 40% (memory 2%) below --scale-down-utilization-threshold 0.50, unneeded for 10m10s (since t=0s); "
            "1 pod move: default/pa-low to a-busy");
}

TEST(ScaleDownGroupOptions, AGroupsOwnGpuThresholdJudgesItsGpuNodes) {
  // 1 of 4 GPUs = 0.25: below the flag's 0.5, not below the group's own 0.2 for GPU nodes (its cpu threshold, 0.9,
  // is not the one a GPU node is held against).
  Cluster c;
  NodeGroup& ng = c.group("ng", 0, 1);
  ng.options.scale_down_utilization_threshold = 0.9;
  ng.options.scale_down_gpu_utilization_threshold = 0.2;
  Pod trainer = make_pod("trainer", 3500, kGi);
  trainer.spec.containers[0].requests.set(Symbol("nvidia.com/gpu"), 1);
  c.pod(c.node("gpu", "ng", 4), trainer);
  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(reason_of(r, "gpu"), UnremovableReason::NotUnderutilized);
  EXPECT_EQ(explain_unremovable(*r.find_unremovable("gpu"), c.options, &c.input.groups[0]),
            "nvidia.com/gpu 25% is not below the group's autoscaling option scaledowngpuutilizationthreshold 0.20");
}

TEST(ScaleDownGroupOptions, AGroupsOwnUnneededTimeRemovesItsNodesSooner) {
  // --scale-down-unneeded-time is 10 min; group fast sets 30 s. Both idle nodes are unneeded from 0: fast-idle is
  // not removable at 30 s (upstream compares strictly: 0 + 30 s < 30 s is false) and is at the scan 10 s later;
  // slow-idle waits its 10 minutes.
  Cluster c;
  c.input.groups.clear();
  c.group("slow", 0, 1);
  c.group("fast", 0, 1).options.scale_down_unneeded_time = 30 * kSecond;
  c.node("slow-idle", "slow");
  c.node("fast-idle", "fast");
  EXPECT_EQ(names(c.scan(kStart).unneeded), (std::vector<std::string>{"fast-idle", "slow-idle"}));
  ScaleDownResult r = c.scan(kStart + 30 * kSecond);
  EXPECT_TRUE(r.delete_empty.empty());
  ASSERT_EQ(reason_of(r, "fast-idle"), UnremovableReason::NotUnneededLongEnough);
  EXPECT_EQ(explain_unremovable(*r.find_unremovable("fast-idle"), c.options, &c.input.groups[1]),
            "unneeded, but not yet for the group's autoscaling option scaledownunneededtime 30s");
  EXPECT_EQ(explain_unremovable(*r.find_unremovable("slow-idle"), c.options, &c.input.groups[0]),
            "unneeded, but not yet for --scale-down-unneeded-time 10m0s");
  r = c.scan(kStart + 40 * kSecond);
  EXPECT_EQ(names(r.delete_empty), std::vector<std::string>{"fast-idle"});
  EXPECT_EQ(reason_of(r, "slow-idle"), UnremovableReason::NotUnneededLongEnough);
  c.deleted("fast-idle", "fast");
  EXPECT_TRUE(c.scan(kStart + 10 * kMinute).delete_empty.empty());
  EXPECT_EQ(names(c.scan(kStart + 10 * kMinute + 10 * kSecond).delete_empty), std::vector<std::string>{"slow-idle"});
}

TEST(ScaleDownGroupOptions, AGroupsOwnUnreadyTimeAppliesToItsNotReadyNodes) {
  // --scale-down-unready-time is 20 min; group ng sets 1 min: its empty NotReady node goes at 1m10s.
  Cluster c;
  c.group("ng", 0, 1).options.scale_down_unready_time = kMinute;
  c.node("down");
  c.not_ready("down");
  ScaleDownResult r = c.scan(kStart + 1 * kMinute);
  // Unneeded from this scan on: it waits its minute from here.
  ASSERT_EQ(reason_of(r, "down"), UnremovableReason::NotUnreadyLongEnough);
  EXPECT_EQ(explain_unremovable(*r.find_unremovable("down"), c.options, &c.input.groups[0]),
            "unready and unneeded, but not yet for the group's autoscaling option scaledownunreadytime 1m0s");
  EXPECT_TRUE(c.scan(kStart + 2 * kMinute).delete_empty.empty());
  EXPECT_EQ(names(c.scan(kStart + 2 * kMinute + 10 * kSecond).delete_empty), std::vector<std::string>{"down"});
}

TEST(ScaleDownGroupOptions, AGroupsOwnIgnoreDaemonSetsUtilizationLeavesItsDaemonSetPodsOut) {
  // As DaemonSetPodsLeaveTheRatioWithIgnoreDaemonSetsUtilization, with the flag off and the group's option on:
  // idle's 1000m DaemonSet pod leaves the ratio, 1000 / 3000 = 0.333 < 0.5.
  Cluster c;
  c.group("ng", 0, 2).options.ignore_daemonsets_utilization = true;
  c.pod(c.node("busy"), "big", 3000);
  NodeId idle = c.node("idle");
  c.pod(idle, "fluentd-idle", 1000, kGi / 4, "DaemonSet");
  c.pod(idle, "web-1", 1000);
  const ScaleDownResult r = c.scan(kStart);  // kept: find_unneeded points into it
  const UnneededNode* u = r.find_unneeded("idle");
  ASSERT_NE(u, nullptr);
  EXPECT_NEAR(u->utilization.cpu, 1.0 / 3.0, 1e-12);
}

TEST(ScaleDownCandidates, AnnotationsGroupsTaintsAndBlockingPodsAreReported) {
  Cluster c;
  c.group("ng", 0, 4);
  NodeId disabled = c.node("disabled");
  c.node("unmanaged", "");
  NodeId blocked = c.node("blocked");
  NodeId deleting = c.node("deleting");
  c.node("spare");
  c.pod(blocked, "bare", 100, kGi / 4, "");
  (void)disabled;
  (void)deleting;
  // The annotation and taint go on the node objects themselves.
  ClusterSnapshot rebuilt;
  for (const auto& info : c.snapshot.nodes()) {
    Node n = *info.node;
    if (n.meta.name == "disabled") n.meta.annotations[std::string(kScaleDownDisabledAnnotation)] = "true";
    if (n.meta.name == "deleting") {
      n.taints.push_back({std::string(kToBeDeletedTaint), "1700000000", TaintEffect::NoSchedule});
    }
    NodeId id = rebuilt.add_node(n);
    for (const auto& placed : info.pods) rebuilt.add_pod(placed.pod, id);
  }
  c.snapshot = std::move(rebuilt);
  ScaleDownResult r = c.scan(kStart);
  EXPECT_EQ(reason_of(r, "disabled"), UnremovableReason::ScaleDownDisabledAnnotation);
  EXPECT_EQ(reason_of(r, "unmanaged"), UnremovableReason::NotAutoscaled);
  EXPECT_EQ(reason_of(r, "deleting"), UnremovableReason::CurrentlyBeingDeleted);
  ASSERT_EQ(reason_of(r, "blocked"), UnremovableReason::BlockedByPod);
  EXPECT_EQ(r.find_unremovable("blocked")->blocking_pod->reason, BlockingPodReason::NotReplicated);
  EXPECT_EQ(to_string(UnremovableReason::BlockedByPod), "BlockedByPod");
  EXPECT_EQ(names(r.unneeded), std::vector<std::string>{"spare"});
}

TEST(ScaleDownSimulation, PodsDoNotMoveOntoANodeAlreadyChosenForRemoval) {
  // a and b hold 1500m each (0.375). a is checked first: its pod moves to b (3000m). Then b's two pods would
  // need a, which this scan already removes: NoPlaceToMovePods. The snapshot comes back unchanged.
  Cluster c;
  c.group("ng", 0, 2);
  NodeId a = c.node("a");
  NodeId b = c.node("b");
  c.pod(a, "pa", 1500);
  c.pod(b, "pb", 1500);
  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(names(r.unneeded), std::vector<std::string>{"a"});
  EXPECT_EQ(r.find_unneeded("a")->pods_to_move.at(0).destination, "b");
  EXPECT_EQ(reason_of(r, "b"), UnremovableReason::NoPlaceToMovePods);
  EXPECT_EQ(c.snapshot.fork_depth(), 0u);
  EXPECT_EQ(c.snapshot.live_node_count(), 2u);
  EXPECT_EQ(c.snapshot.node_of_pod("default/pa"), a);
  EXPECT_EQ(c.snapshot.node_of_pod("default/pb"), b);
  EXPECT_EQ(c.snapshot.node(b).requested.cpu_milli(), 1500);
}

TEST(ScaleDownSimulation, PdbWithMaxUnavailableOneLetsOnePodMovePerScan) {
  // web-1 on a, web-2 on b, web-3 beside a 2000m pod on c (0.625). maxUnavailable 1 with 3 healthy: 1 allowed.
  // a goes first and spends it (web-1 moves to b); b would now move web-1 and web-2: NotEnoughPdb.
  Cluster c;
  c.group("ng", 0, 3);
  NodeId a = c.node("a");
  NodeId b = c.node("b");
  NodeId full = c.node("c");
  c.pod(a, "web-1", 500);
  c.pod(b, "web-2", 500);
  c.pod(full, "web-3", 500);
  c.pod(full, make_pod("batch", 2000, kGi, "Job", "batch"));
  PodDisruptionBudget pdb;
  pdb.meta.name = "web";
  pdb.meta.namespace_ = "default";
  pdb.selector = LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol("web")}}}};
  pdb.max_unavailable = IntOrPercent{1, false};
  c.input.pdbs.push_back(pdb);
  ASSERT_EQ(pdb_budgets(c.snapshot, c.input.pdbs).at(0).disruptions_allowed, 1);

  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(names(r.unneeded), std::vector<std::string>{"a"});
  EXPECT_EQ(r.find_unneeded("a")->pods_to_move.at(0).destination, "b");
  ASSERT_EQ(reason_of(r, "b"), UnremovableReason::BlockedByPod);
  EXPECT_EQ(r.find_unremovable("b")->blocking_pod->reason, BlockingPodReason::NotEnoughPdb);
  EXPECT_EQ(reason_of(r, "c"), UnremovableReason::NotUnderutilized);
}

TEST(ScaleDownTiming, RemovedOnlyAfterTenMinutesContinuouslyUnneeded) {
  Cluster c;
  c.group("ng", 0, 2);
  NodeId busy = c.node("busy");
  c.node("idle");
  c.pod(busy, "big", 3000);

  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(names(r.unneeded), std::vector<std::string>{"idle"});
  EXPECT_TRUE(r.find_unneeded("idle")->empty);
  EXPECT_EQ(reason_of(r, "idle"), UnremovableReason::NotUnneededLongEnough);
  EXPECT_EQ(r.status, ScaleDownStatus::ScaleDownNoNodeDeleted);
  // Exactly 10 minutes is not yet "more than" the unneeded time, as upstream compares.
  r = c.scan(kStart + 10 * kMinute);
  EXPECT_EQ(r.find_unneeded("idle")->since, kStart);
  EXPECT_TRUE(r.delete_empty.empty());
  r = c.scan(kStart + 10 * kMinute + 10 * kSecond);
  EXPECT_EQ(names(r.delete_empty), std::vector<std::string>{"idle"});
  EXPECT_EQ(r.status, ScaleDownStatus::ScaleDownNodeDeleteStarted);
}

TEST(ScaleDownTiming, AClusterStandingStillIsNotSimulatedAgainButTheClockRunsOn) {
  // The timing test's cluster, scanned with the caller's version of it: the scan after the first runs the simulation
  // again (the nodes unneeded before, which go first, changed: none, then idle), the ones after reuse it, and idle
  // still goes once ten minutes are up. A new version (a pod arrived) simulates again.
  Cluster c;
  c.group("ng", 0, 2);
  NodeId busy = c.node("busy");
  c.node("idle");
  c.pod(busy, "big", 3000);
  c.input.cluster_version = 1;
  c.scan(kStart);
  c.scan(kStart + 10 * kSecond);
  EXPECT_EQ(c.planner.simulations_reused(), 0u);
  ScaleDownResult r = c.scan(kStart + 10 * kMinute);
  EXPECT_EQ(c.planner.simulations_reused(), 1u);
  EXPECT_EQ(r.find_unneeded("idle")->since, kStart);
  EXPECT_EQ(reason_of(r, "busy"), UnremovableReason::NotUnderutilized);
  r = c.scan(kStart + 10 * kMinute + 10 * kSecond);
  EXPECT_EQ(c.planner.simulations_reused(), 2u);
  EXPECT_EQ(names(r.delete_empty), std::vector<std::string>{"idle"});

  c.pod(busy, "small", 100);
  c.input.cluster_version = 2;
  c.scan(kStart + 10 * kMinute + 20 * kSecond);
  EXPECT_EQ(c.planner.simulations_reused(), 2u);
  c.input.cluster_version = std::nullopt;  // a pod terminating: no version, no reuse
  c.scan(kStart + 10 * kMinute + 30 * kSecond);
  EXPECT_EQ(c.planner.simulations_reused(), 2u);
}

TEST(ScaleDownTiming, BeingNeededAgainResetsTheClock) {
  Cluster c;
  c.group("ng", 0, 2);
  NodeId busy = c.node("busy");
  NodeId idle = c.node("idle");
  c.pod(busy, "big", 3000);
  c.scan(kStart);
  c.pod(idle, "burst", 2500);  // 0.625: needed at 5 min
  EXPECT_EQ(reason_of(c.scan(kStart + 5 * kMinute), "idle"), UnremovableReason::NotUnderutilized);
  EXPECT_TRUE(c.planner.unneeded_since().empty());
  ASSERT_TRUE(c.snapshot.remove_pod("default/burst"));
  EXPECT_EQ(c.scan(kStart + 6 * kMinute).find_unneeded("idle")->since, kStart + 6 * kMinute);
  EXPECT_EQ(reason_of(c.scan(kStart + 10 * kMinute + 10 * kSecond), "idle"), UnremovableReason::NotUnneededLongEnough);
  EXPECT_EQ(names(c.scan(kStart + 16 * kMinute + 10 * kSecond).delete_empty), std::vector<std::string>{"idle"});
}

TEST(ScaleDownUnready, ANotReadyNodeWaitsTheUnreadyTimeInsteadOfTheUnneededTime) {
  // idle (Ready) and down (NotReady) are both empty from 0. Defaults: unneeded 10 min, unready 20 min, and both
  // compared strictly: idle goes at 10:10, down stays NotUnreadyLongEnough at 10:10 and at 20:00, goes at 20:10.
  Cluster c;
  c.group("ng", 0, 3);
  c.pod(c.node("busy"), "big", 3000);
  c.node("idle");
  c.node("down");
  c.not_ready("down");

  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(names(r.unneeded), (std::vector<std::string>{"down", "idle"}));
  EXPECT_EQ(reason_of(r, "idle"), UnremovableReason::NotUnneededLongEnough);
  EXPECT_EQ(reason_of(r, "down"), UnremovableReason::NotUnreadyLongEnough);

  r = c.scan(kStart + 10 * kMinute + 10 * kSecond);
  EXPECT_EQ(names(r.delete_empty), std::vector<std::string>{"idle"});
  EXPECT_EQ(reason_of(r, "down"), UnremovableReason::NotUnreadyLongEnough);
  EXPECT_EQ(r.find_unneeded("down")->since, kStart);
  c.deleted("idle");

  r = c.scan(kStart + 20 * kMinute);
  EXPECT_TRUE(r.delete_empty.empty());
  EXPECT_EQ(reason_of(r, "down"), UnremovableReason::NotUnreadyLongEnough);
  r = c.scan(kStart + 20 * kMinute + 10 * kSecond);
  EXPECT_EQ(names(r.delete_empty), std::vector<std::string>{"down"});
  EXPECT_EQ(to_string(UnremovableReason::NotUnreadyLongEnough), "NotUnreadyLongEnough");
}

TEST(ScaleDownUnready, TheWaitCountsFromWhenTheNodeBecameUnneededNotFromWhenItWentNotReady) {
  // --scale-down-unneeded-time=30m. idle is unneeded from 0 while Ready and goes NotReady at 12 min: its since
  // stays 0, so it goes once 0 + 20 min is passed (20:10), not at 12 + 20 = 32 min nor at 0 + 30 = 30 min.
  Cluster c;
  c.group("ng", 0, 2);
  c.options.scale_down_unneeded_time = 30 * kMinute;
  c.pod(c.node("busy"), "big", 3000);
  c.node("idle");
  EXPECT_EQ(reason_of(c.scan(kStart), "idle"), UnremovableReason::NotUnneededLongEnough);
  c.not_ready("idle");
  ScaleDownResult r = c.scan(kStart + 12 * kMinute);
  EXPECT_EQ(r.find_unneeded("idle")->since, kStart);
  EXPECT_EQ(reason_of(r, "idle"), UnremovableReason::NotUnreadyLongEnough);
  EXPECT_TRUE(c.scan(kStart + 20 * kMinute).delete_empty.empty());
  EXPECT_EQ(names(c.scan(kStart + 20 * kMinute + 10 * kSecond).delete_empty), std::vector<std::string>{"idle"});
}

TEST(ScaleDownUnready, AShorterUnreadyTimeRemovesANotReadyNodeFirst) {
  // --scale-down-unready-time=5m: down goes at 5:10 while idle (Ready) still waits its 10 minutes.
  Cluster c;
  c.group("ng", 0, 3);
  c.options.scale_down_unready_time = 5 * kMinute;
  c.pod(c.node("busy"), "big", 3000);
  c.node("idle");
  c.node("down");
  c.not_ready("down");
  c.scan(kStart);
  ScaleDownResult r = c.scan(kStart + 5 * kMinute + 10 * kSecond);
  EXPECT_EQ(names(r.delete_empty), std::vector<std::string>{"down"});
  EXPECT_EQ(reason_of(r, "idle"), UnremovableReason::NotUnneededLongEnough);
}

TEST(ScaleDownUnready, ANotReadyNodeMustStillBeUnderutilized) {
  // Upstream checks the utilization threshold whatever the readiness: down holds 3000m of 4000m (0.75), so it is
  // never unneeded, even long after the unready time.
  Cluster c;
  c.group("ng", 0, 2);
  c.node("spare");
  c.pod(c.node("down"), "big", 3000);
  c.not_ready("down");
  c.scan(kStart);
  ScaleDownResult r = c.scan(kStart + 30 * kMinute);
  ASSERT_EQ(reason_of(r, "down"), UnremovableReason::NotUnderutilized);
  EXPECT_DOUBLE_EQ(r.find_unremovable("down")->utilization->utilization, 0.75);
  EXPECT_EQ(r.find_unneeded("down"), nullptr);
}

TEST(ScaleDownUnready, TheGroupMinSizeStillHoldsOnceTheUnreadyTimeIsOver) {
  // A group at its min of 1 with its only node NotReady and empty: first the wait, then the min size, in
  // upstream's order of checks.
  Cluster c;
  c.group("ng", 1, 1);
  c.node("down");
  c.not_ready("down");
  EXPECT_EQ(reason_of(c.scan(kStart), "down"), UnremovableReason::NotUnreadyLongEnough);
  ScaleDownResult r = c.scan(kStart + 20 * kMinute + 10 * kSecond);
  EXPECT_TRUE(r.delete_empty.empty());
  EXPECT_EQ(reason_of(r, "down"), UnremovableReason::NodeGroupMinSizeReached);
}

TEST(ScaleDownUnready, UnreadyEnabledFalseKeepsNotReadyNodesOutOfScaleDown) {
  // --scale-down-unready-enabled=false: down is never a candidate (no utilization reported, as upstream); the
  // Ready idle node is unaffected.
  Cluster c;
  c.group("ng", 0, 3);
  c.options.scale_down_unready_enabled = false;
  c.pod(c.node("busy"), "big", 3000);
  c.node("idle");
  c.node("down");
  c.not_ready("down");
  c.scan(kStart);
  ScaleDownResult r = c.scan(kStart + 30 * kMinute);
  EXPECT_EQ(names(r.delete_empty), std::vector<std::string>{"idle"});
  ASSERT_EQ(reason_of(r, "down"), UnremovableReason::ScaleDownUnreadyDisabled);
  EXPECT_FALSE(r.find_unremovable("down")->utilization.has_value());
  EXPECT_EQ(r.find_unneeded("down"), nullptr);
  EXPECT_EQ(to_string(UnremovableReason::ScaleDownUnreadyDisabled), "ScaleDownUnreadyDisabled");
  EXPECT_EQ(explain_unremovable(*r.find_unremovable("down"), c.options, &c.input.groups[0]),
            "not Ready, and --scale-down-unready-enabled=false keeps unready nodes");
}

// A node whose utilization has no denominator (no cpu allocatable) is kept, and its Event says why, not just that.
TEST(ScaleDownUtilization, ANodeWithNothingAllocatableIsKeptAndSaysWhy) {
  Cluster c;
  c.group("ng", 0, 2);
  c.node("fine");
  Node empty;
  empty.meta.name = "no-cpu";
  empty.allocatable.set(resource_names::memory(), 16 * kGi);
  empty.conditions.push_back({"Ready", "True", ""});
  c.input.group_of_node["no-cpu"] = "ng";
  c.snapshot.add_node(std::move(empty));
  ScaleDownResult r = c.scan(kStart);
  ASSERT_EQ(reason_of(r, "no-cpu"), UnremovableReason::UnexpectedError);
  EXPECT_EQ(explain_unremovable(*r.find_unremovable("no-cpu"), c.options, &c.input.groups[0]),
            "its utilization cannot be computed: no cpu or memory is allocatable once the pods it does not count "
            "are taken out");
}

TEST(ScaleDownUnready, ReadinessFollowsTheReadyConditionDiskPressureAndNetworkUnavailable) {
  auto node = [](std::vector<NodeCondition> conditions) {
    Node n;
    n.conditions = std::move(conditions);
    return n;
  };
  EXPECT_TRUE(ready_for_scale_down(node({{"Ready", "True", ""}})));
  EXPECT_FALSE(ready_for_scale_down(node({{"Ready", "False", ""}})));
  EXPECT_FALSE(ready_for_scale_down(node({{"Ready", "Unknown", "NodeStatusUnknown"}})));
  EXPECT_FALSE(ready_for_scale_down(node({{"Ready", "True", ""}, {"DiskPressure", "True", ""}})));
  EXPECT_FALSE(ready_for_scale_down(node({{"NetworkUnavailable", "True", ""}, {"Ready", "True", ""}})));
  EXPECT_TRUE(ready_for_scale_down(node({{"Ready", "True", ""}, {"DiskPressure", "False", ""}})));
  EXPECT_TRUE(ready_for_scale_down(node({{"Ready", "True", ""}, {"MemoryPressure", "True", ""}})));
  // No Ready condition: Ready, as Node::is_ready reads hand-written manifests (upstream would say NotReady).
  EXPECT_TRUE(ready_for_scale_down(node({})));
}

TEST(ScaleDownTiming, CooldownAfterScaleUpDeleteAndFailure) {
  Cluster c;
  c.group("ng", 0, 2);
  NodeId busy = c.node("busy");
  c.node("idle");
  c.pod(busy, "big", 3000);
  c.scan(kStart);
  // Scale-up at 5 min: no removal before 5 + 10 = 15 min, but the node stays tracked as unneeded since 0.
  c.input.last_scale_up = kStart + 5 * kMinute;
  ScaleDownResult r = c.scan(kStart + 11 * kMinute);
  EXPECT_EQ(r.status, ScaleDownStatus::ScaleDownInCooldown);
  EXPECT_TRUE(r.delete_empty.empty());
  EXPECT_EQ(r.find_unneeded("idle")->since, kStart);
  EXPECT_EQ(names(c.scan(kStart + 15 * kMinute).delete_empty), std::vector<std::string>{"idle"});

  // A deletion at 14:55 with --scale-down-delay-after-delete unset: the 10 s scan interval.
  c.input.last_scale_down_delete = kStart + 14 * kMinute + 55 * kSecond;
  EXPECT_EQ(c.scan(kStart + 15 * kMinute).status, ScaleDownStatus::ScaleDownInCooldown);
  EXPECT_EQ(c.scan(kStart + 15 * kMinute + 5 * kSecond).status, ScaleDownStatus::ScaleDownNodeDeleteStarted);
  // A failed deletion at 13 min: 3 minutes of cooldown.
  c.input.last_scale_down_failure = kStart + 13 * kMinute;
  EXPECT_EQ(c.scan(kStart + 15 * kMinute + 59 * kSecond).status, ScaleDownStatus::ScaleDownInCooldown);
  EXPECT_EQ(c.scan(kStart + 16 * kMinute).status, ScaleDownStatus::ScaleDownNodeDeleteStarted);
}

TEST(ScaleDownLimits, NeverBelowTheGroupsMinSize) {
  // min 3, 5 nodes, 4 of them empty: 5 -> 4 -> 3, then NodeGroupMinSizeReached for the other two.
  Cluster c;
  c.group("ng", 3, 5);
  NodeId busy = c.node("busy");
  c.pod(busy, "big", 3000);
  for (int i = 0; i < 4; ++i) c.node("empty-" + std::to_string(i));
  c.scan(kStart);
  ScaleDownResult r = c.scan(kStart + 11 * kMinute);
  EXPECT_EQ(r.unneeded.size(), 4u);
  EXPECT_EQ(r.delete_empty.size(), 2u);
  int at_min = 0;
  for (const auto& u : r.unremovable) at_min += u.reason == UnremovableReason::NodeGroupMinSizeReached ? 1 : 0;
  EXPECT_EQ(at_min, 2);
  // A deletion already in progress in the group leaves room for one more only.
  c.input.deletions_in_progress["ng"] = 1;
  EXPECT_EQ(c.scan(kStart + 11 * kMinute).delete_empty.size(), 1u);
}

TEST(ScaleDownLimits, MinimalResourceLimitExceeded) {
  // 2 nodes of 4 cores; --cores-total=6:... leaves room for none of them to go (8 - 4 < 6).
  Cluster c;
  c.group("ng", 0, 2);
  NodeId busy = c.node("busy");
  c.node("idle");
  c.pod(busy, "big", 3000);
  c.options.cores_total_min = 6;
  c.scan(kStart);
  ScaleDownResult r = c.scan(kStart + 11 * kMinute);
  EXPECT_TRUE(r.delete_empty.empty());
  EXPECT_EQ(reason_of(r, "idle"), UnremovableReason::MinimalResourceLimitExceeded);
  c.options.cores_total_min = 4;
  EXPECT_EQ(names(c.scan(kStart + 11 * kMinute).delete_empty), std::vector<std::string>{"idle"});
  // --cores-total=9223372036854775807:... keeps every node. In millicores the minimum saturates; it wrapped to
  // -1000m, which left 9000m of room to remove nodes.
  c.options.cores_total_min = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(reason_of(c.scan(kStart + 11 * kMinute), "idle"), UnremovableReason::MinimalResourceLimitExceeded);
}

TEST(ScaleDownLimits, TwelveEmptyNodesGoTenAtATime) {
  Cluster c;
  c.group("ng", 0, 13);
  NodeId busy = c.node("busy");
  c.pod(busy, "big", 3000);
  for (int i = 0; i < 12; ++i) c.node("empty-" + std::to_string(i));
  c.scan(kStart);
  ScaleDownResult r = c.scan(kStart + 11 * kMinute);
  EXPECT_EQ(r.unneeded.size(), 12u);
  EXPECT_EQ(r.delete_empty.size(), 10u);  // --max-empty-bulk-delete and --max-scale-down-parallelism, both 10
  EXPECT_TRUE(r.delete_drain.empty());
}

TEST(ScaleDownLimits, OneDrainAtATimeByDefault) {
  // Three nodes of one 200m pod each and a busy node with room for all of them: all three unneeded, one drained.
  Cluster c;
  c.group("ng", 0, 4);
  for (int i = 0; i < 3; ++i) c.pod(c.node("small-" + std::to_string(i)), "p" + std::to_string(i), 200);
  c.pod(c.node("busy"), "big", 2500);
  c.scan(kStart);
  ScaleDownResult r = c.scan(kStart + 11 * kMinute);
  EXPECT_EQ(r.unneeded.size(), 3u);
  ASSERT_EQ(r.delete_drain.size(), 1u);
  EXPECT_FALSE(r.delete_drain[0].pods_to_move.empty());
  EXPECT_TRUE(r.delete_empty.empty());
  // --max-drain-parallelism=5 with --max-scale-down-parallelism=2: two.
  c.options.max_drain_parallelism = 5;
  c.options.max_scale_down_parallelism = 2;
  EXPECT_EQ(c.scan(kStart + 11 * kMinute).delete_drain.size(), 2u);
}

TEST(ScaleDownLimits, EmptyNodesFirstThenDrainsWithinTheParallelism) {
  // 3 empty + 3 non-empty unneeded, --max-scale-down-parallelism=4, --max-drain-parallelism=5: 3 empty, 1 drain.
  Cluster c;
  c.group("ng", 0, 7);
  for (int i = 0; i < 3; ++i) c.node("empty-" + std::to_string(i));
  for (int i = 0; i < 3; ++i) c.pod(c.node("small-" + std::to_string(i)), "p" + std::to_string(i), 200);
  c.pod(c.node("busy"), "big", 2500);
  c.options.max_scale_down_parallelism = 4;
  c.options.max_drain_parallelism = 5;
  c.scan(kStart);
  ScaleDownResult r = c.scan(kStart + 11 * kMinute);
  EXPECT_EQ(r.delete_empty.size(), 3u);
  EXPECT_EQ(r.delete_drain.size(), 1u);
}

TEST(ScaleDownWalkThrough, InflateDeletedThenItsEmptyNodesGoAfterTheUnneededTime) {
  // The seed scenario's shape: a Deployment of 1-cpu/1-GiB pause pods (inflate) scaled to 9 on 3 nodes of the
  // group (3 per node: 0.75 cpu), the scale-up at 0, the Deployment deleted at 2 min.
  Cluster c;
  c.group("ng", 0, 3);
  std::vector<NodeId> nodes = {c.node("ng-node-0"), c.node("ng-node-1"), c.node("ng-node-2")};
  Workload inflate;
  inflate.kind = WorkloadKind::Deployment;
  inflate.meta.name = "inflate";
  inflate.meta.namespace_ = "default";
  inflate.meta.uid = "inflate-uid";
  inflate.replicas = 9;
  inflate.selector = LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol("inflate")}}}};
  inflate.pod_template.meta.labels.set(Symbol("app"), Symbol("inflate"));
  Container pause;
  pause.name = "inflate";
  pause.requests.set(resource_names::cpu(), 1000);
  pause.requests.set(resource_names::memory(), kGi);
  inflate.pod_template.spec.containers.push_back(pause);
  std::vector<Pod> pods = inflate.expand_pods();
  ASSERT_EQ(pods.size(), 9u);
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    keys.push_back(pods[i].meta.key());
    c.pod(nodes[i % 3], pods[i]);
  }
  c.input.last_scale_up = kStart;

  ScaleDownResult r = c.scan(kStart + 1 * kMinute);
  EXPECT_EQ(r.status, ScaleDownStatus::ScaleDownInCooldown);
  EXPECT_TRUE(r.unneeded.empty());
  EXPECT_EQ(reason_of(r, "ng-node-0"), UnremovableReason::NotUnderutilized);

  for (const auto& key : keys) ASSERT_TRUE(c.snapshot.remove_pod(key));  // the Deployment is deleted at 2 min
  for (Instant t = kStart + 2 * kMinute; t <= kStart + 12 * kMinute; t += 10 * kSecond) {
    r = c.scan(t);
    ASSERT_EQ(r.unneeded.size(), 3u) << format_time(t);
    ASSERT_TRUE(r.delete_empty.empty()) << format_time(t);
  }
  EXPECT_EQ(r.find_unneeded("ng-node-1")->since, kStart + 2 * kMinute);
  r = c.scan(kStart + 12 * kMinute + 10 * kSecond);
  EXPECT_EQ(names(r.delete_empty), (std::vector<std::string>{"ng-node-0", "ng-node-1", "ng-node-2"}));
  EXPECT_EQ(r.status, ScaleDownStatus::ScaleDownNodeDeleteStarted);
}

}  // namespace
}  // namespace scalewright::nodegroups
