#include "nodegroups/scale_up.h"

#include <algorithm>
#include <limits>
#include <random>
#include <unordered_map>
#include <utility>

#include "api/saturating.h"
#include "nodegroups/estimator.h"

namespace scalewright::nodegroups {
namespace {

using scheduling::ClusterSnapshot;
using scheduling::kNoNode;
using scheduling::NodeId;

// Upstream's skip reasons (core/scaleup/orchestrator), word for word: they end up in NotTriggerScaleUp events.
constexpr const char* kMaxSizeReached = "max node group size reached";
constexpr const char* kBackedOff = "in backoff after failed scale-up";
// Scalewright's words for the other limits the estimator stops at; upstream logs them without an event reason.
constexpr const char* kMaxTotalReached = "max total nodes in cluster reached";
constexpr const char* kMaxPerScaleUpReached = "max nodes per scale-up reached";

std::int32_t upcoming_nodes(const NodeGroup& group, const ScaleUpInput& input) {
  auto it = input.registered_nodes.find(group.id);
  if (it == input.registered_nodes.end()) return 0;
  return std::max(0, group.target_size - it->second);
}

Node upcoming_node(const NodeGroup& group, std::int32_t n) {
  Node node = group.template_node;
  node.meta.name = "template-node-for-" + group.id + "-upcoming-" + std::to_string(n);
  node.meta.labels.set(Symbol(well_known::hostname), Symbol(node.meta.name));
  return node;
}

// "max cluster cpu, memory limit reached" when one more node of `group` would break --cores-total or
// --memory-total; empty when it would not.
std::string resource_limit_reason(const NodeGroup& group, const ClusterTotals& totals,
                                  const AutoscalerOptions& options) {
  std::vector<std::string> exceeded;
  if (saturating_add(totals.cpu_milli, node_cpu_milli(group.template_node)) > options.cores_total_max_milli()) {
    exceeded.push_back("cpu");
  }
  if (saturating_add(totals.memory_bytes, node_memory_bytes(group.template_node)) >
      options.memory_total_max_bytes()) {
    exceeded.push_back("memory");
  }
  if (exceeded.empty()) return "";
  std::string joined;
  for (const std::string& r : exceeded) joined += (joined.empty() ? "" : ", ") + r;
  return "max cluster " + joined + " limit reached";
}

// Upstream's ReasonsMessage: "<count> <reason>" per distinct reason, sorted, joined with ", ".
std::string reasons_message(const std::map<std::string, int>& reasons) {
  std::vector<std::string> parts;
  for (const auto& [reason, count] : reasons) parts.push_back(std::to_string(count) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

std::string to_string(const ScaleUpInfo& info) {
  return "{" + info.group + " " + std::to_string(info.current_size) + "->" + std::to_string(info.new_size) +
         " (max: " + std::to_string(info.max_size) + ")}";
}

std::string to_string(const std::vector<ScaleUpInfo>& infos) {
  std::string out = "[";
  for (std::size_t i = 0; i < infos.size(); ++i) out += (i ? " " : "") + to_string(infos[i]);
  return out + "]";
}

std::string_view to_string(PodOutcome outcome) {
  switch (outcome) {
    case PodOutcome::TooNew: return "TooNew";
    case PodOutcome::FitsExistingNode: return "FitsExistingNode";
    case PodOutcome::FitsUpcomingNode: return "FitsUpcomingNode";
    case PodOutcome::TriggeredScaleUp: return "TriggeredScaleUp";
    case PodOutcome::NoScaleUp: return "NoScaleUp";
  }
  return "Unknown";
}

std::vector<ScaleUpInfo> balance_scale_up(std::vector<ScaleUpInfo> groups, std::int32_t new_nodes) {
  std::vector<ScaleUpInfo> open;
  std::int64_t room = 0;
  for (ScaleUpInfo& g : groups) {
    if (g.current_size >= g.max_size) continue;  // already full
    g.new_size = g.current_size;
    room += g.max_size - g.current_size;
    open.push_back(std::move(g));
  }
  new_nodes = static_cast<std::int32_t>(std::min<std::int64_t>(new_nodes, room));
  // Smallest first; stable, so equal groups keep the caller's order (the chosen group first).
  std::stable_sort(open.begin(), open.end(),
                   [](const ScaleUpInfo& a, const ScaleUpInfo& b) { return a.current_size < b.current_size; });
  // Upstream's loop: [start, end) holds the groups with room; `current` walks a run of equal-sized groups,
  // growing each by one, then returns to the start of the run. A full group is swapped out of the run.
  std::size_t start = 0;
  std::size_t current = 0;
  while (new_nodes > 0) {
    ScaleUpInfo& info = open[current];
    if (info.new_size < info.max_size) {
      ++info.new_size;
      --new_nodes;
    } else {
      std::swap(open[start], open[current]);
      ++start;
    }
    const ScaleUpInfo& now_at = open[current];
    if (current + 1 < open.size() && now_at.new_size > open[current + 1].new_size) {
      ++current;
    } else {
      current = start;
    }
  }
  std::vector<ScaleUpInfo> grown;
  for (ScaleUpInfo& info : open) {
    if (info.new_size != info.current_size) grown.push_back(std::move(info));
  }
  return grown;
}

ClusterTotals cluster_totals(const ClusterSnapshot& snapshot, const ScaleUpInput& input) {
  ClusterTotals totals;
  for (const auto& info : snapshot.nodes()) {
    if (info.removed) continue;
    ++totals.nodes;
    totals.cpu_milli = saturating_add(totals.cpu_milli, node_cpu_milli(*info.node));
    totals.memory_bytes = saturating_add(totals.memory_bytes, node_memory_bytes(*info.node));
  }
  for (const NodeGroup& group : input.groups) {
    const std::int32_t n = upcoming_nodes(group, input);
    totals.nodes += n;
    totals.cpu_milli = saturating_add(totals.cpu_milli, saturating_mul(n, node_cpu_milli(group.template_node)));
    totals.memory_bytes =
        saturating_add(totals.memory_bytes, saturating_mul(n, node_memory_bytes(group.template_node)));
  }
  return totals;
}

ScaleUpDecision decide_scale_up(ClusterSnapshot& snapshot, const ScaleUpInput& input,
                                const AutoscalerOptions& options, const ExpanderConfig& expander,
                                const NodeGroupBackoff& backoff, const scheduling::Scheduler& scheduler) {
  ScaleUpDecision out;
  const auto& pending = input.unschedulable;
  out.pods.resize(pending.size());
  std::unordered_map<const Pod*, std::size_t> index_of;
  std::vector<std::size_t> eligible;
  for (std::size_t i = 0; i < pending.size(); ++i) {
    out.pods[i].pod = pending[i].pod->meta.key();
    index_of[pending[i].pod.get()] = i;
    if (input.now - pending[i].created < options.new_pod_scale_up_delay) {
      out.pods[i].outcome = PodOutcome::TooNew;
      out.pods[i].reason = "younger than --new-pod-scale-up-delay=" + format_duration(options.new_pod_scale_up_delay);
    } else {
      eligible.push_back(i);
    }
  }
  if (eligible.empty()) return out;

  const ClusterTotals totals = input.totals ? *input.totals : cluster_totals(snapshot, input);
  const std::size_t registered_count = snapshot.live_node_count();

  snapshot.fork();
  // Upcoming nodes first: capacity already on its way takes pods before anything new is bought.
  std::vector<bool> is_upcoming;
  for (const NodeGroup& group : input.groups) {
    const std::int32_t n = upcoming_nodes(group, input);
    for (std::int32_t k = 0; k < n; ++k) {
      const NodeId id = snapshot.add_node(upcoming_node(group, k));
      if (id >= is_upcoming.size()) is_upcoming.resize(id + 1, false);
      is_upcoming[id] = true;
    }
  }

  // Pods that fit on existing or upcoming nodes, higher priority first, as upstream's filter-out-schedulable.
  std::stable_sort(eligible.begin(), eligible.end(), [&](std::size_t a, std::size_t b) {
    return pending[a].pod->priority() > pending[b].pod->priority();
  });
  std::vector<std::shared_ptr<const Pod>> ordered;
  for (std::size_t i : eligible) ordered.push_back(pending[i].pod);
  std::vector<std::shared_ptr<const Pod>> remaining;
  for (const PodGroup& cls : group_pending_pods(ordered)) {
    NodeId start = 0;
    bool exhausted = false;  // a member fit nowhere: so will the identical ones after it
    for (const auto& pod : cls.pods) {
      const NodeId id = exhausted ? kNoNode : scheduler.find_fit(snapshot, *pod, start);
      if (id == kNoNode) {
        exhausted = true;
        remaining.push_back(pod);
        continue;
      }
      snapshot.add_pod(pod, id);
      PodDecision& d = out.pods[index_of[pod.get()]];
      const bool upcoming = id < is_upcoming.size() && is_upcoming[id];
      d.outcome = upcoming ? PodOutcome::FitsUpcomingNode : PodOutcome::FitsExistingNode;
      d.node = snapshot.node(id).name();
      d.reason = upcoming ? "fits on a node that is still coming up" : "fits on an existing node";
      start = id;
    }
  }
  if (remaining.empty()) {
    snapshot.revert();
    return out;
  }

  const std::vector<PodGroup> classes = group_pending_pods(remaining);
  auto finish_without_scale_up = [&](const std::vector<std::map<std::string, int>>& reasons,
                                     const std::string& fallback) {
    for (std::size_t c = 0; c < classes.size(); ++c) {
      const std::string message = reasons_message(reasons[c]);
      for (const auto& pod : classes[c].pods) {
        PodDecision& d = out.pods[index_of[pod.get()]];
        d.outcome = PodOutcome::NoScaleUp;
        d.reason = message.empty() ? fallback : message;
        if (!message.empty()) {
          out.events.push_back({d.pod, "Normal", "NotTriggerScaleUp", "pod didn't trigger scale-up: " + message});
        }
      }
    }
  };
  std::vector<std::map<std::string, int>> reasons(classes.size());

  if (options.max_nodes_total > 0 && totals.nodes >= options.max_nodes_total) {
    // Upstream stops here with a log line and no per-pod event.
    for (const auto& cls : classes) {
      for (const auto& pod : cls.pods) {
        PodDecision& d = out.pods[index_of[pod.get()]];
        d.reason = std::string(kMaxTotalReached) + " (--max-nodes-total=" + std::to_string(options.max_nodes_total) +
                   ")";
      }
    }
    snapshot.revert();
    return out;
  }

  // Which groups may grow at all.
  const std::size_t group_count = input.groups.size();
  std::vector<std::string> skip(group_count);
  for (std::size_t g = 0; g < group_count; ++g) {
    const NodeGroup& group = input.groups[g];
    if (backoff.is_backed_off(group.id, input.now)) {
      skip[g] = kBackedOff;
    } else if (group.target_size >= group.max_size) {
      skip[g] = kMaxSizeReached;
    } else {
      skip[g] = resource_limit_reason(group, totals, options);
    }
    if (!skip[g].empty()) {
      for (auto& r : reasons) ++r[skip[g]];
    }
  }
  // With balancing, a group's estimate may use its similar groups' room too: the nodes are split among them.
  std::vector<std::vector<std::size_t>> similar(group_count);
  if (options.balance_similar_node_groups) {
    for (std::size_t a = 0; a < group_count; ++a) {
      for (std::size_t b = 0; b < group_count; ++b) {
        if (a != b && skip[a].empty() && skip[b].empty() &&
            similar_node_groups(input.groups[a], input.groups[b], options.balancing_ignore_labels)) {
          similar[a].push_back(b);
        }
      }
    }
  }

  const std::int64_t total_room = options.max_nodes_total > 0 ? options.max_nodes_total - totals.nodes
                                                              : std::numeric_limits<std::int32_t>::max();
  std::vector<std::vector<bool>> rejected(group_count, std::vector<bool>(classes.size(), false));
  std::vector<std::size_t> option_group;
  for (std::size_t g = 0; g < group_count; ++g) {
    if (!skip[g].empty()) continue;
    const NodeGroup& group = input.groups[g];
    std::int64_t size_room = group.max_size - group.target_size;
    for (std::size_t s : similar[g]) size_room += input.groups[s].max_size - input.groups[s].target_size;
    const std::int64_t limit = std::min({size_room, total_room, std::int64_t{options.max_nodes_per_scaleup}});
    Estimate estimate = estimate_nodes(classes, group, snapshot, scheduler, static_cast<std::int32_t>(limit));
    for (const TemplateRejection& rej : estimate.rejected) {
      rejected[g][rej.group] = true;
      for (const std::string& r : rej.reasons) ++reasons[rej.group][r];
    }
    if (estimate.limit_reached) {
      const char* why = limit == size_room ? kMaxSizeReached
                        : limit == total_room ? kMaxTotalReached
                                              : kMaxPerScaleUpReached;
      for (std::size_t c = 0; c < classes.size(); ++c) {
        if (!rejected[g][c] && estimate.placed_per_group[c] < static_cast<std::int32_t>(classes[c].pods.size())) {
          ++reasons[c][why];
        }
      }
    }
    if (estimate.node_count > 0) {
      out.options.push_back({&group, estimate.node_count, std::move(estimate.pods), ""});
      option_group.push_back(g);
    }
  }
  if (out.options.empty()) {
    finish_without_scale_up(reasons, "no node group can take it");
    snapshot.revert();
    return out;
  }

  std::mt19937_64 rng(options.random_seed);
  const ExpanderContext context{registered_count};
  out.chosen_option = choose_option(out.options, expander, context, rng);
  if (!out.chosen_option) {
    finish_without_scale_up(reasons, "the expanders chose no node group");
    snapshot.revert();
    return out;
  }
  const Option& best = out.options[*out.chosen_option];
  const std::size_t best_group = option_group[*out.chosen_option];
  const NodeGroup& chosen = input.groups[best_group];

  // Caps on the count: --max-nodes-total, then the cores and memory totals for the chosen group's node shape.
  std::int64_t new_nodes = std::min<std::int64_t>(best.node_count, total_room);
  if (const std::int64_t cpu = node_cpu_milli(chosen.template_node); cpu > 0) {
    new_nodes = std::min(new_nodes, saturating_sub(options.cores_total_max_milli(), totals.cpu_milli) / cpu);
  }
  if (const std::int64_t memory = node_memory_bytes(chosen.template_node); memory > 0) {
    new_nodes = std::min(new_nodes, saturating_sub(options.memory_total_max_bytes(), totals.memory_bytes) / memory);
  }

  std::vector<ScaleUpInfo> targets{{chosen.id, chosen.target_size, chosen.target_size, chosen.max_size}};
  if (options.balance_similar_node_groups) {
    // A similar group joins only if it can take every kind of pod the chosen option places.
    std::unordered_map<const Pod*, std::size_t> class_of;
    for (std::size_t c = 0; c < classes.size(); ++c) {
      for (const auto& pod : classes[c].pods) class_of[pod.get()] = c;
    }
    std::vector<bool> placed_class(classes.size(), false);
    for (const auto& pod : best.pods) placed_class[class_of[pod.get()]] = true;
    for (std::size_t s : similar[best_group]) {
      bool takes_all = true;
      for (std::size_t c = 0; c < classes.size(); ++c) takes_all = takes_all && !(placed_class[c] && rejected[s][c]);
      const NodeGroup& other = input.groups[s];
      if (takes_all) targets.push_back({other.id, other.target_size, other.target_size, other.max_size});
    }
  }
  out.scale_ups =
      balance_scale_up(std::move(targets), static_cast<std::int32_t>(std::max<std::int64_t>(new_nodes, 0)));
  if (out.scale_ups.empty()) {
    finish_without_scale_up(reasons, "the cluster's limits leave no room for " + chosen.id);
    snapshot.revert();
    return out;
  }

  const std::string triggered = "pod triggered scale-up: " + to_string(out.scale_ups);
  std::vector<bool> triggered_pod(pending.size(), false);
  for (const auto& pod : best.pods) {
    const std::size_t i = index_of[pod.get()];
    triggered_pod[i] = true;
    PodDecision& d = out.pods[i];
    d.outcome = PodOutcome::TriggeredScaleUp;
    d.node_group = chosen.id;
    d.reason = "a new node of " + chosen.id + " will take it: " + to_string(out.scale_ups);
  }
  // Events in the order the pods came.
  for (std::size_t i = 0; i < pending.size(); ++i) {
    if (triggered_pod[i]) out.events.push_back({out.pods[i].pod, "Normal", "TriggeredScaleUp", triggered});
  }
  // Which other options would have taken a pod, for the reason of pods left without an upstream reason.
  std::unordered_map<const Pod*, std::string> other_options;
  for (std::size_t o = 0; o < out.options.size(); ++o) {
    if (o == *out.chosen_option) continue;
    for (const auto& pod : out.options[o].pods) {
      std::string& ids = other_options[pod.get()];
      ids += (ids.empty() ? "" : ", ") + out.options[o].group->id;
    }
  }
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const std::string message = reasons_message(reasons[c]);
    for (const auto& pod : classes[c].pods) {
      const std::size_t i = index_of[pod.get()];
      if (triggered_pod[i]) continue;
      PodDecision& d = out.pods[i];
      d.outcome = PodOutcome::NoScaleUp;
      if (!message.empty()) {
        d.reason = message;
      } else if (auto it = other_options.find(pod.get()); it != other_options.end()) {
        d.reason = "the expanders chose " + chosen.id + " over " + it->second + "; considered again next loop";
      } else {
        // Fits an empty template but not next to the pods placed before it (topology spread, anti-affinity).
        d.reason = "no new node of this scale-up can take it next to the pods placed before it; considered again "
                   "next loop";
      }
      if (!message.empty()) {
        out.events.push_back({d.pod, "Normal", "NotTriggerScaleUp", "pod didn't trigger scale-up: " + message});
      }
    }
  }
  snapshot.revert();
  return out;
}

}  // namespace scalewright::nodegroups
