#include "scheduling/scheduler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "api/saturating.h"
#include "scheduling/equivalence.h"
#include "scheduling/inter_pod_affinity.h"
#include "scheduling/plugin_support.h"
#include "scheduling/topology_spread.h"

namespace scalewright::scheduling {

// Default score weights of kube-scheduler v1.26's default profile.
namespace weights {
constexpr std::int64_t taint_toleration = 3;
constexpr std::int64_t node_affinity = 2;
constexpr std::int64_t resources_fit = 1;
constexpr std::int64_t topology_spread = 2;
constexpr std::int64_t inter_pod_affinity = 2;
constexpr std::int64_t balanced_allocation = 1;
}  // namespace weights

namespace {

// Everything about the incoming pod that one scheduling cycle reads, computed once (kube-scheduler's
// PreFilter): its requests, host ports, and the spread and inter-pod state over the whole snapshot.
struct CycleState {
  CycleState(StaticVerdictTable& table, const ClusterSnapshot& snapshot, const Pod& pod)
      : lookup(table, snapshot),
        requests(pod.effective_requests()),
        non_zero(non_zero_requests(pod)),
        host_ports(pod.host_ports()),
        spread(snapshot, pod, lookup),
        inter_pod(snapshot, pod) {}

  StaticVerdictLookup lookup;
  ResourceList requests;
  NonZeroRequests non_zero;
  std::vector<ContainerPort> host_ports;
  SpreadFilter spread;
  InterPodAffinityFilter inter_pod;
};

bool ports_conflict(const ContainerPort& a, const ContainerPort& b) {
  if (a.host_port != b.host_port || a.protocol != b.protocol) return false;
  auto wildcard = [](const std::string& ip) { return ip.empty() || ip == "0.0.0.0"; };
  return wildcard(a.host_ip) || wildcard(b.host_ip) || a.host_ip == b.host_ip;
}

bool ports_free(const std::vector<ContainerPort>& wanted, const NodeInfo& node) {
  for (const PlacedPod& placed : node.pods) {
    for (const ContainerPort& used : placed.pod->host_ports()) {
      for (const ContainerPort& w : wanted) {
        if (ports_conflict(w, used)) return false;
      }
    }
  }
  return true;
}

// NodeResourcesFit's filter: every shortage is a reason of its own, as upstream reports them.
template <typename Sink>
void check_resources(const ResourceList& request, const NodeInfo& node, Sink&& reject) {
  const ResourceList& allocatable = node.allocatable;
  const ResourceList& requested = node.requested;
  if (static_cast<std::int64_t>(node.pods.size()) + 1 > allocatable.pods()) reject(reasons::too_many_pods);
  if (request.cpu_milli() == 0 && request.memory() == 0 && request.ephemeral_storage() == 0 &&
      request.extended().empty()) {
    return;
  }
  // What is left, saturating (see ResourceList): a node whose requested saturated has room for nothing.
  auto left = [](std::int64_t allocatable, std::int64_t requested) { return saturating_sub(allocatable, requested); };
  if (request.cpu_milli() > 0 && request.cpu_milli() > left(allocatable.cpu_milli(), requested.cpu_milli())) {
    reject("Insufficient cpu");
  }
  if (request.memory() > 0 && request.memory() > left(allocatable.memory(), requested.memory())) {
    reject("Insufficient memory");
  }
  if (request.ephemeral_storage() > 0 &&
      request.ephemeral_storage() > left(allocatable.ephemeral_storage(), requested.ephemeral_storage())) {
    reject("Insufficient ephemeral-storage");
  }
  for (const auto& [name, amount] : request.extended()) {
    if (amount > left(allocatable.get(name), requested.get(name))) reject("Insufficient " + std::string(name.str()));
  }
}

std::string_view static_reason(const StaticVerdict& v, const Node& node, std::string& buffer) {
  switch (v.failure) {
    case StaticVerdict::Failure::Unschedulable: return reasons::unschedulable;
    case StaticVerdict::Failure::NodeName: return reasons::node_name;
    case StaticVerdict::Failure::NodeAffinity: return reasons::node_affinity;
    case StaticVerdict::Failure::Taint:
      buffer = "node(s) had untolerated taint " + node.taints[static_cast<std::size_t>(v.untolerated_taint)].describe();
      return buffer;
    case StaticVerdict::Failure::None: break;
  }
  return {};
}

// Runs the filters in kube-scheduler's order on one node; calls `reject` for each reason of the first filter
// that fails. Returns true when the node passes them all.
template <typename Sink>
bool run_filters(const CycleState& state, const StaticVerdict& verdict, const NodeInfo& node, Sink&& reject) {
  if (verdict.failure != StaticVerdict::Failure::None) {
    std::string buffer;
    reject(static_reason(verdict, *node.node, buffer));
    return false;
  }
  if (!state.host_ports.empty() && !ports_free(state.host_ports, node)) {
    reject(reasons::node_ports);
    return false;
  }
  bool fits = true;
  check_resources(state.requests, node, [&](std::string_view reason) {
    fits = false;
    reject(reason);
  });
  if (!fits) return false;
  if (state.spread.active()) {
    if (auto reason = state.spread.check(node)) {
      reject(*reason);
      return false;
    }
  }
  if (state.inter_pod.active()) {
    if (auto reason = state.inter_pod.check(node)) {
      reject(*reason);
      return false;
    }
  }
  return true;
}

// floor(amount * kMaxNodeScore / denominator) for 0 <= amount <= denominator, without a 64-bit integer division
// (the hot spot of scoring). Exact when the product is below 2^53 and the denominator below 2^46: the true
// quotient then sits at least 1/denominator > ulp(128) away from the next integer, so the correctly rounded
// double quotient truncates to the same integer. Larger operands take the integer path, in 128 bits: upstream's
// int64 product wraps for an allocatable past 2^63 / 100 (92 PB, or 92 billion cores in millicores).
std::int64_t score_quotient(std::int64_t amount, std::int64_t denominator) {
  constexpr std::int64_t kExact = (std::int64_t{1} << 53) / kMaxNodeScore;
  if (amount >= 0 && amount < kExact && denominator < (std::int64_t{1} << 46)) {
    return static_cast<std::int64_t>(static_cast<double>(amount * kMaxNodeScore) / static_cast<double>(denominator));
  }
  __extension__ using int128 = __int128;
  return static_cast<std::int64_t>(int128{amount} * kMaxNodeScore / denominator);
}

std::int64_t allocated_score(std::int64_t requested, std::int64_t allocatable, ScoringStrategy strategy) {
  if (allocatable == 0) return 0;
  if (strategy == ScoringStrategy::MostAllocated) return score_quotient(std::min(requested, allocatable), allocatable);
  if (requested > allocatable) return 0;
  return score_quotient(allocatable - requested, allocatable);
}

// NodeResourcesFit's score over cpu and memory (weight 1 each), with the non-zero request defaults.
std::int64_t resources_fit_score(const CycleState& state, const NodeInfo& node, ScoringStrategy strategy) {
  const ResourceList& allocatable = node.allocatable;
  std::int64_t total = 0, weight = 0;
  if (allocatable.cpu_milli() > 0) {
    total += allocated_score(saturating_add(node.non_zero_requested.cpu_milli, state.non_zero.cpu_milli),
                             allocatable.cpu_milli(), strategy);
    ++weight;
  }
  if (allocatable.memory() > 0) {
    total += allocated_score(saturating_add(node.non_zero_requested.memory, state.non_zero.memory),
                             allocatable.memory(), strategy);
    ++weight;
  }
  return weight == 2 ? total / 2 : total;  // weight is 0, 1 or 2
}

// NodeResourcesBalancedAllocation: how close the cpu and memory fractions stay, with actual requests.
std::int64_t balanced_allocation_score(const CycleState& state, const NodeInfo& node) {
  const ResourceList& allocatable = node.allocatable;
  // With two resources the standard deviation of their fractions is half their difference; with one, zero.
  if (allocatable.cpu_milli() == 0 || allocatable.memory() == 0) return kMaxNodeScore;
  auto fraction = [](std::int64_t requested, std::int64_t capacity) {
    return std::min(1.0, static_cast<double>(requested) / static_cast<double>(capacity));
  };
  double cpu = fraction(saturating_add(node.requested.cpu_milli(), state.requests.cpu_milli()),
                        allocatable.cpu_milli());
  double memory = fraction(saturating_add(node.requested.memory(), state.requests.memory()), allocatable.memory());
  double std_dev = std::abs((cpu - memory) / 2);
  return static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

}  // namespace

Scheduler::Scheduler(SchedulerOptions options) : options_(options) {}
Scheduler::~Scheduler() = default;

StaticVerdictTable& Scheduler::verdicts_for(const Pod& pod) const {
  auto& slot = static_cache_[static_constraints_key(pod)];
  if (!slot) slot = std::make_unique<StaticVerdictTable>(pod);
  return *slot;
}

namespace {

// Counts rejection reasons without allocating per rejected node: a handful of distinct reasons, compared as
// views, copied once each.
class ReasonTally {
 public:
  void add(std::string_view reason) {
    for (auto& [text, count] : counts_) {
      if (text == reason) {
        ++count;
        return;
      }
    }
    counts_.emplace_back(std::string(reason), 1);
  }
  std::map<std::string, int> to_map() && {
    std::map<std::string, int> out;
    for (auto& [text, count] : counts_) out[std::move(text)] += count;
    return out;
  }

 private:
  std::vector<std::pair<std::string, int>> counts_;
};

// What NodeResourcesFit asks of a node's room for these requests: a pod slot, and the cpu and memory requested (a
// zero request asks nothing, even of an overcommitted node).
FirstFitIndex::Room room_needed(const ResourceList& requests) {
  constexpr std::int64_t kNothing = std::numeric_limits<std::int64_t>::min();
  return {requests.cpu_milli() > 0 ? requests.cpu_milli() : kNothing,
          requests.memory() > 0 ? requests.memory() : kNothing, 1};
}

}  // namespace

SchedulingResult Scheduler::schedule(const ClusterSnapshot& snapshot, const Pod& pod, Explain explain) const {
  CycleState state(verdicts_for(pod), snapshot, pod);

  SchedulingResult result;
  const auto& nodes = snapshot.nodes();
  const std::size_t slots = nodes.size();
  const std::size_t wanted = feasible_nodes_to_find(options_.percentage_of_nodes_to_score, snapshot.live_node_count());
  const std::size_t start = slots == 0 ? 0 : next_start_node_ % slots;
  const FirstFitIndex::Room need = room_needed(state.requests);
  // From `start` to the last slot, then from the first to `start`. Nodes without room for the pod are passed over
  // in one step each range (they count as filtered, as upstream counts them), so that a cluster of full nodes is
  // not walked node by node for every pod.
  std::size_t visited = 0;
  NodeId id = static_cast<NodeId>(start);
  while (visited < slots && result.feasible.size() < wanted) {
    const NodeId range_end = static_cast<NodeId>(id >= start ? slots : start);
    const NodeId next = snapshot.next_with_room(id, range_end, need);
    visited += next - id;
    id = next;
    if (id == range_end) {
      if (id == slots) id = 0;
      continue;
    }
    if (run_filters(state, state.lookup(id), nodes[id], [](std::string_view) {})) result.feasible.push_back(id);
    ++visited;
    id = id + 1 == slots ? 0 : id + 1;
  }
  next_start_node_ = slots == 0 ? 0 : (start + visited) % slots;
  if (result.feasible.empty()) {
    if (explain == Explain::Reasons) {
      // Every node failed; their reasons come from filtering each of them, as upstream does.
      ReasonTally tally;
      for (const NodeInfo& node : nodes) {
        if (node.removed) continue;
        const NodeId n = static_cast<NodeId>(&node - nodes.data());
        run_filters(state, state.lookup(n), node, [&](std::string_view reason) { tally.add(reason); });
      }
      result.reasons = std::move(tally).to_map();
      result.reason = format_fit_error(snapshot.live_node_count(), result.reasons);
    }
    return result;
  }

  const std::vector<NodeId>& feasible = result.feasible;
  // PreferNoSchedule taints and preferred node affinity, normalized; all-zero raw scores would normalize to the
  // same value on every node, and a constant changes no choice, so they are then left out (the common case).
  bool any_taint = false, any_affinity = false;
  for (NodeId id : feasible) {
    const StaticVerdict& v = state.lookup(id);
    any_taint |= v.intolerable_prefer_no_schedule != 0;
    any_affinity |= v.preferred_affinity_weight != 0;
  }
  std::vector<std::int64_t> taint, node_affinity;
  if (any_taint || any_affinity) {
    taint.resize(feasible.size());
    node_affinity.resize(feasible.size());
    for (std::size_t f = 0; f < feasible.size(); ++f) {
      const StaticVerdict& v = state.lookup(feasible[f]);
      taint[f] = v.intolerable_prefer_no_schedule;
      node_affinity[f] = v.preferred_affinity_weight;
    }
    default_normalize(taint, /*reverse=*/true);
    default_normalize(node_affinity, /*reverse=*/false);
  }
  const SpreadScorer spread(snapshot, pod, feasible, state.lookup);
  const InterPodAffinityScorer inter_pod(snapshot, pod, feasible);
  auto at = [](const std::vector<std::int64_t>& scores, std::size_t f) { return scores.empty() ? 0 : scores[f]; };

  std::int64_t best = std::numeric_limits<std::int64_t>::min();
  for (std::size_t f = 0; f < feasible.size(); ++f) {
    const NodeInfo& node = snapshot.node(feasible[f]);
    std::int64_t total = weights::taint_toleration * at(taint, f) + weights::node_affinity * at(node_affinity, f) +
                         weights::resources_fit * resources_fit_score(state, node, options_.scoring) +
                         weights::balanced_allocation * balanced_allocation_score(state, node) +
                         weights::topology_spread * at(spread.scores(), f) +
                         weights::inter_pod_affinity * at(inter_pod.scores(), f);
    if (total > best) {
      best = total;
      result.chosen = feasible[f];
    }
  }
  return result;
}

NodeId Scheduler::find_fit(const ClusterSnapshot& snapshot, const Pod& pod, NodeId start) const {
  CycleState state(verdicts_for(pod), snapshot, pod);
  const auto& nodes = snapshot.nodes();
  const std::size_t n = nodes.size();
  if (n == 0) return kNoNode;
  start = static_cast<NodeId>(start % n);
  const FirstFitIndex::Room need = room_needed(state.requests);
  // From `start` to the last slot, then from the first to `start`, over the nodes with room alone.
  for (const auto& [from, to] : {std::pair<NodeId, NodeId>{start, static_cast<NodeId>(n)}, {0, start}}) {
    for (NodeId id = snapshot.next_with_room(from, to, need); id < to;
         id = snapshot.next_with_room(id + 1, to, need)) {
      if (run_filters(state, state.lookup(id), nodes[id], [](std::string_view) {})) return id;
    }
  }
  return kNoNode;
}

std::vector<std::string> Scheduler::rejections(const ClusterSnapshot& snapshot, const Pod& pod, NodeId node) const {
  CycleState state(verdicts_for(pod), snapshot, pod);
  std::vector<std::string> out;
  run_filters(state, state.lookup(node), snapshot.node(node), [&](std::string_view reason) { out.emplace_back(reason); });
  return out;
}

std::size_t feasible_nodes_to_find(int percentage, std::size_t live_nodes) {
  constexpr std::size_t kMinFeasibleNodesToFind = 100;
  constexpr int kMinFeasibleNodesPercentageToFind = 5;
  if (live_nodes < kMinFeasibleNodesToFind || percentage >= 100) return live_nodes;
  if (percentage <= 0) {
    percentage = std::max(50 - static_cast<int>(live_nodes / 125), kMinFeasibleNodesPercentageToFind);
  }
  std::size_t n = live_nodes * static_cast<std::size_t>(percentage) / 100;
  return std::max(n, kMinFeasibleNodesToFind);
}

std::string format_fit_error(std::size_t node_count, const std::map<std::string, int>& reasons) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reasons) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out = "0/" + std::to_string(node_count) + " nodes are available";
  if (!parts.empty()) {
    out += ": ";
    for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  }
  return out + ".";
}

}  // namespace scalewright::scheduling
