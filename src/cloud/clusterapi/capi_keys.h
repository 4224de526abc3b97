#pragma once
// Cluster API's words as Cluster Autoscaler's clusterapi provider reads them: the scalable kinds it makes node groups
// of, and the annotation and label keys built from the API group's name. Pure: no API server is needed to know them
// (the simulator reads the same objects from files).
#include <string>
#include <string_view>

namespace scalewright::cloud::clusterapi {

inline constexpr std::string_view kDefaultGroup = "cluster.x-k8s.io";

// The annotation and label keys that carry the group's name: CA builds them all from CAPI_GROUP, so a renamed
// group renames them too. The capacity.cluster-autoscaler.kubernetes.io/* keys are CA's own and never change.
struct CapiKeys {
  explicit CapiKeys(std::string_view group = kDefaultGroup);
  std::string min_size;        // <group>/cluster-api-autoscaler-node-group-min-size
  std::string max_size;        // <group>/cluster-api-autoscaler-node-group-max-size
  std::string options_prefix;  // <group>/autoscaling-options-
  std::string cluster_name;    // <group>/cluster-name (label on the scalable objects)
  std::string delete_machine;  // <group>/delete-machine (annotation on a Machine)
  std::string machine;         // <group>/machine (annotation on a Node: its Machine's name)
  std::string cluster_namespace;  // <group>/cluster-namespace (annotation on a Node: its Machine's namespace)
  std::string deployment_name;    // <group>/deployment-name (label on a Machine: its MachineDeployment)
  std::string set_name;           // <group>/set-name (label on a Machine: its MachineSet)
  // CA checks this one under the default group's name whatever CAPI_GROUP says; so do we.
  std::string paused = "cluster.x-k8s.io/paused";
};

// The scalable kinds CA makes node groups of.
enum class ScalableKind { MachineDeployment, MachineSet, MachinePool };
std::string_view to_string(ScalableKind kind);
std::string_view resource_name(ScalableKind kind);  // "machinedeployments"

}  // namespace scalewright::cloud::clusterapi
