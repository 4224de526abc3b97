// Beyond Karpenter: the repack of the least used candidates onto fewer new nodes (consolidation.h).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "disruption/consolidation.h"
#include "disruption/search.h"

namespace scalewright::disruption {
namespace consolidation_search {

using cloud::kSamePrice;

Search::Attempt Search::attempt_repack(const std::vector<std::size_t>& set) {
  if (std::string over = over_budget(set); !over.empty()) return {std::nullopt, std::move(over)};
  ConsolidationMemo* memo = placement_ == Placement::FirstFit ? in_.memo : nullptr;
  const std::string key = memo != nullptr ? set_key(kRepack, set) : std::string();
  if (memo != nullptr && memo->failed(key)) return {std::nullopt, "no repack since nodes like these were last tried"};
  Tried tried = try_repack(set);
  if (memo != nullptr && tried.lasting) memo->remember_failed(key);
  return std::move(tried.attempt);
}

Search::Tried Search::try_repack(const std::vector<std::size_t>& set) {
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

// A new node as it would register: its claim's cheapest type, labels and taints.
Node Search::node_of(const provisioning::NewNodeClaim& claim, std::size_t index) {
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

// A lower bound on what new nodes for the pods of `set` cost, with the set gone: per resource, what the other
// nodes' room cannot take, at the least any allowed type charges for a unit of it; the largest of the three. The
// room elsewhere is not all usable and new nodes carry DaemonSets too: the true cost is only higher.
double Search::least_new_cost(const std::vector<std::size_t>& set) {
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

}  // namespace consolidation_search

using consolidation_search::Search;

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

}  // namespace scalewright::disruption
