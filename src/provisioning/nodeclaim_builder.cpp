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

namespace {

// True when `extra` would narrow `base` (names a key it lacks, or allows less for one it has).
bool narrows(const RequirementSet& base, const RequirementSet& extra) {
  for (const auto& [key, values] : extra.keys()) {
    const ValueSet* have = base.find(key);
    if (have == nullptr || !(have->intersect(values) == *have)) return true;
  }
  return false;
}

// A key the pod requires that neither the claim, nor instance types, nor Karpenter define.
const std::string* undefined_key(const RequirementSet& pod, const RequirementSet& claim, InstanceTypeIndex& types) {
  for (const auto& [key, values] : pod.keys()) {
    if (values.allows_absent() || claim.has(key) || type_independent(key) || types.labelled(key)) continue;
    return &key;
  }
  return nullptr;
}

bool ports_conflict(const ContainerPort& a, const ContainerPort& b) {
  if (a.host_port != b.host_port || a.protocol != b.protocol) return false;
  auto wildcard = [](const std::string& ip) { return ip.empty() || ip == "0.0.0.0"; };
  return wildcard(a.host_ip) || wildcard(b.host_ip) || a.host_ip == b.host_ip;
}

// What `allocatable` leaves after `daemons` and `used`; saturating, as every sum of amounts (see ResourceList).
std::int64_t room_left(std::int64_t allocatable, std::int64_t daemons, std::int64_t used) {
  return saturating_sub(saturating_sub(allocatable, daemons), used);
}

// A claim about to look at its candidates' room again: none looked at yet.
void clear_room(ClaimState& claim) {
  claim.free_cpu = claim.free_memory = claim.free_pods = std::numeric_limits<std::int64_t>::min();
  claim.least_cpu = claim.least_memory = claim.least_pods = std::numeric_limits<std::int64_t>::max();
}

// Counts one candidate's room (`allocatable` less `daemons` and what the claim's pods use) into the most and the
// least any candidate has left.
void count_room(ClaimState& claim, const ResourceList& allocatable, const ResourceList& daemons, std::int64_t cpu_used,
                std::int64_t memory_used, std::int64_t pods_used) {
  const std::int64_t cpu = room_left(allocatable.cpu_milli(), daemons.cpu_milli(), cpu_used);
  const std::int64_t memory = room_left(allocatable.memory(), daemons.memory(), memory_used);
  const std::int64_t pods = room_left(allocatable.pods(), daemons.pods(), pods_used);
  claim.free_cpu = std::max(claim.free_cpu, cpu);
  claim.free_memory = std::max(claim.free_memory, memory);
  claim.free_pods = std::max(claim.free_pods, pods);
  claim.least_cpu = std::min(claim.least_cpu, cpu);
  claim.least_memory = std::min(claim.least_memory, memory);
  claim.least_pods = std::min(claim.least_pods, pods);
}

// How many more copies of `requests` fit on top of `used` and `daemons` (saturating at `cap`).
std::int64_t copies(const ResourceList& used, const ResourceList& requests, const ResourceList& daemons,
                    const ResourceList& allocatable, std::int64_t cap) {
  std::int64_t n = cap;
  auto limit = [&](std::int64_t want, std::int64_t have) {
    if (want <= 0) return;
    n = std::min(n, have < 0 ? 0 : have / want);
  };
  limit(requests.cpu_milli(), room_left(allocatable.cpu_milli(), daemons.cpu_milli(), used.cpu_milli()));
  limit(requests.memory(), room_left(allocatable.memory(), daemons.memory(), used.memory()));
  limit(requests.ephemeral_storage(),
        room_left(allocatable.ephemeral_storage(), daemons.ephemeral_storage(), used.ephemeral_storage()));
  limit(requests.pods(), room_left(allocatable.pods(), daemons.pods(), used.pods()));
  for (const auto& [name, amount] : requests.extended()) {
    limit(amount, room_left(allocatable.get(name), daemons.get(name), used.get(name)));
  }
  return std::max<std::int64_t>(n, 0);
}

// Whether `requests` fits on every candidate of the claim (cpu, memory and pods only; nothing else asked).
bool fits_everywhere(const ClaimState& claim, const ResourceList& requests) {
  return !claim.pods.empty() && requests.extended().empty() && requests.ephemeral_storage() == 0 &&
         requests.cpu_milli() <= claim.least_cpu && requests.memory() <= claim.least_memory &&
         requests.pods() <= claim.least_pods;
}

}  // namespace
bool fits(const ResourceList& used, const ResourceList& requests, const ResourceList& daemons,
          const ResourceList& allocatable) {
  auto over = [](std::int64_t used, std::int64_t requests, std::int64_t daemons, std::int64_t allocatable) {
    return saturating_add(saturating_add(used, requests), daemons) > allocatable;
  };
  if (over(used.cpu_milli(), requests.cpu_milli(), daemons.cpu_milli(), allocatable.cpu_milli())) return false;
  if (over(used.memory(), requests.memory(), daemons.memory(), allocatable.memory())) return false;
  if (over(used.pods(), requests.pods(), daemons.pods(), allocatable.pods())) return false;
  if (over(used.ephemeral_storage(), requests.ephemeral_storage(), daemons.ephemeral_storage(),
           allocatable.ephemeral_storage())) {
    return false;
  }
  for (const auto& [name, amount] : requests.extended()) {
    if (over(used.get(name), amount, daemons.get(name), allocatable.get(name))) return false;
  }
  for (const auto& [name, amount] : daemons.extended()) {
    if (over(used.get(name), requests.get(name), amount, allocatable.get(name))) return false;
  }
  return true;
}

std::string describe_requests(const ResourceList& requests) {
  ResourceList shown = requests;
  shown.set(resource_names::pods(), 0);
  return shown.to_string();
}

NodeClaimBuilder::NodeClaimBuilder(std::vector<NodePoolInfo>& pools, InstanceTypeIndex& types,
                                   DaemonOverhead& daemons, Topology& topology,
                                   std::vector<ResourceList> remaining_limits)
    : pools_(pools), types_(types), daemons_(daemons), topology_(topology), remaining_(std::move(remaining_limits)) {}

ClaimState NodeClaimBuilder::open(std::size_t pool) {
  const NodePoolInfo& info = pools_[pool];
  ClaimState claim;
  claim.nodepool = pool;
  claim.requirements = info.requirements;
  claim.zones = info.price_order_zones;  // what the NodePool's requirements allow, worked out in nodepool_info
  claim.capacity_types = info.price_order_capacity_types;
  claim.daemon_mask = daemons_.claim_mask(info.requirements, info.pool->taints);
  claim.types = info.types;
  if (pool_daemons_.size() < pools_.size()) pool_daemons_.resize(pools_.size());
  std::vector<const ResourceList*>& daemons = pool_daemons_[pool];
  if (daemons.size() != info.types.size()) {
    daemons.clear();
    for (std::uint32_t t : info.types) daemons.push_back(&daemons_.requests(claim.daemon_mask, t));
  }
  claim.daemons = daemons;
  claim.free_cpu = claim.free_memory = claim.free_pods = std::numeric_limits<std::int64_t>::max();
  return claim;
}

bool NodeClaimBuilder::tolerates(PodVariant& variant, std::size_t pool) {
  if (variant.tolerates.size() < pools_.size()) variant.tolerates.resize(pools_.size(), -1);
  if (variant.tolerates[pool] < 0) {
    variant.tolerates[pool] = 1;
    for (const Taint& taint : pools_[pool].pool->taints) {
      if (taint.effect == TaintEffect::PreferNoSchedule) continue;
      if (!tolerates_all(variant.constraints->pod.spec.tolerations, taint)) {
        variant.tolerates[pool] = 0;
        break;
      }
    }
  }
  if (variant.tolerates[pool] == 0) {
    for (const Taint& taint : pools_[pool].pool->taints) {
      if (taint.effect != TaintEffect::PreferNoSchedule &&
          !tolerates_all(variant.constraints->pod.spec.tolerations, taint)) {
        variant.untolerated = taint.describe();
        break;
      }
    }
    return false;
  }
  return true;
}

bool NodeClaimBuilder::try_add(ClaimState& claim, PodVariant& variant, ClassTopology& cls,
                               ClaimChange& change, std::string* reason) {
  const PodConstraints& pod = *variant.constraints;
  const NodePoolInfo& pool = pools_[claim.nodepool];
  const bool fresh = claim.pods.empty();
  if (!may_fit(claim, variant.requests)) {
    if (reason) *reason = "full";
    return false;
  }
  for (const ContainerPort& wanted : pod.host_ports) {
    for (const ContainerPort& used : claim.host_ports) {
      if (ports_conflict(wanted, used)) {
        if (reason) *reason = "host port " + std::to_string(wanted.host_port) + " in use";
        return false;
      }
    }
  }
  if (!tolerates(variant, claim.nodepool)) {
    if (reason) *reason = "did not tolerate taint " + variant.untolerated;
    return false;
  }
  if (pod.requirements.empty()) {
    if (reason) *reason = "node affinity matches no new node";
    return false;
  }

  // Reasons are words for people; they are only built when someone will read them.
  std::string first_reason;
  auto fail = [&](auto&& describe) {
    if (reason != nullptr && first_reason.empty()) first_reason = describe();
  };
  const Fit fit(claim.requests, variant.requests);
  auto no_room = [&] {
    return "no instance type has enough resources (" + describe_requests(variant.requests) +
           (claim.pods.empty() ? std::string() : " on top of " + describe_requests(claim.requests)) + ")";
  };
  for (std::size_t a = 0; a < pod.requirements.size(); ++a) {
    const RequirementSet& alternative = pod.requirements[a];
    const std::uint32_t alternative_id = variant.first_alternative + static_cast<std::uint32_t>(a);
    const bool absorbed = std::find(claim.absorbed.begin(), claim.absorbed.end(),
                                    std::make_pair(alternative_id, claim.version)) != claim.absorbed.end();
    RequirementSet merged_storage;
    const RequirementSet* merged = &claim.requirements;
    bool changed = false;
    if (!absorbed) {
      if (auto conflict = alternative.incompatibility(claim.requirements)) {
        fail([&] { return "incompatible requirements, " + *conflict; });
        continue;
      }
      if (const std::string* key = undefined_key(alternative, claim.requirements, types_)) {
        fail([&] { return "incompatible requirements, label \"" + *key + "\" does not have known values"; });
        continue;
      }
      if (narrows(claim.requirements, alternative)) {
        merged_storage = claim.requirements.intersect(alternative);
        merged = &merged_storage;
        changed = true;
      }
    }

    std::string topology_reason;
    const Topology::Narrowing narrowing =
        topology_.claim_options(variant.owned, cls, claim.topology, *merged, options_,
                                reason ? &topology_reason : nullptr);
    if (narrowing == Topology::Narrowing::Rejected) {
      fail([&] { return "unsatisfiable " + topology_reason; });
      continue;
    }
    const std::size_t choices = narrowing == Topology::Narrowing::Narrowed ? options_.size() : 1;
    for (std::size_t o = 0; o < choices; ++o) {
      const bool narrowed = narrowing == Topology::Narrowing::Narrowed;
      const RequirementSet& requirements = narrowed ? options_[o] : *merged;
      const bool requirements_changed = changed || narrowed;
      change.types.clear();
      change.daemons.clear();
      change.types_unchanged = false;
      change.filter_on_commit = false;
      if (!requirements_changed && fits_everywhere(claim, variant.requests)) {
        // Every candidate keeps room for it: nothing narrows, and no limit or minValues check can change.
        change.types_unchanged = true;
        change.zones = claim.zones;
        change.capacity_types = claim.capacity_types;
        change.daemon_mask = claim.daemon_mask;
        change.requirements_changed = false;
        change.alternative = alternative_id;
        return true;
      }
      bool growth_checked = false;
      if (!requirements_changed && !fresh && priced(pool) && claim.zones == pool.price_order_zones &&
          claim.capacity_types == pool.price_order_capacity_types) {
        // The claim's types are in price order here: the first that still holds the pod is its new cheapest, and
        // most pods the price rule turns away are turned away before the other types are looked at.
        const std::vector<double>& prices = types_.prices(claim.zones, claim.capacity_types);
        bool turned_away = false;
        for (std::size_t i = 0; i < claim.types.size() && !growth_checked; ++i) {
          const std::uint32_t t = claim.types[i];
          if (!fit(*claim.daemons[i], types_.allocatable(t))) continue;
          growth_checked = true;
          if (prices[t] <= claim.price) break;
          const Growth growth{pool, requirements, claim.daemon_mask, claim.zones, claim.capacity_types,
                              claim.requests + variant.requests, claim.price};
          std::string refused = growth_refused(claim, growth, t, *claim.daemons[i], variant.requests);
          if (!refused.empty()) {
            fail([&] { return refused; });
            turned_away = true;
          }
        }
        if (turned_away) continue;
      }
      if (!requirements_changed && (fresh || growth_checked || !priced(pool)) && pool.min_values.empty() &&
          pool.pool->limited_resources.empty()) {
        // Nothing left to check over the types that keep room (no growth to price, no minValues, no limits): it is
        // enough that one does, and commit drops the others in place.
        bool any_fits = growth_checked;
        for (std::size_t i = 0; i < claim.types.size() && !any_fits; ++i) {
          any_fits = fit(*claim.daemons[i], types_.allocatable(claim.types[i]));
        }
        if (!any_fits) {
          fail(no_room);
          continue;
        }
        change.zones = claim.zones;
        change.capacity_types = claim.capacity_types;
        change.daemon_mask = claim.daemon_mask;
        change.filter_on_commit = true;
        change.requirements_changed = false;
        change.alternative = alternative_id;
        return true;
      }
      if (!requirements_changed) {
        change.zones = claim.zones;
        change.capacity_types = claim.capacity_types;
        change.daemon_mask = claim.daemon_mask;
        change.types.reserve(claim.types.size());
        change.daemons.reserve(claim.types.size());
        for (std::size_t i = 0; i < claim.types.size(); ++i) {
          const std::uint32_t t = claim.types[i];
          if (fit(*claim.daemons[i], types_.allocatable(t))) {
            change.types.push_back(t);
            change.daemons.push_back(claim.daemons[i]);
          }
        }
        if (change.types.empty()) {
          fail(no_room);
          continue;
        }
      } else {
        change.zones = types_.allowed_zones(requirements);
        change.capacity_types = types_.allowed_capacity_types(requirements);
        change.daemon_mask = daemons_.claim_mask(requirements, pool.pool->taints);
        const TypeSet mask = requirement_mask(pool, requirements);
        bool any_matches = false;
        const bool same_daemons = change.daemon_mask == claim.daemon_mask;
        change.types.reserve(claim.types.size());
        change.daemons.reserve(claim.types.size());
        for (std::size_t i = 0; i < claim.types.size(); ++i) {
          const std::uint32_t t = claim.types[i];
          if (!mask.test(t) || !types_.has_offering(t, change.zones, change.capacity_types)) continue;
          any_matches = true;
          const ResourceList& daemon = same_daemons ? *claim.daemons[i] : daemons_.requests(change.daemon_mask, t);
          if (fit(daemon, types_.allocatable(t))) {
            change.types.push_back(t);
            change.daemons.push_back(&daemon);
          }
        }
        if (!any_matches) {
          fail([&] { return "no instance type matches the requirements (" + requirements.to_string() + ")"; });
          continue;
        }
        if (change.types.empty()) {
          fail([&] { return "no instance type has enough resources (" + describe_requests(variant.requests) + ")"; });
          continue;
        }
      }
      if (fresh && !pool.pool->limited_resources.empty()) {
        std::vector<std::uint32_t> fitting = change.types;
        std::size_t kept = 0;
        for (std::size_t i = 0; i < change.types.size(); ++i) {
          if (!within_limits(claim.nodepool, change.types[i])) continue;
          change.types[kept] = change.types[i];
          change.daemons[kept] = change.daemons[i];
          ++kept;
        }
        change.types.resize(kept);
        change.daemons.resize(kept);
        if (change.types.empty()) {
          fail([&] { return limits_reason(claim.nodepool, fitting); });
          continue;
        }
      }
      std::string min_reason;
      if (!pool.min_values.empty() &&
          !min_values_met(pool, change.types, change.zones, change.capacity_types, &min_reason)) {
        fail([&] { return min_reason; });
        continue;
      }
      if (!fresh && priced(pool) && !growth_checked) {
        const auto [at, price] = cheapest_of(change.types, change.zones, change.capacity_types);
        if (price > claim.price) {
          const Growth growth{pool, requirements, change.daemon_mask, change.zones, change.capacity_types,
                              claim.requests + variant.requests, claim.price};
          std::string refused =
              growth_refused(claim, growth, change.types[at], *change.daemons[at], variant.requests);
          if (!refused.empty()) {
            fail([&] { return refused; });
            continue;
          }
        }
      }
      change.requirements_changed = requirements_changed;
      if (requirements_changed) change.requirements = requirements;
      change.alternative = alternative_id;
      return true;
    }
  }
  if (reason) *reason = std::move(first_reason);
  return false;
}

void NodeClaimBuilder::keep_fitting(ClaimState& claim, const ResourceList& requests) {
  const Fit fit(claim.requests, requests);
  const std::vector<double>& prices = types_.prices(claim.zones, claim.capacity_types);
  clear_room(claim);
  claim.price = std::numeric_limits<double>::infinity();
  std::size_t kept = 0;
  for (std::size_t i = 0; i < claim.types.size(); ++i) {
    const std::uint32_t t = claim.types[i];
    const ResourceList& allocatable = types_.allocatable(t);
    const ResourceList& daemon = *claim.daemons[i];
    if (!fit(daemon, allocatable)) continue;
    claim.types[kept] = t;
    claim.daemons[kept] = &daemon;
    ++kept;
    count_room(claim, allocatable, daemon, fit.cpu_milli(), fit.memory(), fit.pods());
    if (prices[t] < claim.price) claim.price = prices[t];
  }
  claim.types.resize(kept);
  claim.daemons.resize(kept);
}

void NodeClaimBuilder::settle(ClaimState& claim) {
  clear_room(claim);
  const NodePool& np = *pools_[claim.nodepool].pool;
  claim.price = cheapest_of(claim.types, claim.zones, claim.capacity_types).second;
  ResourceList charge;
  for (std::size_t i = 0; i < claim.types.size(); ++i) {
    const ResourceList& r = claim.requests;
    count_room(claim, types_.allocatable(claim.types[i]), *claim.daemons[i], r.cpu_milli(), r.memory(), r.pods());
    for (Symbol r : np.limited_resources) {
      charge.set(r, std::max(charge.get(r), counted(types_.type(claim.types[i]), r)));
    }
  }
  if (!np.limited_resources.empty()) {
    remaining_[claim.nodepool] += claim.charge;
    remaining_[claim.nodepool] -= charge;
    claim.charge = std::move(charge);
  }
}

void NodeClaimBuilder::commit(ClaimState& claim, ClaimChange&& change, const PodVariant& variant,
                              const ClassTopology& cls, std::size_t pod) {
  const NodePoolInfo& pool = pools_[claim.nodepool];
  // A claim's contribution is linear in its counts: while its requirements stay, only the joining pod's groups
  // change, so only they are applied (retracting and re-applying every group of a full claim costs per pod).
  const bool requirements_changed = change.requirements_changed;
  if (requirements_changed) topology_.retract(claim.topology, claim.requirements, pool.pool->taints);
  if (change.requirements_changed) {
    claim.requirements = std::move(change.requirements);
    ++claim.version;
    claim.absorbed.clear();
  }
  claim.zones = change.zones;
  claim.capacity_types = change.capacity_types;
  claim.daemon_mask = change.daemon_mask;
  if (change.filter_on_commit) {
    keep_fitting(claim, variant.requests);
  } else if (!change.types_unchanged) {
    claim.types.swap(change.types);
    claim.daemons.swap(change.daemons);
  }
  claim.requests += variant.requests;
  claim.pods.push_back(pod);
  claim.host_ports.insert(claim.host_ports.end(), variant.constraints->host_ports.begin(),
                          variant.constraints->host_ports.end());
  const auto entry = std::make_pair(change.alternative, claim.version);
  if (std::find(claim.absorbed.begin(), claim.absorbed.end(), entry) == claim.absorbed.end()) {
    claim.absorbed.push_back(entry);
  }
  for (GroupId g : cls.counted) {
    auto it = std::find_if(claim.topology.counts.begin(), claim.topology.counts.end(),
                           [&](const auto& e) { return e.first == g; });
    if (it == claim.topology.counts.end()) {
      claim.topology.counts.emplace_back(g, 1);
    } else {
      ++it->second;
    }
  }
  if (requirements_changed) {
    topology_.apply(claim.topology, claim.requirements, pool.pool->taints);
  } else {
    apply_delta(claim, cls, 1);
  }
  if (change.types_unchanged) {
    // Every candidate lost the same room; the limits held stay as they were.
    const ResourceList& r = variant.requests;
    claim.free_cpu = saturating_sub(claim.free_cpu, r.cpu_milli());
    claim.free_memory = saturating_sub(claim.free_memory, r.memory());
    claim.free_pods = saturating_sub(claim.free_pods, r.pods());
    claim.least_cpu = saturating_sub(claim.least_cpu, r.cpu_milli());
    claim.least_memory = saturating_sub(claim.least_memory, r.memory());
    claim.least_pods = saturating_sub(claim.least_pods, r.pods());
  } else if (!change.filter_on_commit) {  // keep_fitting settled it
    settle(claim);
  }
}

void NodeClaimBuilder::apply_delta(const ClaimState& claim, const ClassTopology& cls, std::int32_t pods) {
  if (cls.counted.empty()) return;
  delta_.hostname = claim.topology.hostname;
  delta_.counts.clear();
  for (GroupId g : cls.counted) delta_.counts.emplace_back(g, pods);
  topology_.apply(delta_, claim.requirements, pools_[claim.nodepool].pool->taints);
}

std::size_t NodeClaimBuilder::fill(ClaimState& claim, const PodVariant& variant, const ClassTopology& cls,
                                   std::span<const std::size_t> pods) {
  if (pods.empty()) return 0;
  const ResourceList& requests = variant.requests;
  const auto cap = static_cast<std::int64_t>(pods.size());
  std::vector<std::int64_t> room(claim.types.size());
  std::int64_t best = 0;
  for (std::size_t i = 0; i < claim.types.size(); ++i) {
    room[i] = copies(claim.requests, requests, *claim.daemons[i], types_.allocatable(claim.types[i]), cap);
    best = std::max(best, room[i]);
  }
  const NodePoolInfo& pool = pools_[claim.nodepool];
  std::int64_t k = best;
  if (!pool.min_values.empty()) {
    // The most pods that still leave enough distinct instance types.
    std::vector<std::int64_t> thresholds(room.begin(), room.end());
    std::sort(thresholds.begin(), thresholds.end(), std::greater<>());
    thresholds.erase(std::unique(thresholds.begin(), thresholds.end()), thresholds.end());
    k = 0;
    std::vector<std::uint32_t> kept;
    for (std::int64_t threshold : thresholds) {
      if (threshold <= 0) break;
      kept.clear();
      for (std::size_t i = 0; i < claim.types.size(); ++i) {
        if (room[i] >= threshold) kept.push_back(claim.types[i]);
      }
      if (min_values_met(pool, kept, claim.zones, claim.capacity_types, nullptr)) {
        k = threshold;
        break;
      }
    }
  }
  // Stopped by the price rule short of the copies waiting: the claim is sealed as a next copy would seal it.
  bool seal_after = false;
  if (priced(pool)) {
    const std::int64_t priced = well_priced_copies(claim, pool, requests, room);
    seal_after = priced < std::min(k, cap);
    k = std::min(k, priced);
  }
  k = std::min(k, cap);
  if (k <= 0) return 0;

  std::size_t kept = 0;
  for (std::size_t i = 0; i < claim.types.size(); ++i) {
    if (room[i] < k) continue;
    claim.types[kept] = claim.types[i];
    claim.daemons[kept] = claim.daemons[i];
    ++kept;
  }
  claim.types.resize(kept);
  claim.daemons.resize(kept);
  claim.requests += requests.times(k);
  claim.pods.insert(claim.pods.end(), pods.begin(), pods.begin() + k);
  for (GroupId g : cls.counted) {
    auto it = std::find_if(claim.topology.counts.begin(), claim.topology.counts.end(),
                           [&](const auto& e) { return e.first == g; });
    if (it == claim.topology.counts.end()) {
      claim.topology.counts.emplace_back(g, static_cast<std::int32_t>(k));
    } else {
      it->second += static_cast<std::int32_t>(k);
    }
  }
  // The requirements stay: only the new pods' groups change (see commit).
  apply_delta(claim, cls, static_cast<std::int32_t>(k));
  settle(claim);
  if (seal_after) seal(claim);
  return static_cast<std::size_t>(k);
}

}  // namespace scalewright::provisioning
