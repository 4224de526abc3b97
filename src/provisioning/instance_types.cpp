#include "provisioning/instance_types.h"

#include <algorithm>
#include <bit>
#include <numeric>

#include "provisioning/provisioner.h"

namespace scalewright::provisioning {

bool is_offering_key(std::string_view key) {
  return key == offering_keys::zone() || key == offering_keys::zone_id() || key == offering_keys::capacity_type();
}

TypeSet::TypeSet(std::size_t size, bool all) : words_((size + 63) / 64, all ? ~std::uint64_t{0} : 0) {}

TypeSet& TypeSet::operator&=(const TypeSet& other) {
  for (std::size_t w = 0; w < words_.size(); ++w) words_[w] &= other.words_[w];
  return *this;
}

InstanceTypeIndex::InstanceTypeIndex(const std::vector<const cloud::Catalog*>& catalogs,
                                     const UnavailableOfferings* unavailable, Instant now)
    : unavailable_(unavailable), now_(now) {
  // Zones: the catalogs', plus any an offering names that they do not list. Every plan builds this index (a
  // provisioning pass is one plan), so the offerings are only looked up here: sorting a pair of strings per
  // offering was most of a pass's CPU over a full region's catalog.
  std::vector<std::pair<std::string, std::string>> zones;
  for (const cloud::Catalog* catalog : catalogs) {
    for (const cloud::Zone& z : catalog->zones()) zones.emplace_back(z.name, z.zone_id);
  }
  auto by_name = [](const auto& a, const auto& b) { return a.first < b.first; };
  std::sort(zones.begin(), zones.end(), by_name);
  zones.erase(std::unique(zones.begin(), zones.end(), [](const auto& a, const auto& b) { return a.first == b.first; }),
              zones.end());
  const std::size_t listed = zones.size();
  for (const cloud::Catalog* catalog : catalogs) {
    for (const cloud::InstanceType& t : catalog->instance_types()) {
      for (const cloud::Offering& o : t.offerings) {
        auto known = std::lower_bound(zones.begin(), zones.begin() + static_cast<std::ptrdiff_t>(listed), o.zone,
                                      [](const auto& z, const std::string& name) { return z.first < name; });
        if (known != zones.begin() + static_cast<std::ptrdiff_t>(listed) && known->first == o.zone) continue;
        if (std::none_of(zones.begin() + static_cast<std::ptrdiff_t>(listed), zones.end(),
                         [&](const auto& z) { return z.first == o.zone; })) {
          zones.emplace_back(o.zone, o.zone_id);
        }
      }
    }
  }
  std::sort(zones.begin(), zones.end(), by_name);
  if (zones.size() > 64) zones.resize(64);
  for (auto& [name, id] : zones) {
    zone_names_.push_back(std::move(name));
    zone_ids_.push_back(std::move(id));
  }

  std::size_t total = 0;
  for (const cloud::Catalog* catalog : catalogs) total += catalog->size();
  types_.reserve(total);
  allocatable_.reserve(total);
  offering_begin_.reserve(total + 1);
  for (const cloud::Catalog* catalog : catalogs) {
    const auto first = static_cast<std::uint32_t>(types_.size());
    for (const cloud::InstanceType& t : catalog->instance_types()) {
      Entry entry;
      entry.type = &t;
      offering_begin_.push_back(static_cast<std::uint32_t>(offerings_.size()));
      for (const cloud::Offering& o : t.offerings) {
        int zone = zone_bit(o.zone);
        if (zone < 0 || !offering_usable(t, o)) continue;
        const CapacityTypeMask bit = capacity_bit(o.capacity_type);
        entry.zones[bit == kSpotBit ? 1 : 0] |= std::uint64_t{1} << zone;
        offerings_.push_back({static_cast<std::uint32_t>(types_.size()), zone, bit, o.price_per_hour});
      }
      types_.push_back(entry);
      allocatable_.push_back(t.allocatable);
    }
    ranges_.push_back({catalog, {first, static_cast<std::uint32_t>(types_.size())}});
  }
  offering_begin_.push_back(static_cast<std::uint32_t>(offerings_.size()));
}

std::pair<std::uint32_t, std::uint32_t> InstanceTypeIndex::range(const cloud::Catalog* catalog) const {
  for (const auto& [indexed, types] : ranges_) {
    if (indexed == catalog) return types;
  }
  return {0, 0};
}

int InstanceTypeIndex::zone_bit(std::string_view zone) const {
  auto it = std::lower_bound(zone_names_.begin(), zone_names_.end(), zone);
  return it != zone_names_.end() && *it == zone ? static_cast<int>(it - zone_names_.begin()) : -1;
}

bool InstanceTypeIndex::offering_usable(const cloud::InstanceType& type, const cloud::Offering& offering) const {
  if (!offering.available) return false;
  if (unavailable_ == nullptr || unavailable_->empty()) return true;
  return !unavailable_->unavailable(OfferingKey{type.name, offering.zone, offering.capacity_type}, now_);
}

std::uint64_t InstanceTypeIndex::allowed_zones(const RequirementSet& requirements) const {
  const ValueSet* by_name = requirements.find(offering_keys::zone());
  const ValueSet* by_id = requirements.find(offering_keys::zone_id());
  std::uint64_t mask = 0;
  for (std::size_t z = 0; z < zone_names_.size(); ++z) {
    if (by_name && !by_name->allows(zone_names_[z])) continue;
    if (by_id && !by_id->allows(zone_ids_[z])) continue;
    mask |= std::uint64_t{1} << z;
  }
  return mask;
}

CapacityTypeMask InstanceTypeIndex::allowed_capacity_types(const RequirementSet& requirements) const {
  const ValueSet* values = requirements.find(offering_keys::capacity_type());
  if (values == nullptr) return kOnDemandBit | kSpotBit;
  static const std::string on_demand(cloud::to_string(cloud::CapacityType::OnDemand));
  static const std::string spot(cloud::to_string(cloud::CapacityType::Spot));
  CapacityTypeMask mask = 0;
  if (values->allows(on_demand)) mask |= kOnDemandBit;
  if (values->allows(spot)) mask |= kSpotBit;
  return mask;
}

std::uint64_t InstanceTypeIndex::available_zones(std::size_t i, CapacityTypeMask capacity_types) const {
  std::uint64_t zones = 0;
  if (capacity_types & kOnDemandBit) zones |= types_[i].zones[0];
  if (capacity_types & kSpotBit) zones |= types_[i].zones[1];
  return zones;
}

double InstanceTypeIndex::cheapest(std::size_t i, std::uint64_t zones, CapacityTypeMask capacity_types) const {
  double best = std::numeric_limits<double>::infinity();
  for (std::uint32_t k = offering_begin_[i]; k < offering_begin_[i + 1]; ++k) {
    const PricedOffering& o = offerings_[k];
    if (!(o.capacity & capacity_types) || !((zones >> o.zone) & 1U)) continue;
    best = std::min(best, o.price);
  }
  return best;
}

bool InstanceTypeIndex::labelled(const std::string& key) const {
  auto it = labelled_.find(key);
  if (it != labelled_.end()) return it->second;
  const Symbol symbol(key);
  bool any = std::any_of(types_.begin(), types_.end(), [&](const Entry& e) { return e.type->labels.has(symbol); });
  labelled_.emplace(key, any);
  return any;
}

const TypeSet& InstanceTypeIndex::matching(const std::string& key, const ValueSet& values) {
  std::string cache_key = key;
  cache_key += '\n';
  cache_key += values.to_string();
  if (values.allows_absent()) cache_key += " +absent";
  auto it = matching_.find(cache_key);
  if (it != matching_.end()) return it->second;
  TypeSet set(types_.size(), false);
  const Symbol symbol(key);
  std::string value;
  for (std::size_t i = 0; i < types_.size(); ++i) {
    const Symbol* label = types_[i].type->labels.find(symbol);
    bool ok = false;
    if (label == nullptr) {
      ok = values.allows_absent();
    } else {
      value.assign(label->str());
      ok = values.allows(value);
    }
    if (ok) set.set(i);
  }
  return matching_.emplace(std::move(cache_key), std::move(set)).first->second;
}

const std::vector<double>& InstanceTypeIndex::prices(std::uint64_t zones, CapacityTypeMask capacity_types) {
  auto [it, inserted] = prices_.try_emplace(zones * 4 + capacity_types);
  if (!inserted) return it->second;
  it->second.resize(types_.size());
  for (std::uint32_t t = 0; t < types_.size(); ++t) it->second[t] = cheapest(t, zones, capacity_types);
  return it->second;
}

const std::vector<std::uint32_t>& InstanceTypeIndex::price_rank(std::uint64_t zones,
                                                               CapacityTypeMask capacity_types) {
  const std::uint64_t key = zones * 4 + capacity_types;
  auto [it, inserted] = price_ranks_.try_emplace(key);
  if (!inserted) return it->second;
  const std::vector<double>& price = prices(zones, capacity_types);
  std::vector<std::uint32_t> order(types_.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
    if (price[a] != price[b]) return price[a] < price[b];
    return type(a).name < type(b).name;
  });
  it->second.resize(types_.size());
  for (std::uint32_t i = 0; i < order.size(); ++i) it->second[order[i]] = i;
  return it->second;
}

}  // namespace scalewright::provisioning
