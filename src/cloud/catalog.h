#pragma once
// The instance types of one region as the engine reads them: every type, its zones, and its offerings per zone.
// Providers fill it (src/cloud/aws/ loads AWS's from data/aws/; tests and other providers give explicit types).
#include <any>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/labels.h"
#include "api/resources.h"
#include "api/result.h"
#include "cloud/instance_type.h"

namespace scalewright::cloud {

struct Zone {
  std::string name;     // us-east-1a
  std::string zone_id;  // use1-az1
  friend bool operator==(const Zone&, const Zone&) = default;
};

// What Catalog::take_prices_from changed.
struct CatalogUpdate {
  std::size_t prices_changed = 0;  // offerings whose price or price source changed
  std::size_t withdrawn = 0;       // offerings the fresh catalog no longer has: now unavailable
  std::size_t restored = 0;        // offerings that were withdrawn and are back
  std::size_t new_offerings = 0;   // offerings of known types that only the fresh catalog has: not taken
  std::size_t new_types = 0;       // types that only the fresh catalog has: not taken
  bool changed() const { return prices_changed + withdrawn + restored > 0; }
};

class Catalog {
 public:
  Catalog() = default;
  // A catalog of explicit types, for tests and other providers; types are kept sorted by name.
  static Catalog from_instance_types(std::string region, std::vector<Zone> zones, std::vector<InstanceType> types);

  const std::string& region() const { return region_; }
  const std::vector<Zone>& zones() const { return zones_; }
  const std::vector<InstanceType>& instance_types() const { return types_; }
  std::size_t size() const { return types_.size(); }

  const InstanceType* find(std::string_view name) const;
  const Zone* find_zone(std::string_view name) const;
  const Zone* find_zone_by_id(std::string_view zone_id) const;

  // What the data does not know and the catalog therefore leaves out ("spot prices are not known for region ...:
  // spot offerings left out"), for the report to say.
  const std::vector<std::string>& notes() const { return notes_; }
  // Takes `fresh`'s prices and availability into the offerings this catalog holds, matched by type, zone (its id
  // where both have one) and capacity type, in place: the engine holds pointers to the types and offerings of a
  // catalog in use, so none is added, moved or removed. An offering `fresh` lacks becomes unavailable; the types and
  // offerings only `fresh` has are counted, not taken (a provider's catalog grows when it is read again at start).
  CatalogUpdate take_prices_from(const Catalog& fresh);
  // Whether both hold the same types with the same resources, labels and offerings (zone and capacity type), prices
  // and availability aside: whether one can stand for the other once its prices are taken.
  bool same_shape(const Catalog& other) const;
  void add_note(std::string note) { notes_.push_back(std::move(note)); }
  // What the provider that built the types computed their resources with (AWS's: its aws::AllocatableOptions), for
  // its node classes to shape them again; empty for explicit types. The engine never reads it.
  const std::any& provider_options() const { return provider_options_; }
  void set_provider_options(std::any options) { provider_options_ = std::move(options); }

 private:
  std::string region_;
  std::vector<Zone> zones_;
  std::vector<InstanceType> types_;  // sorted by name
  std::any provider_options_;
  std::vector<std::string> notes_;
};

// What a node runs on, read from its labels as Karpenter's nodes carry them (node.kubernetes.io/instance-type,
// topology.kubernetes.io/zone, karpenter.sh/capacity-type; on-demand when that is absent or unknown): its type in
// the catalog (null when unknown), and the offering of its zone (null when the type or the zone is not offered).
struct NodeOffering {
  const InstanceType* type = nullptr;
  const Offering* offering = nullptr;
  CapacityType capacity_type = CapacityType::OnDemand;
};
NodeOffering offering_of_node(const Catalog& catalog, const Labels& labels);

}  // namespace scalewright::cloud
