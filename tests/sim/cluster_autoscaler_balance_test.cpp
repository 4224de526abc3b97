// --balance-similar-node-groups in the simulator: three Auto Scaling groups of c.large (2 cpu / 4 GiB), one per
// zone of a three-zone catalog (tests/provisioning/fixtures.h), each min 0 / max 10 / desired 1. Each starting node
// is full with one 1900m "app" pod. At 10 s "web" (500m / 512Mi pods) is scaled to 24: a c.large holds 4 of them,
// so 24 / 4 = 6 new nodes are needed. The pods appear after the scan at 10 s; the scan at 20 s scales up; the
// nodes are Ready at 80 s.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "run_scenario.h"

namespace scalewright::sim {
namespace {

using testing::messages;
using testing::run;

constexpr const char* kScaleUpAt20s = "t=20s TriggeredScaleUp: pod triggered scale-up: ";

// `ng_c_max` is ng-c's max size (its group and its --nodes flag); `extra_args` follow the --nodes flags.
std::string three_zones(const std::string& extra_args, int ng_c_max = 10, const std::string& extra_manifests = "") {
  const std::string c_max = std::to_string(ng_c_max);
  return testing::deployment("app", 3, "1900m") + testing::deployment("web", 0, "500m", "512Mi") + extra_manifests +
         R"(apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: three-zones}
spec:
  duration: 5m
  cloud:
    launchLatency: {min: 60s, max: 60s}
    autoScalingGroups:
    - {name: ng-a, instanceType: c.large, zones: [zone-a], minSize: 0, maxSize: 10, desiredCapacity: 1}
    - {name: ng-b, instanceType: c.large, zones: [zone-b], minSize: 0, maxSize: 10, desiredCapacity: 1}
    - {name: ng-c, instanceType: c.large, zones: [zone-c], minSize: 0, maxSize: )" +
         c_max + R"(, desiredCapacity: 1}
  clusterAutoscaler:
    args: ["--nodes=0:10:ng-a", "--nodes=0:10:ng-b", "--nodes=0:)" + c_max + R"(:ng-c")" + extra_args + R"(]
  timeline:
  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 24}}
)";
}

// Nodes each group had over the run (its starting node included), from the cost lines ("group/ng-a").
std::map<std::string, std::int32_t> nodes_per_group(const SimulationReport& r) {
  std::map<std::string, std::int32_t> out;
  for (const CostLine& line : r.summary.cost_lines) out[line.nodepool] += line.nodes;
  return out;
}

// Bound web pods per group, by the group-id prefix of their node's name ("ng-a-...").
std::map<std::string, int> web_pods_per_group(const SimulationReport& r) {
  std::map<std::string, int> out;
  for (const PodOutcome& pod : r.pods) {
    if (!pod.pod.starts_with("default/web-") || pod.node.empty()) continue;
    for (const char* group : {"ng-a", "ng-b", "ng-c"}) {
      if (pod.node.starts_with(std::string(group) + "-")) ++out[group];
    }
  }
  return out;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ClusterAutoscalerBalance, SixNewNodesSplitTwoPerZone) {
  // The three groups are similar (same instance type; only the zone label differs), so the 6 nodes the chosen
  // group's estimate needs are spread smallest-group-first: 1, 1, 1 -> 3, 3, 3. The chosen group (least-waste
  // ties, broken at random) comes first in the list, so each group's part is checked on its own.
  SimulationReport r = run(three_zones(R"(, "--balance-similar-node-groups")"), 3);
  std::vector<std::string> ups = messages(r, "scale-up");
  ASSERT_EQ(ups.size(), 1u);
  EXPECT_TRUE(ups[0].starts_with(kScaleUpAt20s)) << ups[0];
  EXPECT_TRUE(ups[0].ends_with("] (24 pods)")) << ups[0];
  for (const char* part : {"{ng-a 1->3 (max: 10)}", "{ng-b 1->3 (max: 10)}", "{ng-c 1->3 (max: 10)}"}) {
    EXPECT_TRUE(contains(ups[0], part)) << part << " in " << ups[0];
  }
  EXPECT_EQ(r.summary.launches, 6);
  EXPECT_EQ(nodes_per_group(r), (std::map<std::string, std::int32_t>{
                                    {"group/ng-a", 3}, {"group/ng-b", 3}, {"group/ng-c", 3}}));
  // Every new node holds exactly 4 web pods (4 x 500m = 2000m), so each zone runs 8; nothing is left pending.
  EXPECT_EQ(web_pods_per_group(r), (std::map<std::string, int>{{"ng-a", 8}, {"ng-b", 8}, {"ng-c", 8}}));
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
  EXPECT_TRUE(std::all_of(r.pods.begin(), r.pods.end(), [](const PodOutcome& p) { return !p.node.empty(); }));
}

TEST(ClusterAutoscalerBalance, AGroupAtItsMaxLeavesTheSplitToTheOthers) {
  // ng-c is at its max (1 of 1): it is skipped before the estimate and is no balancing partner. The 6 nodes go to
  // ng-a and ng-b, smallest first: 1, 1 -> 4, 4.
  SimulationReport r = run(three_zones(R"(, "--balance-similar-node-groups")", 1), 3);
  std::vector<std::string> ups = messages(r, "scale-up");
  ASSERT_EQ(ups.size(), 1u);
  EXPECT_TRUE(ups[0].starts_with(kScaleUpAt20s)) << ups[0];
  EXPECT_TRUE(ups[0].ends_with("] (24 pods)")) << ups[0];
  EXPECT_TRUE(contains(ups[0], "{ng-a 1->4 (max: 10)}")) << ups[0];
  EXPECT_TRUE(contains(ups[0], "{ng-b 1->4 (max: 10)}")) << ups[0];
  EXPECT_FALSE(contains(ups[0], "ng-c")) << ups[0];
  EXPECT_EQ(nodes_per_group(r), (std::map<std::string, std::int32_t>{
                                    {"group/ng-a", 4}, {"group/ng-b", 4}, {"group/ng-c", 1}}));
  EXPECT_EQ(web_pods_per_group(r), (std::map<std::string, int>{{"ng-a", 12}, {"ng-b", 12}}));
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
}

TEST(ClusterAutoscalerBalance, WithoutBalancingOneGroupTakesAllSixNodes) {
  // The priority ConfigMap ranks ng-b above ng-a and ng-c: ng-b alone grows 1 -> 7.
  const std::string priorities = R"(apiVersion: v1
kind: ConfigMap
metadata: {name: cluster-autoscaler-priority-expander, namespace: kube-system}
data:
  priorities: |-
    10:
      - ng-a
      - ng-c
    20:
      - ng-b
---
)";
  SimulationReport r = run(three_zones(R"(, "--expander=priority")", 10, priorities), 3);
  EXPECT_EQ(messages(r, "scale-up"),
            std::vector<std::string>{std::string(kScaleUpAt20s) + "[{ng-b 1->7 (max: 10)}] (24 pods)"});
  EXPECT_EQ(nodes_per_group(r), (std::map<std::string, std::int32_t>{
                                    {"group/ng-a", 1}, {"group/ng-b", 7}, {"group/ng-c", 1}}));
  EXPECT_EQ(web_pods_per_group(r), (std::map<std::string, int>{{"ng-b", 24}}));
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);

  // With the default least-waste the three options waste the same, and the seeded random tie-break picks one of
  // them: whichever it is, it alone takes the 6 nodes.
  r = run(three_zones(""), 3);
  std::vector<std::string> ups = messages(r, "scale-up");
  ASSERT_EQ(ups.size(), 1u);
  int groups_grown = 0;
  for (const char* group : {"ng-a", "ng-b", "ng-c"}) {
    if (ups[0] == std::string(kScaleUpAt20s) + "[{" + group + " 1->7 (max: 10)}] (24 pods)") ++groups_grown;
  }
  EXPECT_EQ(groups_grown, 1) << ups[0];
  EXPECT_EQ(r.summary.launches, 6);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
}

}  // namespace
}  // namespace scalewright::sim
