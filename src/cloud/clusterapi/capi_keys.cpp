#include "cloud/clusterapi/capi_keys.h"

#include <fmt/format.h>

namespace scalewright::cloud::clusterapi {

CapiKeys::CapiKeys(std::string_view group)
    : min_size(fmt::format("{}/cluster-api-autoscaler-node-group-min-size", group)),
      max_size(fmt::format("{}/cluster-api-autoscaler-node-group-max-size", group)),
      options_prefix(fmt::format("{}/autoscaling-options-", group)),
      cluster_name(fmt::format("{}/cluster-name", group)),
      delete_machine(fmt::format("{}/delete-machine", group)),
      machine(fmt::format("{}/machine", group)),
      cluster_namespace(fmt::format("{}/cluster-namespace", group)),
      deployment_name(fmt::format("{}/deployment-name", group)),
      set_name(fmt::format("{}/set-name", group)) {}

std::string_view to_string(ScalableKind kind) {
  switch (kind) {
    case ScalableKind::MachineDeployment:
      return "MachineDeployment";
    case ScalableKind::MachineSet:
      return "MachineSet";
    case ScalableKind::MachinePool:
      return "MachinePool";
  }
  return "";
}

std::string_view resource_name(ScalableKind kind) {
  switch (kind) {
    case ScalableKind::MachineDeployment:
      return "machinedeployments";
    case ScalableKind::MachineSet:
      return "machinesets";
    case ScalableKind::MachinePool:
      return "machinepools";
  }
  return "";
}

}  // namespace scalewright::cloud::clusterapi
