// What a NodePool allows its NodeClaims: its instance types and requirements (nodepool_info, the mask a pod's
// requirements leave), its types' minValues and its limits.
#include "provisioning/nodeclaim_builder.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "api/saturating.h"
#include "cloud/instance_type.h"

#include "provisioning/detail/nodeclaim_builder_internal.h"

namespace scalewright::provisioning {

using detail::counted;
using detail::type_independent;

NodePoolInfo nodepool_info(const NodePool& np, InstanceTypeIndex& types) {
  return nodepool_info(np, types, {0, static_cast<std::uint32_t>(types.size())});
}

NodePoolInfo nodepool_info(const NodePool& np, InstanceTypeIndex& types,
                           std::pair<std::uint32_t, std::uint32_t> range) {
  NodePoolInfo info;
  info.pool = &np;
  info.requirements = np.requirement_set();
  info.pack_as_karpenter = np.meta.annotated_true(kPackAsKarpenterAnnotation);
  for (const NodePoolRequirement& r : np.requirements) {
    if (r.min_values) info.min_values.emplace_back(r.requirement.key.string(), *r.min_values);
  }
  // Keys the NodePool puts on its nodes itself: template labels, and requirements no instance type labels.
  for (const auto& [key, value] : np.template_labels) info.own_keys.push_back(key.string());
  for (const NodePoolRequirement& r : np.requirements) {
    const std::string key = r.requirement.key.string();
    if (!is_offering_key(key) && !types.labelled(key)) info.own_keys.push_back(key);
  }
  std::sort(info.own_keys.begin(), info.own_keys.end());
  info.own_keys.erase(std::unique(info.own_keys.begin(), info.own_keys.end()), info.own_keys.end());

  const std::uint64_t zones = types.allowed_zones(info.requirements);
  const CapacityTypeMask capacity_types = types.allowed_capacity_types(info.requirements);
  TypeSet mask(types.size(), true);
  for (const auto& [key, values] : info.requirements.keys()) {
    if (type_independent(key) || std::binary_search(info.own_keys.begin(), info.own_keys.end(), key)) continue;
    mask &= types.matching(key, values);
  }
  for (std::uint32_t t = range.first; t < range.second; ++t) {
    if (!mask.test(t)) continue;
    const std::uint64_t offered = types.available_zones(t, capacity_types) & zones;
    if (offered == 0) continue;
    info.types.push_back(t);
    info.zones |= offered;
    for (CapacityTypeMask bit : {kOnDemandBit, kSpotBit}) {
      if ((capacity_types & bit) && (types.available_zones(t, bit) & zones)) info.capacity_types |= bit;
    }
  }
  // Cheapest first, as a claim opened from the NodePool prices them (see NodeClaimBuilder::try_add).
  info.price_order_zones = zones;
  info.price_order_capacity_types = capacity_types;
  const std::vector<std::uint32_t>& rank = types.price_rank(zones, capacity_types);
  std::sort(info.types.begin(), info.types.end(), [&](std::uint32_t a, std::uint32_t b) { return rank[a] < rank[b]; });
  return info;
}
TypeSet NodeClaimBuilder::requirement_mask(const NodePoolInfo& pool, const RequirementSet& requirements) {
  TypeSet mask(types_.size(), true);
  for (const auto& [key, values] : requirements.keys()) {
    if (type_independent(key) || std::binary_search(pool.own_keys.begin(), pool.own_keys.end(), key)) continue;
    mask &= types_.matching(key, values);
  }
  return mask;
}

bool NodeClaimBuilder::min_values_met(const NodePoolInfo& pool, const std::vector<std::uint32_t>& types,
                                      std::uint64_t zones, CapacityTypeMask capacity_types,
                                      std::string* reason) const {
  std::vector<std::uint32_t> seen;
  for (const auto& [key, min] : pool.min_values) {
    std::size_t distinct = 0;
    if (key == offering_keys::zone() || key == offering_keys::capacity_type()) {
      std::uint64_t zone_union = 0;
      CapacityTypeMask ct_union = 0;
      for (std::uint32_t t : types) {
        zone_union |= types_.available_zones(t, capacity_types) & zones;
        for (CapacityTypeMask bit : {kOnDemandBit, kSpotBit}) {
          if ((capacity_types & bit) && (types_.available_zones(t, bit) & zones)) ct_union |= bit;
        }
      }
      distinct = key == offering_keys::zone() ? static_cast<std::size_t>(std::popcount(zone_union))
                                              : static_cast<std::size_t>(std::popcount(ct_union));
    } else {
      const Symbol symbol(key);
      seen.clear();
      for (std::uint32_t t : types) {
        if (const Symbol* value = types_.label(t, symbol)) seen.push_back(value->id());
      }
      std::sort(seen.begin(), seen.end());
      distinct = static_cast<std::size_t>(std::unique(seen.begin(), seen.end()) - seen.begin());
    }
    if (distinct < static_cast<std::size_t>(min)) {
      if (reason) {
        *reason = "minValues of \"" + key + "\" not met (" + std::to_string(distinct) + " < " +
                  std::to_string(min) + ")";
      }
      return false;
    }
  }
  return true;
}

bool NodeClaimBuilder::within_limits(std::size_t pool, std::uint32_t type) const {
  const NodePool& np = *pools_[pool].pool;
  for (Symbol r : np.limited_resources) {
    if (counted(types_.type(type), r) > remaining_[pool].get(r)) return false;
  }
  return true;
}

std::string NodeClaimBuilder::limits_reason(std::size_t pool, const std::vector<std::uint32_t>& types) const {
  const NodePool& np = *pools_[pool].pool;
  std::string names;
  for (Symbol r : np.limited_resources) {
    const bool blocks = std::all_of(types.begin(), types.end(), [&](std::uint32_t t) {
      return counted(types_.type(t), r) > remaining_[pool].get(r);
    });
    if (blocks) names += (names.empty() ? "" : ", ") + std::string(r.str());
  }
  if (names.empty()) {
    for (Symbol r : np.limited_resources) names += (names.empty() ? "" : ", ") + std::string(r.str());
  }
  return "limits exceeded (" + names + ")";
}

}  // namespace scalewright::provisioning
