#pragma once
// Which Auto Scaling groups Cluster Autoscaler manages, and what a new node of each looks like: the groups named by
// --nodes (their min and max from the flag) and the groups whose tags match a --node-group-auto-discovery spec
// (min and max from the group), each with a template node built from the instance-type catalog and the group's
// k8s.io/cluster-autoscaler/node-template/* tags, as CA's AWS provider builds one to scale a group up from zero.
#include <string_view>
#include <vector>

#include "api/result.h"
#include "api/scenario.h"
#include "cloud/catalog.h"
#include "nodegroups/node_group.h"
#include "nodegroups/options.h"

namespace scalewright::nodegroups {

// The tags CA reads on an Auto Scaling group, in its own words.
namespace ca_tags {
// node-template/label/<key>: <value>: a label every node of the group will carry.
inline constexpr std::string_view label_prefix = "k8s.io/cluster-autoscaler/node-template/label/";
// node-template/taint/<key>: "<value>:<Effect>": a taint every node of the group will carry.
inline constexpr std::string_view taint_prefix = "k8s.io/cluster-autoscaler/node-template/taint/";
// node-template/resources/<name>: <quantity>: capacity the instance type does not tell (ephemeral-storage, devices).
inline constexpr std::string_view resources_prefix = "k8s.io/cluster-autoscaler/node-template/resources/";
// Set by EKS on a managed node group's Auto Scaling group; its nodes carry eks.amazonaws.com/nodegroup.
inline constexpr std::string_view eks_nodegroup_name = "eks:nodegroup-name";
}  // namespace ca_tags

// Labels an EKS node carries that Karpenter's instance-type labels do not.
namespace eks_labels {
inline constexpr std::string_view capacity_type = "eks.amazonaws.com/capacityType";  // ON_DEMAND / SPOT
inline constexpr std::string_view nodegroup = "eks.amazonaws.com/nodegroup";
}  // namespace eks_labels

// Whether `group` carries every tag of `spec` (with the same value where the spec gives one).
bool matches_auto_discovery(const AutoScalingGroup& group, const AutoDiscovery& spec);

// The NodeGroup of one Auto Scaling group with the given size bounds: target size from its desired capacity,
// template node, zones, price and tags. Errors name the group, and the tag when a tag is at fault.
Result<NodeGroup> build_node_group(const AutoScalingGroup& group, std::int32_t min_size, std::int32_t max_size,
                                   const cloud::Catalog& catalog);

// The groups CA would manage: the --nodes groups in flag order, then auto-discovered ones in `groups` order, each
// once (--nodes wins for a group both name). A --nodes name with no such Auto Scaling group is an error, as CA
// fails to start on it.
Result<std::vector<NodeGroup>> discover_node_groups(const std::vector<AutoScalingGroup>& groups,
                                                    const AutoscalerOptions& options, const cloud::Catalog& catalog);

}  // namespace scalewright::nodegroups
