// Cluster Autoscaler in the simulator, on the small round-number catalog (tests/provisioning/fixtures.h): c.large
// is 2 cpu / 4 GiB with allocatable equal to capacity, nodes are Ready 60 s after launch, CA scans every 10 s from
// t=0. Each group starts with its nodes full: one 1900m "app" pod per node.
#include <gtest/gtest.h>

#include "run_scenario.h"

namespace scalewright::sim {
namespace {

using testing::messages;
using testing::run;

// web: 500m / 512Mi pods, none running at first.
const std::string kWeb = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: web, resources: {requests: {cpu: 500m, memory: 512Mi}}}
---
)";

std::string cluster(int nodes, int max_size, const std::string& extra_args = "") {
  return R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: default}
spec:
  replicas: )" + std::to_string(nodes) + R"(
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec:
      containers:
      - {name: app, image: app, resources: {requests: {cpu: 1900m, memory: 1Gi}}}
---
)" + kWeb + R"(apiVersion: scalewright.dev/v1alpha1
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

TEST(ClusterAutoscaler, AnInterruptedSpotNodeOfAGroupIsReplacedByItsAutoScalingGroup) {
  // ng runs 2 spot c.large nodes. At 1m the oldest gets the two-minute notice; at 3m it is reclaimed and the group,
  // keeping its desired capacity, launches a replacement that is Ready 60 s later; its app pod waits for it.
  std::string text = cluster(2, 5) + "  - {at: 10m, scale: {kind: Deployment, name: web, replicas: 0}}\n";
  text.replace(text.find("zones: [zone-a]"), 15, "zones: [zone-a], capacityType: spot");
  const std::string latency = "launchLatency: {min: 60s, max: 60s}";
  text.replace(text.find(latency), latency.size(), latency + "\n    faults: {spotInterruptions: [{at: 1m, count: 1}]}");
  SimulationReport r = run(text);
  EXPECT_EQ(r.summary.spot_interruptions, 1);
  EXPECT_EQ(r.summary.launches, 1);
  EXPECT_EQ(r.summary.nodes_at_end, 2);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
  EXPECT_TRUE(messages(r, "scale-up").empty());  // the group did it, not CA
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

}  // namespace
}  // namespace scalewright::sim
