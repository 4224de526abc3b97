#pragma once
// Provider `clusterapi` for `scalewright run --cloud-provider clusterapi`: Cluster Autoscaler's node groups on
// Cluster API's MachineDeployments, MachineSets and MachinePools, as CA's clusterapi provider runs them, on the
// management cluster --cloud-config names (else the workload cluster itself).
#include "cloud/provider_registry.h"

namespace scalewright::cloud::clusterapi {

inline constexpr std::string_view kCloudConfigFlag = "--cloud-config";

ProviderRegistration clusterapi_registration();

}  // namespace scalewright::cloud::clusterapi
