#pragma once
// Cluster Autoscaler's model, as the engine sees it: node groups (AWS Auto Scaling groups, Azure VM scale sets, GKE
// node pools) with a min, a max, a target size and a template node from which an empty group scales up from zero.
// Built from the cloud's groups by the provider (cloud/aws/auto_scaling_groups.h reads Auto Scaling groups); read
// by the scale-up (estimator, expanders) and scale-down planners. Plain values: no I/O.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"
#include "cloud/instance_type.h"
#include "nodegroups/group_options.h"

namespace scalewright::nodegroups {

// The label on each node a group launches, naming the group: how the nodes are told apart by group on a running
// cluster, where the controller finds them again after a restart (`kubectl get nodes -L scalewright.dev/node-group`).
inline constexpr std::string_view kNodeGroupLabel = "scalewright.dev/node-group";

struct NodeGroup {
  std::string id;  // the Auto Scaling group's name, as --nodes=MIN:MAX:NAME writes it
  std::int32_t min_size = 0;
  std::int32_t max_size = 0;
  std::int32_t target_size = 0;  // the cloud's desired capacity: registered nodes plus those still coming
  // What a new node of this group looks like: instance type, zone, arch/os labels, node-template labels and
  // taints, capacity and allocatable. Its name is a placeholder ("template-node-for-<id>").
  Node template_node;
  std::string instance_type;
  std::vector<std::string> zones;  // the group's zones (one per subnet); a new node lands in one of them
  cloud::CapacityType capacity_type = cloud::CapacityType::OnDemand;  // what the group launches
  double price_per_hour = 0;       // one node, on-demand or spot as the group launches them
  bool gpu = false;                // the template has nvidia.com/gpu (or another GPU resource)
  std::map<std::string, std::string> tags;  // the cloud's tags on the group (auto-discovery, node-template/*)
  // The group's overrides of CA's flags (its autoscaling-options tags or annotations); unset ones keep the flag's.
  GroupAutoscalingOptions options;
};

// --balance-similar-node-groups: Cluster Autoscaler's default rule for groups that are "the same" apart from their
// zone (processors/nodegroupset): every capacity equal except memory, which may differ by 1.5 %; allocatable
// within 5 % per resource; labels equal once the ones that always differ between zones and groups are ignored
// (hostname, zone and region) and `ignored_labels` (--balancing-ignore-label and the cloud's per-group names,
// such as EKS's node group label).
bool similar_node_groups(const NodeGroup& a, const NodeGroup& b, const std::vector<std::string>& ignored_labels = {});

// A node's cpu (milli) and memory (bytes) as CA counts them against its limits and expanders: its capacity, or
// its allocatable when the node (a hand-written template) gives no capacity.
std::int64_t node_cpu_milli(const Node& node);
std::int64_t node_memory_bytes(const Node& node);

}  // namespace scalewright::nodegroups
