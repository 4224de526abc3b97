#include "controllers/cluster_autoscaler_controller.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/wording.h"
#include "controllers/provisioning.h"
#include "nodegroups/estimator.h"
#include "nodegroups/scale_down.h"

namespace scalewright::controllers {

namespace {

// The error class Cluster Autoscaler backs a group off with (cloudprovider.InstanceErrorClass, and the error codes
// its providers give for a failed instance).
std::string error_code(cloud::ErrorClass error_class) {
  switch (error_class) {
    case cloud::ErrorClass::InsufficientCapacity:
    case cloud::ErrorClass::Quota:
      return "OutOfResource";
    default:
      return "OtherError";
  }
}

}  // namespace

void ClusterAutoscalerController::start() {
  for (const nodegroups::NodeGroup& group : loop_.groups()) {
    launch(group, group.target_size, /*why=*/"", /*running_already=*/true);
  }
  clock_.wake_at(clock_.now(), [this] { on_scan(); });
}

void ClusterAutoscalerController::resume() {
  std::map<std::string, std::int32_t> live;
  const Taint to_be_deleted = drain_rules().taint;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.node_group.empty() || node.phase == state::NodePhase::Terminated) continue;
    ++live[node.node_group];
    const std::vector<Taint>& taints = node.node.taints;
    if (std::any_of(taints.begin(), taints.end(), [&](const Taint& t) { return t.key == to_be_deleted.key; })) {
      writer_.set_taint(name, to_be_deleted, false);
    }
  }
  for (const nodegroups::NodeGroup& group : loop_.groups()) {
    const std::int32_t have = live[group.id];
    const std::int32_t target = have > 0 ? std::max(have, group.min_size) : group.target_size;
    loop_.set_target_size(group.id, target);
    if (target > have) {
      record("scale-up", fmt::format("{} has {} of its target size {}: launching {}", group.id, have, target,
                                     plural(static_cast<std::size_t>(target - have), "node")));
      launch(group, target - have, fmt::format("the group had {} of its target size {}", have, target));
    }
  }
  clock_.wake_at(clock_.now(), [this] { on_scan(); });
}

bool ClusterAutoscalerController::still_starting(const state::NodeRecord& node, Instant now) const {
  // A node that stopped reporting is unready, not starting: CA replaces it after --scale-down-unready-time.
  if (node.failed_at || now - node.launched_at >= loop_.options().max_node_provision_time) return false;
  const std::vector<Taint>& taints = node.node.taints;
  return std::any_of(taints.begin(), taints.end(), [](const Taint& t) {
    return t.key == well_known::taint_not_ready || t.key == well_known::taint_unreachable;
  });
}

void ClusterAutoscalerController::on_scan() {
  const Instant now = clock_.now();
  clock_.wake_at(now + loop_.options().scan_interval, [this] { on_scan(); });
  NodeGroupScan scan;
  scan.pdbs = state_.pdbs();
  scan.scheduler = &scheduler_;
  // Every group is listed, with no Ready node too: its upcoming nodes are its target minus what registered.
  for (const nodegroups::NodeGroup& group : loop_.groups()) scan.registered[group.id] = 0;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase == state::NodePhase::Ready) {
      ++scan.cluster_nodes;
      if (node.failed_at) ++scan.cluster_unready;
    }
    if (node.node_group.empty()) continue;
    if (node.phase == state::NodePhase::Ready) {
      scan.group_of_node[name] = node.node_group;
      // A new node that still says it is not ready (kube-controller-manager can put the not-ready taint back for a
      // moment after it took it off) is upcoming, as Cluster Autoscaler counts a node that has registered but not
      // yet become Ready within --max-node-provision-time: the pods it was launched for are not scaled up for again.
      if (!still_starting(node, now)) ++scan.registered[node.node_group];
      if (node.failed_at) ++scan.unready[node.node_group];
    } else if (node.phase == state::NodePhase::Launching) {
      ++scan.launching[node.node_group];
    }
  }
  scan.deletions_in_progress = termination_.drains_per_group();
  scan.drains_in_progress = static_cast<std::int32_t>(termination_.drains());
  // What the scale-down simulation reads: pods and nodes (and so the pending pods), PDBs and what they count
  // healthy. A terminating pod changes what counts with time alone: then there is no version to compare.
  if (state_.terminating_pods() == 0) {
    scan.cluster_version = state::combined_version(
        {state_.scheduling_changes(), state_.bindings(), state_.disruption_budget_changes()});
  }
  for (const auto& [key, pod] : state_.unbound()) {
    if (pod->daemon) continue;
    scan.pending_pods.push_back(pod->pod);
    const state::NodeRecord* nominated = state_.find_node(pod->nominated_node.string());
    if (nominated != nullptr && nominated->node_group.empty()) continue;  // a NodeClaim is coming
    scan.unschedulable.push_back({pod->pod, pod->created});
  }
  std::vector<TimelineEntry> timeline;
  NodeGroupActions actions;
  {
    // CA's simulations of scale-up and scale-down are what-ifs, reverted before anything is carried out.
    state::ClusterState::WhatIf what_if(state_);
    scan.snapshot = &what_if.snapshot();
    actions = loop_.scan(scan, now, timeline);
  }
  for (TimelineEntry& entry : timeline) writer_.record(std::move(entry));
  if (!state_.nodepools().empty()) {
    std::map<std::string, std::size_t> handed;  // reason -> pods newly left to the NodePools
    for (const auto& [pod, reason] : actions.declined_pods) {
      if (!declined_.count(pod)) ++handed[reason];
    }
    for (const auto& [reason, count] : handed) {
      record("handoff",
             fmt::format("{} left to NodePools: no node group takes them ({})", plural(count, "pod"), reason));
    }
    if (!handed.empty() && provisioning_ != nullptr) provisioning_->look_again();
  }
  declined_ = std::move(actions.declined_pods);
  record_pod_events(std::move(actions.pod_events));
  for (nodegroups::Event& event : actions.node_events) {
    writer_.object_event({"Node", std::move(event.object), std::move(event.type), std::move(event.reason),
                          "ScaleDown", std::move(event.message)});
  }
  for (const nodegroups::ScaleUpInfo& info : actions.scale_ups) {
    if (const nodegroups::NodeGroup* group = loop_.group(info.group)) {
      launch(*group, info.new_size - info.current_size,
             fmt::format("the scale-up {} that pending pods triggered (their TriggeredScaleUp Events)",
                         nodegroups::to_string(info)));
    }
  }
  for (const nodegroups::UnneededNode& unneeded : actions.removals) remove(unneeded);
}

// The group's cloud launches the instances, its target raised one at a time, so that a refusal (an account's quota,
// the simulator's cap on nodes) stops the rest; each registers as the group's template node, under the name the
// cloud gave it.
void ClusterAutoscalerController::launch(const nodegroups::NodeGroup& group, std::int32_t count, const std::string& why,
                                 bool running_already) {
  const Instant now = clock_.now();
  for (std::int32_t i = 0; i < count; ++i) {
    cloud::CloudResult<std::vector<cloud::GroupInstance>> raised = node_groups_.increase_size(group.id, 1);
    if (!raised) {
      record("launch-failed", fmt::format("{}: {}: {}", group.id, cloud::to_string(raised.error().error_class),
                                          raised.error().message));
      loop_.provisioning_failed(group.id, error_code(raised.error().error_class), now);
      return;
    }
    for (const cloud::GroupInstance& instance : *raised) {
      if (instance.error) {
        record(instance.error->error_class == cloud::ErrorClass::InsufficientCapacity ? "insufficient-capacity"
                                                                                      : "launch-failed",
               fmt::format("{}: {}", group.id, instance.error->message));
        loop_.provisioning_failed(group.id, error_code(instance.error->error_class), now);
        // It never came: the group lets it go, and its target with it, as CA deletes an instance that failed.
        delete_group_instance(node_groups_, clock_, writer_, group.id, instance.instance.id);
        continue;
      }
      registers(group, instance.instance, why, running_already);
    }
  }
}

void ClusterAutoscalerController::registers(const nodegroups::NodeGroup& group, const cloud::Instance& instance,
                                    const std::string& why, bool running_already) {
  const std::string& name = instance.node_name;
  const cloud::Offering& offering = instance.offering;
  Node node = nodegroups::instantiate_template(group, 0);
  node.meta.name = name;
  node.meta.labels.set(Symbol(well_known::hostname), Symbol(name));
  node.meta.labels.set(Symbol(well_known::zone), Symbol(offering.zone));
  node.meta.labels.set(Symbol(nodegroups::kNodeGroupLabel), Symbol(group.id));
  state::NodeRecord record;
  record.node_group = group.id;
  record.instance_id = instance.id;
  record.instance_type = instance.instance_type->name;
  record.zone = offering.zone;
  record.capacity_type = std::string(cloud::to_string(offering.capacity_type));
  record.price_per_hour = offering.price_per_hour;
  record.launched_at = clock_.now();
  record.node = std::move(node);
  record.node.provider_id = instance.provider_id;
  if (!running_already) {
    writer_.object_event({"Node", name, "Normal", "Launched", "ScaleUp",
                          fmt::format("instance of node group {} ({} {} {} ${:.4f}/h) for {}", group.id,
                                      record.instance_type, offering.zone, record.capacity_type,
                                      offering.price_per_hour, why)});
  }
  writer_.node_launched(std::move(record), running_already);
  if (!running_already) lifecycle_.launched(name, loop_.options().max_node_provision_time);
}

cloud::PlayedGroupSpec played_group(const nodegroups::NodeGroup& group) {
  const Node node = nodegroups::instantiate_template(group, 0);
  cloud::PlayedGroupSpec spec;
  spec.id = group.id;
  spec.instance_type = group.instance_type;
  spec.zones = group.zones;
  spec.capacity_type = group.capacity_type;
  spec.labels = node.meta.labels;
  spec.labels.set(Symbol(nodegroups::kNodeGroupLabel), Symbol(group.id));
  spec.taints = node.taints;
  return spec;
}

void ClusterAutoscalerController::provisioning_failed(const std::string& group, const std::string& error_code) {
  loop_.provisioning_failed(group, error_code, clock_.now());
}

DrainRules ClusterAutoscalerController::drain_rules() const {
  const nodegroups::AutoscalerOptions& options = loop_.options();
  return {Taint{std::string(nodegroups::kToBeDeletedTaint), "", TaintEffect::NoSchedule}, options.max_pod_eviction_time,
          options.max_graceful_termination, options.scale_down_delay_after_failure};
}

// Scale-down as CA carries it out: an empty node is tainted ToBeDeletedByClusterAutoscaler and deleted at once;
// any other is drained (TerminationController), and the group shrinks when it is deleted.
// Each pod's TriggeredScaleUp at the scale-up it triggers; its NotTriggerScaleUp when the reason is new for it, not
// at every scan of the 10 s loop while it stays pending for the same reason.
void ClusterAutoscalerController::record_pod_events(std::vector<nodegroups::Event> events) {
  std::map<std::string, std::string, std::less<>> said;
  for (nodegroups::Event& event : events) {
    if (event.reason == "NotTriggerScaleUp") {
      auto before = not_triggered_said_.find(event.object);
      const bool repeated = before != not_triggered_said_.end() && before->second == event.message;
      said[event.object] = event.message;
      if (repeated) continue;
    }
    writer_.object_event({"Pod", std::move(event.object), std::move(event.type), std::move(event.reason), "ScaleUp",
                          std::move(event.message)});
  }
  not_triggered_said_ = std::move(said);
}

void ClusterAutoscalerController::remove(const nodegroups::UnneededNode& unneeded) {
  const state::NodeRecord* node = state_.find_node(unneeded.node);
  if (node == nullptr || node->phase != state::NodePhase::Ready || termination_.draining(unneeded.node)) return;
  const Instant now = clock_.now();
  writer_.object_event({"Node", unneeded.node, "Normal", "ScaleDown", "ScaleDown",
                        "node removed by cluster autoscaler: " +
                            nodegroups::explain_removal(unneeded, loop_.options(), now)});
  if (!unneeded.empty) {
    termination_.drain(unneeded.node, unneeded.group, unneeded.since, drain_rules(),
                       [this](const std::string&, const std::string& group, bool deleted) {
                         if (deleted) {
                           loop_.node_removed(group, clock_.now());
                         } else {
                           loop_.scale_down_failed(clock_.now());
                         }
                       });
    return;
  }
  writer_.set_taint(unneeded.node, drain_rules().taint, true);
  record("scale-down", fmt::format("empty node {} of {} removed (no pods to move), unneeded since {}", unneeded.node,
                                   unneeded.group, format_time(unneeded.since)));
  delete_node_and_instance(unneeded.node);
  loop_.node_removed(unneeded.group, now);
}

}  // namespace scalewright::controllers
