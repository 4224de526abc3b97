#include "cloud/instance_type.h"

#include <string>

#include "api/meta.h"
#include "cloud/aws/labels.h"

namespace scalewright::cloud {

std::string_view to_string(CapacityType type) {
  switch (type) {
    case CapacityType::OnDemand: return "on-demand";
    case CapacityType::Spot: return "spot";
  }
  return "on-demand";
}

std::optional<CapacityType> parse_capacity_type(std::string_view text) {
  if (text == "on-demand") return CapacityType::OnDemand;
  if (text == "spot") return CapacityType::Spot;
  return std::nullopt;
}

std::string_view to_string(PriceSource source) {
  switch (source) {
    case PriceSource::OnDemandList: return "on-demand-list";
    case PriceSource::SpotSnapshot: return "spot-snapshot";
    case PriceSource::SpotEstimate: return "spot-estimate";
  }
  return "on-demand-list";
}

const Offering* InstanceType::offering(std::string_view zone, CapacityType capacity_type) const {
  for (const Offering& o : offerings) {
    if (o.capacity_type == capacity_type && o.zone == zone) return &o;
  }
  return nullptr;
}

std::optional<double> InstanceType::cheapest(CapacityType capacity_type) const {
  std::optional<double> best;
  for (const Offering& o : offerings) {
    if (o.capacity_type != capacity_type || !o.available) continue;
    if (!best || o.price_per_hour < *best) best = o.price_per_hour;
  }
  return best;
}

namespace {

// Label keys interned once: a catalog builds some twenty labels for each of more than a thousand types.
struct LabelKeys {
  Symbol instance_type{well_known::instance_type}, arch{well_known::arch}, os{well_known::os},
      region{well_known::region}, category{aws::labels::instance_category}, family{aws::labels::instance_family},
      generation{aws::labels::instance_generation}, size{aws::labels::instance_size}, cpu{aws::labels::instance_cpu},
      memory{aws::labels::instance_memory}, hypervisor{aws::labels::instance_hypervisor},
      cpu_manufacturer{aws::labels::instance_cpu_manufacturer},
      network_bandwidth{aws::labels::instance_network_bandwidth}, local_nvme{aws::labels::instance_local_nvme},
      gpu_count{aws::labels::instance_gpu_count}, gpu_name{aws::labels::instance_gpu_name},
      gpu_manufacturer{aws::labels::instance_gpu_manufacturer}, gpu_memory{aws::labels::instance_gpu_memory},
      accelerator_count{aws::labels::instance_accelerator_count},
      accelerator_name{aws::labels::instance_accelerator_name},
      accelerator_manufacturer{aws::labels::instance_accelerator_manufacturer};
};

const LabelKeys& keys() {
  static const LabelKeys instance;
  return instance;
}

}  // namespace

Labels instance_type_labels(std::string_view name, const InstanceHardware& hw, std::string_view region) {
  const LabelKeys& k = keys();
  Labels labels;
  auto set = [&labels](Symbol key, std::string_view value) { labels.set(key, Symbol(value)); };
  auto set_number = [&set](Symbol key, std::int64_t value) { set(key, std::to_string(value)); };

  set(k.instance_type, name);
  set(k.arch, hw.arch);
  set(k.os, "linux");
  if (!region.empty()) set(k.region, region);
  if (!hw.category.empty()) set(k.category, hw.category);
  if (!hw.family.empty()) set(k.family, hw.family);
  if (hw.generation) set_number(k.generation, *hw.generation);
  if (!hw.size.empty()) set(k.size, hw.size);
  set_number(k.cpu, hw.vcpu);
  set_number(k.memory, hw.memory_mib);
  // Karpenter sets the hypervisor label even when EC2 reports none (bare metal): the value is then empty.
  set(k.hypervisor, hw.hypervisor);
  if (!hw.cpu_manufacturer.empty()) set(k.cpu_manufacturer, hw.cpu_manufacturer);
  if (hw.network_bandwidth_mbps) set_number(k.network_bandwidth, *hw.network_bandwidth_mbps);
  if (hw.local_nvme_gib) set_number(k.local_nvme, *hw.local_nvme_gib);
  if (hw.gpu_count > 0) {
    set_number(k.gpu_count, hw.gpu_count);
    if (!hw.gpu_name.empty()) set(k.gpu_name, hw.gpu_name);
    if (!hw.gpu_manufacturer.empty()) set(k.gpu_manufacturer, hw.gpu_manufacturer);
    if (hw.gpu_memory_mib) set_number(k.gpu_memory, *hw.gpu_memory_mib);
  }
  if (hw.accelerator_count > 0) {
    set_number(k.accelerator_count, hw.accelerator_count);
    if (!hw.accelerator_name.empty()) set(k.accelerator_name, hw.accelerator_name);
    if (!hw.accelerator_manufacturer.empty()) set(k.accelerator_manufacturer, hw.accelerator_manufacturer);
  }
  return labels;
}

}  // namespace scalewright::cloud
