// The NodeClaimBuilder's price rule: the price of a pod alone and of a claim's mix, the growth it refuses, sealing a
// claim at its price and undoing it, and how many copies of a pod keep a claim well priced.
#include "provisioning/nodeclaim_builder.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "api/saturating.h"
#include "cloud/instance_type.h"

namespace scalewright::provisioning {

std::pair<std::size_t, double> NodeClaimBuilder::cheapest_of(const std::vector<std::uint32_t>& types,
                                                             std::uint64_t zones,
                                                             CapacityTypeMask capacity_types) {
  const std::vector<double>& prices = types_.prices(zones, capacity_types);
  std::pair<std::size_t, double> best{0, std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i < types.size(); ++i) {
    const double price = prices[types[i]];
    if (price < best.second) best = {i, price};
  }
  return best;
}

NodeClaimBuilder::PricedType NodeClaimBuilder::priced_type(std::uint32_t t, double price,
                                                          const ResourceList& daemon) const {
  const ResourceList& allocatable = types_.allocatable(t);
  return {t,
          price,
          &daemon,
          &allocatable,
          saturating_sub(allocatable.cpu_milli(), daemon.cpu_milli()),
          saturating_sub(allocatable.memory(), daemon.memory()),
          saturating_sub(allocatable.pods(), daemon.pods())};
}

const NodeClaimBuilder::PriceTable& NodeClaimBuilder::price_table(const Growth& growth) {
  const auto key = std::make_tuple(&growth.pool, growth.daemon_mask, growth.zones, growth.capacity_types);
  auto [it, added] = price_tables_.try_emplace(key);
  PriceTable& table = it->second;
  if (!added) return table;
  const std::vector<double>& prices = types_.prices(growth.zones, growth.capacity_types);
  for (std::uint32_t t : growth.pool.types) {
    const double price = prices[t];
    if (!std::isfinite(price)) continue;
    table.by_price.push_back(priced_type(t, price, daemons_.requests(growth.daemon_mask, t)));
  }
  std::stable_sort(table.by_price.begin(), table.by_price.end(),
                   [](const PricedType& a, const PricedType& b) { return a.price < b.price; });
  // b prices every resource no worse than a (price per unit of room; no room: +inf); of equals the cheaper stays.
  const auto per_unit = [](const PricedType& p, std::int64_t room) {
    return room <= 0 ? std::numeric_limits<double>::infinity() : p.price / static_cast<double>(room);
  };
  const auto no_worse = [&](const PricedType& b, const PricedType& a) {
    return per_unit(b, b.cpu_milli) <= per_unit(a, a.cpu_milli) && per_unit(b, b.memory) <= per_unit(a, a.memory) &&
           per_unit(b, b.pods) <= per_unit(a, a.pods);
  };
  for (std::size_t i = 0; i < table.by_price.size(); ++i) {
    bool beaten = false;
    for (std::size_t j = 0; j < table.by_price.size() && !beaten; ++j) {
      beaten = j != i && no_worse(table.by_price[j], table.by_price[i]) &&
               (j < i || !no_worse(table.by_price[i], table.by_price[j]));
    }
    if (!beaten) table.frontier.push_back(static_cast<std::uint32_t>(i));
  }
  return table;
}

double NodeClaimBuilder::alone_price(const PriceTable& table, const TypeSet& mask, const ResourceList& requests) {
  for (const PricedType& p : table.by_price) {
    if (mask.test(p.type) && requests.cpu_milli() <= p.cpu_milli && requests.memory() <= p.memory &&
        requests.pods() <= p.pods && fits({}, requests, *p.daemon, *p.allocatable)) {
      return p.price;
    }
  }
  return std::numeric_limits<double>::infinity();
}

double NodeClaimBuilder::mix_price(const PricedType& type, const ResourceList& mix) {
  double share = 0;
  const auto take = [&](std::int64_t wanted, std::int64_t room) {
    if (wanted <= 0) return;
    share = std::max(share, room <= 0 ? std::numeric_limits<double>::infinity()
                                      : static_cast<double>(wanted) / static_cast<double>(room));
  };
  take(mix.cpu_milli(), type.cpu_milli);
  take(mix.memory(), type.memory);
  take(mix.pods(), type.pods);
  return type.price * share;
}

double NodeClaimBuilder::best_mix_price(const PriceTable& table, const TypeSet& mask, const ResourceList& mix) {
  double best = std::numeric_limits<double>::infinity();
  bool frontier_whole = true;
  for (std::uint32_t i : table.frontier) {
    if (!mask.test(table.by_price[i].type)) {
      frontier_whole = false;
      continue;
    }
    best = std::min(best, mix_price(table.by_price[i], mix));
  }
  // A type the requirements rule out may have beaten the best of those they allow: then every allowed one counts.
  if (!frontier_whole) {
    for (const PricedType& p : table.by_price) {
      if (mask.test(p.type)) best = std::min(best, mix_price(p, mix));
    }
  }
  return best;
}

std::string NodeClaimBuilder::growth_refused(ClaimState& claim, const Growth& growth, std::uint32_t type,
                                             const ResourceList& daemon, const ResourceList& pod) {
  const cloud::InstanceType& t = types_.type(type);
  if (claim.sealed) return "it is sealed at its price: " + t.name + " would cost more";
  std::string refused = growth_refused(growth, type, daemon, pod);
  if (!refused.empty()) seal(claim);
  return refused;
}

void NodeClaimBuilder::seal(ClaimState& claim) {
  ++refusals_;
  claim.sealed = true;
  if (pools_[claim.nodepool].pool->limited_resources.empty()) {
    const std::vector<double>& prices = types_.prices(claim.zones, claim.capacity_types);
    std::size_t kept = 0;
    for (std::size_t i = 0; i < claim.types.size(); ++i) {
      if (prices[claim.types[i]] > claim.price + cloud::kSamePrice) continue;
      claim.types[kept] = claim.types[i];
      claim.daemons[kept] = claim.daemons[i];
      ++kept;
    }
    claim.types.resize(kept);
    claim.daemons.resize(kept);
  }
  settle(claim);
}

void NodeClaimBuilder::unseal(ClaimState& claim) {
  if (!claim.sealed) return;
  std::vector<std::pair<std::uint32_t, const ResourceList*>> candidates = launch_types(claim);
  const std::vector<std::uint32_t>& rank = types_.price_rank(claim.zones, claim.capacity_types);
  std::sort(candidates.begin(), candidates.end(),
            [&](const auto& a, const auto& b) { return rank[a.first] < rank[b.first]; });
  claim.types.clear();
  claim.daemons.clear();
  for (const auto& [t, daemon] : candidates) {
    claim.types.push_back(t);
    claim.daemons.push_back(daemon);
  }
  claim.sealed = false;
  settle(claim);
}

std::vector<std::pair<std::uint32_t, const ResourceList*>> NodeClaimBuilder::launch_types(const ClaimState& claim) {
  std::vector<std::pair<std::uint32_t, const ResourceList*>> out;
  const NodePoolInfo& pool = pools_[claim.nodepool];
  if (!claim.sealed || !pool.pool->limited_resources.empty()) {
    out.reserve(claim.types.size());
    for (std::size_t i = 0; i < claim.types.size(); ++i) out.emplace_back(claim.types[i], claim.daemons[i]);
    return out;
  }
  // Sealing dropped the dearer types. Each type the claim ever had and lost otherwise fails one of these tests for
  // good (requirements and zones only narrow, requests only grow), so the NodePool's types that pass them are the
  // claim's with the dropped ones that still hold it, in the NodePool's order.
  const TypeSet mask = requirement_mask(pool, claim.requirements);
  static const ResourceList kNothing;
  const Fit fit(kNothing, claim.requests);
  out.reserve(pool.types.size());
  for (std::uint32_t t : pool.types) {
    if (!mask.test(t) || !types_.has_offering(t, claim.zones, claim.capacity_types)) continue;
    const ResourceList& daemon = daemons_.requests(claim.daemon_mask, t);
    if (fit(daemon, types_.allocatable(t))) out.emplace_back(t, &daemon);
  }
  return out;
}

std::string NodeClaimBuilder::growth_refused(const Growth& growth, std::uint32_t type, const ResourceList& daemon,
                                             const ResourceList& pod) {
  const PriceTable& table = price_table(growth);
  const TypeSet mask = requirement_mask(growth.pool, growth.requirements);
  const double price = types_.prices(growth.zones, growth.capacity_types)[type];
  // No dearer than a node of its own for the pod: growing is as good as opening.
  if (price - growth.price <= alone_price(table, mask, pod) + cloud::kSamePrice) return "";
  const cloud::InstanceType& t = types_.type(type);
  const double mix = mix_price(priced_type(type, price, daemon), growth.pods);
  const double best = best_mix_price(table, mask, growth.pods);
  if (mix > best * (1 + kMixPriceSlack)) {
    return "its cheapest instance type would become " + t.name + ", " +
           std::to_string(static_cast<int>(std::lround((mix / best - 1) * 100))) +
           "% dearer for its pods than the NodePool's best type for them";
  }
  // Too large for what the batch has left: dearer than the claim as it is and a node of its own for every pod not
  // placed yet (none holds them all when many are left: then the type will be filled).
  const ResourceList left = unplaced_ != nullptr ? *unplaced_ : pod;
  if (price > growth.price + alone_price(table, mask, left) + cloud::kSamePrice) {
    return "its cheapest instance type would become " + t.name + ", larger than the pods left to fill it";
  }
  return "";
}

std::int64_t NodeClaimBuilder::well_priced_copies(const ClaimState& claim, const NodePoolInfo& pool,
                                                  const ResourceList& requests, const std::vector<std::int64_t>& room) {
  // The types in price order; each one that holds more copies than every cheaper one is the claim's cheapest type
  // for the copies between. The claim grows from one such type to the next while the rule above lets it, as it
  // would pod by pod.
  const std::vector<double>& prices = types_.prices(claim.zones, claim.capacity_types);
  std::vector<std::pair<double, std::size_t>> by_price;
  for (std::size_t i = 0; i < claim.types.size(); ++i) {
    by_price.emplace_back(prices[claim.types[i]], i);
  }
  // In the NodePool's zones and capacity types the claim's types are in price order already (nodepool_info).
  if (claim.zones != pool.price_order_zones || claim.capacity_types != pool.price_order_capacity_types) {
    std::sort(by_price.begin(), by_price.end());
  }
  std::int64_t reach = 0;
  double price = claim.price;
  for (const auto& [type_price, i] : by_price) {
    if (room[i] <= reach || !std::isfinite(type_price)) continue;
    if (type_price > price) {
      if (claim.sealed) break;
      const Growth growth{pool, claim.requirements, claim.daemon_mask, claim.zones, claim.capacity_types,
                          claim.requests + requests.times(room[i]), price};
      if (!growth_refused(growth, claim.types[i], *claim.daemons[i], requests).empty()) break;
      price = type_price;
    }
    reach = room[i];
  }
  return reach;
}

}  // namespace scalewright::provisioning
