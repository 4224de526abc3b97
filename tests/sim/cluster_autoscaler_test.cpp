// Cluster Autoscaler in the simulator, on the small round-number catalog (tests/provisioning/fixtures.h): c.large
// is 2 cpu / 4 GiB with allocatable equal to capacity, nodes are Ready 60 s after launch, CA scans every 10 s from
// t=0. Each group starts with its nodes full: one 1900m "app" pod per node.
#include <gtest/gtest.h>

#include "run_scenario.h"
#include "sim/cluster_autoscaler_setup.h"

namespace scalewright::sim {
namespace {

using testing::messages;
using testing::run;

// web: 500m / 512Mi pods, none running at first.
const std::string kWeb = testing::deployment("web", 0, "500m", "512Mi");

std::string cluster(int nodes, int max_size, const std::string& extra_args = "") {
  return testing::deployment("app", nodes, "1900m") + kWeb + R"(apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: ca}
spec:
  duration: 20m
  cloud:
    launchLatency: {min: 60s, max: 60s}
    autoScalingGroups:
    - {name: ng, instanceType: c.large, zones: [zone-a], minSize: 1, maxSize: )" +
         std::to_string(max_size) + ", desiredCapacity: " + std::to_string(nodes) + R"(}
  clusterAutoscaler:
    args: ["--nodes=1:)" + std::to_string(max_size) + R"(:ng")" + extra_args + R"(]
  timeline:
)";
}

TEST(ClusterAutoscaler, PendingPodsGrowTheGroupAndItShrinksAfterTheUnneededTime) {
  // 10 web pods of 500m: a new c.large (2000m) holds 4, so 4 + 4 + 2 = 3 nodes: ng 3 -> 6. The pods appear when the
  // cluster settles after the scale at 10 s, after that instant's scan: the scan at 20 s triggers the scale-up,
  // the nodes are Ready at 80 s. At 5m the Deployment goes; the scan at 5m0s finds the three nodes empty and
  // unneeded; more than 10 minutes later (upstream compares strictly), at 15m10s, they are removed.
  SimulationReport r = run(cluster(3, 10) + R"(
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 10}}
  - {at: 5m, delete: {kind: Deployment, name: web}}
)");
  EXPECT_EQ(messages(r, "scale-up"),
            std::vector<std::string>{"t=20s TriggeredScaleUp: pod triggered scale-up: [{ng 3->6 (max: 10)}] (10 pods)"});
  std::vector<std::string> removed = messages(r, "scale-down");
  ASSERT_EQ(removed.size(), 3u);
  for (const std::string& line : removed) {
    EXPECT_TRUE(line.starts_with("t=15m10s empty node ng-")) << line;
    EXPECT_NE(line.find("unneeded since t=5m0s"), std::string::npos) << line;
  }
  EXPECT_EQ(r.summary.launches, 3);
  EXPECT_EQ(r.summary.peak_nodes, 6);
  EXPECT_EQ(r.summary.nodes_at_end, 3);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
  // Cost: 3 nodes for the whole 20 minutes, 3 from launch at 20 s to removal at 15m10s, at c.large's $0.10.
  ASSERT_EQ(r.summary.cost_lines.size(), 1u);
  EXPECT_EQ(r.summary.cost_lines[0].nodepool, "group/ng");
  EXPECT_NEAR(r.summary.cost_lines[0].node_hours, 3 * 1200.0 / 3600 + 3 * 890.0 / 3600, 1e-9);
  // The status report CA writes, at the end: the group back at its 3 nodes.
  EXPECT_NE(r.cluster_autoscaler_status.find("- name: ng\n"), std::string::npos) << r.cluster_autoscaler_status;
  EXPECT_NE(r.cluster_autoscaler_status.find("cloudProviderTarget: 3\n"), std::string::npos)
      << r.cluster_autoscaler_status;
}

TEST(ClusterAutoscaler, TheAutoScalingGroupsAutoscalingOptionTagsOverrideTheFlags) {
  // As PendingPodsGrowTheGroupAndItShrinksAfterTheUnneededTime, with the group tagged to wait 2 minutes (not the
  // flag's 10) under a threshold of 0.4 (not 0.5), and no delay after the scale-up: the three nodes emptied at 5m
  // go at the first scan more than 2 minutes later, 7m10s, and their Events name the group's threshold.
  std::string text = cluster(3, 10, ", \"--scale-down-delay-after-add=0s\"") + R"(
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 10}}
  - {at: 5m, delete: {kind: Deployment, name: web}}
)";
  const std::string group_end = "desiredCapacity: 3}";
  const std::string options = "k8s.io/cluster-autoscaler/node-template/autoscaling-options/";
  text.replace(text.find(group_end), group_end.size(),
               "desiredCapacity: 3, tags: {" + options + "scaledownunneededtime: \"2m\", " + options +
                   "scaledownutilizationthreshold: \"0.4\"}}");
  SimulationReport r = run(text);
  std::vector<std::string> removed = messages(r, "scale-down");
  ASSERT_EQ(removed.size(), 3u);
  for (const std::string& line : removed) {
    EXPECT_TRUE(line.starts_with("t=7m10s empty node ng-")) << line;
    EXPECT_NE(line.find("unneeded since t=5m0s"), std::string::npos) << line;
  }
  EXPECT_EQ(r.summary.nodes_at_end, 3);
  int scale_down_events = 0;
  for (const ObjectEventAt& e : r.events) {
    if (e.event.kind != "Node" || e.event.reason != "ScaleDown") continue;
    ++scale_down_events;
    EXPECT_EQ(e.event.message, "node removed by cluster autoscaler: cpu 0% (memory 0%) below the group's autoscaling "
                               "option scaledownutilizationthreshold 0.40, unneeded for 2m10s (since t=5m0s); no pod "
                               "to move");
  }
  EXPECT_EQ(scale_down_events, 3);
}

TEST(ClusterAutoscaler, AGroupAtItsMaxLeavesTheRestPendingWithTheReason) {
  // 40 web pods need 10 new nodes; the group may grow from 3 to 5 only: 8 pods get the two new nodes, 32 stay
  // pending, and CA says why once.
  SimulationReport r = run(cluster(3, 5) + R"(
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 40}}
)");
  EXPECT_EQ(messages(r, "scale-up"),
            std::vector<std::string>{"t=20s TriggeredScaleUp: pod triggered scale-up: [{ng 3->5 (max: 5)}] (8 pods)"});
  std::vector<std::string> not_triggered = messages(r, "not-triggered-scale-up");
  ASSERT_FALSE(not_triggered.empty());
  EXPECT_EQ(not_triggered.front(),
            "t=20s NotTriggerScaleUp: 32 pods didn't trigger scale-up: 1 max node group size reached");
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 32u);
  EXPECT_EQ(r.summary.peak_nodes, 5);
}

TEST(ClusterAutoscaler, ABarePodIsScaledUpForAtOnceAndOnlyTheEmptiedNodeGoes) {
  // A bare pod and 4 web pods arrive at 10 s. When web is deleted, only the node web emptied goes; the bare pod's
  // node (1500m of 2000m: 75 %, above the 50 % threshold) stays.
  SimulationReport r = run(cluster(1, 5) + R"(
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 4}}
  - at: 10s
    apply:
    - apiVersion: v1
      kind: Pod
      metadata: {name: bare, namespace: default}
      spec:
        containers:
        - {name: bare, image: bare, resources: {requests: {cpu: 1500m, memory: 1Gi}}}
  - {at: 5m, delete: {kind: Deployment, name: web}}
)");
  // The bare pod exists as soon as the step applies it, so the scan at 10 s sees it: 1 -> 2. The web pods appear
  // when the cluster settles after that instant and fill one node of their own (4 x 500m) at the next scan.
  EXPECT_EQ(messages(r, "scale-up"), (std::vector<std::string>{
                                         "t=10s TriggeredScaleUp: pod triggered scale-up: [{ng 1->2 (max: 5)}] (1 pod)",
                                         "t=20s TriggeredScaleUp: pod triggered scale-up: [{ng 2->3 (max: 5)}] (3 pods)",
                                     }));
  std::vector<std::string> removed = messages(r, "scale-down");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_TRUE(removed[0].starts_with("t=15m10s empty node ng-")) << removed[0];
  EXPECT_EQ(r.summary.nodes_at_end, 2);
  // Why each node stayed or went, on the node (explain's answer): the bare pod's node at 1500m + one web pod's
  // 500m of 2000m cpu, 1.5 GiB of 4 GiB memory; the web node at 3 x 500m, then empty from 5m, unneeded but held by
  // the cooldown after the scale-up at 20 s until 10m20s, and removed at 15m10s.
  auto node_events = [&](const std::string& node) {
    std::vector<std::string> out;
    for (const ObjectEventAt& e : r.events) {
      if (e.event.kind == "Node" && e.event.key == node) out.push_back(format_time(e.at) + " " + e.event.reason);
    }
    return out;
  };
  const std::size_t name_at = std::string("t=15m10s empty node ").size();
  const std::string web_node = removed[0].substr(name_at, removed[0].find(' ', name_at) - name_at);
  EXPECT_EQ(node_events(web_node), (std::vector<std::string>{"t=20s Launched", "t=1m30s NotUnderutilized",
                                                             "t=10m20s NotUnneededLongEnough", "t=15m10s ScaleDown"}));
  for (const ObjectEventAt& e : r.events) {
    if (e.event.key != web_node) continue;
    if (e.event.reason == "Launched") {
      EXPECT_EQ(e.event.message, "instance of node group ng (c.large zone-a on-demand $0.1000/h) for the scale-up "
                                 "{ng 2->3 (max: 5)} that pending pods triggered (their TriggeredScaleUp Events)");
    }
    if (e.event.reason == "NotUnderutilized") {
      EXPECT_EQ(e.event.message, "cpu 75% (memory 38%) is not below --scale-down-utilization-threshold 0.50");
    }
    if (e.event.reason == "ScaleDown") {
      EXPECT_EQ(e.event.message, "node removed by cluster autoscaler: cpu 0% (memory 0%) below "
                                 "--scale-down-utilization-threshold 0.50, unneeded for 10m10s (since t=5m0s); no pod "
                                 "to move");
    }
  }
}

TEST(ClusterAutoscaler, NodesThatNeverComeBackOffTheGroup) {
  // Every launched node stays unready (neverReadyRate 1). The scan at 20 s asks ng 1 -> 2; after
  // --max-node-provision-time (5m here) the node is given up, the target goes back to 1 and the group backs off for
  // 5 minutes: the next scale-up is at the first scan after 10m20s (5m20s + 5m).
  std::string text = cluster(1, 5, ", \"--max-node-provision-time=5m\"") + R"(
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 2}}
)";
  const std::string latency = "launchLatency: {min: 60s, max: 60s}";
  text.replace(text.find(latency), latency.size(), latency + "\n    faults: {neverReadyRate: 1}");
  SimulationReport r = run(text);
  std::vector<std::string> ups = messages(r, "scale-up");
  ASSERT_GE(ups.size(), 2u);
  EXPECT_EQ(ups[0], "t=20s TriggeredScaleUp: pod triggered scale-up: [{ng 1->2 (max: 5)}] (2 pods)");
  EXPECT_TRUE(ups[1].starts_with("t=10m20s ")) << ups[1];
  std::vector<std::string> timeouts = messages(r, "registration-timeout");
  ASSERT_FALSE(timeouts.empty());
  EXPECT_TRUE(timeouts[0].starts_with("t=5m20s node ng-")) << timeouts[0];
  EXPECT_NE(timeouts[0].find("did not become Ready within 5m0s"), std::string::npos) << timeouts[0];
}

TEST(ClusterAutoscaler, AnInterruptedSpotNodeOfAGroupIsDrainedThenReplacedByItsAutoScalingGroup) {
  // ng runs 2 spot c.large nodes, one 1900m app pod on each. At 1m the oldest gets the two-minute notice and is
  // drained as the AWS Node Termination Handler drains it: its pod is evicted (gone at 1m30s, its 30 s grace
  // period), and the node stays cordoned. The evicted pod's replacement fits on no node: CA's scan at 1m asks
  // ng 2 -> 3, Ready at 2m. At 3m the cloud reclaims the instance and the group, keeping its desired 3, launches
  // another, Ready at 4m and empty: CA removes it at the first scan more than 10 minutes later, 14m10s.
  std::string text = cluster(2, 5) + "  - {at: 10m, scale: {kind: Deployment, name: web, replicas: 0}}\n";
  text.replace(text.find("zones: [zone-a]"), 15, "zones: [zone-a], capacityType: spot");
  const std::string latency = "launchLatency: {min: 60s, max: 60s}";
  text.replace(text.find(latency), latency.size(), latency + "\n    faults: {spotInterruptions: [{at: 1m, count: 1}]}");
  SimulationReport r = run(text);
  EXPECT_EQ(r.summary.spot_interruptions, 1);
  EXPECT_EQ(r.summary.evictions, 1);
  EXPECT_EQ(messages(r, "scale-up"),
            std::vector<std::string>{"t=1m0s TriggeredScaleUp: pod triggered scale-up: [{ng 2->3 (max: 5)}] (1 pod)"});
  ASSERT_EQ(messages(r, "drained").size(), 1u);
  EXPECT_TRUE(messages(r, "drained")[0].starts_with("t=1m30s node ng-")) << messages(r, "drained")[0];
  ASSERT_EQ(messages(r, "reclaimed").size(), 1u);
  EXPECT_TRUE(messages(r, "reclaimed")[0].starts_with("t=3m0s ")) << messages(r, "reclaimed")[0];
  ASSERT_EQ(messages(r, "scale-down").size(), 1u);
  EXPECT_TRUE(messages(r, "scale-down")[0].starts_with("t=14m10s empty node ng-")) << messages(r, "scale-down")[0];
  EXPECT_EQ(r.summary.launches, 2);
  EXPECT_EQ(r.summary.nodes_at_end, 2);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
}

TEST(ClusterAutoscaler, ThePriorityExpanderReadsItsConfigMapFromTheManifests) {
  // 4 web pods of 500m fit one c.large exactly (least-waste's choice) or half a c.xlarge; the priority ConfigMap
  // ranks ng-big above ng-small, so the priority expander picks ng-big. Both groups scale from zero.
  auto scenario = [](const std::string& expander) {
    return R"(
)" + kWeb + R"(apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-autoscaler-priority-expander, namespace: kube-system}
data:
  priorities: |-
    10:
      - ng-small
    20:
      - ng-big
---
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: priority}
spec:
  duration: 5m
  cloud:
    launchLatency: {min: 60s, max: 60s}
    autoScalingGroups:
    - {name: ng-small, instanceType: c.large, zones: [zone-a], minSize: 0, maxSize: 5, desiredCapacity: 0}
    - {name: ng-big, instanceType: c.xlarge, zones: [zone-a], minSize: 0, maxSize: 5, desiredCapacity: 0}
  clusterAutoscaler:
    args: ["--nodes=0:5:ng-small", "--nodes=0:5:ng-big", "--expander=)" + expander + R"("]
  timeline:
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 4}}
)";
  };
  EXPECT_EQ(messages(run(scenario("least-waste")), "scale-up"),
            std::vector<std::string>{"t=20s TriggeredScaleUp: pod triggered scale-up: [{ng-small 0->1 (max: 5)}] (4 pods)"});
  EXPECT_EQ(messages(run(scenario("priority")), "scale-up"),
            std::vector<std::string>{"t=20s TriggeredScaleUp: pod triggered scale-up: [{ng-big 0->1 (max: 5)}] (4 pods)"});
}


// Two groups of one c.large each: ng-a's node (zone-a) holds a 1500m "anchor" pod pinned to zone-a; ng-b's node
// (zone-b, min size 0) holds both 250m web pods, which the scheduler puts on the emptier node. ng-b's node is at
// 25 % and its pods fit beside the anchor (1500m + 2 x 250m = 2000m), so it is unneeded from the first scan (t=0)
// and drained after more than 10 minutes, at 10m10s. `pdb` is the web PDB's spec.
std::string drain_scenario(const std::string& pdb, const std::string& extra_args = "",
                           const std::string& duration = "15m", const std::string& web_pod_spec = "") {
  return testing::deployment("anchor", 1, "1500m", "256Mi",
                             "      nodeSelector: {topology.kubernetes.io/zone: zone-a}\n") +
         testing::deployment("web", 2, "250m", "128Mi", web_pod_spec) + R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  )" + pdb + R"(
---
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: drain}
spec:
  duration: )" + duration + R"(
  cloud:
    launchLatency: {min: 60s, max: 60s}
    autoScalingGroups:
    - {name: ng-a, instanceType: c.large, zones: [zone-a], minSize: 1, maxSize: 1, desiredCapacity: 1}
    - {name: ng-b, instanceType: c.large, zones: [zone-b], minSize: 0, maxSize: 1, desiredCapacity: 1}
  clusterAutoscaler:
    args: ["--nodes=1:1:ng-a", "--nodes=0:1:ng-b")" + extra_args + R"(]
)";
}

// The node the original web pods ran on: ng-b's.
std::string web_node(const SimulationReport& r) {
  for (const PodOutcome& p : r.pods) {
    if (p.pod.starts_with("default/web-") && p.node.starts_with("ng-b-")) return p.node;
  }
  return "";
}

TEST(ClusterAutoscalerDrain, EvictionsWaitForThePdbBudgetThatTheReplacementGivesBack) {
  // maxUnavailable 1 with 2 healthy web pods: 1 disruption allowed, so the node is drainable (upstream only needs
  // the budget to allow one). At 10m10s the first eviction spends it; its replacement is created at once and bound
  // beside the anchor (ng-b's node is tainted), but the second eviction in that round is refused. The retry at
  // 10m20s finds 2 healthy again and evicts the second. Each evicted pod runs out Kubernetes' default 30 s grace
  // period: they are gone at 10m40s and 10m50s, and the node with them.
  SimulationReport r = run(drain_scenario("maxUnavailable: 1"));
  const std::string node = web_node(r);
  ASSERT_FALSE(node.empty());
  EXPECT_EQ(messages(r, "drain"),
            std::vector<std::string>{"t=10m10s draining node " + node + " of ng-b: 2 pods to evict, unneeded since t=0s"});
  std::vector<std::string> refused = messages(r, "eviction-refused");
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_TRUE(refused[0].starts_with("t=10m10s eviction of default/web-")) << refused[0];
  EXPECT_NE(refused[0].find(" from node " + node + ": cannot evict pod as it would violate the pod's disruption "
                            "budget default/web; retrying every 10s"),
            std::string::npos)
      << refused[0];
  EXPECT_EQ(messages(r, "scale-down"),
            std::vector<std::string>{"t=10m50s drained node " + node +
                                     " of ng-b removed (2 pods evicted, drain took 40s), unneeded since t=0s"});
  EXPECT_TRUE(messages(r, "scale-down-failed").empty());
  // Both replacements run beside the anchor; nothing waits at the end.
  std::size_t on_ng_a = 0;
  for (const PodOutcome& p : r.pods) on_ng_a += p.pod.starts_with("default/web-") && p.node.starts_with("ng-a-");
  EXPECT_EQ(on_ng_a, 2u);
  EXPECT_EQ(r.summary.nodes_at_end, 1);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
  EXPECT_NE(r.cluster_autoscaler_status.find("- name: ng-b\n"), std::string::npos);
}

TEST(ClusterAutoscalerDrain, AnEvictionRefusedPastTheMaxPodEvictionTimeFailsTheScaleDown) {
  // As above with --max-pod-eviction-time=5s: the retry at 10m20s is past 10m10s + 5s, so the drain fails with the
  // second pod still there; the taint comes off and scale-down waits 3 minutes. The node is unneeded again once
  // the first evicted pod has stopped (10m40s; until then it too needs a place in the removal simulation, as
  // upstream counts terminating pods): its one 250m pod fits beside the anchor and the first replacement
  // (1500m + 250m + 250m). More than 10 minutes later it is drained, at 20m50s, and gone when its pod's grace
  // period ends.
  SimulationReport r = run(drain_scenario("maxUnavailable: 1", ", \"--max-pod-eviction-time=5s\"", "25m"));
  const std::string node = web_node(r);
  ASSERT_FALSE(node.empty());
  std::vector<std::string> failed = messages(r, "scale-down-failed");
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_TRUE(failed[0].starts_with("t=10m20s ScaleDownFailed: failed to drain node " + node +
                                    " of ng-b: default/web-"))
      << failed[0];
  EXPECT_NE(failed[0].find(" not evicted within 5s (cannot evict pod as it would violate the pod's disruption "
                           "budget default/web); the taint is removed and scale-down waits 3m0s"),
            std::string::npos)
      << failed[0];
  EXPECT_EQ(messages(r, "drain"),
            (std::vector<std::string>{
                "t=10m10s draining node " + node + " of ng-b: 2 pods to evict, unneeded since t=0s",
                "t=20m50s draining node " + node + " of ng-b: 1 pod to evict, unneeded since t=10m40s"}));
  EXPECT_EQ(messages(r, "scale-down"),
            std::vector<std::string>{"t=21m20s drained node " + node +
                                     " of ng-b removed (1 pod evicted, drain took 30s), unneeded since t=10m40s"});
  EXPECT_EQ(r.summary.nodes_at_end, 1);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
}

TEST(ClusterAutoscalerDrain, APdbThatAllowsNoDisruptionKeepsTheNodeAndSaysWhy) {
  // minAvailable 2 with 2 pods: no disruption allowed, so the underutilized node is never drained.
  SimulationReport r = run(drain_scenario("minAvailable: 2"));
  const std::string node = web_node(r);
  ASSERT_FALSE(node.empty());
  std::vector<std::string> blocked = messages(r, "scale-down-blocked");
  ASSERT_EQ(blocked.size(), 1u);
  EXPECT_TRUE(blocked[0].starts_with("t=0s node " + node +
                                     " of ng-b cannot be removed: not enough pod disruption budget to move default/web-"))
      << blocked[0];
  EXPECT_TRUE(messages(r, "drain").empty());
  EXPECT_TRUE(messages(r, "scale-down").empty());
  EXPECT_EQ(r.summary.nodes_at_end, 2);
}

TEST(ClusterAutoscalerDrain, AGracePeriodLongerThanTheCapIsCutToMaxGracefulTerminationSec) {
  // terminationGracePeriodSeconds 300 capped by --max-graceful-termination-sec=60: with a PDB that allows both
  // evictions at once (maxUnavailable 2), both pods go at 10m10s and stop at 11m10s, and the node with them.
  SimulationReport r = run(drain_scenario("maxUnavailable: 2", ", \"--max-graceful-termination-sec=60\"", "15m",
                                          "      terminationGracePeriodSeconds: 300\n"));
  const std::string node = web_node(r);
  ASSERT_FALSE(node.empty());
  EXPECT_TRUE(messages(r, "eviction-refused").empty());
  EXPECT_EQ(messages(r, "scale-down"),
            std::vector<std::string>{"t=11m10s drained node " + node +
                                     " of ng-b removed (2 pods evicted, drain took 1m0s), unneeded since t=0s"});
}

TEST(ClusterAutoscaler, WithoutAnyGroupTheNodePoolDoesNotWaitForAScan) {
  // Cluster Autoscaler runs (its flags are given) but has no group. 4 web pods of 500m appear at 10 s: the NodePool
  // launches for them after its 1-s batch window, at 11 s, not after CA's next scan at 20 s.
  SimulationReport r = run(testing::nodepool() + kWeb + R"(apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: ca}
spec:
  duration: 5m
  clusterAutoscaler:
    args: ["--scan-interval=10s"]
  timeline:
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 4}}
)");
  std::vector<std::string> launches = messages(r, "launch");
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_TRUE(launches[0].starts_with("t=11s NodeClaim default-")) << launches[0];
  EXPECT_TRUE(messages(r, "scale-up").empty());
}

TEST(ClusterAutoscaler, WithNodePoolsTooTheGroupTakesWhatItCanAndTheNodePoolTheRest) {
  // One full node in ng (max 2) and a NodePool. 10 web pods of 500m appear at 10 s; the scan at 20 s gives ng its
  // one more node (4 pods) and finds no group for the other 6: they are left to the NodePool, which provisions for
  // exactly those 6 after its batch window (the group's upcoming node is not the NodePool's to fill).
  SimulationReport r = run(testing::nodepool() + cluster(1, 2) + R"(
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 10}}
)");
  EXPECT_EQ(messages(r, "scale-up"),
            std::vector<std::string>{"t=20s TriggeredScaleUp: pod triggered scale-up: [{ng 1->2 (max: 2)}] (4 pods)"});
  // 6 x 500m = 3000m: a c.large (2000m) is too small, the c.xlarge (4000m) holds them, spot before on-demand.
  std::vector<std::string> launches = messages(r, "launch");
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_TRUE(launches[0].starts_with("t=21s NodeClaim default-")) << launches[0];
  EXPECT_TRUE(launches[0].ends_with(" launched c.xlarge zone-a spot $0.0800/h for 6 pods")) << launches[0];
  EXPECT_EQ(messages(r, "handoff"),
            std::vector<std::string>{
                "t=20s 6 pods left to NodePools: no node group takes them (1 max node group size reached)"});
  std::size_t on_group = 0, on_nodepool = 0;
  for (const PodOutcome& p : r.pods) {
    if (!p.pod.starts_with("default/web-")) continue;
    on_group += p.node.starts_with("ng-");
    on_nodepool += p.nodepool == "default";
  }
  EXPECT_EQ(on_group, 4u);
  EXPECT_EQ(on_nodepool, 6u);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
}

// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// cluster(2, 5) with one node of `group` failing at 1m.
std::string cluster_with_failure(const std::string& group) {
  return replaced(cluster(2, 5), "  cloud:\n",
                  "  cloud:\n    faults:\n      nodeFailures: [{at: 1m, nodeGroup: " + group + "}]\n");
}

TEST(ClusterAutoscaler, ANodeThatStopsReportingIsReplacedAndRemovedAfterTheUnreadyTime) {
  // Two full nodes; the older (both start at 0: the first by name) stops reporting at 1m. Its app pod tolerates
  // the unreachable taint the default 300 s: at 6m it is deleted and replaced, the replacement fits nowhere and the
  // scan in that instant grows ng 2 -> 3. The dead node keeps the Terminating pod, counted until it is "long
  // terminating" (deleted at 360 s + 30 s grace + 30 s, strictly after: the scan at 7m10s); from then the node is
  // empty, and being NotReady it goes after --scale-down-unready-time (20m), not the unneeded time: at 27m20s.
  SimulationReport r = run(replaced(cluster_with_failure("ng"), "duration: 20m", "duration: 30m"));
  std::vector<std::string> failed = messages(r, "node-failure");
  ASSERT_EQ(failed.size(), 1u);
  const std::string prefix = "t=1m0s node ";
  ASSERT_TRUE(failed[0].starts_with(prefix)) << failed[0];
  const std::string node = failed[0].substr(prefix.size(), failed[0].find(' ', prefix.size()) - prefix.size());
  EXPECT_EQ(failed[0], prefix + node + " stopped reporting: NotReady, tainted node.kubernetes.io/unreachable; 1 pod "
                                       "on it, each deleted when its toleration of the taint ends (5m0s by default)");
  EXPECT_EQ(messages(r, "taint-eviction"),
            std::vector<std::string>{"t=6m0s 1 pod on unreachable node " + node +
                                     " deleted after 5m0s; controllers create replacements"});
  EXPECT_EQ(messages(r, "scale-up"),
            std::vector<std::string>{"t=6m0s TriggeredScaleUp: pod triggered scale-up: [{ng 2->3 (max: 5)}] (1 pod)"});
  EXPECT_EQ(messages(r, "scale-down"),
            std::vector<std::string>{"t=27m20s empty node " + node +
                                     " of ng removed (no pods to move), unneeded since t=7m10s"});
  EXPECT_EQ(r.summary.nodes_at_end, 2);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
}

TEST(ClusterAutoscaler, TooManyUnreadyNodesStopAllScaling) {
  // 6 full nodes, 4 stop reporting at 1m: 4 > --ok-total-unready-count (3) and 4 > 45 % of 6 (2.7), so the scan at
  // 1m says the cluster is unhealthy. At 6m the 4 app pods are replaced and wait: no scale-up while it lasts. With 3
  // failing (3 is not more than 3) the cluster stays healthy and the scan at 6m0s grows ng 6 -> 9.
  auto failing = [](int count) {
    return replaced(cluster(6, 10), "  cloud:\n",
                    "  cloud:\n    faults:\n      nodeFailures: [{at: 1m, count: " + std::to_string(count) +
                        ", nodeGroup: ng}]\n");
  };
  SimulationReport four = run(failing(4), 2, {Instant(Duration{10 * 60'000})});
  EXPECT_EQ(messages(four, "cluster-unhealthy"),
            std::vector<std::string>{"t=1m0s ClusterUnhealthy: 4 of 6 nodes unready, more than "
                                     "--ok-total-unready-count=3 and --max-total-unready-percentage=45% of them: no "
                                     "scale-up or scale-down"});
  EXPECT_TRUE(messages(four, "scale-up").empty());
  EXPECT_EQ(four.summary.pod_wait.pods_pending_at_end, 4u);
  ASSERT_EQ(four.cluster_autoscaler_status_at.size(), 1u);
  EXPECT_NE(four.cluster_autoscaler_status_at[0].status.find("clusterWide:\n  health:\n    status: Unhealthy\n"),
            std::string::npos)
      << four.cluster_autoscaler_status_at[0].status;

  // With a NodePool as well, the pods CA will not serve go to it.
  SimulationReport with_pool = run(testing::nodepool() + failing(4));
  EXPECT_EQ(messages(with_pool, "handoff"),
            std::vector<std::string>{"t=6m0s 4 pods left to NodePools: no node group takes them (cluster unhealthy)"});
  EXPECT_EQ(with_pool.summary.pod_wait.pods_pending_at_end, 0u);

  SimulationReport three = run(failing(3));
  EXPECT_TRUE(messages(three, "cluster-unhealthy").empty());
  EXPECT_EQ(messages(three, "scale-up"),
            std::vector<std::string>{"t=6m0s TriggeredScaleUp: pod triggered scale-up: [{ng 6->9 (max: 10)}] (3 pods)"});
}

TEST(ClusterAutoscaler, TheStatusCountsANodeThatStoppedReportingAsUnready) {
  SimulationReport r = run(cluster_with_failure("ng"), 2, {Instant(Duration{2 * 60'000})});
  ASSERT_EQ(r.cluster_autoscaler_status_at.size(), 1u);
  const std::string& status = r.cluster_autoscaler_status_at[0].status;
  EXPECT_NE(status.find("      registered:\n        total: 2\n        ready: 1\n"), std::string::npos) << status;
  EXPECT_NE(status.find("        unready:\n          total: 1\n"), std::string::npos) << status;
}

TEST(ClusterAutoscaler, ANodeFailureNamingAnUnknownGroupIsALoadError) {
  Result<ManifestSet> objects = decode_manifests(cluster_with_failure("nq"), "test.yaml");
  ASSERT_FALSE(objects.ok());
  EXPECT_EQ(objects.error().message,
            "test.yaml doc 3 Scenario/ca: spec.cloud.faults.nodeFailures[0].nodeGroup: no Auto Scaling group \"nq\" in "
            "spec.cloud.autoScalingGroups");
}

TEST(ClusterAutoscalerConfiguration, CasDeploymentGivesTheFlagsUnlessTheScenarioDoes) {
  ClusterAutoscalerDeployment ca;
  ca.meta.name = "cluster-autoscaler";
  ca.meta.namespace_ = "kube-system";
  ca.container = "cluster-autoscaler";
  ca.flags = {"./cluster-autoscaler", "--nodes=1:5:ng"};
  Scenario scenario;
  scenario.meta.name = "s";
  Result<std::optional<std::string>> adopted = sim::adopt_cluster_autoscaler_deployment(scenario, {ca});
  ASSERT_TRUE(adopted.ok());
  EXPECT_EQ(**adopted,
            "Cluster Autoscaler runs with the flags of Deployment kube-system/cluster-autoscaler (container "
            "cluster-autoscaler)");
  ASSERT_TRUE(scenario.cluster_autoscaler.has_value());
  EXPECT_EQ(scenario.cluster_autoscaler->args, ca.flags);

  // The Scenario's own args win, and say so.
  Scenario own;
  own.meta.name = "own";
  own.cluster_autoscaler = ClusterAutoscalerSpec{{"--nodes=0:3:other"}};
  adopted = sim::adopt_cluster_autoscaler_deployment(own, {ca});
  ASSERT_TRUE(adopted.ok());
  EXPECT_EQ(**adopted, "Scenario/own gives spec.clusterAutoscaler.args: the flags of Deployment "
                       "kube-system/cluster-autoscaler are not used");
  EXPECT_EQ(own.cluster_autoscaler->args, std::vector<std::string>{"--nodes=0:3:other"});

  // No Deployment: nothing to say; two: which one is meant is not for us to guess.
  Scenario none;
  EXPECT_FALSE(sim::adopt_cluster_autoscaler_deployment(none, {})->has_value());
  ClusterAutoscalerDeployment second = ca;
  second.meta.namespace_ = "autoscaling";
  adopted = sim::adopt_cluster_autoscaler_deployment(none, {ca, second});
  ASSERT_FALSE(adopted.ok());
  EXPECT_EQ(adopted.error().message, "Deployment kube-system/cluster-autoscaler and Deployment "
                                     "autoscaling/cluster-autoscaler both run Cluster Autoscaler; a run takes one");
  EXPECT_FALSE(none.cluster_autoscaler.has_value());
}

}  // namespace
}  // namespace scalewright::sim
