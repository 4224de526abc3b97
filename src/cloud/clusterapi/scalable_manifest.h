#pragma once
// Cluster API's scalable objects as a user's files hold them (`kubectl get machinedeployments -o yaml`, the manifests
// they apply), for the simulator: each decoded when the files load with the same rules as `scalewright run` reads
// it from the API server (scalable_resource.h), and made into Cluster Autoscaler's node groups when CA runs with
// --cloud-provider=clusterapi (filtered by its --node-group-auto-discovery specs, as on a cluster).
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "api/result.h"
#include "cloud/clusterapi/auto_discovery.h"
#include "cloud/clusterapi/scalable_resource.h"
#include "manifest/field.h"
#include "nodegroups/node_group.h"
#include "nodegroups/options.h"

namespace scalewright::cloud::clusterapi {

// The API versions the files may write: v1beta1 up to Cluster API 1.10, v1beta2 from 1.11.
inline const std::vector<std::string>& scalable_versions() {
  static const std::vector<std::string> versions{"v1beta2", "v1beta1"};
  return versions;
}

// One MachineDeployment, MachineSet or MachinePool of the files.
struct ScalableObject {
  ScalableKind kind = ScalableKind::MachineDeployment;
  std::string namespace_;  // "default" when the file leaves it out, as kubectl applies it
  std::string name;
  DiscoveredObject discovered;  // what --node-group-auto-discovery looks at
  std::variant<ClusterApiNodeGroup, Skipped> decoded;
};
using ScalableObjectPtr = std::shared_ptr<const ScalableObject>;

// Decodes one object of `kind` (the manifest decoder's kind entry): its metadata by the API server's rules, then the
// whole object as JSON through decode_scalable_resource with Cluster API's default group (the simulator reads no
// CAPI_GROUP). Cluster API's own fields are not checked: they are its schema's, not ours. A bad annotation fails
// the object (FieldError), naming the annotation and why.
ScalableObjectPtr decode_scalable_object(const manifest::Field& object, ScalableKind kind);

struct FoundNodeGroups {
  std::vector<nodegroups::NodeGroup> groups;
  // Objects the specs allow that are no group, each with why ("MachineDeployment default/md-gpu is not a node
  // group: at 0 replicas without ..."); a MachineSet that a MachineDeployment owns is not said (its owner is the
  // group).
  std::vector<std::string> notes;
};

// The node groups CA's clusterapi provider makes of `objects` under `options`: --nodes is refused and the
// --node-group-auto-discovery specs must be clusterapi's (adopt_autoscaler_options); the groups the specs allow, in
// the order CA lists them (MachineSets, MachineDeployments, MachinePools; by namespace and name within a kind), each
// made by to_node_group. A group with no capacity of its own is left out with a note: the files hold no Node of it to
// take a shape from.
Result<FoundNodeGroups> discover_node_groups(const std::vector<ScalableObjectPtr>& objects,
                                             const nodegroups::AutoscalerOptions& options);

}  // namespace scalewright::cloud::clusterapi
