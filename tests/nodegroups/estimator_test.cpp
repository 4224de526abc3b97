#include "nodegroups/estimator.h"

#include <gtest/gtest.h>

#include "fixtures.h"

#include <memory>
#include <string>
#include <vector>

namespace scalewright::nodegroups {
namespace {

using scheduling::ClusterSnapshot;
using scheduling::Scheduler;

using fixtures::m5_large;

std::shared_ptr<const Pod> pod(const std::string& name, std::int64_t cpu, std::int64_t memory_mi,
                               const std::string& app) {
  return std::make_shared<const Pod>(fixtures::replica_pod(name, cpu, memory_mi, app));
}

std::vector<std::shared_ptr<const Pod>> replicas(const std::string& app, int n, std::int64_t cpu,
                                                 std::int64_t memory_mi) {
  std::vector<std::shared_ptr<const Pod>> out;
  for (int i = 0; i < n; ++i) out.push_back(pod(app + "-" + std::to_string(i), cpu, memory_mi, app));
  return out;
}

TEST(GroupPendingPods, SameControllerAndSpecMakeOneGroup) {
  auto nginx = replicas("nginx", 3, 140, 256);
  auto other = replicas("api", 2, 140, 256);
  std::vector<std::shared_ptr<const Pod>> all = nginx;
  all.insert(all.end(), other.begin(), other.end());
  std::vector<PodGroup> groups = group_pending_pods(all);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].pods.size(), 3u);
  EXPECT_EQ(groups[1].pods.size(), 2u);
}

TEST(BinpackingEstimator, FiftyNginxNeedFourM5Large) {
  // 140m / 256Mi each: cpu allows floor(1930 / 140) = 13 per node (14 would be 1960m), memory 28, pods 29;
  // so 13 per node and ceil(50 / 13) = 4 nodes (13 + 13 + 13 + 11).
  ClusterSnapshot snapshot;
  Scheduler scheduler;
  Estimate e = estimate_nodes(group_pending_pods(replicas("nginx", 50, 140, 256)), m5_large("ng-a"), snapshot,
                              scheduler, 55);
  EXPECT_EQ(e.node_count, 4);
  EXPECT_EQ(e.pods.size(), 50u);
  EXPECT_FALSE(e.limit_reached);
  // The snapshot is left as it came.
  EXPECT_EQ(snapshot.live_node_count(), 0u);
  EXPECT_EQ(snapshot.pod_count(), 0u);
  EXPECT_EQ(snapshot.fork_depth(), 0u);
}

TEST(BinpackingEstimator, LargestPodsFirst) {
  // Three 1000m / 1Gi pods (score 1000/1930 + 1024/7270 = 0.66) go first, one per node (two would need 2000m);
  // then 13 nginx (score 0.11) fill the gaps first-fit: 6 + 6 + 1 (930m left = 6 x 140m). Three nodes. Had the
  // nginx gone first they would fill one node and the big pods need three more: four.
  std::vector<std::shared_ptr<const Pod>> pods = replicas("nginx", 13, 140, 256);
  auto big = replicas("big", 3, 1000, 1024);
  pods.insert(pods.end(), big.begin(), big.end());
  ClusterSnapshot snapshot;
  Scheduler scheduler;
  Estimate e = estimate_nodes(group_pending_pods(pods), m5_large("ng-a"), snapshot, scheduler, 10);
  EXPECT_EQ(e.node_count, 3);
  EXPECT_EQ(e.pods.size(), 16u);
  EXPECT_EQ(e.pods.front()->meta.name, "big-0");
}

TEST(BinpackingEstimator, MemoryHeavyPodsGoBesideCpuHeavyOnes) {
  // m5.large template: 1930m, 7270Mi, 29 pods. Two 960m / 512Mi pods (score 0.497 + 0.070) and four 240m / 3000Mi
  // (0.124 + 0.413). Upstream's order puts both large pods on one node (1920m) and the small ones two per node
  // (6000Mi; a third would need 9000Mi): three nodes. Each node's room matched with the shape that fills it best
  // (as shares of the template: cpu, memory, pod slots):
  // - empty: large 0.497 + 0.070 + 0.034 = 0.602, small 0.124 + 0.413 + 0.034 = 0.572: large;
  // - room 970m / 6758Mi / 28 (0.503, 0.930, 0.966): large 0.250 + 0.065 + 0.033 = 0.349, small 0.063 + 0.384 +
  //   0.033 = 0.480: small; then room 730m / 3758Mi takes another small, and 490m / 758Mi neither.
  // One large and two small per node: two nodes, which their 2880m of cpu needs anyway.
  std::vector<std::shared_ptr<const Pod>> pods = replicas("large", 2, 960, 512);
  auto small = replicas("small", 4, 240, 3000);
  pods.insert(pods.end(), small.begin(), small.end());
  ClusterSnapshot snapshot;
  Scheduler scheduler;
  Estimate e = estimate_nodes(group_pending_pods(pods), m5_large("ng-a"), snapshot, scheduler, 10);
  EXPECT_EQ(e.node_count, 2);
  EXPECT_FALSE(e.limit_reached);
  EXPECT_EQ(e.placed_per_group, (std::vector<std::int32_t>{2, 4}));
  std::vector<std::string> order;
  for (const auto& p : e.pods) order.push_back(p->meta.name);
  EXPECT_EQ(order, (std::vector<std::string>{"large-0", "small-0", "small-1", "large-1", "small-2", "small-3"}));
  EXPECT_EQ(snapshot.live_node_count(), 0u);
}

TEST(BinpackingEstimator, StopsAtTheNodeLimit) {
  ClusterSnapshot snapshot;
  Scheduler scheduler;
  Estimate e = estimate_nodes(group_pending_pods(replicas("nginx", 50, 140, 256)), m5_large("ng-a"), snapshot,
                              scheduler, 2);
  EXPECT_EQ(e.node_count, 2);
  EXPECT_EQ(e.pods.size(), 26u);  // 2 x 13
  EXPECT_TRUE(e.limit_reached);
  ASSERT_EQ(e.placed_per_group.size(), 1u);
  EXPECT_EQ(e.placed_per_group[0], 26);
}

TEST(BinpackingEstimator, PodsTheTemplateCannotHoldAreRejectedWithTheSchedulersReason) {
  NodeGroup gpu = m5_large("ng-gpu");
  gpu.template_node.taints.push_back({"nvidia.com/gpu", "true", TaintEffect::NoSchedule});
  auto plain = replicas("plain", 2, 100, 128);
  ClusterSnapshot snapshot;
  Scheduler scheduler;
  Estimate e = estimate_nodes(group_pending_pods(plain), gpu, snapshot, scheduler, 10);
  EXPECT_EQ(e.node_count, 0);
  ASSERT_EQ(e.rejected.size(), 1u);
  EXPECT_EQ(e.rejected[0].reasons, std::vector<std::string>{"node(s) had untolerated taint {nvidia.com/gpu: true}"});

  // 4000m never fits 1930m, however many nodes.
  Estimate huge = estimate_nodes(group_pending_pods(replicas("huge", 1, 4000, 128)), m5_large("ng-a"), snapshot,
                                 scheduler, 10);
  EXPECT_EQ(huge.node_count, 0);
  ASSERT_EQ(huge.rejected.size(), 1u);
  EXPECT_EQ(huge.rejected[0].reasons, std::vector<std::string>{"Insufficient cpu"});
}

TEST(BinpackingEstimator, HostnameAntiAffinityNeedsANodePerPod) {
  std::vector<std::shared_ptr<const Pod>> pods;
  for (int i = 0; i < 5; ++i) {
    Pod p = *pod("db-" + std::to_string(i), 100, 128, "db");
    PodAffinityTerm term;
    term.label_selector = LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol("db")}}}};
    term.topology_key = Symbol("kubernetes.io/hostname");
    p.spec.affinity.required_pod_anti_affinity.push_back(term);
    pods.push_back(std::make_shared<const Pod>(std::move(p)));
  }
  ClusterSnapshot snapshot;
  Scheduler scheduler;
  Estimate e = estimate_nodes(group_pending_pods(pods), m5_large("ng-a"), snapshot, scheduler, 10);
  EXPECT_EQ(e.node_count, 5);
  EXPECT_EQ(e.pods.size(), 5u);
}

TEST(BinpackingEstimator, HostPortsNeedANodePerPod) {
  std::vector<std::shared_ptr<const Pod>> pods;
  for (int i = 0; i < 3; ++i) {
    Pod p = *pod("ingress-" + std::to_string(i), 100, 128, "ingress");
    p.spec.containers[0].ports.push_back({80, 80, "TCP", ""});
    pods.push_back(std::make_shared<const Pod>(std::move(p)));
  }
  ClusterSnapshot snapshot;
  Scheduler scheduler;
  Estimate e = estimate_nodes(group_pending_pods(pods), m5_large("ng-a"), snapshot, scheduler, 2);
  EXPECT_EQ(e.node_count, 2);  // the limit: the third needs a third node
  EXPECT_TRUE(e.limit_reached);
}

TEST(BinpackingEstimator, ZoneSpreadAgainstExistingNodes) {
  // An existing node in us-east-1b holds no web pod; the template is in us-east-1a. maxSkew 1 on zone lets one
  // web pod into 1a (skew 1 - 0 = 1) and no more while 1b stays empty: one node, one pod.
  ClusterSnapshot snapshot;
  Node existing = m5_large("ng-b").template_node;
  existing.meta.name = "existing-b";
  existing.meta.labels.set(Symbol("topology.kubernetes.io/zone"), Symbol("us-east-1b"));
  existing.meta.labels.set(Symbol("kubernetes.io/hostname"), Symbol("existing-b"));
  Pod filler = *pod("filler", 1900, 128, "filler");
  snapshot.add_pod(filler, snapshot.add_node(existing));
  std::vector<std::shared_ptr<const Pod>> pods;
  for (int i = 0; i < 4; ++i) {
    Pod p = *pod("web-" + std::to_string(i), 100, 128, "web");
    TopologySpreadConstraint c;
    c.max_skew = 1;
    c.topology_key = Symbol("topology.kubernetes.io/zone");
    c.label_selector = LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol("web")}}}};
    p.spec.topology_spread_constraints.push_back(c);
    pods.push_back(std::make_shared<const Pod>(std::move(p)));
  }
  Scheduler scheduler;
  Estimate e = estimate_nodes(group_pending_pods(pods), m5_large("ng-a"), snapshot, scheduler, 10);
  EXPECT_EQ(e.node_count, 1);
  EXPECT_EQ(e.pods.size(), 1u);
  EXPECT_EQ(snapshot.live_node_count(), 1u);
  EXPECT_EQ(snapshot.pod_count(), 1u);
}

}  // namespace
}  // namespace scalewright::nodegroups
