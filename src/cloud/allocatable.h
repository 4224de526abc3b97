#pragma once
// Capacity, overhead and allocatable resources of a node, computed as Karpenter's AWS provider does for the
// EKS-optimized AMIs (AL2023, default kubelet settings, no custom block devices).
#include <cstdint>

#include "api/resources.h"
#include "cloud/instance_type.h"

namespace scalewright::cloud {

struct AllocatableOptions {
  // Share of memory the hypervisor and firmware keep, which DescribeInstanceTypes does not report.
  double vm_memory_overhead_percent = 0.075;
  // Graviton (arm64) instances reserve this much memory for the kernel's contiguous memory allocator.
  std::int64_t arm64_reserved_memory_mib = 64;
  // Root volume size the AMI gives a node without block-device mappings (20Gi).
  std::int64_t ephemeral_storage_bytes = std::int64_t{20} << 30;
  std::int64_t kube_reserved_ephemeral_storage_bytes = std::int64_t{1} << 30;
  std::int64_t eviction_memory_available_bytes = std::int64_t{100} << 20;
  double eviction_nodefs_available_percent = 10;
  ResourceList system_reserved;  // nothing by default
};

// VM memory overhead in MiB: ceil(memory_mib × percent).
std::int64_t vm_memory_overhead_mib(std::int64_t memory_mib, double percent);
// kube-reserved cpu in millicores: 6 % of the first core, 1 % of the second, 0.5 % of the third and fourth,
// 0.25 % of every further core, each band rounded down.
std::int64_t kube_reserved_cpu_milli(std::int64_t vcpu);
// kube-reserved memory in MiB: 11 MiB per pod plus 255 MiB.
std::int64_t kube_reserved_memory_mib(std::int64_t max_pods);

struct NodeOverhead {
  ResourceList kube_reserved;
  ResourceList system_reserved;
  ResourceList eviction_threshold;

  ResourceList total() const { return kube_reserved + system_reserved + eviction_threshold; }
};

// cpu, memory (less VM overhead and the arm64 reservation), pods, ephemeral-storage, and the GPUs,
// accelerators and EFA interfaces the hardware has.
ResourceList node_capacity(const InstanceHardware& hardware, const AllocatableOptions& options);
NodeOverhead node_overhead(const InstanceHardware& hardware, const ResourceList& capacity,
                           const AllocatableOptions& options);

// Fills type.capacity, type.overhead and type.allocatable (= capacity − overhead) from type.hardware.
void compute_resources(InstanceType& type, const AllocatableOptions& options);

}  // namespace scalewright::cloud
