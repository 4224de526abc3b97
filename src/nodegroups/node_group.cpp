#include "nodegroups/node_group.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

namespace scalewright::nodegroups {
namespace {

constexpr double kMaxMemoryCapacityDifference = 0.015;  // MaxCapacityMemoryDifferenceRatio
constexpr double kMaxAllocatableDifference = 0.05;      // MaxAllocatableDifferenceRatio

// Labels that differ between otherwise identical groups: where a node is, and what its group is called.
constexpr std::array<std::string_view, 12> kIgnoredLabels{
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.ebs.csi.aws.com/zone",
    "alpha.eksctl.io/nodegroup-name",
    "eks.amazonaws.com/nodegroup",
    "k8s.amazonaws.com/eniConfig",
    "alpha.eksctl.io/instance-id",
    "beta.kubernetes.io/fluentd-ds-ready",
    "kops.k8s.io/instancegroup",
};

bool ignored(const Symbol& key) {
  return std::find(kIgnoredLabels.begin(), kIgnoredLabels.end(), key.str()) != kIgnoredLabels.end();
}

bool within(std::int64_t a, std::int64_t b, double ratio) {
  if (a == b) return true;
  const double larger = static_cast<double>(std::max(std::abs(a), std::abs(b)));
  return static_cast<double>(std::abs(a - b)) <= ratio * larger;
}

// Resource by resource over the names either list has.
template <typename Compare>
bool each_resource(const ResourceList& a, const ResourceList& b, Compare compare) {
  for (const auto& [name, amount] : a.entries()) {
    if (!compare(name, amount, b.get(name))) return false;
  }
  for (const auto& [name, amount] : b.entries()) {
    if (!compare(name, a.get(name), amount)) return false;
  }
  return true;
}

Labels comparable_labels(const Labels& labels) {
  Labels out;
  for (const auto& [key, value] : labels) {
    if (!ignored(key)) out.set(key, value);
  }
  return out;
}

}  // namespace

bool similar_node_groups(const NodeGroup& a, const NodeGroup& b) {
  const Node& x = a.template_node;
  const Node& y = b.template_node;
  const bool capacity = each_resource(x.capacity, y.capacity, [](const Symbol& name, std::int64_t p, std::int64_t q) {
    return name == resource_names::memory() ? within(p, q, kMaxMemoryCapacityDifference) : p == q;
  });
  const bool allocatable = each_resource(x.allocatable, y.allocatable, [](const Symbol&, std::int64_t p, std::int64_t q) {
    return within(p, q, kMaxAllocatableDifference);
  });
  return capacity && allocatable && comparable_labels(x.meta.labels) == comparable_labels(y.meta.labels) &&
         x.taints == y.taints;
}

std::int64_t node_cpu_milli(const Node& node) {
  return node.capacity.cpu_milli() > 0 ? node.capacity.cpu_milli() : node.allocatable.cpu_milli();
}

std::int64_t node_memory_bytes(const Node& node) {
  return node.capacity.memory() > 0 ? node.capacity.memory() : node.allocatable.memory();
}

}  // namespace scalewright::nodegroups
