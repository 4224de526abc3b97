#pragma once
// When Karpenter's AWS provider gives a node up (its RepairPolicies): the kubelet's Ready condition False or
// Unknown for 30 minutes, and the conditions the EKS node monitoring agent reports (accelerated hardware for 10
// minutes, storage, networking, kernel and container runtime for 30).
#include <vector>

#include "cloud/cloud_provider.h"

namespace scalewright::cloud::aws {

inline std::vector<RepairStatement> repair_policies() {
  constexpr Duration k10m{10 * 60'000};
  constexpr Duration k30m{30 * 60'000};
  return {
      {"Ready", "False", k30m},
      {"Ready", "Unknown", k30m},
      {"AcceleratedHardwareReady", "False", k10m},
      {"StorageReady", "False", k30m},
      {"NetworkingReady", "False", k30m},
      {"KernelReady", "False", k30m},
      {"ContainerRuntimeReady", "False", k30m},
  };
}

}  // namespace scalewright::cloud::aws
