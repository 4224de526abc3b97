// Multi-node consolidation: the sweep, and Karpenter's prefix search (consolidation.h).
#include <algorithm>
#include <map>

#include "disruption/consolidation.h"
#include "disruption/search.h"

namespace scalewright::disruption {
namespace consolidation_search {
namespace {

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

}  // namespace

// Whether the first `k` candidates' pods obviously cannot go: more than the room on every other node and the
// largest new node together, by cpu or memory. Spares the prefix search its largest simulations.
bool Search::prefix_cannot_fit(std::size_t k) {
  if (need_.empty()) measure_room();
  Room need, free = free_total_;
  for (std::size_t i = 0; i < k; ++i) {
    need += need_[i];
    free -= free_[i];
  }
  return !need.within(free + largest_);
}

// Cluster Autoscaler's way over every candidate, in order: a candidate whose pods all fit on the nodes left by
// the ones taken before it (their pods at their new places) is taken too. One simulation per candidate, each on
// the last: the whole sweep costs what placing the candidates' pods once costs. A delete of two or more, or
// nullopt.
std::optional<Command> Search::sweep() {
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

// Removes the candidate's node from the snapshot and places its pods as the snapshot holds them now (pods an
// earlier move put there move again), largest first, each next to the last; kept when every pod found a place,
// reverted otherwise.
bool Search::move_off(const Candidate& c, scheduling::NodeId& hint) {
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

// Adds candidate `i` to a delete command.
void Search::take(Command& command, std::size_t i) const {
  const Candidate& c = in_.candidates[i];
  command.candidates.push_back(i);
  command.price_before += c.price_per_hour;
  command.disruption_cost += c.disruption_cost;
  command.pods += c.pods.size();  // evicted once each: pods a sweep moved twice are evicted once
}

}  // namespace consolidation_search

using consolidation_search::Search;

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

}  // namespace scalewright::disruption
