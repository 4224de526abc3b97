#include "cloud/aws/allocatable.h"

#include <algorithm>
#include <cmath>

#include "api/symbol.h"
#include "cloud/aws/labels.h"

namespace scalewright::cloud::aws {
namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

// Karpenter's bands (from Bottlerocket and the EKS AMI): [start, end) in millicores and the share in 1/10000.
struct CpuBand {
  std::int64_t start;
  std::int64_t end;
  std::int64_t basis_points;
};
constexpr CpuBand kCpuBands[] = {
    {0, 1000, 600},                     // 6 % of the first core
    {1000, 2000, 100},                  // 1 % of the second
    {2000, 4000, 50},                   // 0.5 % of the third and fourth
    {4000, std::int64_t{1} << 31, 25},  // 0.25 % of the rest
};

}  // namespace

std::int64_t vm_memory_overhead_mib(std::int64_t memory_mib, double percent) {
  // Same floating-point product as Karpenter (bytes × percent / 2^20 scales by a power of two only).
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(memory_mib) * percent));
}

std::int64_t kube_reserved_cpu_milli(std::int64_t vcpu) {
  const std::int64_t milli = vcpu * 1000;
  std::int64_t reserved = 0;
  for (const CpuBand& band : kCpuBands) {
    if (milli < band.start) break;
    const std::int64_t width = (milli < band.end ? milli : band.end) - band.start;
    reserved += width * band.basis_points / 10000;  // each band rounded down, as Karpenter's int64() cast
  }
  return reserved;
}

std::int64_t kube_reserved_memory_mib(std::int64_t max_pods) { return 11 * max_pods + 255; }

std::int64_t EvictionThreshold::of(std::int64_t capacity) const {
  if (!percent) return amount;
  if (*percent >= 100) return 0;  // the kubelet reads 100 % as no threshold
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(capacity) / 100 * *percent));
}

std::int64_t node_pods(const InstanceHardware& hardware, const AllocatableOptions& options) {
  std::int64_t pods = options.max_pods ? *options.max_pods : options.eni_limited_pods ? hardware.max_pods : 110;
  if (options.pods_per_core && *options.pods_per_core > 0 && options.pods_per_core_honoured) {
    pods = std::min(pods, *options.pods_per_core * hardware.vcpu);
  }
  return pods;
}

ResourceList node_capacity(const InstanceHardware& hardware, const AllocatableOptions& options) {
  ResourceList capacity;
  capacity.set(resource_names::cpu(), hardware.vcpu * 1000);
  std::int64_t memory_mib = hardware.memory_mib;
  if (hardware.arch == "arm64") memory_mib -= options.arm64_reserved_memory_mib;
  memory_mib -= vm_memory_overhead_mib(memory_mib, options.vm_memory_overhead_percent);
  capacity.set(resource_names::memory(), memory_mib * kMiB);
  capacity.set(resource_names::pods(), node_pods(hardware, options));
  capacity.set(resource_names::ephemeral_storage(), options.ephemeral_storage_bytes);
  if (hardware.gpu_count > 0) {
    // Device plugins advertise GPUs by vendor; other vendors' GPUs get no resource, as in Karpenter.
    if (hardware.gpu_manufacturer == "nvidia") capacity.set(Symbol(device_resources::nvidia_gpu), hardware.gpu_count);
    if (hardware.gpu_manufacturer == "amd") capacity.set(Symbol(device_resources::amd_gpu), hardware.gpu_count);
    if (hardware.gpu_manufacturer == "habana") capacity.set(Symbol(device_resources::habana_gaudi), hardware.gpu_count);
  }
  if (hardware.accelerator_count > 0 && hardware.accelerator_manufacturer == "aws") {
    capacity.set(Symbol(resources::neuron), hardware.accelerator_count);
  }
  if (hardware.efa_count > 0) capacity.set(Symbol(resources::efa), hardware.efa_count);
  return capacity;
}

NodeOverhead node_overhead(const InstanceHardware& hardware, const ResourceList& capacity,
                           const AllocatableOptions& options) {
  NodeOverhead overhead;
  overhead.kube_reserved.set(resource_names::cpu(), kube_reserved_cpu_milli(hardware.vcpu));
  const std::int64_t pods = options.eni_limited_kube_reserved ? hardware.max_pods : capacity.pods();
  overhead.kube_reserved.set(resource_names::memory(), kube_reserved_memory_mib(pods) * kMiB);
  overhead.kube_reserved.set(resource_names::ephemeral_storage(), options.kube_reserved_ephemeral_storage_bytes);
  for (const auto& [resource, amount] : options.kube_reserved) overhead.kube_reserved.set(resource, amount);
  overhead.system_reserved = options.system_reserved;
  overhead.eviction_threshold.set(resource_names::memory(), options.eviction_memory_available.of(capacity.memory()));
  // nodefs.available is a share of the root volume by default, rounded up to a whole byte.
  overhead.eviction_threshold.set(resource_names::ephemeral_storage(),
                                  options.eviction_nodefs_available.of(capacity.ephemeral_storage()));
  return overhead;
}

void compute_resources(InstanceType& type, const AllocatableOptions& options) {
  type.capacity = node_capacity(type.hardware, options);
  type.overhead = node_overhead(type.hardware, type.capacity, options).total();
  type.allocatable = type.capacity - type.overhead;
}

}  // namespace scalewright::cloud::aws
