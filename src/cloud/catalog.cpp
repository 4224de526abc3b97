#include "cloud/catalog.h"

#include <algorithm>
#include <cmath>
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

namespace {

bool same_place(const Offering& a, const Offering& b) {
  if (a.capacity_type != b.capacity_type) return false;
  // Zone ids name the same place in every account; zone names need not (explicit catalogs may have no ids).
  return !a.zone_id.empty() && !b.zone_id.empty() ? a.zone_id == b.zone_id : a.zone == b.zone;
}

const Offering* find_offering(const InstanceType& type, const Offering& like) {
  for (const Offering& o : type.offerings) {
    if (same_place(o, like)) return &o;
  }
  return nullptr;
}

}  // namespace

CatalogUpdate Catalog::take_prices_from(const Catalog& fresh) {
  CatalogUpdate update;
  for (const InstanceType& type : fresh.instance_types()) {
    if (find(type.name) == nullptr) ++update.new_types;
  }
  for (InstanceType& type : types_) {
    const InstanceType* now = fresh.find(type.name);
    if (now != nullptr) type.windows_on_demand = now->windows_on_demand;
    for (Offering& offering : type.offerings) {
      const Offering* priced = now == nullptr ? nullptr : find_offering(*now, offering);
      if (priced == nullptr || !priced->available) {
        if (offering.available) ++update.withdrawn;
        offering.available = false;
        continue;
      }
      if (!offering.available) ++update.restored;
      offering.available = true;
      if (std::abs(offering.price_per_hour - priced->price_per_hour) > kSamePrice ||
          offering.price_source != priced->price_source) {
        ++update.prices_changed;
        offering.price_per_hour = priced->price_per_hour;
        offering.price_source = priced->price_source;
      }
    }
    if (now == nullptr) continue;
    for (const Offering& offering : now->offerings) {
      if (find_offering(type, offering) == nullptr) ++update.new_offerings;
    }
  }
  return update;
}

bool Catalog::same_shape(const Catalog& other) const {
  if (region_ != other.region_ || zones_ != other.zones_ || types_.size() != other.types_.size()) return false;
  for (std::size_t i = 0; i < types_.size(); ++i) {
    const InstanceType& a = types_[i];
    const InstanceType& b = other.types_[i];
    if (a.name != b.name || a.labels != b.labels || !(a.capacity == b.capacity) || !(a.overhead == b.overhead) ||
        !(a.allocatable == b.allocatable) || a.offerings.size() != b.offerings.size()) {
      return false;
    }
    for (std::size_t j = 0; j < a.offerings.size(); ++j) {
      if (a.offerings[j].zone != b.offerings[j].zone || !same_place(a.offerings[j], b.offerings[j])) return false;
    }
  }
  return true;
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
