#include "cloud/instance_type.h"

#include <string>

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

}  // namespace scalewright::cloud
