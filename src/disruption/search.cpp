#include "disruption/search.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/quantity.h"
#include "provisioning/instance_types.h"
#include "scheduling/equivalence.h"

namespace scalewright::disruption::consolidation_search {
namespace {

// Whether where the pod fits depends only on each node and its free resources (no pod (anti-)affinity or topology
// spread of its own): then a node that did not fit it never will while nodes only lose room.
bool fits_by_node_alone(const Pod& pod) {
  return pod.spec.affinity.required_pod_affinity.empty() && pod.spec.affinity.required_pod_anti_affinity.empty() &&
         pod.spec.topology_spread_constraints.empty();
}

// The price the NodeClaim would pay on `type` at worst: its most expensive offering the requirements allow. Judging
// the replacement by its worst offering keeps it cheaper whichever zone it lands in.
std::optional<double> worst_price(const cloud::InstanceType& type, const RequirementSet& requirements,
                                  const provisioning::UnavailableOfferings& unavailable, Instant now) {
  std::optional<double> worst;
  for (const cloud::Offering* o : provisioning::allowed_offerings(type, requirements, unavailable, now)) {
    if (!worst || o->price_per_hour > *worst) worst = o->price_per_hour;
  }
  return worst;
}

}  // namespace

std::shared_ptr<Pod> unbound_copy(const Pod& pod) {
  auto copy = std::make_shared<Pod>(pod);
  copy->spec.node_name.clear();
  return copy;
}

std::optional<double> best_price(const cloud::InstanceType& type, const RequirementSet& requirements,
                                 const provisioning::UnavailableOfferings& unavailable, Instant now) {
  std::optional<double> best;
  for (const cloud::Offering* o : provisioning::allowed_offerings(type, requirements, unavailable, now)) {
    if (!best || o->price_per_hour < *best) best = o->price_per_hour;
  }
  return best;
}

std::string money(double price) { return fmt::format("${:.4f}/h", price); }

Search::Search(const ConsolidationInput& input, Placement placement)
    : in_(input), snapshot_(*input.cluster), placement_(placement) {
  static const provisioning::UnavailableOfferings kNone;
  unavailable_ = input.unavailable != nullptr ? input.unavailable : &kNone;
  cheapest_by_size_ = cheapest_types();
  measure_largest();
}

Search::Attempt Search::attempt(const std::vector<std::size_t>& set, Method method, bool allow_replace) {
  if (std::string over = over_budget(set); !over.empty()) return {std::nullopt, std::move(over)};
  // Only a search's verdicts are kept: the check before acting asks kube-scheduler, and asks of the moment.
  ConsolidationMemo* memo = placement_ == Placement::FirstFit && allow_replace ? in_.memo : nullptr;
  const Candidate& first = in_.candidates[set.front()];
  const std::string key = memo != nullptr && set.size() > 1 ? set_key(kMultiNode, set) : std::string();
  if (memo != nullptr) {
    if (set.size() == 1) {
      if (const ConsolidationMemo::Verdict* known = memo->find(first)) return {std::nullopt, known->reason};
    } else if (memo->failed(key)) {
      return {std::nullopt, "no command since nodes like these were last tried"};
    }
  }
  Tried tried = try_set(set, method, allow_replace);
  if (memo != nullptr && tried.lasting) {
    if (set.size() == 1) {
      memo->remember(first, {tried.attempt.reason, tried.delete_failed});
    } else {
      memo->remember_failed(key);
    }
  }
  return std::move(tried.attempt);
}

Search::Moving Search::moving_pods(const std::vector<std::size_t>& set) const {
  Moving out;
  std::unordered_map<Symbol, std::size_t> class_asked;
  struct Entry {
    const std::shared_ptr<const Pod>* pod;
    std::size_t asked;
  };
  std::vector<Entry> entries;
  for (std::size_t i : set) {
    const Candidate& c = in_.candidates[i];
    for (std::size_t k = 0; k < c.pods.size(); ++k) {
      const Symbol cls = k < c.classes.size() ? c.classes[k] : Symbol();
      auto [known, added] = cls.empty() ? std::make_pair(class_asked.end(), true)
                                        : class_asked.try_emplace(cls, out.asked.size());
      if (added) {
        auto query = unbound_copy(*c.pods[k]);
        ResourceList requests = query->effective_requests();
        out.asked.push_back({std::move(query), std::move(requests), cls});
      }
      entries.push_back({&c.pods[k], cls.empty() ? out.asked.size() - 1 : known->second});
    }
  }
  std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
    const ResourceList& ra = out.asked[a.asked].requests;
    const ResourceList& rb = out.asked[b.asked].requests;
    if (ra.cpu_milli() != rb.cpu_milli()) return ra.cpu_milli() > rb.cpu_milli();
    return ra.memory() > rb.memory();
  });
  out.pods.reserve(entries.size());
  out.requests.reserve(entries.size());
  out.asked_index.reserve(entries.size());
  for (const Entry& e : entries) {
    out.pods.push_back(e.pod);
    out.requests.push_back(out.asked[e.asked].requests);
    out.asked_index.push_back(e.asked);
  }
  return out;
}

// What a node is and what its pods are, class by class ("m5.large spot us-east-1a 0.04 : 12x3 40x1": class ids
// and counts): a what-if without it is a what-if without any node alike. Empty when some pod's class is unknown.
std::string Search::shape_of(const Candidate& c) const {
  if (c.classes.size() != c.pods.size()) return "";
  std::map<std::uint32_t, std::size_t> counts;
  for (Symbol cls : c.classes) {
    if (cls.empty()) return "";
    ++counts[cls.id()];
  }
  const Symbol* zone = snapshot_.node(c.id).labels().find(Symbol(well_known::zone));
  std::string out = fmt::format("{} {} {} {} :", c.instance_type, cloud::to_string(c.capacity_type),
                                zone != nullptr ? zone->str() : "", c.price_per_hour);
  for (const auto& [id, count] : counts) out += fmt::format(" {}x{}", id, count);
  return out;
}

// A node's shape (`shape`) with which of its pods fit on no other node (`left`, by question), for the verdict
// on its replacement.
std::string Search::shape_of(const std::string& shape, const Moving& moving,
                             const std::map<std::size_t, std::size_t>& left) {
  std::string out = shape + " /";
  std::map<std::uint32_t, std::size_t> left_by_class;
  for (const auto& [asked, count] : left) left_by_class[moving.asked[asked].cls.id()] += count;
  for (const auto& [id, count] : left_by_class) out += fmt::format(" {}x{}", id, count);
  return out;
}

// What names a set of candidates tried together for the memo: their shapes where known (sets of nodes alike
// get one answer), else their names and pods' versions.
std::string Search::set_key(std::string_view what, const std::vector<std::size_t>& set) const {
  std::vector<std::string> parts;
  for (std::size_t i : set) {
    const Candidate& c = in_.candidates[i];
    std::string shape = shape_of(c);
    parts.push_back(shape.empty() ? fmt::format("{}@{}", c.node, c.pods_version) : std::move(shape));
  }
  std::sort(parts.begin(), parts.end());
  return fmt::format("{} [{}]", what, fmt::join(parts, "] ["));
}

Search::Tried Search::try_set(const std::vector<std::size_t>& set, Method method, bool allow_replace) {
  ++tries_;
  Command command;
  command.method = method;
  command.candidates = set;
  bool all_spot = true;
  for (std::size_t i : set) {
    const Candidate& c = in_.candidates[i];
    command.price_before += c.price_per_hour;
    command.disruption_cost += c.disruption_cost;
    all_spot = all_spot && c.capacity_type == cloud::CapacityType::Spot;
    command.pods += c.pods.size();
  }
  const std::string memo_shape =
      set.size() == 1 && in_.memo != nullptr && placement_ == Placement::FirstFit ? shape_of(in_.candidates[set.front()])
                                                                                  : std::string();
  // Room first: pods that need more cpu, memory or pod slots than the other nodes have left cannot all move there,
  // however they are placed; only a replacement can take them, and it holds at least the excess.
  if (set.size() == 1 && allow_replace && placement_ == Placement::FirstFit) {
    if (std::optional<Room> excess = excess_over_room(set.front())) {
      if (!largest_could_hold(excess->resources())) {
        return lasting("what fits on no other node is more than one node of any type holds", true);
      }
      return replace_leftover(set, std::move(command), all_spot, excess->resources(),
                              "its pods need more than the other nodes have left",
                              memo_shape.empty() ? memo_shape : memo_shape + " / by room",
                              [&] { return moving_pods(set).copies(); });
    }
  }
  Moving moving = moving_pods(set);

  // Delete: every pod fits on the nodes that stay, each placed before the next is tried. Each pod is asked as its
  // class's first pod, unbound (the answer is the same for every pod of the class), and placed as it is: the
  // snapshot keeps where each pod sits, so no pod is copied for a what-if.
  snapshot_.fork();
  for (std::size_t i : set) snapshot_.remove_node(in_.candidates[i].id);
  ResourceList unplaced;
  std::size_t unplaced_count = 0;
  scheduling::NodeId hint = 0;
  bool beyond_one_node = false;
  std::string first_unplaced;
  std::map<std::size_t, std::size_t> unplaced_classes;  // how many of each question found no node
  // Within one attempt nodes only lose room too: a shape that missed misses again, without a look at every node.
  const bool memo = memo_;
  memo_ = snapshot_.existing_terms().empty();
  no_room_.clear();
  for (std::size_t k = 0; k < moving.pods.size(); ++k) {
    const std::shared_ptr<const Pod>& pod = *moving.pods[k];
    Asked& asked = moving.asked_for(k);
    const Pod& query = *asked.query;
    const bool missed = asked.missed || known_without_room(query);
    const scheduling::NodeId target = missed ? scheduling::kNoNode : place(query, hint);
    if (target == scheduling::kNoNode) {
      remember_without_room(query);
      asked.missed = memo_ && fits_by_node_alone(query);  // its class misses from now on
      if (first_unplaced.empty()) first_unplaced = pod->meta.key();
      unplaced += moving.requests[k];
      ++unplaced_count;
      ++unplaced_classes[moving.asked_index[k]];
      // What fits nowhere is more than the largest type holds: no single replacement can take it, and placing
      // the rest (each miss a look at every node) would answer nothing more.
      if (!allow_replace || !largest_could_hold(unplaced)) {
        beyond_one_node = true;
        break;
      }
      continue;
    }
    snapshot_.add_pod(pod, target);
    hint = target;
  }
  snapshot_.revert();
  memo_ = memo;
  no_room_.clear();
  if (beyond_one_node && allow_replace) {
    return lasting("what fits on no other node is more than one node of any type holds", true);
  }
  // One pod left pending by a single node's delete launches a node for it and undoes the saving, so such a
  // delete must hold wherever kube-scheduler puts the pods, from either end; among many nodes' pods the same is a
  // small loss. Asked by the check before acting only: kube-scheduler's scoring over every node is too dear for
  // every try of a search.
  if (unplaced_count == 0 && set.size() == 1 && placement_ == Placement::AsKubeScheduler) {
    if (std::string why = unplaced_either_end(set, moving.copies(), {}); !why.empty()) {
      return {{std::nullopt, std::move(why)}};
    }
  }
  if (unplaced_count == 0) {
    command.decision = Decision::Delete;
    return {{std::move(command), ""}};
  }
  if (!allow_replace) return {{std::nullopt, fmt::format("pod {} fits on no other node", first_unplaced)}};

  // Nodes alike (type, price, their pods' classes) whose pods fit elsewhere alike (the same classes left over) are
  // replaced alike: as the last such node was.
  return replace_leftover(set, std::move(command), all_spot, unplaced,
                          fmt::format("{} of its pods fit on no other node", unplaced_count),
                          memo_shape.empty() ? memo_shape : shape_of(memo_shape, moving, unplaced_classes),
                          [&] { return moving.copies(); });
}

// The replacement of `set` when what fits on no other node asks at least `left` (`why_left` says so): worth a
// provisioning plan only when some type cheaper than the candidates could hold that (a bound from the catalog),
// and then unless nodes of the same `shape` were judged in this context already.
Search::Tried Search::replace_leftover(const std::vector<std::size_t>& set, Command command, bool all_spot,
                                      const ResourceList& left, const std::string& why_left, const std::string& shape,
                                      const std::function<std::vector<std::shared_ptr<Pod>>()>& copies) {
  if (!cheaper_type_could_hold(left, command.price_before)) {
    return lasting(fmt::format("{}, and no instance type cheaper than {} holds them", why_left,
                               money(command.price_before)),
                   true);
  }
  if (!shape.empty()) {
    if (const ConsolidationMemo::Verdict* known = in_.memo->find_shape(shape)) return lasting(known->reason, true);
  }
  Tried replaced = try_replacement(set, copies(), std::move(command), all_spot);
  if (!shape.empty() && replaced.lasting) {
    in_.memo->remember_shape(shape, {replaced.attempt.reason, replaced.delete_failed});
  }
  return replaced;
}

// The replacement of `set` by one cheaper node, for the pods that fit on no other node.
Search::Tried Search::try_replacement(const std::vector<std::size_t>& set,
                                     const std::vector<std::shared_ptr<Pod>>& pods, Command command, bool all_spot) {
  provisioning::ProvisioningPlan plan = plan_without(set, pods);
  if (!plan.unschedulable.empty()) {
    return lasting(fmt::format("{} of its pods could not run anywhere else", plan.unschedulable.size()), true);
  }
  if (plan.new_claims.empty()) {
    command.decision = Decision::Delete;
    return {{std::move(command), ""}};
  }
  if (plan.new_claims.size() > 1) {
    return lasting(fmt::format("its pods would need {} new nodes, and a replacement is one", plan.new_claims.size()),
                   true);
  }
  provisioning::NewNodeClaim claim = std::move(plan.new_claims.front());
  static const std::string kSpot(cloud::to_string(cloud::CapacityType::Spot));
  static const std::string kOnDemand(cloud::to_string(cloud::CapacityType::OnDemand));
  const std::string& ct_key = provisioning::offering_keys::capacity_type();
  const bool may_spot = claim.requirements.allows(ct_key, kSpot);
  if (may_spot && claim.requirements.allows(ct_key, kOnDemand)) claim.requirements.add(ct_key, ValueSet::of({kSpot}));

  // Keep the types strictly cheaper than the candidates, cheapest first.
  std::vector<std::pair<double, const cloud::InstanceType*>> cheaper;
  for (const cloud::InstanceType* type : claim.instance_types) {
    std::optional<double> worst = worst_price(*type, claim.requirements, *unavailable_, in_.now);
    if (worst && *worst < command.price_before) cheaper.emplace_back(*worst, type);
  }
  if (cheaper.empty()) {
    return lasting(fmt::format("no instance type that holds its pods costs less than {}", money(command.price_before)),
                   true);
  }
  std::stable_sort(cheaper.begin(), cheaper.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (all_spot && may_spot) {
    if (!in_.spot_to_spot) return lasting("spot-to-spot replacement is disabled", true);
    if (set.size() == 1 && cheaper.size() < kMinTypesForSpotToSpot) {
      return lasting(fmt::format("spot-to-spot replacement needs {} cheaper instance types, {} found",
                                 kMinTypesForSpotToSpot, cheaper.size()),
                     true);
    }
    if (cheaper.size() > kMinTypesForSpotToSpot) cheaper.resize(kMinTypesForSpotToSpot);
  }
  claim.instance_types.clear();
  command.price_after = std::numeric_limits<double>::max();
  for (const auto& [price, type] : cheaper) {
    claim.instance_types.push_back(type);
    if (std::optional<double> best = best_price(*type, claim.requirements, *unavailable_, in_.now)) {
      command.price_after = std::min(command.price_after, *best);
    }
  }
  command.decision = Decision::Replace;
  command.replacements.push_back(std::move(claim));
  return {{std::move(command), ""}};
}

// The evicted pods' replacements are created in one instant and queued by name, an order no one chooses; where
// kube-scheduler spreads them, the first take the emptiest nodes, and small pods first is the order most likely
// to leave a large one no room. With `set` gone and the nodes `added`, the pod that finds no node when
// kube-scheduler takes `pods` (largest first) from the small end or the large end, or empty.
std::string Search::unplaced_as_kube_scheduler(const std::vector<std::size_t>& set,
                                               const std::vector<std::shared_ptr<Pod>>& pods,
                                               const std::vector<Node>& added, bool smallest_first) {
  snapshot_.fork();
  for (std::size_t i : set) snapshot_.remove_node(in_.candidates[i].id);
  for (const Node& node : added) snapshot_.add_node(node);
  std::string left;
  auto place_one = [&](const std::shared_ptr<Pod>& pod) {
    const scheduling::NodeId target =
        scheduler_.schedule(snapshot_, *pod, scheduling::Scheduler::Explain::NoReasons).chosen;
    if (target == scheduling::kNoNode) {
      left = pod->meta.key();
    } else {
      snapshot_.add_pod(std::shared_ptr<const Pod>(pod), target);
    }
  };
  if (smallest_first) {
    for (auto pod = pods.rbegin(); pod != pods.rend() && left.empty(); ++pod) place_one(*pod);
  } else {
    for (auto pod = pods.begin(); pod != pods.end() && left.empty(); ++pod) place_one(*pod);
  }
  snapshot_.revert();
  return left;
}

// Why kube-scheduler, taking the pods from the large end or from the small end, would leave one without a node
// (with `set` gone and the nodes `added`), or empty.
std::string Search::unplaced_either_end(const std::vector<std::size_t>& set,
                                        const std::vector<std::shared_ptr<Pod>>& pods, const std::vector<Node>& added) {
  for (const bool smallest : {false, true}) {
    if (std::string left = unplaced_as_kube_scheduler(set, pods, added, smallest); !left.empty()) {
      return fmt::format("pod {} would find no node if kube-scheduler took the pods {} first", left,
                         smallest ? "smallest" : "largest");
    }
  }
  return "";
}

// What provisioning would do with `pods` were the candidates in `set` gone: they leave their NodePools' usage,
// so that what replaces them counts against the limits in their place.
provisioning::ProvisioningPlan Search::plan_without(const std::vector<std::size_t>& set,
                                                    const std::vector<std::shared_ptr<Pod>>& pods) {
  snapshot_.fork();
  for (std::size_t i : set) snapshot_.remove_node(in_.candidates[i].id);
  provisioning::ProvisioningInput plan_input;
  plan_input.cluster = &snapshot_;
  for (const auto& pod : pods) plan_input.pending.push_back(pod);
  plan_input.nodepools = in_.nodepools;
  plan_input.catalog = in_.catalog;
  plan_input.nodepool_catalogs = in_.nodepool_catalogs;
  plan_input.nodepools_not_ready = in_.nodepools_not_ready;
  plan_input.daemonsets = in_.daemonsets;
  plan_input.nodepool_usage = in_.nodepool_usage;
  for (std::size_t i : set) {
    auto usage = plan_input.nodepool_usage.find(in_.candidates[i].nodepool);
    if (usage != plan_input.nodepool_usage.end()) usage->second.take_away(limit_usage(in_.candidates[i].capacity));
  }
  plan_input.unavailable = unavailable_;
  plan_input.now = in_.now;
  ++plans_;
  provisioning::ProvisioningPlan plan = provisioning::plan_provisioning(plan_input);
  snapshot_.revert();
  return plan;
}

scheduling::NodeId Search::place(const Pod& pod, scheduling::NodeId hint) const {
  if (placement_ == Placement::AsKubeScheduler) {
    return scheduler_.schedule(snapshot_, pod, scheduling::Scheduler::Explain::NoReasons).chosen;
  }
  return scheduler_.find_fit(snapshot_, pod, hint);
}

// Why the budgets do not allow disrupting `set` now, or empty.
std::string Search::over_budget(const std::vector<std::size_t>& set) const {
  std::map<std::string, std::int32_t> per_pool;
  for (std::size_t i : set) ++per_pool[in_.candidates[i].nodepool];
  for (const auto& [pool, count] : per_pool) {
    auto allowed = in_.allowed.find(pool);
    if (allowed != in_.allowed.end() && count > allowed->second) {
      return fmt::format("the budgets of NodePool {} allow {} more disrupted now", pool,
                         std::max(0, allowed->second));
    }
  }
  return "";
}

// For each type of the catalogs replacements launch from (the catalog, and each node class's shapes of it), its
// cheapest offering; sorted by price, for the bound below.
std::vector<std::pair<double, const cloud::InstanceType*>> Search::cheapest_types() const {
  std::vector<std::pair<double, const cloud::InstanceType*>> out;
  std::vector<const cloud::Catalog*> catalogs;
  if (in_.catalog != nullptr) catalogs.push_back(in_.catalog);
  for (const auto& [pool, catalog] : in_.nodepool_catalogs) {
    if (std::find(catalogs.begin(), catalogs.end(), catalog) == catalogs.end()) catalogs.push_back(catalog);
  }
  for (const cloud::Catalog* catalog : catalogs) {
    for (const cloud::InstanceType& type : catalog->instance_types()) {
      std::optional<double> best;
      for (const cloud::Offering& o : type.offerings) {
        if (o.available && (!best || o.price_per_hour < *best)) best = o.price_per_hour;
      }
      if (best) out.emplace_back(*best, &type);
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

// What candidate `i`'s pods ask beyond the room all other nodes have left, resource by resource, when they ask
// more than that of some resource (then its delete fails however the pods are placed); nullopt otherwise.
std::optional<Search::Room> Search::excess_over_room(std::size_t i) {
  if (need_.empty()) measure_room();
  Room free = free_total_;
  free -= free_[i];
  if (need_[i].within(free)) return std::nullopt;
  return need_[i].beyond(free);
}

void Search::measure_room() {
  for (const scheduling::NodeInfo& node : snapshot_.nodes()) {
    if (!node.removed) free_total_ += Room::free_on(node);
  }
  for (const Candidate& c : in_.candidates) {
    need_.push_back(Room::of(c.requests));
    free_.push_back(Room::free_on(snapshot_.node(c.id)));
  }
}

// The largest type a replacement could be: of the catalog, one that some NodePool's requirements allow.
void Search::measure_largest() {
  std::vector<RequirementSet> pools;
  for (const NodePool& pool : in_.nodepools) pools.push_back(pool.requirement_set());
  for (const auto& [price, type] : cheapest_by_size_) {
    const RequirementSet labels = RequirementSet::from_labels(type->labels);
    if (!pools.empty() && std::none_of(pools.begin(), pools.end(),
                                       [&](const RequirementSet& pool) { return pool.compatible(labels); })) {
      continue;
    }
    const Room room = Room::of(type->allocatable);
    largest_.cpu = std::max(largest_.cpu, room.cpu);
    largest_.memory = std::max(largest_.memory, room.memory);
    largest_.pods = std::max(largest_.pods, room.pods);
    const auto per_unit = [&](std::int64_t amount, double& least) {
      if (amount > 0) least = std::min(least, price / static_cast<double>(amount));
    };
    per_unit(room.cpu, least_per_unit_[0]);
    per_unit(room.memory, least_per_unit_[1]);
    per_unit(room.pods, least_per_unit_[2]);
  }
}

// Pod shapes (static constraints, then requests) found to fit nowhere in this sweep: a pod of the same
// constraints asking at least as much of every resource fits nowhere either.
bool Search::at_least(const ResourceList& requests, const std::vector<std::pair<Symbol, std::int64_t>>& failed) {
  return std::all_of(failed.begin(), failed.end(),
                     [&](const auto& entry) { return requests.get(entry.first) >= entry.second; });
}

bool Search::known_without_room(const Pod& pod) const {
  if (!memo_ || no_room_.empty() || !fits_by_node_alone(pod)) return false;
  auto shapes = no_room_.find(scheduling::static_constraints_key(pod));
  if (shapes == no_room_.end()) return false;
  const ResourceList requests = pod.effective_requests();
  return std::any_of(shapes->second.begin(), shapes->second.end(),
                     [&](const auto& failed) { return at_least(requests, failed); });
}

void Search::remember_without_room(const Pod& pod) {
  if (!memo_ || !fits_by_node_alone(pod)) return;
  const ResourceList requests = pod.effective_requests();
  auto& shapes = no_room_[scheduling::static_constraints_key(pod)];
  if (std::any_of(shapes.begin(), shapes.end(), [&](const auto& failed) { return at_least(requests, failed); })) {
    return;
  }
  shapes.push_back(requests.entries());
}

bool Search::cheaper_type_could_hold(const ResourceList& requests, double price) const {
  const Room need = Room::of(requests);
  for (const auto& [type_price, type] : cheapest_by_size_) {
    if (type_price >= price) return false;
    if (need.within(Room::of(type->allocatable))) return true;
  }
  return false;
}

}  // namespace scalewright::disruption::consolidation_search
