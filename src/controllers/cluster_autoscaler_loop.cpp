#include "controllers/cluster_autoscaler_loop.h"

#include <algorithm>

#include <fmt/format.h>

#include "nodegroups/status.h"

namespace scalewright::controllers {

Result<ClusterAutoscalerLoop> ClusterAutoscalerLoop::create(nodegroups::AutoscalerOptions options,
                                                            std::vector<nodegroups::NodeGroup> groups,
                                                            std::optional<nodegroups::PriorityConfig> priorities,
                                                            const std::string& flags_origin) {
  Result<nodegroups::ExpanderConfig> expander =
      nodegroups::make_expander_config(options.expanders, std::move(priorities));
  if (!expander) {
    return Error{fmt::format("{}: --expander: {} (the priority expander reads ConfigMap kube-system/{}, "
                             "data.priorities)",
                             flags_origin, expander.error().message, nodegroups::kPriorityConfigMap)};
  }
  return ClusterAutoscalerLoop(std::move(options), std::move(groups), std::move(*expander));
}

ClusterAutoscalerLoop::ClusterAutoscalerLoop(nodegroups::AutoscalerOptions options,
                                             std::vector<nodegroups::NodeGroup> groups,
                                             nodegroups::ExpanderConfig expander)
    : options_(std::move(options)),
      groups_(std::move(groups)),
      expander_(std::move(expander)),
      backoff_(options_) {
  // The first of a repeated id, as a linear search would find it.
  for (std::size_t i = 0; i < groups_.size(); ++i) index_.emplace(groups_[i].id, i);
}

const nodegroups::NodeGroup* ClusterAutoscalerLoop::group(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &groups_[it->second];
}

nodegroups::NodeGroup* ClusterAutoscalerLoop::find(const std::string& id) {
  return const_cast<nodegroups::NodeGroup*>(std::as_const(*this).group(id));
}

NodeGroupActions ClusterAutoscalerLoop::scan(const NodeGroupScan& scan, Instant now,
                                             std::vector<TimelineEntry>& timeline) {
  NodeGroupActions actions;
  last_scan_ = now;
  scanned_ = true;
  registered_ = scan.registered;
  launching_ = scan.launching;
  unready_ = scan.unready;
  being_deleted_ = scan.deletions_in_progress;
  backoff_.remove_stale(now);

  // Too many unready nodes: CA does nothing until they recover or go, and forgets which nodes were unneeded.
  const bool healthy = !(scan.cluster_unready > options_.ok_total_unready_count &&
                         scan.cluster_unready > options_.max_total_unready_percentage / 100.0 * scan.cluster_nodes);
  if (healthy != cluster_healthy_) {
    cluster_healthy_ = healthy;
    timeline.push_back(
        {now, healthy ? "cluster-healthy" : "cluster-unhealthy",
         healthy ? fmt::format("cluster healthy again ({} of {} nodes unready): scaling resumes", scan.cluster_unready,
                               scan.cluster_nodes)
                 : fmt::format("ClusterUnhealthy: {} of {} nodes unready, more than --ok-total-unready-count={} and "
                               "--max-total-unready-percentage={}% of them: no scale-up or scale-down",
                               scan.cluster_unready, scan.cluster_nodes, options_.ok_total_unready_count,
                               options_.max_total_unready_percentage)});
  }
  if (!healthy) {
    planner_.clear();
    candidates_.clear();
    last_not_triggered_.clear();
    // NodePools, where the scenario has them, may still serve the pods CA will not.
    for (const nodegroups::PendingPod& pod : scan.unschedulable) {
      actions.declined_pods.emplace(pod.pod->meta.key(), "cluster unhealthy");
    }
    return actions;
  }

  // Scale-up: pods the scheduler could not place, against existing, upcoming and new nodes of the groups.
  if (!scan.unschedulable.empty()) {
    nodegroups::ScaleUpInput input;
    input.now = now;
    input.groups = groups_;
    input.registered_nodes = scan.registered;
    input.unschedulable = scan.unschedulable;
    nodegroups::ScaleUpDecision decision =
        nodegroups::decide_scale_up(*scan.snapshot, input, options_, expander_, backoff_, *scan.scheduler);
    std::map<std::string, std::int32_t> not_triggered;  // reason -> pods
    std::int32_t triggered = 0;
    for (const nodegroups::PodDecision& pod : decision.pods) {
      switch (pod.outcome) {
        case nodegroups::PodOutcome::FitsExistingNode:
        case nodegroups::PodOutcome::FitsUpcomingNode: break;
        case nodegroups::PodOutcome::TriggeredScaleUp: ++triggered; break;
        case nodegroups::PodOutcome::NoScaleUp:
          ++not_triggered[pod.reason];
          actions.declined_pods.emplace(pod.pod, pod.reason);
          break;
        case nodegroups::PodOutcome::TooNew: break;
      }
    }
    if (decision.scaled_up()) {
      for (const nodegroups::ScaleUpInfo& info : decision.scale_ups) {
        if (nodegroups::NodeGroup* g = find(info.group)) g->target_size = info.new_size;
      }
      last_scale_up_ = now;
      actions.scale_ups = decision.scale_ups;
      timeline.push_back({now, "scale-up",
                          fmt::format("TriggeredScaleUp: pod triggered scale-up: {} ({} pod{})",
                                      nodegroups::to_string(decision.scale_ups), triggered, triggered == 1 ? "" : "s")});
    }
    // NotTriggerScaleUp, once per reason while the number of pods it holds back stays the same.
    std::map<std::string, std::string> said;
    for (const auto& [reason, pods] : not_triggered) {
      const std::string line = fmt::format("NotTriggerScaleUp: {} pod{} didn't trigger scale-up: {}", pods,
                                           pods == 1 ? "" : "s", reason);
      said[reason] = line;
      auto before = last_not_triggered_.find(reason);
      if (before == last_not_triggered_.end() || before->second != line) {
        timeline.push_back({now, "not-triggered-scale-up", line});
      }
    }
    last_not_triggered_ = std::move(said);
    actions.pod_events = std::move(decision.events);
  } else {
    last_not_triggered_.clear();
  }

  // Scale-down.
  candidates_.clear();
  if (!options_.scale_down_enabled) return actions;
  nodegroups::ScaleDownInput input;
  input.group_of_node = scan.group_of_node;
  input.groups = groups_;
  input.pdbs = scan.pdbs;
  input.pending_pods = scan.pending_pods;
  input.deletions_in_progress = scan.deletions_in_progress;
  input.drains_in_progress = scan.drains_in_progress;
  input.last_scale_up = last_scale_up_;
  input.last_scale_down_delete = last_delete_;
  input.last_scale_down_failure = last_scale_down_failure_;
  input.cluster_version = scan.cluster_version;
  nodegroups::ScaleDownResult result = planner_.update(*scan.snapshot, input, options_, now);
  for (const nodegroups::UnneededNode& n : result.unneeded) ++candidates_[n.group];
  // An underutilized node a pod keeps (a PDB without budget, local storage, ...) is said once, while it lasts:
  // the first answer to "why is this node still here?".
  std::map<std::string, std::string> blocked;
  for (const nodegroups::UnremovableNode& n : result.unremovable) {
    if (n.reason != nodegroups::UnremovableReason::BlockedByPod || !n.blocking_pod) continue;
    auto group = scan.group_of_node.find(n.node);
    if (group == scan.group_of_node.end()) continue;
    const std::string line = fmt::format("node {} of {} cannot be removed: {}", n.node, group->second,
                                         n.blocking_pod->message);
    auto before = last_blocked_.find(n.node);
    if (before == last_blocked_.end() || before->second != line) timeline.push_back({now, "scale-down-blocked", line});
    blocked.emplace(n.node, line);
  }
  last_blocked_ = std::move(blocked);
  std::map<std::string, nodegroups::UnremovableReason> kept;
  for (const nodegroups::UnremovableNode& n : result.unremovable) {
    if (n.reason == nodegroups::UnremovableReason::CurrentlyBeingDeleted || !scan.group_of_node.contains(n.node)) {
      continue;
    }
    kept.emplace(n.node, n.reason);
    auto before = last_kept_.find(n.node);
    if (before != last_kept_.end() && before->second == n.reason) continue;
    const nodegroups::NodeGroup* of = group(scan.group_of_node.at(n.node));
    actions.node_events.push_back({n.node, "Normal", std::string(nodegroups::to_string(n.reason)),
                                   nodegroups::explain_unremovable(n, options_, of)});
  }
  last_kept_ = std::move(kept);
  for (auto* list : {&result.delete_empty, &result.delete_drain}) {
    for (nodegroups::UnneededNode& n : *list) actions.removals.push_back(std::move(n));
  }
  return actions;
}

void ClusterAutoscalerLoop::set_target_size(const std::string& group, std::int32_t size) {
  if (nodegroups::NodeGroup* g = find(group)) g->target_size = std::clamp(size, 0, g->max_size);
}

void ClusterAutoscalerLoop::node_removed(const std::string& group, Instant now) {
  if (nodegroups::NodeGroup* g = find(group)) g->target_size = std::max(g->target_size - 1, 0);
  last_delete_ = now;
}

void ClusterAutoscalerLoop::provisioning_failed(const std::string& group, const std::string& error_code, Instant now) {
  if (nodegroups::NodeGroup* g = find(group)) g->target_size = std::max(g->target_size - 1, 0);
  // Only the group backs off; --scale-down-delay-after-failure is about failed scale-downs.
  backoff_.record_failure(group, now, error_code);
}

std::string ClusterAutoscalerLoop::status(Instant now, std::chrono::sys_seconds wall_clock_at_start) const {
  nodegroups::ClusterAutoscalerStatus status;
  status.time = now;
  const nodegroups::ConditionTimes probed{last_scan_, std::nullopt};
  std::int32_t candidates = 0;
  for (const nodegroups::NodeGroup& g : groups_) {
    nodegroups::NodeGroupStatus s;
    s.name = g.id;
    auto count = [](const std::map<std::string, std::int32_t>& m, const std::string& key) {
      auto it = m.find(key);
      return it == m.end() ? 0 : it->second;
    };
    s.health.counts.registered = count(registered_, g.id);
    s.health.counts.unready = count(unready_, g.id);
    s.health.counts.being_deleted = count(being_deleted_, g.id);
    s.health.counts.ready =
        std::max(0, s.health.counts.registered - s.health.counts.unready - s.health.counts.being_deleted);
    s.health.counts.unregistered = count(launching_, g.id);
    s.health.times = probed;
    s.cloud_provider_target = g.target_size;
    s.min_size = g.min_size;
    s.max_size = g.max_size;
    s.scale_up.times = probed;
    if (backoff_.is_backed_off(g.id, now)) {
      s.scale_up.status = nodegroups::ScaleUpConditionStatus::Backoff;
      if (std::optional<nodegroups::BackoffEntry> entry = backoff_.entry(g.id)) {
        s.scale_up.backoff_error_code = entry->error_code;
      }
    } else if (s.health.counts.unregistered > 0) {
      s.scale_up.status = nodegroups::ScaleUpConditionStatus::InProgress;
    }
    s.scale_down.candidates = count(candidates_, g.id);
    s.scale_down.times = probed;
    if (s.scale_down.candidates > 0) s.scale_down.status = nodegroups::ScaleDownConditionStatus::CandidatesPresent;
    candidates += s.scale_down.candidates;
    status.health.counts.registered += s.health.counts.registered;
    status.health.counts.ready += s.health.counts.ready;
    status.health.counts.unready += s.health.counts.unready;
    status.health.counts.being_deleted += s.health.counts.being_deleted;
    status.health.counts.unregistered += s.health.counts.unregistered;
    if (s.scale_up.status == nodegroups::ScaleUpConditionStatus::InProgress) {
      status.scale_up.status = nodegroups::ScaleUpConditionStatus::InProgress;
    }
    status.node_groups.push_back(std::move(s));
  }
  status.health.times = probed;
  if (!cluster_healthy_) status.health.status = nodegroups::HealthConditionStatus::Unhealthy;
  status.scale_up.times = probed;
  status.scale_down.candidates = candidates;
  status.scale_down.times = probed;
  if (candidates > 0) status.scale_down.status = nodegroups::ScaleDownConditionStatus::CandidatesPresent;
  const nodegroups::WallClock base{std::chrono::duration_cast<std::chrono::milliseconds>(
      wall_clock_at_start.time_since_epoch())};
  return nodegroups::render_status(status, base);
}

}  // namespace scalewright::controllers
