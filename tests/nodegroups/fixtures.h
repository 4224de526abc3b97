#pragma once
// Shared by the node-group tests: an m5.large group and ReplicaSet pods with round requests.
#include <cstdint>
#include <string>

#include "api/pod.h"
#include "api/resources.h"
#include "nodegroups/node_group.h"
#include "units.h"

namespace scalewright::nodegroups::fixtures {


// m5.large: capacity 2 vCPU / 8 GiB / 29 pods, allocatable 1930m / 7270Mi (about 7.1 GiB) / 29 pods, $0.096/h.
inline NodeGroup m5_large(const std::string& id, std::int32_t target = 0, std::int32_t max = 80,
                          const std::string& zone = "us-east-1a") {
  NodeGroup g;
  g.id = id;
  g.min_size = 0;
  g.max_size = max;
  g.target_size = target;
  g.instance_type = "m5.large";
  g.price_per_hour = 0.096;
  Node& n = g.template_node;
  n.meta.name = "template-node-for-" + id;
  n.meta.labels = {{"node.kubernetes.io/instance-type", "m5.large"}, {"topology.kubernetes.io/zone", zone}};
  n.capacity.set(resource_names::cpu(), 2000);
  n.capacity.set(resource_names::memory(), 8192 * kMi);
  n.capacity.set(resource_names::pods(), 29);
  n.allocatable.set(resource_names::cpu(), 1930);
  n.allocatable.set(resource_names::memory(), 7270 * kMi);
  n.allocatable.set(resource_names::pods(), 29);
  n.conditions.push_back({"Ready", "True", ""});
  return g;
}

// A pod of the ReplicaSet `app`-rs in namespace default.
inline Pod replica_pod(const std::string& name, std::int64_t cpu, std::int64_t memory_mi, const std::string& app) {
  Pod p;
  p.meta.name = name;
  p.meta.namespace_ = "default";
  p.meta.labels.set(Symbol("app"), Symbol(app));
  p.meta.owner_references.push_back({"apps/v1", "ReplicaSet", app + "-rs", app + "-uid", true});
  Container c;
  c.name = "c";
  c.requests.set(resource_names::cpu(), cpu);
  c.requests.set(resource_names::memory(), memory_mi * kMi);
  p.spec.containers.push_back(c);
  return p;
}

}  // namespace scalewright::nodegroups::fixtures
