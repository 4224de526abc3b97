#include "disruption/consolidation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "api/quantity.h"
#include "nodegroups/drainability.h"
#include "provisioning/instance_types.h"
#include "scheduling/equivalence.h"
#include "scheduling/scheduler.h"

namespace scalewright::disruption {
namespace {

constexpr std::string_view kPodDeletionCost = "controller.kubernetes.io/pod-deletion-cost";

// The pod as its controller would recreate it: not bound, or the scheduler's NodeName filter keeps it in place.
std::shared_ptr<Pod> unbound_copy(const Pod& pod) {
  auto copy = std::make_shared<Pod>(pod);
  copy->spec.node_name.clear();
  return copy;
}

// Largest first (cpu, then memory), so that the pods hardest to place are placed while there is most room. The
// requests are worked out once per pod, not once per comparison.
void largest_first(std::vector<std::shared_ptr<Pod>>& pods) {
  std::vector<std::pair<ResourceList, std::shared_ptr<Pod>>> keyed;
  keyed.reserve(pods.size());
  for (auto& pod : pods) keyed.emplace_back(pod->effective_requests(), std::move(pod));
  std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    if (a.first.cpu_milli() != b.first.cpu_milli()) return a.first.cpu_milli() > b.first.cpu_milli();
    return a.first.memory() > b.first.memory();
  });
  for (std::size_t i = 0; i < pods.size(); ++i) pods[i] = std::move(keyed[i].second);
}

// Whether where the pod fits depends only on each node and its free resources (no pod (anti-)affinity or topology
// spread of its own): then a node that did not fit it never will while nodes only lose room.
bool fits_by_node_alone(const Pod& pod) {
  return pod.spec.affinity.required_pod_affinity.empty() && pod.spec.affinity.required_pod_anti_affinity.empty() &&
         pod.spec.topology_spread_constraints.empty();
}

// The price the NodeClaim would pay on `type` at worst: its most expensive offering the requirements allow. Judging
// the replacement by its worst offering keeps it cheaper whichever zone it lands in.
std::optional<double> worst_price(const cloud::InstanceType& type, const RequirementSet& requirements,
                                  const provisioning::UnavailableOfferings& unavailable, Duration now) {
  std::optional<double> worst;
  for (const cloud::Offering* o : provisioning::allowed_offerings(type, requirements, unavailable, now)) {
    if (!worst || o->price_per_hour > *worst) worst = o->price_per_hour;
  }
  return worst;
}

std::optional<double> best_price(const cloud::InstanceType& type, const RequirementSet& requirements,
                                 const provisioning::UnavailableOfferings& unavailable, Duration now) {
  std::optional<double> best;
  for (const cloud::Offering* o : provisioning::allowed_offerings(type, requirements, unavailable, now)) {
    if (!best || o->price_per_hour < *best) best = o->price_per_hour;
  }
  return best;
}

using cloud::kSamePrice;

std::string money(double price) { return fmt::format("${:.4f}/h", price); }

class Search {
 public:
  // Where a what-if puts a pod that must move: the first node it fits on (a search: any fit will do), or where
  // kube-scheduler would bind it (a check before acting: the evicted pods' replacements go where kube-scheduler
  // sends them, which spreads them, and a delete whose pods fit only by first fit leaves one pending and launches
  // a node for it, the node the next delete then fills).
  enum class Placement { FirstFit, AsKubeScheduler };

  explicit Search(const ConsolidationInput& input, Placement placement = Placement::FirstFit)
      : in_(input), snapshot_(*input.cluster), placement_(placement) {
    static const provisioning::UnavailableOfferings kNone;
    unavailable_ = input.unavailable != nullptr ? input.unavailable : &kNone;
    cheapest_by_size_ = cheapest_types();
    measure_largest();
  }

  // Whether the first `k` candidates' pods obviously cannot go: more than the room on every other node and the
  // largest new node together, by cpu or memory. Spares the prefix search its largest simulations.
  bool prefix_cannot_fit(std::size_t k) {
    if (need_.empty()) measure_room();
    std::int64_t need_cpu = 0, need_memory = 0, free_cpu = free_cpu_total_, free_memory = free_memory_total_;
    for (std::size_t i = 0; i < k; ++i) {
      need_cpu += need_[i].first;
      need_memory += need_[i].second;
      free_cpu -= free_[i].first;
      free_memory -= free_[i].second;
    }
    return need_cpu > free_cpu + largest_cpu_ || need_memory > free_memory + largest_memory_;
  }

  std::size_t tries() const { return tries_; }

  // The command that takes exactly `set` (delete if their pods fit on the rest of the cluster, else replace by one
  // cheaper node), or why there is none. `single`: the set is one candidate judged alone (the spot-to-spot count).
  struct Attempt {
    std::optional<Command> command;
    std::string reason;
  };
  Attempt attempt(const std::vector<std::size_t>& set, Method method, bool allow_replace = true) {
    ++tries_;
    Command command;
    command.method = method;
    command.candidates = set;
    if (std::string over = over_budget(set); !over.empty()) return {std::nullopt, std::move(over)};
    std::vector<std::shared_ptr<Pod>> pods;
    bool all_spot = true;
    for (std::size_t i : set) {
      const Candidate& c = in_.candidates[i];
      command.price_before += c.price_per_hour;
      command.disruption_cost += c.disruption_cost;
      all_spot = all_spot && c.capacity_type == cloud::CapacityType::Spot;
      for (const auto& pod : c.pods) pods.push_back(unbound_copy(*pod));
    }
    command.pods = pods.size();
    largest_first(pods);

    // Delete: every pod fits on the nodes that stay, each placed before the next is tried.
    snapshot_.fork();
    for (std::size_t i : set) snapshot_.remove_node(in_.candidates[i].id);
    ResourceList unplaced;
    std::size_t unplaced_count = 0;
    scheduling::NodeId hint = 0;
    bool beyond_one_node = false;
    std::string first_unplaced;
    // Within one attempt nodes only lose room too: a shape that missed misses again, without a look at every node.
    const bool memo = memo_;
    memo_ = snapshot_.existing_terms().empty();
    no_room_.clear();
    for (const auto& pod : pods) {
      const scheduling::NodeId target =
          known_without_room(*pod) ? scheduling::kNoNode : place(*pod, hint);
      if (target == scheduling::kNoNode) {
        remember_without_room(*pod);
        if (first_unplaced.empty()) first_unplaced = pod->meta.key();
        unplaced += pod->effective_requests();
        ++unplaced_count;
        // What fits nowhere is more than the largest type holds: no single replacement can take it, and placing
        // the rest (each miss a look at every node) would answer nothing more.
        if (!allow_replace || !largest_could_hold(unplaced)) {
          beyond_one_node = true;
          break;
        }
        continue;
      }
      snapshot_.add_pod(std::shared_ptr<const Pod>(pod), target);
      hint = target;
    }
    snapshot_.revert();
    memo_ = memo;
    no_room_.clear();
    if (beyond_one_node && allow_replace) {
      return {std::nullopt, "what fits on no other node is more than one node of any type holds"};
    }
    // One pod left pending by a single node's delete launches a node for it and undoes the saving, so such a
    // delete must hold wherever kube-scheduler puts the pods, from either end; among many nodes' pods the same is a
    // small loss. Asked by the check before acting only: kube-scheduler's scoring over every node is too dear for
    // every try of a search.
    if (unplaced_count == 0 && set.size() == 1 && placement_ == Placement::AsKubeScheduler) {
      if (std::string why = unplaced_either_end(set, pods, {}); !why.empty()) return {std::nullopt, std::move(why)};
    }
    if (unplaced_count == 0) {
      command.decision = Decision::Delete;
      return {std::move(command), ""};
    }
    if (!allow_replace) return {std::nullopt, fmt::format("pod {} fits on no other node", first_unplaced)};

    // Replace: worth a provisioning plan only when some type cheaper than the candidates could hold what fit
    // nowhere (a bound from the catalog, before the scheduling simulation).
    if (!cheaper_type_could_hold(unplaced, command.price_before)) {
      return {std::nullopt, fmt::format("{} of its pods fit on no other node, and no instance type cheaper than {} "
                                        "holds them",
                                        unplaced_count, money(command.price_before))};
    }
    provisioning::ProvisioningPlan plan = plan_without(set, pods);
    if (!plan.unschedulable.empty()) {
      return {std::nullopt, fmt::format("{} of its pods could not run anywhere else", plan.unschedulable.size())};
    }
    if (plan.new_claims.empty()) {
      command.decision = Decision::Delete;
      return {std::move(command), ""};
    }
    if (plan.new_claims.size() > 1) {
      return {std::nullopt, fmt::format("its pods would need {} new nodes, and a replacement is one",
                                        plan.new_claims.size())};
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
      return {std::nullopt, fmt::format("no instance type that holds its pods costs less than {}",
                                        money(command.price_before))};
    }
    std::stable_sort(cheaper.begin(), cheaper.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    if (all_spot && may_spot) {
      if (!in_.spot_to_spot) return {std::nullopt, "spot-to-spot replacement is disabled"};
      if (set.size() == 1 && cheaper.size() < kMinTypesForSpotToSpot) {
        return {std::nullopt, fmt::format("spot-to-spot replacement needs {} cheaper instance types, {} found",
                                          kMinTypesForSpotToSpot, cheaper.size())};
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
    return {std::move(command), ""};
  }

  // The repack of exactly `set` (see consolidate_repack), or why there is none.
  Attempt attempt_repack(const std::vector<std::size_t>& set) {
    if (std::string over = over_budget(set); !over.empty()) return {std::nullopt, std::move(over)};
    ++tries_;
    Command command;
    command.method = Method::Repack;
    command.candidates = set;
    double cheapest_taken = std::numeric_limits<double>::max();
    std::vector<std::shared_ptr<Pod>> pods;
    for (std::size_t i : set) {
      const Candidate& c = in_.candidates[i];
      command.price_before += c.price_per_hour;
      command.disruption_cost += c.disruption_cost;
      cheapest_taken = std::min(cheapest_taken, c.price_per_hour);
      for (const auto& pod : c.pods) pods.push_back(unbound_copy(*pod));
    }
    command.pods = pods.size();
    largest_first(pods);
    provisioning::ProvisioningPlan plan = plan_without(set, pods);
    if (!plan.unschedulable.empty()) {
      return {std::nullopt, fmt::format("{} of their pods could not run anywhere else", plan.unschedulable.size())};
    }
    std::vector<Node> added;  // the new nodes as kube-scheduler will see them, each of its claim's cheapest type
    for (const provisioning::NewNodeClaim& claim : plan.new_claims) {
      std::optional<double> price;
      for (const cloud::InstanceType* type : claim.instance_types) {
        std::optional<double> best = best_price(*type, claim.requirements, *unavailable_, in_.now);
        if (best && (!price || *best < *price)) price = best;
      }
      if (!price || claim.instance_types.empty()) return {std::nullopt, "a new node it needs has no offering"};
      command.price_after += *price;
      added.push_back(node_of(claim, added.size()));
    }
    if (command.savings() < cheapest_taken - kSamePrice) {
      return {std::nullopt, fmt::format("saves {}, less than the cheapest of its nodes", money(command.savings()))};
    }
    if (placement_ == Placement::AsKubeScheduler) {  // the check before acting, as for a single node's delete
      if (std::string why = unplaced_either_end(set, pods, added); !why.empty()) return {std::nullopt, std::move(why)};
    }
    command.decision = plan.new_claims.empty() ? Decision::Delete : Decision::Replace;
    command.replacements = std::move(plan.new_claims);
    return {std::move(command), ""};
  }

  // Cluster Autoscaler's way over every candidate, in order: a candidate whose pods all fit on the nodes left by
  // the ones taken before it (their pods at their new places) is taken too. One simulation per candidate, each on
  // the last: the whole sweep costs what placing the candidates' pods once costs. A delete of two or more, or
  // nullopt.
  std::optional<Command> sweep() {
    // Other pods' anti-affinity moves with them: without such terms in the cluster, no node gains room during the
    // sweep (nodes only leave, pods only arrive), and a pod shape that once fit nowhere fits nowhere after.
    memo_ = snapshot_.existing_terms().empty();
    no_room_.clear();
    Command command;
    command.method = Method::MultiNode;
    command.decision = Decision::Delete;
    std::map<std::string, std::int32_t> allowed = in_.allowed;
    scheduling::NodeId hint = 0;
    snapshot_.fork();
    for (std::size_t i = 0; i < in_.candidates.size(); ++i) {
      const Candidate& c = in_.candidates[i];
      auto budget = allowed.find(c.nodepool);
      if (budget != allowed.end() && budget->second <= 0) continue;
      if (!move_off(c, hint)) continue;
      if (budget != allowed.end()) --budget->second;
      take(command, i);
    }
    snapshot_.revert();
    if (command.candidates.size() < 2) return std::nullopt;
    return command;
  }

 private:
  // The evicted pods' replacements are created in one instant and queued by name, an order no one chooses; where
  // kube-scheduler spreads them, the first take the emptiest nodes, and small pods first is the order most likely
  // to leave a large one no room. With `set` gone and the nodes `added`, the pod that finds no node when
  // kube-scheduler takes `pods` (largest first) from the small end or the large end, or empty.
  std::string unplaced_as_kube_scheduler(const std::vector<std::size_t>& set,
                                         const std::vector<std::shared_ptr<Pod>>& pods, const std::vector<Node>& added,
                                         bool smallest_first) {
    snapshot_.fork();
    for (std::size_t i : set) snapshot_.remove_node(in_.candidates[i].id);
    for (const Node& node : added) snapshot_.add_node(node);
    std::string left;
    auto place_one = [&](const std::shared_ptr<Pod>& pod) {
      const scheduling::NodeId target = scheduler_.schedule(snapshot_, *pod).chosen;
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
  std::string unplaced_either_end(const std::vector<std::size_t>& set, const std::vector<std::shared_ptr<Pod>>& pods,
                                  const std::vector<Node>& added) {
    for (const bool smallest : {false, true}) {
      if (std::string left = unplaced_as_kube_scheduler(set, pods, added, smallest); !left.empty()) {
        return fmt::format("pod {} would find no node if kube-scheduler took the pods {} first", left,
                           smallest ? "smallest" : "largest");
      }
    }
    return "";
  }

  // A new node as it would register: its claim's cheapest type, labels and taints.
  static Node node_of(const provisioning::NewNodeClaim& claim, std::size_t index) {
    const cloud::InstanceType& type = *claim.instance_types.front();
    Node node;
    node.meta.name = "repack-" + std::to_string(index);
    node.meta.labels = claim.labels;
    for (const auto& [k, v] : type.labels) node.meta.labels.set(k, v);
    node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol(claim.nodepool));
    node.meta.labels.set(Symbol(well_known::hostname), Symbol(node.meta.name));
    node.taints = claim.taints;
    node.capacity = type.capacity;
    node.allocatable = type.allocatable;
    return node;
  }

  // What provisioning would do with `pods` were the candidates in `set` gone: they leave their NodePools' usage,
  // so that what replaces them counts against the limits in their place.
  provisioning::ProvisioningPlan plan_without(const std::vector<std::size_t>& set,
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
      if (usage != plan_input.nodepool_usage.end()) usage->second -= limit_usage(in_.candidates[i].capacity);
    }
    plan_input.unavailable = unavailable_;
    plan_input.now = in_.now;
    provisioning::ProvisioningPlan plan = provisioning::plan_provisioning(plan_input);
    snapshot_.revert();
    return plan;
  }

  scheduling::NodeId place(const Pod& pod, scheduling::NodeId hint) const {
    if (placement_ == Placement::AsKubeScheduler) return scheduler_.schedule(snapshot_, pod).chosen;
    return scheduler_.find_fit(snapshot_, pod, hint);
  }

  // Removes the candidate's node from the snapshot and places its pods as the snapshot holds them now (pods an
  // earlier move put there move again), largest first, each next to the last; kept when every pod found a place,
  // reverted otherwise.
  bool move_off(const Candidate& c, scheduling::NodeId& hint) {
    std::vector<std::shared_ptr<Pod>> pods;
    for (const scheduling::PlacedPod& placed : snapshot_.node(c.id).pods) {
      if (needs_another_node(*placed.pod)) pods.push_back(unbound_copy(*placed.pod));
    }
    largest_first(pods);
    if (std::any_of(pods.begin(), pods.end(), [&](const auto& pod) { return known_without_room(*pod); })) {
      return false;
    }
    ++tries_;
    snapshot_.fork();
    snapshot_.remove_node(c.id);
    for (const auto& pod : pods) {
      const scheduling::NodeId target = place(*pod, hint);
      if (target == scheduling::kNoNode) {
        remember_without_room(*pod);
        snapshot_.revert();
        return false;
      }
      snapshot_.add_pod(std::shared_ptr<const Pod>(pod), target);
      hint = target;
    }
    snapshot_.commit();
    return true;
  }

  // Why the budgets do not allow disrupting `set` now, or empty.
  std::string over_budget(const std::vector<std::size_t>& set) const {
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

  // Adds candidate `i` to a delete command.
  void take(Command& command, std::size_t i) const {
    const Candidate& c = in_.candidates[i];
    command.candidates.push_back(i);
    command.price_before += c.price_per_hour;
    command.disruption_cost += c.disruption_cost;
    command.pods += c.pods.size();  // evicted once each: pods a sweep moved twice are evicted once
  }

  // For each type of the catalogs replacements launch from (the catalog, and each node class's shapes of it), its
  // cheapest offering; sorted by price, for the bound below.
  std::vector<std::pair<double, const cloud::InstanceType*>> cheapest_types() const {
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

  void measure_room() {
    for (const scheduling::NodeInfo& node : snapshot_.nodes()) {
      if (node.removed) continue;
      free_cpu_total_ += node.allocatable.cpu_milli() - node.requested.cpu_milli();
      free_memory_total_ += node.allocatable.memory() - node.requested.memory();
    }
    for (const Candidate& c : in_.candidates) {
      std::int64_t cpu = 0, memory = 0;
      for (const auto& pod : c.pods) {
        const ResourceList requests = pod->effective_requests();
        cpu += requests.cpu_milli();
        memory += requests.memory();
      }
      need_.emplace_back(cpu, memory);
      const scheduling::NodeInfo& node = snapshot_.node(c.id);
      free_.emplace_back(node.allocatable.cpu_milli() - node.requested.cpu_milli(),
                         node.allocatable.memory() - node.requested.memory());
    }
  }

  // The largest type a replacement could be: of the catalog, one that some NodePool's requirements allow.
  void measure_largest() {
    std::vector<RequirementSet> pools;
    for (const NodePool& pool : in_.nodepools) pools.push_back(pool.requirement_set());
    for (const auto& [price, type] : cheapest_by_size_) {
      const RequirementSet labels = RequirementSet::from_labels(type->labels);
      if (!pools.empty() && std::none_of(pools.begin(), pools.end(),
                                         [&](const RequirementSet& pool) { return pool.compatible(labels); })) {
        continue;
      }
      largest_cpu_ = std::max(largest_cpu_, type->allocatable.cpu_milli());
      largest_memory_ = std::max(largest_memory_, type->allocatable.memory());
    }
  }

  // Pod shapes (static constraints, then requests) found to fit nowhere in this sweep: a pod of the same
  // constraints asking at least as much of every resource fits nowhere either.
  static bool at_least(const ResourceList& requests, const std::vector<std::pair<Symbol, std::int64_t>>& failed) {
    return std::all_of(failed.begin(), failed.end(),
                       [&](const auto& entry) { return requests.get(entry.first) >= entry.second; });
  }
  bool known_without_room(const Pod& pod) const {
    if (!memo_ || no_room_.empty() || !fits_by_node_alone(pod)) return false;
    auto shapes = no_room_.find(scheduling::static_constraints_key(pod));
    if (shapes == no_room_.end()) return false;
    const ResourceList requests = pod.effective_requests();
    return std::any_of(shapes->second.begin(), shapes->second.end(),
                       [&](const auto& failed) { return at_least(requests, failed); });
  }
  void remember_without_room(const Pod& pod) {
    if (!memo_ || !fits_by_node_alone(pod)) return;
    const ResourceList requests = pod.effective_requests();
    auto& shapes = no_room_[scheduling::static_constraints_key(pod)];
    if (std::any_of(shapes.begin(), shapes.end(), [&](const auto& failed) { return at_least(requests, failed); })) {
      return;
    }
    shapes.push_back(requests.entries());
  }

  bool largest_could_hold(const ResourceList& requests) const {
    return requests.cpu_milli() <= largest_cpu_ && requests.memory() <= largest_memory_;
  }

  bool cheaper_type_could_hold(const ResourceList& requests, double price) const {
    for (const auto& [type_price, type] : cheapest_by_size_) {
      if (type_price >= price) return false;
      if (type->allocatable.cpu_milli() >= requests.cpu_milli() &&
          type->allocatable.memory() >= requests.memory()) {
        return true;
      }
    }
    return false;
  }

  const ConsolidationInput& in_;
  scheduling::ClusterSnapshot& snapshot_;
  Placement placement_;
  const provisioning::UnavailableOfferings* unavailable_ = nullptr;
  scheduling::Scheduler scheduler_;
  std::vector<std::pair<double, const cloud::InstanceType*>> cheapest_by_size_;
  std::vector<std::pair<std::int64_t, std::int64_t>> need_;  // per candidate: its pods' cpu and memory
  std::vector<std::pair<std::int64_t, std::int64_t>> free_;  // per candidate: its node's room
  std::int64_t free_cpu_total_ = 0, free_memory_total_ = 0;  // room on every node
  bool memo_ = false;
  std::unordered_map<std::string, std::vector<std::vector<std::pair<Symbol, std::int64_t>>>> no_room_;
  std::int64_t largest_cpu_ = 0;  // the most any one type of the catalog allocates
  std::int64_t largest_memory_ = 0;
  std::size_t tries_ = 0;
};

}  // namespace

bool needs_another_node(const Pod& pod) {
  return !pod.is_daemonset_pod() && !nodegroups::is_mirror_pod(pod) && !pod.is_terminal();
}

bool says_do_not_disrupt(const ObjectMeta& meta) { return meta.annotated_true(karpenter_labels::do_not_disrupt); }

double eviction_cost(const Pod& pod) {
  double cost = 1.0;
  auto annotation = pod.meta.annotations->find(std::string(kPodDeletionCost));
  if (annotation != pod.meta.annotations->end()) {
    if (std::optional<std::int64_t> value = parse_integer(annotation->second)) {
      cost += static_cast<double>(*value) / std::pow(2.0, 27);
    }
  }
  cost += static_cast<double>(pod.priority()) / std::pow(2.0, 25);
  return std::clamp(cost, -10.0, 10.0);
}

double lifetime_remaining(Duration age, const std::optional<Duration>& expire_after) {
  if (!expire_after || expire_after->count() <= 0) return 1.0;
  const double remaining = 1.0 - static_cast<double>(age.count()) / static_cast<double>(expire_after->count());
  return std::clamp(remaining, 0.0, 1.0);
}

void order_candidates(std::vector<Candidate>& candidates) {
  auto per_dollar = [](const Candidate& c) {
    return c.price_per_hour > 0 ? c.disruption_cost / c.price_per_hour : std::numeric_limits<double>::max();
  };
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    const double pa = per_dollar(a), pb = per_dollar(b);
    if (pa != pb) return pa < pb;
    if (a.price_per_hour != b.price_per_hour) return a.price_per_hour > b.price_per_hour;
    return a.node < b.node;
  });
}

std::string_view to_string(Decision decision) {
  return decision == Decision::Delete ? "delete" : "replace";
}

std::string_view to_string(Method method) {
  switch (method) {
    case Method::MultiNode: return "multi-node";
    case Method::SingleNode: return "single-node";
    case Method::Repack: return "repack";
    case Method::Drift: return "drift";
  }
  return "single-node";
}

bool better(const Command& a, const Command& b) {
  if (a.savings() > b.savings() + kSamePrice) return true;
  return a.savings() > b.savings() - kSamePrice && a.pods < b.pods;
}

bool balanced_enough(const Command& command, const ConsolidationInput& input) {
  std::set<std::string> pools;
  bool balanced = false;
  for (std::size_t i : command.candidates) {
    const std::string& pool = input.candidates[i].nodepool;
    pools.insert(pool);
    for (const NodePool& np : input.nodepools) {
      if (np.meta.name == pool && np.consolidation_policy == ConsolidationPolicy::Balanced) balanced = true;
    }
  }
  if (!balanced || command.disruption_cost <= 0) return true;
  double cost = 0, disruption = 0;
  for (const std::string& pool : pools) {
    if (auto it = input.pool_cost.find(pool); it != input.pool_cost.end()) cost += it->second;
    if (auto it = input.pool_disruption_cost.find(pool); it != input.pool_disruption_cost.end()) {
      disruption += it->second;
    }
  }
  if (cost <= 0 || disruption <= 0) return true;
  const double saved_share = command.savings() / cost;
  const double disrupted_share = command.disruption_cost / disruption;
  return saved_share >= 0.5 * disrupted_share;
}

ConsolidationResult consolidate_multi_node(const ConsolidationInput& input) {
  ConsolidationResult result;
  if (input.candidates.size() < 2) return result;
  Search search(input);
  std::optional<Command> best;
  auto consider = [&](std::optional<Command> command) {
    if (!command || command->candidates.size() < 2 || !balanced_enough(*command, input)) return;
    if (!best || better(*command, *best)) best = std::move(command);
  };

  // The sweep: every candidate whose pods fit on what the ones taken before it left is taken too.
  if (!input.as_karpenter) {
    if (std::optional<Command> swept = search.sweep(); swept) consider(std::move(swept));
  }
  // Karpenter's prefix search, over every candidate: the longest prefix one command (delete, or one cheaper
  // replacement) takes.
  {
    // Only prefixes that could beat what the sweep found are worth a simulation: the longest one that is not
    // obviously too big, and the shortest whose nodes cost more than the best saving so far.
    std::size_t high = input.as_karpenter ? std::min(input.candidates.size(), kKarpenterMultiNodeCandidates)
                                          : input.candidates.size();
    if (search.prefix_cannot_fit(high)) {  // the longest that may fit: obviously-too-big grows with the prefix
      std::size_t fits = 0, too_big = high;
      while (too_big - fits > 1) {
        const std::size_t mid = (fits + too_big) / 2;
        (search.prefix_cannot_fit(mid) ? too_big : fits) = mid;
      }
      high = fits;
    }
    std::size_t low = 2;
    if (best) {
      double price = 0;
      low = 0;
      while (low < high && price <= best->savings()) price += input.candidates[low++].price_per_hour;
      if (price <= best->savings()) low = high + 1;  // no prefix saves more
      low = std::max<std::size_t>(low, 2);
    }
    std::optional<Command> found;
    while (low <= high) {
      const std::size_t mid = (low + high) / 2;
      std::vector<std::size_t> prefix(mid);
      for (std::size_t i = 0; i < mid; ++i) prefix[i] = i;
      Search::Attempt a = search.attempt(prefix, Method::MultiNode);
      if (a.command && balanced_enough(*a.command, input)) {
        found = std::move(a.command);
        low = mid + 1;
      } else {
        high = mid - 1;
      }
    }
    consider(std::move(found));
  }
  result.command = std::move(best);
  result.tries = search.tries();
  return result;
}

ConsolidationResult consolidate_single_node(const ConsolidationInput& input) {
  ConsolidationResult result;
  Search search(input);
  for (std::size_t i = 0; i < input.candidates.size(); ++i) {
    Search::Attempt a = search.attempt({i}, Method::SingleNode);
    if (a.command && !balanced_enough(*a.command, input)) {
      a.reason = fmt::format("saves {} of {}, less than half its share of the disruption (Balanced)",
                             money(a.command->savings()), money(a.command->price_before));
      a.command.reset();
    }
    if (a.command) {
      result.command = std::move(a.command);
      break;
    }
    result.kept.push_back({i, std::move(a.reason)});
  }
  result.tries = search.tries();
  return result;
}

ConsolidationResult consolidate_repack(const ConsolidationInput& input) {
  // Beyond this many nodes a repack moves more pods than one command should.
  constexpr std::size_t kMostNodes = 32;
  ConsolidationResult result;
  if (input.as_karpenter) return result;
  std::vector<std::size_t> least_used(input.candidates.size());
  std::vector<double> used(input.candidates.size());
  for (std::size_t i = 0; i < input.candidates.size(); ++i) {
    least_used[i] = i;
    const scheduling::NodeInfo& node = input.cluster->node(input.candidates[i].id);
    const auto share = [](std::int64_t requested, std::int64_t allocatable) {
      return allocatable > 0 ? static_cast<double>(requested) / static_cast<double>(allocatable) : 1.0;
    };
    used[i] = std::max(share(node.requested.cpu_milli(), node.allocatable.cpu_milli()),
                       share(node.requested.memory(), node.allocatable.memory()));
  }
  std::stable_sort(least_used.begin(), least_used.end(), [&](std::size_t a, std::size_t b) { return used[a] < used[b]; });
  Search search(input);
  std::optional<Command> best;
  // Sizes between the powers of two too: a size that saves less than a node, or that kube-scheduler could not
  // place, is often followed by one that does.
  for (std::size_t k = 2; k <= std::min(kMostNodes, least_used.size()); k += std::max<std::size_t>(1, k / 2)) {
    const std::vector<std::size_t> set(least_used.begin(), least_used.begin() + static_cast<std::ptrdiff_t>(k));
    Search::Attempt a = search.attempt_repack(set);
    if (!a.command || !balanced_enough(*a.command, input)) continue;
    const auto per_pod = [](const Command& c) { return c.savings() / static_cast<double>(std::max<std::size_t>(c.pods, 1)); };
    if (!best || per_pod(*a.command) > per_pod(*best)) best = std::move(a.command);
  }
  result.command = std::move(best);
  result.tries = search.tries();
  return result;
}

Revalidation revalidate(const ConsolidationInput& input, const std::vector<std::size_t>& candidates,
                        Decision decision, Method method) {
  Search search(input, Search::Placement::AsKubeScheduler);
  if (method == Method::Repack) {
    Search::Attempt again = search.attempt_repack(candidates);
    return {std::move(again.command), std::move(again.reason)};
  }
  const Method karpenters = candidates.size() > 1 ? Method::MultiNode : Method::SingleNode;
  Search::Attempt a = search.attempt(candidates, karpenters, decision == Decision::Replace);
  if (!a.command) return {std::nullopt, std::move(a.reason)};
  if (a.command->decision != decision) {
    return {std::nullopt, fmt::format("it would now {} rather than {}", to_string(a.command->decision),
                                      to_string(decision))};
  }
  return {std::move(a.command), ""};
}

}  // namespace scalewright::disruption
