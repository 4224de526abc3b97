#pragma once
// Capacity, overhead and allocatable resources of a node, computed as Karpenter's AWS provider does: by default for
// the EKS-optimized AMIs (AL2023, default kubelet settings, no custom block devices); an EC2NodeClass's kubelet
// settings, root volume and AMI family change the options (ec2nodeclass.h). AWS's formula, so AWS's room: the engine
// reads only the capacity and allocatable it puts on an InstanceType.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "api/resources.h"
#include "cloud/instance_type.h"

namespace scalewright::cloud::aws {

// An eviction threshold as the kubelet reads one (evictionHard): a share of the resource's capacity, or an amount.
struct EvictionThreshold {
  std::optional<double> percent;  // of capacity; 100 % means no threshold, as the kubelet reads it
  std::int64_t amount = 0;        // in the resource's unit, when percent is nullopt
  // The amount it holds back of `capacity`: ceil(capacity / 100 × percent), or `amount`.
  std::int64_t of(std::int64_t capacity) const;
};

struct AllocatableOptions {
  // Share of memory the hypervisor and firmware keep, which DescribeInstanceTypes does not report.
  double vm_memory_overhead_percent = 0.075;
  // Graviton (arm64) instances reserve this much memory for the kernel's contiguous memory allocator.
  std::int64_t arm64_reserved_memory_mib = 64;
  // Root volume size the AMI gives a node without block-device mappings (20Gi).
  std::int64_t ephemeral_storage_bytes = std::int64_t{20} << 30;
  std::int64_t kube_reserved_ephemeral_storage_bytes = std::int64_t{1} << 30;
  EvictionThreshold eviction_memory_available{std::nullopt, std::int64_t{100} << 20};
  EvictionThreshold eviction_nodefs_available{10.0, 0};
  ResourceList system_reserved;  // nothing by default

  // A node class's kubelet settings (EC2NodeClass spec.kubelet), none by default:
  std::optional<std::int64_t> max_pods;       // maxPods: the pods a node takes, whatever its ENIs allow
  std::optional<std::int64_t> pods_per_core;  // podsPerCore: at most this many pods per vCPU (0: no cap)
  std::vector<std::pair<Symbol, std::int64_t>> kube_reserved;  // kubeReserved: each replaces the amount computed
  // ... and its AMI family's rules (Karpenter's amifamily FeatureFlags; the EKS AMIs' by default):
  bool eni_limited_pods = true;           // pods as the ENIs allow (InstanceHardware::max_pods), else 110
  bool eni_limited_kube_reserved = true;  // kube-reserved memory counts the ENI-limited pods, whatever maxPods says
  bool pods_per_core_honoured = true;     // the AMI applies podsPerCore (Bottlerocket does not)
};

// VM memory overhead in MiB: ceil(memory_mib × percent).
std::int64_t vm_memory_overhead_mib(std::int64_t memory_mib, double percent);
// kube-reserved cpu in millicores: 6 % of the first core, 1 % of the second, 0.5 % of the third and fourth,
// 0.25 % of every further core, each band rounded down.
std::int64_t kube_reserved_cpu_milli(std::int64_t vcpu);
// kube-reserved memory in MiB: 11 MiB per pod plus 255 MiB.
std::int64_t kube_reserved_memory_mib(std::int64_t max_pods);
// The pods a node takes: maxPods, else as its ENIs allow (or 110), capped at podsPerCore × vCPUs.
std::int64_t node_pods(const InstanceHardware& hardware, const AllocatableOptions& options);

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

}  // namespace scalewright::cloud::aws
