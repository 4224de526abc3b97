#pragma once
// An instance type as a cloud provider offers it: hardware, the labels its provider puts on a node of that type, its
// capacity, overhead and allocatable resources, and one offering per zone and capacity type with its price.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/nodepool.h"
#include "api/resources.h"

namespace scalewright::cloud {

// Resource names the device plugins advertise.
namespace device_resources {
inline constexpr std::string_view nvidia_gpu = "nvidia.com/gpu";
inline constexpr std::string_view amd_gpu = "amd.com/gpu";
inline constexpr std::string_view habana_gaudi = "habana.ai/gaudi";
}  // namespace device_resources

enum class CapacityType { OnDemand, Spot };
// "on-demand" / "spot", the values of karpenter.sh/capacity-type.
std::string_view to_string(CapacityType type);
std::optional<CapacityType> parse_capacity_type(std::string_view text);

// Where an offering's price comes from.
enum class PriceSource {
  OnDemandList,  // the region's on-demand list price
  SpotSnapshot,  // a spot price observed for that zone and type
  SpotEstimate,  // on-demand × a spot fraction, where no observation exists
};
std::string_view to_string(PriceSource source);

// Prices ($/h) summed in different orders differ in their last bits: two within this of each other are the same.
inline constexpr double kSamePrice = 1e-9;

struct Offering {
  std::string zone;     // zone name, e.g. us-east-1a
  std::string zone_id;  // zone ID, e.g. use1-az1
  CapacityType capacity_type = CapacityType::OnDemand;
  double price_per_hour = 0;  // USD
  PriceSource price_source = PriceSource::OnDemandList;
  bool available = true;
};

// The hardware facts the catalog is built from (one row of instance-types.csv). Optional fields are absent
// where the data has no value.
struct InstanceHardware {
  std::string category;    // "m"
  std::string family;      // "m5"
  std::optional<std::int64_t> generation;  // 5
  std::string size;        // "large"
  std::int64_t vcpu = 0;
  std::int64_t memory_mib = 0;
  std::string arch = "amd64";  // amd64 / arm64
  std::int64_t max_pods = 110;
  std::int64_t gpu_count = 0;
  std::string gpu_name;          // "t4"
  std::string gpu_manufacturer;  // nvidia / amd / habana
  std::optional<std::int64_t> gpu_memory_mib;  // per GPU
  std::int64_t accelerator_count = 0;
  std::string accelerator_name;          // "inferentia2"
  std::string accelerator_manufacturer;  // "aws"
  std::int64_t efa_count = 0;
  std::optional<std::int64_t> local_nvme_gib;
  std::string hypervisor;        // nitro / xen / "" (bare metal)
  std::string cpu_manufacturer;  // intel / amd / aws / ""
  std::optional<std::int64_t> network_bandwidth_mbps;
  bool bare_metal = false;
  bool burstable = false;
};

struct InstanceType {
  std::string name;  // "m5.large"
  InstanceHardware hardware;
  Labels labels;
  ResourceList capacity;
  ResourceList overhead;  // kube-reserved + system-reserved + eviction threshold
  ResourceList allocatable;
  std::vector<Offering> offerings;  // zone by zone: on-demand, then spot
  // The on-demand price (USD/h) of the type with a Windows Server license (AWS's License Included), where known: a
  // Windows node class offers it at that price, on demand only. nullopt: no Windows price in the region.
  std::optional<double> windows_on_demand;

  const Offering* offering(std::string_view zone, CapacityType capacity_type) const;
  // The lowest price among available offerings of `capacity_type`; nullopt when there is none.
  std::optional<double> cheapest(CapacityType capacity_type) const;
};

// One offering of one instance type: what a launch may be made from.
struct LaunchOption {
  const InstanceType* instance_type = nullptr;
  const Offering* offering = nullptr;
};

}  // namespace scalewright::cloud
