// Which offering a NodeClaim launches from, and the insufficient-capacity cache that steers it away from
// offerings that just failed.
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "provisioning/instance_types.h"
#include "provisioning/provisioner.h"

namespace scalewright::provisioning {

void UnavailableOfferings::mark(const OfferingKey& key, Instant until) {
  auto [it, inserted] = until_.try_emplace(key, until);
  if (!inserted && it->second < until) it->second = until;
  ++changes_;
}

std::optional<Instant> UnavailableOfferings::next_lapse(Instant now) const {
  std::optional<Instant> next;
  for (const auto& [key, until] : until_) {
    if (until > now && (!next || until < *next)) next = until;
  }
  return next;
}

bool UnavailableOfferings::unavailable(const OfferingKey& key, Instant now) const {
  auto it = until_.find(key);
  return it != until_.end() && now < it->second;
}

std::optional<Instant> UnavailableOfferings::until(const OfferingKey& key) const {
  auto it = until_.find(key);
  if (it == until_.end()) return std::nullopt;
  return it->second;
}

namespace {

bool allowed(const RequirementSet& requirements, const std::string& key, const std::string& value) {
  const ValueSet* values = requirements.find(key);
  return values == nullptr || values->allows(value);
}

const std::string kSpot(cloud::to_string(cloud::CapacityType::Spot));
const std::string kOnDemand(cloud::to_string(cloud::CapacityType::OnDemand));

// Orders candidates by price, then instance type name, then zone.
bool cheaper(const LaunchChoice& a, const LaunchChoice& b) {
  if (a.offering->price_per_hour != b.offering->price_per_hour) {
    return a.offering->price_per_hour < b.offering->price_per_hour;
  }
  if (a.instance_type->name != b.instance_type->name) return a.instance_type->name < b.instance_type->name;
  return a.offering->zone < b.offering->zone;
}

}  // namespace

OfferingExclusion offering_exclusion(const cloud::InstanceType& type, const cloud::Offering& offering,
                                     const RequirementSet& requirements, const UnavailableOfferings& unavailable,
                                     Instant now) {
  const bool is_spot = offering.capacity_type == cloud::CapacityType::Spot;
  if (!offering.available) return OfferingExclusion::NotOffered;
  if (!allowed(requirements, offering_keys::capacity_type(), is_spot ? kSpot : kOnDemand)) {
    return OfferingExclusion::CapacityType;
  }
  if (!allowed(requirements, offering_keys::zone(), offering.zone)) return OfferingExclusion::Zone;
  if (!allowed(requirements, offering_keys::zone_id(), offering.zone_id)) return OfferingExclusion::ZoneId;
  if (unavailable.unavailable(OfferingKey{type.name, offering.zone, offering.capacity_type}, now)) {
    return OfferingExclusion::InsufficientCapacity;
  }
  return OfferingExclusion::None;
}

std::vector<const cloud::Offering*> allowed_offerings(const cloud::InstanceType& type,
                                                      const RequirementSet& requirements,
                                                      const UnavailableOfferings& unavailable, Instant now) {
  std::vector<const cloud::Offering*> out;
  for (const cloud::Offering& offering : type.offerings) {
    if (offering_exclusion(type, offering, requirements, unavailable, now) == OfferingExclusion::None) {
      out.push_back(&offering);
    }
  }
  return out;
}

std::optional<LaunchChoice> choose_offering(const NewNodeClaim& claim, const UnavailableOfferings& unavailable,
                                            Instant now) {
  std::optional<LaunchChoice> best_spot;
  std::optional<LaunchChoice> best_on_demand;
  const bool spot_allowed = allowed(claim.requirements, offering_keys::capacity_type(), kSpot);
  const bool on_demand_allowed = allowed(claim.requirements, offering_keys::capacity_type(), kOnDemand);
  for (const cloud::InstanceType* type : claim.instance_types) {
    for (const cloud::Offering& offering : type->offerings) {
      const bool spot = offering.capacity_type == cloud::CapacityType::Spot;
      if (!(spot ? spot_allowed : on_demand_allowed)) continue;
      if (!spot && best_spot) continue;  // any spot offering goes first
      std::optional<LaunchChoice>& best = spot ? best_spot : best_on_demand;
      const LaunchChoice candidate{type, &offering};
      // The cheap test first: plans are priced claim by claim over every type they allow, and few offerings
      // could win.
      if (best && !cheaper(candidate, *best)) continue;
      if (offering_exclusion(*type, offering, claim.requirements, unavailable, now) == OfferingExclusion::None) {
        best = candidate;
      }
    }
  }
  return best_spot ? best_spot : best_on_demand;
}

std::vector<LaunchChoice> launch_order(const NewNodeClaim& claim, const UnavailableOfferings& unavailable, Instant now,
                                       std::size_t types) {
  std::vector<LaunchChoice> out;
  types = std::min(types, claim.instance_types.size());
  for (const cloud::InstanceType* type : std::span(claim.instance_types).first(types)) {
    for (const cloud::Offering* offering : allowed_offerings(*type, claim.requirements, unavailable, now)) {
      out.push_back({type, offering});
    }
  }
  std::sort(out.begin(), out.end(), [](const LaunchChoice& a, const LaunchChoice& b) {
    const bool a_spot = a.offering->capacity_type == cloud::CapacityType::Spot;
    const bool b_spot = b.offering->capacity_type == cloud::CapacityType::Spot;
    if (a_spot != b_spot) return a_spot;
    return cheaper(a, b);
  });
  return out;
}

}  // namespace scalewright::provisioning
