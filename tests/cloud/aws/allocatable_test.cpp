#include "cloud/aws/allocatable.h"

#include <gtest/gtest.h>

#include "cloud/aws/instance_types.h"
#include "units.h"

namespace scalewright::cloud {
namespace {

// AWS's catalog and formula, under test here, are provider aws's.
using aws::AllocatableOptions;
using aws::kube_reserved_cpu_milli;
using aws::kube_reserved_memory_mib;
using aws::make_instance_type;
using aws::node_capacity;
using aws::vm_memory_overhead_mib;

InstanceHardware hardware(std::int64_t vcpu, std::int64_t memory_mib, std::int64_t max_pods,
                          std::string arch = "amd64") {
  InstanceHardware hw;
  hw.vcpu = vcpu;
  hw.memory_mib = memory_mib;
  hw.max_pods = max_pods;
  hw.arch = std::move(arch);
  return hw;
}

TEST(KubeReservedCpu, FollowsTheEksBands) {
  EXPECT_EQ(kube_reserved_cpu_milli(1), 60);   // 6 % of 1000 m
  EXPECT_EQ(kube_reserved_cpu_milli(2), 70);   // 60 + 1 % of 1000 m
  EXPECT_EQ(kube_reserved_cpu_milli(4), 80);   // 60 + 10 + 0.5 % of 2000 m
  EXPECT_EQ(kube_reserved_cpu_milli(8), 90);   // 60 + 10 + 10 + 0.25 % of 4000 m
  EXPECT_EQ(kube_reserved_cpu_milli(96), 310); // 60 + 10 + 10 + 0.25 % of 92000 m = 230
  EXPECT_EQ(kube_reserved_cpu_milli(3), 75);   // 60 + 10 + 0.5 % of 1000 m
}

TEST(KubeReservedMemory, ElevenMebibytesPerPodPlus255) {
  EXPECT_EQ(kube_reserved_memory_mib(29), 574);  // 11 × 29 + 255
  EXPECT_EQ(kube_reserved_memory_mib(110), 1465);
}

TEST(VmMemoryOverhead, RoundsUp) {
  EXPECT_EQ(vm_memory_overhead_mib(8192, 0.075), 615);    // 614.4 → 615
  EXPECT_EQ(vm_memory_overhead_mib(16384, 0.075), 1229);  // 1228.8 → 1229
  EXPECT_EQ(vm_memory_overhead_mib(8000, 0.075), 600);    // exactly 600
}

TEST(Allocatable, M5LargeMatchesKarpenter) {
  InstanceType m5 = make_instance_type("m5.large", hardware(2, 8192, 29));
  // capacity memory: 8192 − ceil(8192 × 0.075) = 8192 − 615 = 7577 MiB
  EXPECT_EQ(m5.capacity.memory(), 7577 * kMi);
  EXPECT_EQ(m5.capacity.cpu_milli(), 2000);
  EXPECT_EQ(m5.capacity.pods(), 29);
  EXPECT_EQ(m5.capacity.ephemeral_storage(), 20 * kGi);
  // cpu: 2000 − (60 + 10) = 1930 m
  EXPECT_EQ(m5.allocatable.cpu_milli(), 1930);
  // memory: 7577 − (11 × 29 + 255 = 574) − 100 (eviction) = 6903 MiB
  EXPECT_EQ(m5.allocatable.memory(), 6903 * kMi);
  EXPECT_EQ(m5.allocatable.pods(), 29);
  // ephemeral-storage: 20Gi − 1Gi kube-reserved − 10 % of 20Gi (2Gi) = 17Gi
  EXPECT_EQ(m5.allocatable.ephemeral_storage(), 17 * kGi);
}

TEST(Allocatable, C5TwoXlargeMatchesKarpenter) {
  InstanceType c5 = make_instance_type("c5.2xlarge", hardware(8, 16384, 58));
  // cpu: 8000 − (60 + 10 + 10 + 10) = 7910 m
  EXPECT_EQ(c5.allocatable.cpu_milli(), 7910);
  // memory: 16384 − ceil(1228.8) = 15155; 15155 − (11 × 58 + 255 = 893) − 100 = 14162 MiB
  EXPECT_EQ(c5.allocatable.memory(), 14162 * kMi);
  EXPECT_EQ(c5.allocatable.pods(), 58);
}

TEST(Allocatable, GravitonKeeps64MebibytesForTheContiguousMemoryAllocator) {
  InstanceType m6g = make_instance_type("m6g.large", hardware(2, 8192, 29, "arm64"));
  // 8192 − 64 = 8128; 8128 − ceil(609.6) = 8128 − 610 = 7518; 7518 − 574 − 100 = 6844 MiB
  EXPECT_EQ(m6g.capacity.memory(), 7518 * kMi);
  EXPECT_EQ(m6g.allocatable.memory(), 6844 * kMi);
  AllocatableOptions no_reservation;
  no_reservation.arm64_reserved_memory_mib = 0;
  // Without it the arm64 type looks like m5.large: 6903 MiB, 59 MiB more.
  EXPECT_EQ(make_instance_type("m6g.large", hardware(2, 8192, 29, "arm64"), no_reservation).allocatable.memory(),
            6903 * kMi);
}

TEST(Allocatable, SystemReservedAndOverheadPercentAreConfigurable) {
  AllocatableOptions options;
  options.vm_memory_overhead_percent = 0.05;
  options.system_reserved.set(resource_names::cpu(), 100);
  options.system_reserved.set(resource_names::memory(), 200 * kMi);
  InstanceType m5 = make_instance_type("m5.large", hardware(2, 8192, 29), options);
  // 8192 − ceil(409.6) = 7782; 7782 − 574 − 200 − 100 = 6908 MiB; cpu 2000 − 70 − 100 = 1830 m
  EXPECT_EQ(m5.allocatable.memory(), 6908 * kMi);
  EXPECT_EQ(m5.allocatable.cpu_milli(), 1830);
}

TEST(Capacity, GpusAcceleratorsAndEfaBecomeExtendedResources) {
  InstanceHardware p4d = hardware(96, 1179648, 737);
  p4d.gpu_count = 8;
  p4d.gpu_manufacturer = "nvidia";
  p4d.efa_count = 4;
  ResourceList capacity = node_capacity(p4d, {});
  EXPECT_EQ(capacity.get(Symbol("nvidia.com/gpu")), 8);
  EXPECT_EQ(capacity.get(Symbol("vpc.amazonaws.com/efa")), 4);
  EXPECT_EQ(capacity.get(Symbol("amd.com/gpu")), 0);

  InstanceHardware g4ad = hardware(4, 16384, 8);
  g4ad.gpu_count = 1;
  g4ad.gpu_manufacturer = "amd";
  EXPECT_EQ(node_capacity(g4ad, {}).get(Symbol("amd.com/gpu")), 1);

  InstanceHardware inf2 = hardware(4, 16384, 58);
  inf2.accelerator_count = 1;
  inf2.accelerator_manufacturer = "aws";
  EXPECT_EQ(node_capacity(inf2, {}).get(Symbol("aws.amazon.com/neuron")), 1);
}

}  // namespace
}  // namespace scalewright::cloud
