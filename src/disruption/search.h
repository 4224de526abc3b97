#pragma once
// Inside consolidation's searches (consolidation.h), not for its users: what the multi-node (multi_node.cpp),
// single-node (single_node.cpp) and repack (repack.cpp) searches and the check before acting (revalidation.cpp)
// share, in one place (search.cpp): trying a set of candidates on a forked snapshot (delete, else one cheaper
// replacement), the provisioning plan without them, where a pod is placed, the budgets, the bounds from the room
// nodes have left, and the verdicts kept between tries. Each try forks the snapshot and reverts it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "api/instant.h"
#include "api/saturating.h"
#include "disruption/consolidation.h"
#include "scheduling/scheduler.h"

namespace scalewright::disruption::consolidation_search {

// The pod as its controller would recreate it: not bound, or the scheduler's NodeName filter keeps it in place.
std::shared_ptr<Pod> unbound_copy(const Pod& pod);
// The price the NodeClaim would pay on `type` at best: its cheapest offering the requirements allow.
std::optional<double> best_price(const cloud::InstanceType& type, const RequirementSet& requirements,
                                 const provisioning::UnavailableOfferings& unavailable, Instant now);
std::string money(double price);

class Search {
 public:
  // Where a what-if puts a pod that must move: the first node it fits on (a search: any fit will do), or where
  // kube-scheduler would bind it (a check before acting: the evicted pods' replacements go where kube-scheduler
  // sends them, which spreads them, and a delete whose pods fit only by first fit leaves one pending and launches
  // a node for it, the node the next delete then fills).
  enum class Placement { FirstFit, AsKubeScheduler };

  explicit Search(const ConsolidationInput& input, Placement placement = Placement::FirstFit);

  std::size_t tries() const { return tries_; }
  std::size_t plans() const { return plans_; }

  // The command that takes exactly `set` (delete if their pods fit on the rest of the cluster, else replace by one
  // cheaper node), or why there is none. `single`: the set is one candidate judged alone (the spot-to-spot count).
  struct Attempt {
    std::optional<Command> command;
    std::string reason;
  };
  Attempt attempt(const std::vector<std::size_t>& set, Method method, bool allow_replace = true);

  // Multi-node's (multi_node.cpp).
  bool prefix_cannot_fit(std::size_t k);
  std::optional<Command> sweep();

  // Repack's (repack.cpp): the repack of exactly `set` (see consolidate_repack), or why there is none.
  Attempt attempt_repack(const std::vector<std::size_t>& set);

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

  // A try of a set and what it moves (search.cpp).
  Moving moving_pods(const std::vector<std::size_t>& set) const;
  std::string shape_of(const Candidate& c) const;
  static std::string shape_of(const std::string& shape, const Moving& moving,
                              const std::map<std::size_t, std::size_t>& left);
  std::string set_key(std::string_view what, const std::vector<std::size_t>& set) const;
  Tried try_set(const std::vector<std::size_t>& set, Method method, bool allow_replace);
  Tried replace_leftover(const std::vector<std::size_t>& set, Command command, bool all_spot, const ResourceList& left,
                         const std::string& why_left, const std::string& shape,
                         const std::function<std::vector<std::shared_ptr<Pod>>()>& copies);
  Tried try_replacement(const std::vector<std::size_t>& set, const std::vector<std::shared_ptr<Pod>>& pods,
                        Command command, bool all_spot);
  std::string unplaced_as_kube_scheduler(const std::vector<std::size_t>& set,
                                         const std::vector<std::shared_ptr<Pod>>& pods, const std::vector<Node>& added,
                                         bool smallest_first);
  std::string unplaced_either_end(const std::vector<std::size_t>& set, const std::vector<std::shared_ptr<Pod>>& pods,
                                  const std::vector<Node>& added);
  provisioning::ProvisioningPlan plan_without(const std::vector<std::size_t>& set,
                                              const std::vector<std::shared_ptr<Pod>>& pods);
  scheduling::NodeId place(const Pod& pod, scheduling::NodeId hint) const;
  std::string over_budget(const std::vector<std::size_t>& set) const;

  // The bounds from the room nodes have left and the types a replacement may be (search.cpp).
  std::vector<std::pair<double, const cloud::InstanceType*>> cheapest_types() const;
  std::optional<Room> excess_over_room(std::size_t i);
  void measure_room();
  void measure_largest();
  bool largest_could_hold(const ResourceList& requests) const { return Room::of(requests).within(largest_); }
  bool cheaper_type_could_hold(const ResourceList& requests, double price) const;

  // Pod shapes found to fit nowhere within one attempt or sweep (search.cpp).
  static bool at_least(const ResourceList& requests, const std::vector<std::pair<Symbol, std::int64_t>>& failed);
  bool known_without_room(const Pod& pod) const;
  void remember_without_room(const Pod& pod);

  // Multi-node's sweep (multi_node.cpp).
  bool move_off(const Candidate& c, scheduling::NodeId& hint);
  void take(Command& command, std::size_t i) const;

  // Repack's (repack.cpp).
  Tried try_repack(const std::vector<std::size_t>& set);
  static Node node_of(const provisioning::NewNodeClaim& claim, std::size_t index);
  double least_new_cost(const std::vector<std::size_t>& set);

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

}  // namespace scalewright::disruption::consolidation_search
