#include "nodegroups/node_group.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string_view>

namespace scalewright::nodegroups {
namespace {

constexpr double kMaxMemoryCapacityDifference = 0.015;  // MaxCapacityMemoryDifferenceRatio
constexpr double kMaxAllocatableDifference = 0.05;      // MaxAllocatableDifferenceRatio

// Labels that differ between otherwise identical groups on any cloud: where a node is, and what names it (CA's
// BasicIgnoredLabels); a provider and --balancing-ignore-label add their own.
constexpr std::array<std::string_view, 7> kIgnoredLabels{
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "beta.kubernetes.io/fluentd-ds-ready",
    "kops.k8s.io/instancegroup",
};

bool ignored(const Symbol& key, const std::vector<std::string>& also) {
  return std::find(kIgnoredLabels.begin(), kIgnoredLabels.end(), key.str()) != kIgnoredLabels.end() ||
         std::find(also.begin(), also.end(), key.str()) != also.end();
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

Labels comparable_labels(const Labels& labels, const std::vector<std::string>& also_ignored) {
  Labels out;
  for (const auto& [key, value] : labels) {
    if (!ignored(key, also_ignored)) out.set(key, value);
  }
  return out;
}

}  // namespace

bool similar_node_groups(const NodeGroup& a, const NodeGroup& b, const std::vector<std::string>& ignored_labels) {
  const Node& x = a.template_node;
  const Node& y = b.template_node;
  const bool capacity = each_resource(x.capacity, y.capacity, [](const Symbol& name, std::int64_t p, std::int64_t q) {
    return name == resource_names::memory() ? within(p, q, kMaxMemoryCapacityDifference) : p == q;
  });
  const bool allocatable = each_resource(x.allocatable, y.allocatable, [](const Symbol&, std::int64_t p, std::int64_t q) {
    return within(p, q, kMaxAllocatableDifference);
  });
  return capacity && allocatable &&
         comparable_labels(x.meta.labels, ignored_labels) == comparable_labels(y.meta.labels, ignored_labels) &&
         x.taints == y.taints;
}

std::int64_t node_cpu_milli(const Node& node) {
  return node.capacity.cpu_milli() > 0 ? node.capacity.cpu_milli() : node.allocatable.cpu_milli();
}

std::int64_t node_memory_bytes(const Node& node) {
  return node.capacity.memory() > 0 ? node.capacity.memory() : node.allocatable.memory();
}

}  // namespace scalewright::nodegroups
