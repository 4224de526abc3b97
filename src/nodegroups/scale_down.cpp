#include "nodegroups/scale_down.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "api/saturating.h"
#include "api/wording.h"
#include "scheduling/scheduler.h"

namespace scalewright::nodegroups {

namespace {

using scheduling::ClusterSnapshot;
using scheduling::kNoNode;
using scheduling::NodeId;
using scheduling::NodeInfo;

const Symbol& gpu_symbol() {
  static const Symbol s{std::string(kGpuResource)};
  return s;
}

bool being_deleted(const Node& node) {
  return std::any_of(node.taints.begin(), node.taints.end(),
                     [](const Taint& t) { return t.key == kToBeDeletedTaint; });
}

double ratio(std::int64_t requested, std::int64_t allocatable) {
  return static_cast<double>(requested) / static_cast<double>(allocatable);
}

// A node the eligibility checks passed, waiting for the removal simulation.
struct Candidate {
  NodeId id = kNoNode;
  std::string group;
  NodeUtilization utilization;
};

}  // namespace

std::string_view to_string(UnremovableReason reason) {
  switch (reason) {
    case UnremovableReason::NoReason: return "NoReason";
    case UnremovableReason::ScaleDownDisabledAnnotation: return "ScaleDownDisabledAnnotation";
    case UnremovableReason::ScaleDownUnreadyDisabled: return "ScaleDownUnreadyDisabled";
    case UnremovableReason::NotAutoscaled: return "NotAutoscaled";
    case UnremovableReason::NotUnneededLongEnough: return "NotUnneededLongEnough";
    case UnremovableReason::NotUnreadyLongEnough: return "NotUnreadyLongEnough";
    case UnremovableReason::NodeGroupMinSizeReached: return "NodeGroupMinSizeReached";
    case UnremovableReason::MinimalResourceLimitExceeded: return "MinimalResourceLimitExceeded";
    case UnremovableReason::CurrentlyBeingDeleted: return "CurrentlyBeingDeleted";
    case UnremovableReason::NotUnderutilized: return "NotUnderutilized";
    case UnremovableReason::NoPlaceToMovePods: return "NoPlaceToMovePods";
    case UnremovableReason::BlockedByPod: return "BlockedByPod";
    case UnremovableReason::UnexpectedError: return "UnexpectedError";
  }
  return "UnexpectedError";
}

std::string_view to_string(ScaleDownStatus status) {
  switch (status) {
    case ScaleDownStatus::ScaleDownNotTried: return "ScaleDownNotTried";
    case ScaleDownStatus::ScaleDownInCooldown: return "ScaleDownInCooldown";
    case ScaleDownStatus::ScaleDownNoUnneeded: return "ScaleDownNoUnneeded";
    case ScaleDownStatus::ScaleDownNoNodeDeleted: return "ScaleDownNoNodeDeleted";
    case ScaleDownStatus::ScaleDownNodeDeleteStarted: return "ScaleDownNodeDeleteStarted";
  }
  return "ScaleDownNotTried";
}

namespace {

// "cpu 31% (memory 12%)": the resource compared with the threshold first.
std::string describe_utilization(const NodeUtilization& u) {
  if (u.gpu_node) return fmt::format("{} {:.0f}%", u.resource, 100 * u.gpu);
  const bool cpu = u.resource == "cpu";
  return fmt::format("{} {:.0f}% ({} {:.0f}%)", u.resource, 100 * u.utilization, cpu ? "memory" : "cpu",
                     100 * (cpu ? u.memory : u.cpu));
}

// "--scale-down-utilization-threshold 0.50", or the gpu flag for a GPU node: the threshold `u` is held against;
// "the group's autoscaling option scaledownutilizationthreshold 0.30" where the node's group sets its own.
std::string threshold_of(const NodeUtilization* u, const AutoscalerOptions& options, const NodeGroup* group) {
  const bool gpu = u != nullptr && u->gpu_node;
  const std::optional<double> own = group == nullptr ? std::nullopt
                                     : gpu            ? group->options.scale_down_gpu_utilization_threshold
                                                      : group->options.scale_down_utilization_threshold;
  if (own) {
    return fmt::format("the group's autoscaling option {} {:.2f}",
                       to_string(gpu ? GroupOption::ScaleDownGpuUtilizationThreshold
                                     : GroupOption::ScaleDownUtilizationThreshold),
                       *own);
  }
  return fmt::format("--scale-down-{}utilization-threshold {:.2f}", gpu ? "gpu-" : "",
                     gpu ? options.scale_down_gpu_utilization_threshold : options.scale_down_utilization_threshold);
}

// "--scale-down-unneeded-time 10m0s", or "the group's autoscaling option scaledownunneededtime 30s" (the unready
// time for a NotReady node): how long the node must stay unneeded.
std::string wait_of(bool ready, const AutoscalerOptions& options, const NodeGroup* group) {
  const std::optional<Duration> own = group == nullptr ? std::nullopt
                                       : ready          ? group->options.scale_down_unneeded_time
                                                        : group->options.scale_down_unready_time;
  if (own) {
    return fmt::format("the group's autoscaling option {} {}",
                       to_string(ready ? GroupOption::ScaleDownUnneededTime : GroupOption::ScaleDownUnreadyTime),
                       format_duration(*own));
  }
  return fmt::format("--scale-down-{}-time {}", ready ? "unneeded" : "unready",
                     format_duration(ready ? options.scale_down_unneeded_time : options.scale_down_unready_time));
}

}  // namespace

std::string explain_unremovable(const UnremovableNode& node, const AutoscalerOptions& options,
                                const NodeGroup* group) {
  std::string why;
  switch (node.reason) {
    case UnremovableReason::NotUnderutilized:
      why = fmt::format("{} is not below {}",
                        node.utilization ? describe_utilization(*node.utilization) : "utilization",
                        threshold_of(node.utilization ? &*node.utilization : nullptr, options, group));
      break;
    case UnremovableReason::NotUnneededLongEnough:
      why = "unneeded, but not yet for " + wait_of(true, options, group);
      break;
    case UnremovableReason::NotUnreadyLongEnough:
      why = "unready and unneeded, but not yet for " + wait_of(false, options, group);
      break;
    case UnremovableReason::NodeGroupMinSizeReached: why = "its node group is at its minimum size"; break;
    case UnremovableReason::MinimalResourceLimitExceeded:
      why = "the cluster would go below --cores-total or --memory-total";
      break;
    case UnremovableReason::NoPlaceToMovePods: why = "its pods would not all fit on the other nodes"; break;
    case UnremovableReason::BlockedByPod: why = node.blocking_pod ? node.blocking_pod->message : "a pod"; break;
    case UnremovableReason::ScaleDownDisabledAnnotation:
      why = "annotated cluster-autoscaler.kubernetes.io/scale-down-disabled";
      break;
    case UnremovableReason::ScaleDownUnreadyDisabled:
      why = "not Ready, and --scale-down-unready-enabled=false keeps unready nodes";
      break;
    case UnremovableReason::UnexpectedError:
      why = "its utilization cannot be computed: no cpu or memory is allocatable once the pods it does not count "
            "are taken out";
      break;
    case UnremovableReason::NotAutoscaled: why = "it belongs to no node group"; break;
    case UnremovableReason::CurrentlyBeingDeleted: why = "it is being deleted"; break;
    case UnremovableReason::NoReason: why = "no reason recorded"; break;
  }
  return why;
}

std::string explain_removal(const UnneededNode& node, const AutoscalerOptions& options, const NodeGroup* group,
                            Instant now) {
  std::string out = fmt::format("{} below {}, unneeded for {} (since {})", describe_utilization(node.utilization),
                                threshold_of(&node.utilization, options, group), format_duration(now - node.since),
                                format_time(node.since));
  if (node.empty) return out + "; no pod to move";
  std::vector<std::string> moves;
  for (const PodMove& move : node.pods_to_move) {
    moves.push_back(fmt::format("{} to {}", move.pod->meta.key(), move.destination));
  }
  return out + fmt::format("; {} move: {}", plural(moves.size(), "pod"), first_few(moves));
}

const UnremovableNode* ScaleDownResult::find_unremovable(std::string_view node) const {
  for (const auto& u : unremovable) {
    if (u.node == node) return &u;
  }
  return nullptr;
}

const UnneededNode* ScaleDownResult::find_unneeded(std::string_view node) const {
  for (const auto& u : unneeded) {
    if (u.node == node) return &u;
  }
  return nullptr;
}

bool ready_for_scale_down(const Node& node) {
  if (!node.is_ready()) return false;
  return std::none_of(node.conditions.begin(), node.conditions.end(), [](const NodeCondition& c) {
    return (c.type == "DiskPressure" || c.type == "NetworkUnavailable") && c.status == "True";
  });
}

std::optional<NodeUtilization> node_utilization(const NodeInfo& node, const AutoscalerOptions& options,
                                                const GroupAutoscalingOptions& group, Instant now) {
  const ResourceList& allocatable = node.allocatable;
  NodeUtilization out;
  out.gpu_node = allocatable.get(gpu_symbol()) > 0;
  const bool ignore_daemonsets = ignore_daemonsets_utilization(group, options);
  // Requests of the pods that count, and of those left out (they also leave the allocatable, as upstream does).
  std::int64_t cpu = 0, memory = 0, gpu = 0, skipped_cpu = 0, skipped_memory = 0, skipped_gpu = 0;
  for (const auto& placed : node.pods) {
    const Pod& pod = *placed.pod;
    if (is_long_terminating(pod, now)) continue;
    bool skip = (ignore_daemonsets && pod.is_daemonset_pod()) ||
                (options.ignore_mirror_pods_utilization && is_mirror_pod(pod));
    std::int64_t pod_gpu = out.gpu_node ? placed.requests.get(gpu_symbol()) : 0;
    if (skip) {
      skipped_cpu = saturating_add(skipped_cpu, placed.requests.cpu_milli());
      skipped_memory = saturating_add(skipped_memory, placed.requests.memory());
      skipped_gpu = saturating_add(skipped_gpu, pod_gpu);
    } else {
      cpu = saturating_add(cpu, placed.requests.cpu_milli());
      memory = saturating_add(memory, placed.requests.memory());
      gpu = saturating_add(gpu, pod_gpu);
    }
  }
  if (out.gpu_node) {
    std::int64_t denominator = saturating_sub(allocatable.get(gpu_symbol()), skipped_gpu);
    if (denominator <= 0) return std::nullopt;
    out.gpu = ratio(gpu, denominator);
    out.utilization = out.gpu;
    out.resource = std::string(kGpuResource);
    return out;
  }
  std::int64_t cpu_denominator = saturating_sub(allocatable.cpu_milli(), skipped_cpu);
  std::int64_t memory_denominator = saturating_sub(allocatable.memory(), skipped_memory);
  if (cpu_denominator <= 0 || memory_denominator <= 0) return std::nullopt;
  out.cpu = ratio(cpu, cpu_denominator);
  out.memory = ratio(memory, memory_denominator);
  // Ties go to cpu, as upstream reports it.
  out.utilization = std::max(out.cpu, out.memory);
  out.resource = out.memory > out.cpu ? "memory" : "cpu";
  return out;
}

bool scale_down_in_cooldown(const ScaleDownInput& input, const AutoscalerOptions& options, Instant now) {
  auto within = [now](const std::optional<Instant>& at, Duration delay) { return at && *at + delay > now; };
  Duration after_delete = options.scale_down_delay_after_delete.value_or(options.scan_interval);
  return within(input.last_scale_up, options.scale_down_delay_after_add) ||
         within(input.last_scale_down_delete, after_delete) ||
         within(input.last_scale_down_failure, options.scale_down_delay_after_failure);
}

ScaleDownResult ScaleDownPlanner::update(ClusterSnapshot& snapshot, const ScaleDownInput& input,
                                         const AutoscalerOptions& options, Instant now) {
  ScaleDownResult result;
  if (!options.scale_down_enabled) {
    clear();
    return result;
  }
  // The simulation reads the cluster and which nodes were unneeded (they go first): while both stand as at the last
  // update, its answer stands too, and a cluster standing still costs no simulation per scan.
  std::vector<std::string> unneeded_before;
  for (const auto& [node, since] : unneeded_since_) unneeded_before.push_back(node);
  if (input.cluster_version && removals_ && removals_->cluster_version == *input.cluster_version &&
      removals_->unneeded_before == unneeded_before) {
    ++reused_;
  } else {
    removals_ = simulate_removals(snapshot, input, options, now);
    removals_->cluster_version = input.cluster_version;
    removals_->unneeded_before = std::move(unneeded_before);
  }
  result.unremovable = removals_->unremovable;
  result.unneeded = removals_->unneeded;
  for (UnneededNode& u : result.unneeded) {
    auto since = unneeded_since_.find(u.node);
    u.since = since == unneeded_since_.end() ? now : since->second;
  }
  std::unordered_map<std::string, const NodeGroup*> groups;
  for (const NodeGroup& g : input.groups) groups.emplace(g.id, &g);

  // A node needed again, even for one scan, starts over.
  unneeded_since_.clear();
  for (const UnneededNode& u : result.unneeded) unneeded_since_.emplace(u.node, u.since);

  if (scale_down_in_cooldown(input, options, now)) {
    result.status = ScaleDownStatus::ScaleDownInCooldown;
    return result;
  }

  // RemovableAt: long enough unneeded (or unready), group above its min size, cluster above its minimal resources.
  std::map<std::string, std::int32_t> group_size;
  std::int32_t deletions_in_progress = 0;
  for (const NodeGroup& g : input.groups) {
    auto in_progress = input.deletions_in_progress.find(g.id);
    std::int32_t deleting = in_progress == input.deletions_in_progress.end() ? 0 : in_progress->second;
    group_size[g.id] = g.target_size - deleting;
    deletions_in_progress += deleting;
  }
  std::int64_t cores_total = 0, memory_total = 0;
  for (const NodeInfo& info : snapshot.nodes()) {
    if (info.removed || being_deleted(*info.node)) continue;
    cores_total = saturating_add(cores_total, info.node->capacity.cpu_milli());
    memory_total = saturating_add(memory_total, info.node->capacity.memory());
  }
  std::int64_t cores_left = saturating_sub(cores_total, options.cores_total_min_milli());
  std::int64_t memory_left = saturating_sub(memory_total, options.memory_total_min_bytes());

  std::vector<const UnneededNode*> removable_empty, removable_drain;
  for (bool empty : {true, false}) {
    for (const UnneededNode& u : result.unneeded) {
      if (u.empty != empty) continue;
      auto reject = [&](UnremovableReason reason) {
        result.unremovable.push_back({u.node, reason, std::nullopt, u.utilization});
      };
      // Readiness is read now, against the same since-time: a node that was unneeded while Ready and then went
      // NotReady waits the unready time from when it became unneeded, as upstream's RemovableAt does.
      const Node& node = *snapshot.node(snapshot.find_node(u.node)).node;
      const NodeGroup& group = *groups.at(u.group);
      const bool ready = ready_for_scale_down(node);
      // The group's own times where it sets them (its autoscaling options), else the flags'.
      const Duration wait = ready ? scale_down_unneeded_time(group.options, options)
                                  : scale_down_unready_time(group.options, options);
      if (!(u.since + wait < now)) {
        reject(ready ? UnremovableReason::NotUnneededLongEnough : UnremovableReason::NotUnreadyLongEnough);
        continue;
      }
      if (group_size[u.group] <= group.min_size) {
        reject(UnremovableReason::NodeGroupMinSizeReached);
        continue;
      }
      std::int64_t cpu = node.capacity.cpu_milli(), memory = node.capacity.memory();
      if (cpu > cores_left || memory > memory_left) {
        reject(UnremovableReason::MinimalResourceLimitExceeded);
        continue;
      }
      cores_left -= cpu;
      memory_left -= memory;
      --group_size[u.group];
      (empty ? removable_empty : removable_drain).push_back(&u);
    }
  }

  // Budgets: empty nodes first, in bulk; then as many drains as --max-drain-parallelism leaves room for.
  std::int32_t parallel_left = std::max(0, options.max_scale_down_parallelism - deletions_in_progress);
  std::int32_t empty_quota = std::min(parallel_left, options.max_empty_bulk_delete);
  for (const UnneededNode* u : removable_empty) {
    if (static_cast<std::int32_t>(result.delete_empty.size()) >= empty_quota) break;
    result.delete_empty.push_back(*u);
  }
  parallel_left -= static_cast<std::int32_t>(result.delete_empty.size());
  std::int32_t drain_quota =
      std::min(parallel_left, std::max(0, options.max_drain_parallelism - input.drains_in_progress));
  for (const UnneededNode* u : removable_drain) {
    if (static_cast<std::int32_t>(result.delete_drain.size()) >= drain_quota) break;
    result.delete_drain.push_back(*u);
  }

  if (!result.delete_empty.empty() || !result.delete_drain.empty()) {
    result.status = ScaleDownStatus::ScaleDownNodeDeleteStarted;
  } else if (result.unneeded.empty()) {
    result.status = ScaleDownStatus::ScaleDownNoUnneeded;
  } else {
    result.status = ScaleDownStatus::ScaleDownNoNodeDeleted;
  }
  return result;
}

ScaleDownPlanner::Removals ScaleDownPlanner::simulate_removals(ClusterSnapshot& snapshot, const ScaleDownInput& input,
                                                               const AutoscalerOptions& options, Instant now) const {
  Removals out;
  std::unordered_map<std::string, const NodeGroup*> groups;
  for (const NodeGroup& g : input.groups) groups.emplace(g.id, &g);
  const DrainOptions drain_options{options.skip_nodes_with_local_storage, options.skip_nodes_with_system_pods,
                                   options.skip_nodes_with_custom_controller_pods};

  // Eligibility: annotations, group membership and utilization, no simulation yet.
  std::vector<Candidate> previously_unneeded, others;
  for (NodeId id = 0; id < snapshot.nodes().size(); ++id) {
    const NodeInfo& info = snapshot.node(id);
    if (info.removed) continue;
    const Node& node = *info.node;
    auto reject = [&](UnremovableReason reason, std::optional<NodeUtilization> utilization = std::nullopt) {
      out.unremovable.push_back({info.name(), reason, std::nullopt, std::move(utilization)});
    };
    if (being_deleted(node)) {
      reject(UnremovableReason::CurrentlyBeingDeleted);
      continue;
    }
    if (scale_down_disabled(node)) {
      reject(UnremovableReason::ScaleDownDisabledAnnotation);
      continue;
    }
    auto group_it = input.group_of_node.find(info.name());
    auto found = group_it == input.group_of_node.end() ? groups.end() : groups.find(group_it->second);
    if (found == groups.end()) {
      reject(UnremovableReason::NotAutoscaled);
      continue;
    }
    const NodeGroup& group = *found->second;
    if (!options.scale_down_unready_enabled && !ready_for_scale_down(node)) {
      reject(UnremovableReason::ScaleDownUnreadyDisabled);
      continue;
    }
    // A NotReady node must be underutilized too, as upstream checks it: only its wait differs.
    std::optional<NodeUtilization> utilization = node_utilization(info, options, group.options, now);
    if (!utilization) {
      reject(UnremovableReason::UnexpectedError);
      continue;
    }
    // The group's own threshold where it sets one (its autoscaling options), else the flag's.
    const double threshold = scale_down_utilization_threshold(group.options, options, utilization->gpu_node);
    // Upstream keeps a node whose utilization is at the threshold: only strictly below is underutilized.
    if (utilization->utilization >= threshold) {
      reject(UnremovableReason::NotUnderutilized, utilization);
      continue;
    }
    Candidate candidate{id, group_it->second, *utilization};
    (unneeded_since_.count(info.name()) ? previously_unneeded : others).push_back(std::move(candidate));
  }

  // Removal simulation (FindNodesToRemove): each candidate in a fork of the snapshot as left by the ones before.
  std::vector<PdbBudget> budgets = pdb_budgets(snapshot, input.pdbs, input.pending_pods);
  scheduling::Scheduler scheduler;
  NodeId hint = 0;
  snapshot.fork();
  for (const auto* list : {&previously_unneeded, &others}) {
    for (const Candidate& candidate : *list) {
      const NodeInfo& info = snapshot.node(candidate.id);
      std::string name = info.name();
      std::vector<std::shared_ptr<const Pod>> pods;
      pods.reserve(info.pods.size());
      for (const auto& placed : info.pods) pods.push_back(placed.pod);
      DrainPlan plan = plan_drain(pods, budgets, drain_options, now);
      if (!plan.drainable()) {
        out.unremovable.push_back({name, UnremovableReason::BlockedByPod, plan.blocking, candidate.utilization});
        continue;
      }
      UnneededNode unneeded{name, candidate.group, now, plan.pods_to_move.empty(), {}, plan.daemonset_pods,
                            candidate.utilization};
      snapshot.fork();
      snapshot.remove_node(candidate.id);
      bool all_placed = true;
      for (const auto& pod : plan.pods_to_move) {
        // The pod as its controller would recreate it: not bound, or the scheduler's NodeName filter would keep
        // it where it is.
        std::shared_ptr<const Pod> unbound = pod;
        if (pod->is_bound()) {
          auto copy = std::make_shared<Pod>(*pod);
          copy->spec.node_name.clear();
          unbound = std::move(copy);
        }
        NodeId target = scheduler.find_fit(snapshot, *unbound, hint);
        if (target == kNoNode) {
          all_placed = false;
          break;
        }
        snapshot.add_pod(unbound, target);
        hint = target;  // the next pod most likely fits where this one did
        unneeded.pods_to_move.push_back({pod, snapshot.node(target).name()});
      }
      if (!all_placed) {
        snapshot.revert();
        out.unremovable.push_back({name, UnremovableReason::NoPlaceToMovePods, std::nullopt,
                                      candidate.utilization});
        continue;
      }
      snapshot.commit();
      for (const auto& pod : plan.pods_to_move) {
        if (const EvictionVerdict verdict = may_evict(*pod, budgets); verdict.spends) {
          --budgets[*verdict.budget].disruptions_allowed;
        }
      }
      out.unneeded.push_back(std::move(unneeded));
    }
  }
  snapshot.revert();
  return out;
}

}  // namespace scalewright::nodegroups
