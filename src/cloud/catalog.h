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
