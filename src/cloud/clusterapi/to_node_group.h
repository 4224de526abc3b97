#pragma once
// A Cluster API node group as the engine plans with it (nodegroups::NodeGroup), the same for `scalewright run` (the
// objects listed from the management cluster) and the simulator (the objects of a scenario's files).
#include <optional>
#include <string_view>

#include "api/node.h"
#include "cloud/clusterapi/scalable_resource.h"
#include "nodegroups/node_group.h"

namespace scalewright::cloud::clusterapi {

// CA's CAPI_SCALE_ZERO_DEFAULT_ARCH when unset: the architecture of a new node nothing else names.
inline constexpr std::string_view kDefaultArchitecture = "amd64";

// Its id (CA's Kind/namespace/name), bounds, replicas and price, and its template node, as CA builds one: the
// group's capacity (annotations over its infrastructure template's) when it has cpu and memory, else the shape of
// `registered` (one of its Nodes, CA's template from a real node: its size and labels, but not the labels no two
// nodes share); then the os and arch labels (`default_architecture` where nothing names one), the group's labels over
// them, its failure domain as the zone, its taints and a Ready condition. nullopt when neither the group nor
// `registered` (null: none) gives a capacity.
std::optional<nodegroups::NodeGroup> to_node_group(const ClusterApiNodeGroup& group, const Node* registered,
                                                   std::string_view default_architecture = kDefaultArchitecture);

}  // namespace scalewright::cloud::clusterapi
