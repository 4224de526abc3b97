#pragma once
// Cluster API's scalable objects on a management cluster's API server, as Cluster Autoscaler's clusterapi provider
// reaches them: listing the node groups (MachineDeployments, MachineSets no MachineDeployment owns, MachinePools,
// filtered by --node-group-auto-discovery) and reading and writing their size through the /scale subresource.
#include <cstdint>
#include <string>
#include <vector>

#include "api/result.h"
#include "cloud/clusterapi/auto_discovery.h"
#include "cloud/clusterapi/capi_api.h"
#include "cloud/clusterapi/infrastructure_template.h"
#include "cloud/clusterapi/scalable_resource.h"
#include "kube/api_client.h"

namespace scalewright::cloud::clusterapi {

// An object that is not a node group because something about it is wrong: said in the log and in an Event on it.
struct RefusedGroup {
  std::string message;  // names the object and the annotation (or what else) at fault
  ScalableKind kind = ScalableKind::MachineDeployment;
  std::string api_version;  // "cluster.x-k8s.io/v1beta2"
  std::string namespace_;
  std::string name;
  std::string uid;
};

struct NodeGroupListing {
  std::vector<ClusterApiNodeGroup> groups;  // MachineSets, then MachineDeployments, then MachinePools, as CA lists
  // Objects whose annotations are wrong, one message each naming the object and the annotation; the other groups
  // work on without them.
  std::vector<RefusedGroup> refused;
};

class NodeGroupClient {
 public:
  NodeGroupClient(const kube::ApiClient& api, CapiApi capi, std::vector<AutoDiscoverySpec> specs = {});

  // Lists each served scalable kind (in the namespace of the first spec that names one, else everywhere, as CA's
  // informers watch) and decodes every object the specs allow. An object whose annotations give no cpu and memory
  // takes them from its infrastructure template's status.capacity where the template publishes one (scale from
  // zero). An error only when a list fails.
  Result<NodeGroupListing> list_node_groups() const;
  // The Machines in the same scope (the first spec's namespace, else all), as listed.
  Result<std::vector<nlohmann::json>> list_machines() const;
  // Marks a Machine for deletion first (the delete-machine annotation, which Cluster API's MachineSet deletes before
  // any other when its replicas drop), or takes the mark off again.
  Result<bool> mark_machine_for_deletion(const std::string& namespace_, const std::string& name, bool marked) const;

  // The MachineDeployments in the same scope, as listed (a NodePool's node class picks among them).
  Result<std::vector<nlohmann::json>> list_machine_deployments() const;
  // What the object's infrastructure template says of a new machine (nullopt: it has none, or it publishes nothing).
  Result<std::optional<TemplateInfo>> infrastructure_template(const nlohmann::json& object) const;

  // spec.replicas of the group's Scale (GET .../NAME/scale); the API server leaves it out at 0, which reads 0. An
  // object without spec.replicas has no Scale (kube-apiserver answers 500): its missing replicas read 0.
  Result<std::int32_t> target_size(const ClusterApiNodeGroup& group) const;
  // Merge-patches the Scale's spec.replicas to `replicas` (the object's, when it has no spec.replicas yet), refusing
  // a size outside [min, max] without a request.
  Result<std::int32_t> set_target_size(const ClusterApiNodeGroup& group, std::int32_t replicas) const;
  // CA's IncreaseSize: the Scale's replicas plus delta, within max; returns the new size.
  Result<std::int32_t> increase_size(const ClusterApiNodeGroup& group, std::int32_t delta) const;

  const CapiApi& capi() const { return capi_; }
  const kube::ApiClient& api() const { return api_; }

 private:
  std::string scale_path(const ClusterApiNodeGroup& group) const;
  // The namespace the specs scope the lists to ("" for all).
  std::string scope() const;
  // `decoded` again with its infrastructure template's capacity, when it lacks one and the template gives it.
  Decoded with_template(ScalableKind kind, const nlohmann::json& object, Decoded decoded) const;

  const kube::ApiClient& api_;
  CapiApi capi_;
  std::vector<AutoDiscoverySpec> specs_;
  InfrastructureTemplates templates_;
};

}  // namespace scalewright::cloud::clusterapi
