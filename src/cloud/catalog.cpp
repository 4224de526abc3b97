#include "cloud/catalog.h"

#include <algorithm>
#include <utility>

#include "api/meta.h"
#include "api/nodepool.h"

namespace scalewright::cloud {

Catalog Catalog::from_instance_types(std::string region, std::vector<Zone> zones, std::vector<InstanceType> types) {
  Catalog catalog;
  catalog.region_ = std::move(region);
  catalog.zones_ = std::move(zones);
  catalog.types_ = std::move(types);
  std::stable_sort(catalog.types_.begin(), catalog.types_.end(),
                   [](const InstanceType& a, const InstanceType& b) { return a.name < b.name; });
  return catalog;
}

const InstanceType* Catalog::find(std::string_view name) const {
  auto it = std::lower_bound(types_.begin(), types_.end(), name,
                             [](const InstanceType& t, std::string_view n) { return t.name < n; });
  return it != types_.end() && it->name == name ? &*it : nullptr;
}

const Zone* Catalog::find_zone(std::string_view name) const {
  for (const Zone& zone : zones_) {
    if (zone.name == name) return &zone;
  }
  return nullptr;
}

const Zone* Catalog::find_zone_by_id(std::string_view zone_id) const {
  for (const Zone& zone : zones_) {
    if (zone.zone_id == zone_id) return &zone;
  }
  return nullptr;
}

NodeOffering offering_of_node(const Catalog& catalog, const Labels& labels) {
  NodeOffering found;
  if (const Symbol* capacity = labels.find(Symbol(karpenter_labels::capacity_type))) {
    found.capacity_type = parse_capacity_type(capacity->str()).value_or(CapacityType::OnDemand);
  }
  const Symbol* type = labels.find(Symbol(well_known::instance_type));
  found.type = type == nullptr ? nullptr : catalog.find(type->str());
  const Symbol* zone = labels.find(Symbol(well_known::zone));
  if (found.type != nullptr && zone != nullptr) found.offering = found.type->offering(zone->str(), found.capacity_type);
  return found;
}

}  // namespace scalewright::cloud
