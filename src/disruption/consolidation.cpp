#include "disruption/consolidation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/quantity.h"
#include "api/saturating.h"
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
    Room need, free = free_total_;
    for (std::size_t i = 0; i < k; ++i) {
      need += need_[i];
      free -= free_[i];
    }
    return !need.within(free + largest_);
  }

  std::size_t tries() const { return tries_; }
  std::size_t plans() const { return plans_; }

  // The command that takes exactly `set` (delete if their pods fit on the rest of the cluster, else replace by one
  // cheaper node), or why there is none. `single`: the set is one candidate judged alone (the spot-to-spot count).
  struct Attempt {
    std::optional<Command> command;
    std::string reason;
  };
  Attempt attempt(const std::vector<std::size_t>& set, Method method, bool allow_replace = true) {
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

 private:
  // An attempt, and whether its failure lasts while the memo's context does (see ConsolidationMemo).
  struct Tried {
    Attempt attempt;
    bool lasting = false;
    bool delete_failed = false;
  };
  static Tried lasting(std::string reason, bool delete_failed) {
    return {{std::nullopt, std::move(reason)}, true, delete_failed};
  }
  static constexpr std::string_view kMultiNode = "multi-node";
  static constexpr std::string_view kRepack = "repack";

  // How the scheduler is asked about a class of pods: with its first pod, unbound; and whether the class already
  // found no node in this attempt.
  struct Asked {
    std::shared_ptr<Pod> query;
    ResourceList requests;
    Symbol cls;  // empty: the pod's own question
    bool missed = false;
  };
  // The pods of a set, largest first (cpu, then memory; ties keep the candidates' order), each with its requests
  // and its class's question.
  struct Moving {
    std::vector<const std::shared_ptr<const Pod>*> pods;
    std::vector<ResourceList> requests;
    std::vector<std::size_t> asked_index;  // into asked, per pod
    std::vector<Asked> asked;
    Asked& asked_for(std::size_t k) { return asked[asked_index[k]]; }
    // Unbound copies of every pod, in this order: what a provisioning plan and kube-scheduler's check take.
    std::vector<std::shared_ptr<Pod>> copies() const {
      std::vector<std::shared_ptr<Pod>> out;
      out.reserve(pods.size());
      for (const auto* pod : pods) out.push_back(unbound_copy(**pod));
      return out;
    }
  };

  Moving moving_pods(const std::vector<std::size_t>& set) const {
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
  std::string shape_of(const Candidate& c) const {
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
  static std::string shape_of(const std::string& shape, const Moving& moving,
                              const std::map<std::size_t, std::size_t>& left) {
    std::string out = shape + " /";
    std::map<std::uint32_t, std::size_t> left_by_class;
    for (const auto& [asked, count] : left) left_by_class[moving.asked[asked].cls.id()] += count;
    for (const auto& [id, count] : left_by_class) out += fmt::format(" {}x{}", id, count);
    return out;
  }

  // What names a set of candidates tried together for the memo: their shapes where known (sets of nodes alike
  // get one answer), else their names and pods' versions.
  std::string set_key(std::string_view what, const std::vector<std::size_t>& set) const {
    std::vector<std::string> parts;
    for (std::size_t i : set) {
      const Candidate& c = in_.candidates[i];
      std::string shape = shape_of(c);
      parts.push_back(shape.empty() ? fmt::format("{}@{}", c.node, c.pods_version) : std::move(shape));
    }
    std::sort(parts.begin(), parts.end());
    return fmt::format("{} [{}]", what, fmt::join(parts, "] ["));
  }

  Tried try_set(const std::vector<std::size_t>& set, Method method, bool allow_replace) {
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
  Tried replace_leftover(const std::vector<std::size_t>& set, Command command, bool all_spot, const ResourceList& left,
                         const std::string& why_left, const std::string& shape,
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
  Tried try_replacement(const std::vector<std::size_t>& set, const std::vector<std::shared_ptr<Pod>>& pods,
                        Command command, bool all_spot) {
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

 public:
  // The repack of exactly `set` (see consolidate_repack), or why there is none.
  Attempt attempt_repack(const std::vector<std::size_t>& set) {
    if (std::string over = over_budget(set); !over.empty()) return {std::nullopt, std::move(over)};
    ConsolidationMemo* memo = placement_ == Placement::FirstFit ? in_.memo : nullptr;
    const std::string key = memo != nullptr ? set_key(kRepack, set) : std::string();
    if (memo != nullptr && memo->failed(key)) return {std::nullopt, "no repack since nodes like these were last tried"};
    Tried tried = try_repack(set);
    if (memo != nullptr && tried.lasting) memo->remember_failed(key);
    return std::move(tried.attempt);
  }

 private:
  Tried try_repack(const std::vector<std::size_t>& set) {
    ++tries_;
    Command command;
    command.method = Method::Repack;
    command.candidates = set;
    double cheapest_taken = std::numeric_limits<double>::max();
    for (std::size_t i : set) {
      const Candidate& c = in_.candidates[i];
      command.price_before += c.price_per_hour;
      command.disruption_cost += c.disruption_cost;
      cheapest_taken = std::min(cheapest_taken, c.price_per_hour);
      command.pods += c.pods.size();
    }
    // What new nodes cost at least for what the other nodes' room cannot take: when even that saves less than the
    // cheapest node, no plan does, and none need be made.
    if (const double least = least_new_cost(set); command.price_before - least < cheapest_taken - kSamePrice) {
      return lasting(fmt::format("saves at most {}, less than the cheapest of its nodes",
                                 money(command.price_before - least)),
                     false);
    }
    const std::vector<std::shared_ptr<Pod>> pods = moving_pods(set).copies();
    provisioning::ProvisioningPlan plan = plan_without(set, pods);
    if (!plan.unschedulable.empty()) {
      return lasting(fmt::format("{} of their pods could not run anywhere else", plan.unschedulable.size()), false);
    }
    std::vector<Node> added;  // the new nodes as kube-scheduler will see them, each of its claim's cheapest type
    for (const provisioning::NewNodeClaim& claim : plan.new_claims) {
      std::optional<double> price;
      for (const cloud::InstanceType* type : claim.instance_types) {
        std::optional<double> best = best_price(*type, claim.requirements, *unavailable_, in_.now);
        if (best && (!price || *best < *price)) price = best;
      }
      if (!price || claim.instance_types.empty()) return lasting("a new node it needs has no offering", false);
      command.price_after += *price;
      added.push_back(node_of(claim, added.size()));
    }
    if (command.savings() < cheapest_taken - kSamePrice) {
      return lasting(fmt::format("saves {}, less than the cheapest of its nodes", money(command.savings())), false);
    }
    if (placement_ == Placement::AsKubeScheduler) {  // the check before acting, as for a single node's delete
      if (std::string why = unplaced_either_end(set, pods, added); !why.empty()) {
        return {{std::nullopt, std::move(why)}};
      }
    }
    command.decision = plan.new_claims.empty() ? Decision::Delete : Decision::Replace;
    command.replacements = std::move(plan.new_claims);
    return {{std::move(command), ""}};
  }

 public:

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
    if (need_.empty()) measure_room();  // the room before the sweep, the most there is during it
    snapshot_.fork();
    for (std::size_t i = 0; i < in_.candidates.size(); ++i) {
      const Candidate& c = in_.candidates[i];
      auto budget = allowed.find(c.nodepool);
      if (budget != allowed.end() && budget->second <= 0) continue;
      // Its pods need more than all other nodes have left, or its delete failed alone with the whole cluster around
      // it: the sweep only takes room (a node it takes leaves with its room, pods it moves take room), so it fails
      // here too.
      if (excess_over_room(i)) continue;
      if (in_.memo != nullptr) {
        const ConsolidationMemo::Verdict* known = in_.memo->find(c);
        if (known != nullptr && known->delete_failed) continue;
      }
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
      if (usage != plan_input.nodepool_usage.end()) usage->second.take_away(limit_usage(in_.candidates[i].capacity));
    }
    plan_input.unavailable = unavailable_;
    plan_input.now = in_.now;
    ++plans_;
    provisioning::ProvisioningPlan plan = provisioning::plan_provisioning(plan_input);
    snapshot_.revert();
    return plan;
  }

  scheduling::NodeId place(const Pod& pod, scheduling::NodeId hint) const {
    if (placement_ == Placement::AsKubeScheduler) {
      return scheduler_.schedule(snapshot_, pod, scheduling::Scheduler::Explain::NoReasons).chosen;
    }
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

  // The room a node has left, or what pods need of it: cpu, memory and pod slots, the three every pod takes.
  struct Room {
    std::int64_t cpu = 0, memory = 0, pods = 0;
    // Sums saturate, as resource sums do everywhere (see ResourceList): a bound from a saturated sum still holds.
    static Room free_on(const scheduling::NodeInfo& node) {
      return {saturating_sub(node.allocatable.cpu_milli(), node.requested.cpu_milli()),
              saturating_sub(node.allocatable.memory(), node.requested.memory()),
              saturating_sub(node.allocatable.pods(), static_cast<std::int64_t>(node.pods.size()))};
    }
    static Room of(const ResourceList& resources) {
      return {resources.cpu_milli(), resources.memory(), resources.pods()};
    }
    Room& operator+=(const Room& o) {
      cpu = saturating_add(cpu, o.cpu), memory = saturating_add(memory, o.memory), pods = saturating_add(pods, o.pods);
      return *this;
    }
    Room& operator-=(const Room& o) {
      cpu = saturating_sub(cpu, o.cpu), memory = saturating_sub(memory, o.memory), pods = saturating_sub(pods, o.pods);
      return *this;
    }
    friend Room operator+(Room a, const Room& b) { return a += b; }
    bool within(const Room& limit) const { return cpu <= limit.cpu && memory <= limit.memory && pods <= limit.pods; }
    // What this asks beyond `room`, resource by resource (none where the room suffices, or is overcommitted).
    Room beyond(const Room& room) const {
      const auto excess = [](std::int64_t needed, std::int64_t left) {
        return std::max<std::int64_t>(0, saturating_sub(needed, std::max<std::int64_t>(0, left)));
      };
      return {excess(cpu, room.cpu), excess(memory, room.memory), excess(pods, room.pods)};
    }
    ResourceList resources() const {
      ResourceList out;
      out.set(resource_names::cpu(), cpu);
      out.set(resource_names::memory(), memory);
      out.set(resource_names::pods(), pods);
      return out;
    }
  };

  // What candidate `i`'s pods ask beyond the room all other nodes have left, resource by resource, when they ask
  // more than that of some resource (then its delete fails however the pods are placed); nullopt otherwise.
  std::optional<Room> excess_over_room(std::size_t i) {
    if (need_.empty()) measure_room();
    Room free = free_total_;
    free -= free_[i];
    if (need_[i].within(free)) return std::nullopt;
    return need_[i].beyond(free);
  }

  void measure_room() {
    for (const scheduling::NodeInfo& node : snapshot_.nodes()) {
      if (!node.removed) free_total_ += Room::free_on(node);
    }
    for (const Candidate& c : in_.candidates) {
      need_.push_back(Room::of(c.requests));
      free_.push_back(Room::free_on(snapshot_.node(c.id)));
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

  // A lower bound on what new nodes for the pods of `set` cost, with the set gone: per resource, what the other
  // nodes' room cannot take, at the least any allowed type charges for a unit of it; the largest of the three. The
  // room elsewhere is not all usable and new nodes carry DaemonSets too: the true cost is only higher.
  double least_new_cost(const std::vector<std::size_t>& set) {
    if (need_.empty()) measure_room();
    Room need, free = free_total_;
    for (std::size_t i : set) {
      need += need_[i];
      free -= free_[i];
    }
    const Room left = need.beyond(free);
    double least = 0;
    const std::array<double, 3> units{static_cast<double>(left.cpu), static_cast<double>(left.memory),
                                      static_cast<double>(left.pods)};
    for (std::size_t d = 0; d < units.size(); ++d) {
      if (units[d] > 0 && least_per_unit_[d] < std::numeric_limits<double>::max()) {
        least = std::max(least, units[d] * least_per_unit_[d]);
      }
    }
    return least;
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

  bool largest_could_hold(const ResourceList& requests) const { return Room::of(requests).within(largest_); }

  bool cheaper_type_could_hold(const ResourceList& requests, double price) const {
    const Room need = Room::of(requests);
    for (const auto& [type_price, type] : cheapest_by_size_) {
      if (type_price >= price) return false;
      if (need.within(Room::of(type->allocatable))) return true;
    }
    return false;
  }

  const ConsolidationInput& in_;
  scheduling::ClusterSnapshot& snapshot_;
  Placement placement_;
  const provisioning::UnavailableOfferings* unavailable_ = nullptr;
  scheduling::Scheduler scheduler_;
  std::vector<std::pair<double, const cloud::InstanceType*>> cheapest_by_size_;
  std::vector<Room> need_;  // per candidate: what its pods take
  std::vector<Room> free_;  // per candidate: its node's room
  Room free_total_;         // room on every node
  bool memo_ = false;
  std::unordered_map<std::string, std::vector<std::vector<std::pair<Symbol, std::int64_t>>>> no_room_;
  Room largest_;  // the most any one type of the catalog allocates, resource by resource
  // The least $/h any of those types charges per millicore, per byte and per pod slot.
  std::array<double, 3> least_per_unit_{std::numeric_limits<double>::max(), std::numeric_limits<double>::max(),
                                        std::numeric_limits<double>::max()};
  std::size_t tries_ = 0;
  std::size_t plans_ = 0;
};

}  // namespace

void ConsolidationMemo::begin(std::uint64_t context, Duration now, std::optional<Duration> valid_until) {
  if (context_ != context || (valid_until_ && now >= *valid_until_)) {
    verdicts_.clear();
    shapes_.clear();
    failed_sets_.clear();
    context_ = context;
  }
  valid_until_ = valid_until;
}

const ConsolidationMemo::Verdict* ConsolidationMemo::find(const Candidate& c) const {
  auto it = verdicts_.find(c.node);
  return it == verdicts_.end() || it->second.first != c.pods_version ? nullptr : &it->second.second;
}

void ConsolidationMemo::remember(const Candidate& c, Verdict verdict) {
  verdicts_.insert_or_assign(c.node, std::make_pair(c.pods_version, std::move(verdict)));
}

const ConsolidationMemo::Verdict* ConsolidationMemo::find_shape(const std::string& shape) const {
  auto it = shapes_.find(shape);
  return it == shapes_.end() ? nullptr : &it->second;
}

void ConsolidationMemo::remember_shape(const std::string& shape, Verdict verdict) {
  shapes_.insert_or_assign(shape, std::move(verdict));
}

bool ConsolidationMemo::failed(const std::string& key) const { return failed_sets_.contains(key); }

void ConsolidationMemo::remember_failed(const std::string& key) {
  // A context can last for days while pods come and go on some nodes, each change a new signature: the sets tried
  // are few per pass, and starting over now and then costs one pass its shortcuts.
  constexpr std::size_t kMostSets = 10'000;
  if (failed_sets_.size() >= kMostSets) failed_sets_.clear();
  failed_sets_.insert(key);
}

void Candidate::add_pod(std::shared_ptr<const Pod> pod, Symbol scheduling_class) {
  requests += pod->effective_requests();
  pods.push_back(std::move(pod));
  classes.push_back(scheduling_class);
}

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
  result.plans = search.plans();
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
  result.plans = search.plans();
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
  result.plans = search.plans();
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
