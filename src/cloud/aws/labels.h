#pragma once
// The labels Karpenter's AWS provider puts on a node, in its own words (karpenter.k8s.aws/instance-*,
// topology.k8s.aws/zone-id): AWS's, so kept here; the engine learns them as the labels the catalog's instance types
// carry, and a NodePool selects on them as on any label.
#include <string_view>

namespace scalewright::cloud::aws::labels {
inline constexpr std::string_view zone_id = "topology.k8s.aws/zone-id";
inline constexpr std::string_view instance_category = "karpenter.k8s.aws/instance-category";
inline constexpr std::string_view instance_family = "karpenter.k8s.aws/instance-family";
inline constexpr std::string_view instance_generation = "karpenter.k8s.aws/instance-generation";
inline constexpr std::string_view instance_size = "karpenter.k8s.aws/instance-size";
inline constexpr std::string_view instance_cpu = "karpenter.k8s.aws/instance-cpu";
inline constexpr std::string_view instance_memory = "karpenter.k8s.aws/instance-memory";
inline constexpr std::string_view instance_cpu_manufacturer = "karpenter.k8s.aws/instance-cpu-manufacturer";
inline constexpr std::string_view instance_hypervisor = "karpenter.k8s.aws/instance-hypervisor";
inline constexpr std::string_view instance_network_bandwidth = "karpenter.k8s.aws/instance-network-bandwidth";
inline constexpr std::string_view instance_local_nvme = "karpenter.k8s.aws/instance-local-nvme";
inline constexpr std::string_view instance_gpu_count = "karpenter.k8s.aws/instance-gpu-count";
inline constexpr std::string_view instance_gpu_name = "karpenter.k8s.aws/instance-gpu-name";
inline constexpr std::string_view instance_gpu_manufacturer = "karpenter.k8s.aws/instance-gpu-manufacturer";
inline constexpr std::string_view instance_gpu_memory = "karpenter.k8s.aws/instance-gpu-memory";
inline constexpr std::string_view instance_accelerator_count = "karpenter.k8s.aws/instance-accelerator-count";
inline constexpr std::string_view instance_accelerator_name = "karpenter.k8s.aws/instance-accelerator-name";
inline constexpr std::string_view instance_accelerator_manufacturer =
    "karpenter.k8s.aws/instance-accelerator-manufacturer";
}  // namespace scalewright::cloud::aws::labels

// The resources AWS's device plugins advertise on a node of a type that has the device.
namespace scalewright::cloud::aws::resources {
inline constexpr std::string_view neuron = "aws.amazon.com/neuron";  // Inferentia and Trainium
inline constexpr std::string_view efa = "vpc.amazonaws.com/efa";
}  // namespace scalewright::cloud::aws::resources
