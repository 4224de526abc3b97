#pragma once
// Provider `aws` for `scalewright run --cloud-provider aws`: NodePools on EC2 as Karpenter's AWS provider runs them
// (EC2NodeClasses resolved and watched, CreateFleet launches, instances found by their tags, leaked ones collected)
// and node groups on Auto Scaling groups as Cluster Autoscaler's AWS provider runs them, with Karpenter's settings
// as flags (--cluster-name, --cluster-endpoint, --interruption-queue) and AWS's configuration as the SDKs read it
// (AWS_REGION, the shared files, the credential chain: IRSA's web identity on EKS).
#include "cloud/provider_registry.h"

namespace scalewright::cloud::aws {

ProviderRegistration aws_registration();

}  // namespace scalewright::cloud::aws
