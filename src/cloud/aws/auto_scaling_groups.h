#pragma once
// A cloud's node groups read as Cluster Autoscaler's AWS provider reads Auto Scaling groups: which groups CA manages
// (the groups named by --nodes, their min and max from the flag, and the groups whose tags match an
// `asg:tag=...` --node-group-auto-discovery spec, min and max from the group), and what a new node of each looks like
// (a template node built from the instance-type catalog, EKS's labels and the group's
// k8s.io/cluster-autoscaler/node-template/* tags, as CA builds one to scale a group up from zero).
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/result.h"
#include "api/scenario.h"
#include "cloud/catalog.h"
#include "nodegroups/node_group.h"
#include "nodegroups/options.h"

namespace scalewright::cloud::aws {

// The tags CA reads on an Auto Scaling group, in its own words.
namespace ca_tags {
// node-template/label/<key>: <value>: a label every node of the group will carry.
inline constexpr std::string_view label_prefix = "k8s.io/cluster-autoscaler/node-template/label/";
// node-template/taint/<key>: "<value>:<Effect>": a taint every node of the group will carry.
inline constexpr std::string_view taint_prefix = "k8s.io/cluster-autoscaler/node-template/taint/";
// node-template/resources/<name>: <quantity>: capacity the instance type does not tell (ephemeral-storage, devices).
inline constexpr std::string_view resources_prefix = "k8s.io/cluster-autoscaler/node-template/resources/";
// node-template/autoscaling-options/<name>: <value>: the group's override of one of CA's flags (the names CA's AWS
// provider reads: nodegroups::kAwsGroupOptions).
inline constexpr std::string_view autoscaling_options_prefix =
    "k8s.io/cluster-autoscaler/node-template/autoscaling-options/";
// Set by EKS on a managed node group's Auto Scaling group; its nodes carry eks.amazonaws.com/nodegroup.
inline constexpr std::string_view eks_nodegroup_name = "eks:nodegroup-name";
}  // namespace ca_tags

// Labels an EKS node carries that Karpenter's instance-type labels do not.
namespace eks_labels {
inline constexpr std::string_view capacity_type = "eks.amazonaws.com/capacityType";  // ON_DEMAND / SPOT
inline constexpr std::string_view nodegroup = "eks.amazonaws.com/nodegroup";
}  // namespace eks_labels

// Labels that tell AWS groups apart without making them different, which --balance-similar-node-groups ignores on
// AWS beside the ones it ignores everywhere (CA's AWS node-info comparator).
const std::vector<std::string>& balancing_ignored_labels();

// What CA's AWS provider makes of its flags: every --node-group-auto-discovery spec must be `asg:tag=...` (the
// error names the flag and the spec), and balancing also ignores balancing_ignored_labels().
std::optional<Error> adopt_autoscaler_options(nodegroups::AutoscalerOptions& options);

// --node-group-auto-discovery=asg:tag=KEY[=VALUE],KEY[=VALUE]...: every tag key must be on the group; `key=value`
// also matches the value.
struct TagDiscovery {
  std::vector<std::pair<std::string, std::string>> tags;  // value "" matches any value
};
// Errors name the spec; a spec of another discoverer (`clusterapi:...`) is refused as not AWS's.
Result<TagDiscovery> parse_tag_discovery(std::string_view spec);

// Whether `group` carries every tag of `spec` (with the same value where the spec gives one).
bool matches_tag_discovery(const CloudNodeGroup& group, const TagDiscovery& spec);

// The NodeGroup of one Auto Scaling group with the given size bounds: target size from its desired capacity,
// template node, zones, price, tags and the autoscaling options its tags set. Errors name the group, and the tag
// when a tag is at fault (an option's value that does not parse too, where CA would log it and keep the flag's).
Result<nodegroups::NodeGroup> build_node_group(const CloudNodeGroup& group, std::int32_t min_size,
                                               std::int32_t max_size, const Catalog& catalog);

// The groups CA would manage: the --nodes groups in flag order, then auto-discovered ones in `groups` order, each
// once (--nodes wins for a group both name). A --nodes name with no such Auto Scaling group is an error, as CA
// fails to start on it; so is an auto-discovery spec that is not `asg:tag=...`.
Result<std::vector<nodegroups::NodeGroup>> discover_node_groups(const std::vector<CloudNodeGroup>& groups,
                                                                const nodegroups::AutoscalerOptions& options,
                                                                const Catalog& catalog);

}  // namespace scalewright::cloud::aws
