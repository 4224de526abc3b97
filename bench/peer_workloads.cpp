#include "peer_workloads.h"

namespace scalewright::bench {

Node template_node(const std::string& name, const std::string& group, const std::string& zone) {
  Node node;
  node.meta.name = name;
  node.meta.labels.set(Symbol("kubernetes.io/hostname"), Symbol(name));
  node.meta.labels.set(Symbol("topology.kubernetes.io/zone"), Symbol(zone));
  node.meta.labels.set(Symbol("node.kubernetes.io/instance-type"), Symbol("m5.xlarge"));
  node.meta.labels.set(Symbol("scalewright.io/node-group"), Symbol(group));
  node.capacity.set(Symbol("cpu"), 4000);
  node.capacity.set(Symbol("memory"), 16 * 1024 * kMiB);
  node.capacity.set(Symbol("pods"), 110);
  node.allocatable = node.capacity;
  node.conditions.push_back({"Ready", "True", ""});
  return node;
}

Pod pod_with(const std::string& name, std::int64_t cpu_milli, std::int64_t memory, const std::string& owner_kind,
             const std::string& owner_name) {
  Pod pod;
  pod.meta.name = name;
  pod.meta.namespace_ = "default";
  pod.meta.owner_references.push_back({"apps/v1", owner_kind, owner_name, owner_name + "-uid", true});
  Container c;
  c.name = "app";
  c.requests.set(Symbol("cpu"), cpu_milli);
  c.requests.set(Symbol("memory"), memory);
  pod.spec.containers.push_back(std::move(c));
  return pod;
}

PendingShape next_pending_shape(SplitMix64& rng) {
  static constexpr std::int64_t kCpu[] = {100, 250, 500, 1000, 2000};
  static constexpr std::int64_t kMemMi[] = {128, 512, 1024, 2048, 4096};
  PendingShape shape;
  shape.ci = rng.index();
  shape.mi = rng.index();
  shape.cpu_milli = kCpu[shape.ci];
  shape.memory = kMemMi[shape.mi] * kMiB;
  return shape;
}

ScaleUpCluster scale_up_cluster() {
  ScaleUpCluster cluster;
  for (std::size_t j = 0; j < 1000; ++j) {
    const std::string group = "ng-" + std::to_string(j % 5);
    cluster.nodes.push_back(template_node(group + "-node-" + std::to_string(j), group));
    std::vector<Pod> pods;
    for (int k = 0; k < 30; ++k) {
      pods.push_back(
          pod_with("p-" + std::to_string(j) + "-" + std::to_string(k), 133, 512 * kMiB, "ReplicaSet", "existing-rs"));
    }
    cluster.pods_by_node.push_back(std::move(pods));
  }
  SplitMix64 rng(2);
  for (std::size_t i = 0; i < 500; ++i) {
    const PendingShape shape = next_pending_shape(rng);
    cluster.pending.push_back(pod_with("pending-" + std::to_string(i), shape.cpu_milli, shape.memory, "ReplicaSet",
                                       "pending-rs-" + std::to_string(shape.ci) + "-" + std::to_string(shape.mi)));
  }
  return cluster;
}

ScaleDownCluster scale_down_cluster(std::size_t count) {
  static constexpr std::int64_t kLowCpu[] = {10, 20, 30, 40, 50};
  static constexpr std::int64_t kLowMemMi[] = {32, 64, 96, 128, 160};
  static constexpr std::int64_t kHighCpu[] = {50, 80, 100, 120, 150};
  static constexpr std::int64_t kHighMemMi[] = {128, 256, 384, 512, 640};
  ScaleDownCluster cluster;
  SplitMix64 rng(3);
  for (std::size_t j = 0; j < count; ++j) {
    std::string group = "ng-" + std::to_string(j % 5);
    cluster.nodes.push_back(template_node(group + "-node-" + std::to_string(j), group));
    std::vector<Pod> pods;
    bool low = j % 4 == 0;
    for (int k = 0; k < 30; ++k) {
      std::size_t ci = rng.index();
      std::size_t mi = rng.index();
      std::int64_t cpu = low ? kLowCpu[ci] : kHighCpu[ci];
      std::int64_t mem = (low ? kLowMemMi[mi] : kHighMemMi[mi]) * kMiB;
      pods.push_back(pod_with("p-" + std::to_string(j) + "-" + std::to_string(k), cpu, mem, "ReplicaSet", "rs"));
    }
    cluster.pods_by_node.push_back(std::move(pods));
  }
  return cluster;
}

}  // namespace scalewright::bench
