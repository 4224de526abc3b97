#pragma once
// The catalog as one provisioning pass sees it: types by index, their labels, and their offerings reduced to
// zone bitmasks per capacity type with what is marked unavailable already taken out. Requirement checks become
// bitset intersections over type indexes, cached per (key, allowed values).
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/requirements.h"
#include "cloud/catalog.h"
#include "cloud/instance_type.h"

namespace scalewright::provisioning {

class UnavailableOfferings;

// Well-known keys that an offering, not an instance type's labels, decides.
namespace offering_keys {
inline const std::string& zone() { static const std::string s = "topology.kubernetes.io/zone"; return s; }
inline const std::string& zone_id() { static const std::string s = "topology.k8s.aws/zone-id"; return s; }
inline const std::string& capacity_type() { static const std::string s = "karpenter.sh/capacity-type"; return s; }
}  // namespace offering_keys

bool is_offering_key(std::string_view key);

// A set of instance-type indexes.
class TypeSet {
 public:
  TypeSet() = default;
  TypeSet(std::size_t size, bool all);
  bool test(std::size_t i) const { return (words_[i >> 6] >> (i & 63)) & 1U; }
  void set(std::size_t i) { words_[i >> 6] |= std::uint64_t{1} << (i & 63); }
  TypeSet& operator&=(const TypeSet& other);

 private:
  std::vector<std::uint64_t> words_;
};

// Capacity types as bits: on-demand 1, spot 2.
using CapacityTypeMask = std::uint8_t;
inline constexpr CapacityTypeMask kOnDemandBit = 1;
inline constexpr CapacityTypeMask kSpotBit = 2;
inline CapacityTypeMask capacity_bit(cloud::CapacityType type) {
  return type == cloud::CapacityType::Spot ? kSpotBit : kOnDemandBit;
}

class InstanceTypeIndex {
 public:
  // `unavailable` may be null. At most 64 zones are told apart; offerings in further zones are ignored.
  InstanceTypeIndex(const cloud::Catalog& catalog, const UnavailableOfferings* unavailable, Instant now)
      : InstanceTypeIndex(std::vector<const cloud::Catalog*>{&catalog}, unavailable, now) {}
  // The types of several catalogs one after the other (the same types as different node classes shape them): a
  // NodePool takes the range of its own.
  InstanceTypeIndex(const std::vector<const cloud::Catalog*>& catalogs, const UnavailableOfferings* unavailable,
                    Instant now);

  // The indexes [first, second) of `catalog`'s types; an empty range for a catalog not indexed.
  std::pair<std::uint32_t, std::uint32_t> range(const cloud::Catalog* catalog) const;

  std::size_t size() const { return types_.size(); }
  const cloud::InstanceType& type(std::size_t i) const { return *types_[i].type; }
  // type(i).allocatable, kept side by side: the packing reads it type after type, pod after pod.
  const ResourceList& allocatable(std::size_t i) const { return allocatable_[i]; }

  // Zone names, sorted; bit i of a zone mask is zones()[i].
  const std::vector<std::string>& zones() const { return zone_names_; }
  const std::vector<std::string>& zone_ids() const { return zone_ids_; }  // parallel to zones()
  std::uint64_t allowed_zones(const RequirementSet& requirements) const;
  CapacityTypeMask allowed_capacity_types(const RequirementSet& requirements) const;

  // Zones where type i has an available offering (not marked unavailable) of each capacity type.
  std::uint64_t available_zones(std::size_t i, CapacityTypeMask capacity_types) const;
  bool has_offering(std::size_t i, std::uint64_t zones, CapacityTypeMask capacity_types) const {
    return (available_zones(i, capacity_types) & zones) != 0;
  }
  // The lowest price among type i's available offerings inside `zones` and `capacity_types`; +inf when none.
  double cheapest(std::size_t i, std::uint64_t zones, CapacityTypeMask capacity_types) const;
  // Whether this offering is available and not marked unavailable at `now`.
  bool offering_usable(const cloud::InstanceType& type, const cloud::Offering& offering) const;
  // The bit of a zone name; -1 for a zone not known.
  int zone_bit(std::string_view zone) const;

  // Whether any type carries label `key`.
  bool labelled(const std::string& key) const;
  // The label value of type i, nullptr when absent.
  const Symbol* label(std::size_t i, Symbol key) const { return types_[i].type->labels.find(key); }
  // Types whose label `key` has a value `values` allows (an absent label only when `values` allows absence).
  const TypeSet& matching(const std::string& key, const ValueSet& values);
  // cheapest() of every type, for one `zones` and `capacity_types`, computed once: the packer asks for it per
  // candidate type at every pod that grows a claim.
  const std::vector<double>& prices(std::uint64_t zones, CapacityTypeMask capacity_types);
  // Every type's place when sorted by its cheapest offering inside `zones` and `capacity_types`, then by name.
  const std::vector<std::uint32_t>& price_rank(std::uint64_t zones, CapacityTypeMask capacity_types);

 private:
  struct Entry {
    const cloud::InstanceType* type = nullptr;
    std::uint64_t zones[2] = {0, 0};  // by capacity type: on-demand, spot
  };
  struct PricedOffering {
    std::uint32_t type = 0;
    int zone = -1;
    CapacityTypeMask capacity = kOnDemandBit;
    double price = 0;
  };

  std::vector<Entry> types_;
  std::vector<std::pair<const cloud::Catalog*, std::pair<std::uint32_t, std::uint32_t>>> ranges_;
  std::vector<PricedOffering> offerings_;       // usable ones, grouped by type
  std::vector<std::uint32_t> offering_begin_;  // per type, into offerings_ (size()+1 entries)
  std::vector<std::string> zone_names_;
  std::vector<std::string> zone_ids_;
  const UnavailableOfferings* unavailable_ = nullptr;
  Instant now_{};
  mutable std::unordered_map<std::string, bool> labelled_;  // a cache of a pure function
  std::unordered_map<std::string, TypeSet> matching_;
  std::vector<ResourceList> allocatable_;  // per type
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> price_ranks_;  // by (zones, capacity types)
  std::unordered_map<std::uint64_t, std::vector<double>> prices_;              // by (zones, capacity types)
};

}  // namespace scalewright::provisioning
