#include "cloud/clusterapi/to_node_group.h"

#include <string>
#include <utility>

#include "api/labels.h"

namespace scalewright::cloud::clusterapi {

std::optional<nodegroups::NodeGroup> to_node_group(const ClusterApiNodeGroup& group, const Node* registered,
                                                   std::string_view default_architecture) {
  nodegroups::NodeGroup built;
  built.id = group.id();
  built.min_size = group.min_size;
  built.max_size = group.max_size;
  built.target_size = group.replicas;
  built.price_per_hour = group.price_per_hour;
  built.options = group.options;  // its autoscaling-options-* annotations over the flags, for its own nodes
  Node& node = built.template_node;
  // A group that the annotations and its template give no capacity is planned as one of its Nodes (CA's template
  // from a real node); such a Node's labels then come first, the group's own over them.
  if (!group.can_scale_from_zero()) {
    if (registered == nullptr) return std::nullopt;
    node.capacity = registered->capacity;
    node.allocatable = registered->allocatable;
    node.meta.labels = registered->meta.labels;
    for (const char* unique : {"kubernetes.io/hostname", "topology.kubernetes.io/zone",
                               "failure-domain.beta.kubernetes.io/zone"}) {
      node.meta.labels.erase(Symbol(unique));
    }
  } else {
    node.capacity = group.capacity;
    node.allocatable = group.capacity;  // CA subtracts nothing from a Cluster API template's capacity
  }
  node.meta.name = "template-node-for-" + group.name;
  Labels& labels = node.meta.labels;
  if (labels.find(Symbol("kubernetes.io/os")) == nullptr) labels.set(Symbol("kubernetes.io/os"), Symbol("linux"));
  if (labels.find(Symbol("kubernetes.io/arch")) == nullptr) {
    labels.set(Symbol("kubernetes.io/arch"), Symbol(std::string(default_architecture)));
  }
  for (const auto& [key, value] : group.labels) labels.set(Symbol(key), Symbol(value));
  if (!group.failure_domain.empty()) {
    labels.set(Symbol("topology.kubernetes.io/zone"), Symbol(group.failure_domain));
    built.zones.push_back(group.failure_domain);
  }
  labels.set(Symbol("kubernetes.io/hostname"), Symbol(node.meta.name));
  node.taints = group.taints;
  node.conditions.push_back({"Ready", "True", "KubeletReady"});
  const Symbol* type = labels.find(Symbol("node.kubernetes.io/instance-type"));
  built.instance_type = type != nullptr ? type->string() : group.name;
  for (const auto& [resource, amount] : node.capacity.extended()) {
    if (amount > 0 && resource.string().find("gpu") != std::string::npos) built.gpu = true;
  }
  return built;
}

}  // namespace scalewright::cloud::clusterapi
