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
  for (const nodegroups::NodeGroup& group : loop_.groups()) sync_instances(group);
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
    // A cloud that keeps the group's size (an Auto Scaling group) launches what it has no instance for yet itself;
    // one that plays groups in memory starts empty and keeps nothing.
    const cloud::CloudResult<std::int32_t> cloud_target = node_groups_.target_size(group.id);
    const std::int32_t kept = cloud_target ? *cloud_target : 0;
    const std::int32_t target =
        std::max(have > 0 ? std::max(have, group.min_size) : group.target_size, std::min(kept, group.max_size));
    loop_.set_target_size(group.id, target);
    if (const std::int32_t missing = target - std::max(have, kept); missing > 0) {
      record("scale-up", fmt::format("{} has {} of its target size {}: launching {}", group.id, have, target,
                                     plural(static_cast<std::size_t>(missing), "node")));
      launch(group, missing, fmt::format("the group had {} of its target size {}", have, target));
    }
  }
  clock_.wake_at(clock_.now(), [this] { on_scan(); });
}

Duration ClusterAutoscalerController::max_node_provision_time(const std::string& group) const {
  const nodegroups::NodeGroup* g = loop_.group(group);
  const nodegroups::AutoscalerOptions& flags = loop_.options();
  return g == nullptr ? flags.max_node_provision_time : nodegroups::max_node_provision_time(g->options, flags);
}

bool ClusterAutoscalerController::still_starting(const state::NodeRecord& node, Instant now) const {
  // A node that stopped reporting is unready, not starting: CA replaces it after --scale-down-unready-time.
  if (node.failed_at || now - node.launched_at >= max_node_provision_time(node.node_group)) return false;
  const std::vector<Taint>& taints = node.node.taints;
  return std::any_of(taints.begin(), taints.end(), [](const Taint& t) {
    return t.key == well_known::taint_not_ready || t.key == well_known::taint_unreachable;
  });
}

void ClusterAutoscalerController::on_scan() {
  const Instant now = clock_.now();
  clock_.wake_at(now + loop_.options().scan_interval, [this] { on_scan(); });
  for (const nodegroups::NodeGroup& group : loop_.groups()) sync_instances(group);
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
  bool launched_later = false;  // the cloud said nothing of some instance yet: its listing will
  // One at a time while the cloud hands back each instance, so that a refusal (a quota) stops the rest; a cloud
  // that launches later (an Auto Scaling group) is raised by the rest in one call, as CA raises it.
  for (std::int32_t i = 0; i < count;) {
    const std::int32_t step = launched_later ? count - i : 1;
    i += step;
    cloud::CloudResult<std::vector<cloud::GroupInstance>> raised = node_groups_.increase_size(group.id, step);
    if (!raised) {
      record("launch-failed", fmt::format("{}: {}: {}", group.id, cloud::to_string(raised.error().error_class),
                                          raised.error().message));
      loop_.provisioning_failed(group.id, error_code(raised.error().error_class), now);
      break;
    }
    launched_later = launched_later || raised->empty();
    for (const cloud::GroupInstance& instance : *raised) {
      if (instance.error) {
        let_go(group, instance);
        continue;
      }
      registers(group, instance.instance, why, running_already);
    }
  }
  if (launched_later) sync_instances(group);
}

void ClusterAutoscalerController::let_go(const nodegroups::NodeGroup& group, const cloud::GroupInstance& instance) {
  failed_instances_[group.id].insert(instance.instance.id);
  record(instance.error->error_class == cloud::ErrorClass::InsufficientCapacity ? "insufficient-capacity"
                                                                                : "launch-failed",
         fmt::format("{}: {}", group.id, instance.error->message));
  loop_.provisioning_failed(group.id, error_code(instance.error->error_class), clock_.now());
  // It never came: the group lets it go, and its target with it, as CA deletes an instance that failed.
  delete_group_instance(node_groups_, clock_, writer_, group.id, instance.instance.id);
}

void ClusterAutoscalerController::sync_instances(const nodegroups::NodeGroup& group) {
  cloud::CloudResult<std::vector<cloud::GroupInstance>> listed = node_groups_.nodes(group.id);
  if (!listed) {
    // Its nodes stay as they were known; said once while the reason holds.
    std::string& said = unlisted_[group.id];
    if (said != listed.error().message) {
      said = listed.error().message;
      record("node-group-unlisted", fmt::format("{}: its instances could not be listed: {}: {}", group.id,
                                                cloud::to_string(listed.error().error_class), said));
    }
    return;
  }
  unlisted_.erase(group.id);
  std::set<std::string>& known = known_instances_[group.id];
  std::set<std::string>& failed = failed_instances_[group.id];
  std::set<std::string> ids;
  // The cluster's nodes by instance id and by providerID, read only when an instance is not known.
  std::map<std::string, const state::NodeRecord*> by_instance;
  std::map<std::string, const state::NodeRecord*> by_provider_id;
  bool indexed = false;
  for (const cloud::GroupInstance& item : *listed) {
    const cloud::Instance& instance = item.instance;
    ids.insert(instance.id);
    if (item.error) {
      if (!failed.contains(instance.id)) let_go(group, item);
      continue;
    }
    // A placeholder is upcoming by the group's target alone; one going away is not a node to wait for.
    if (item.placeholder || known.contains(instance.id)) continue;
    if (!indexed) {
      indexed = true;
      for (const auto& [name, node] : state_.nodes()) {
        if (node.phase == state::NodePhase::Terminated) continue;
        if (!node.instance_id.empty()) by_instance.emplace(node.instance_id, &node);
        if (!node.node.provider_id.empty()) by_provider_id.emplace(node.node.provider_id, &node);
      }
    }
    const state::NodeRecord* node = nullptr;
    if (auto found = by_instance.find(instance.id); found != by_instance.end()) node = found->second;
    if (auto found = by_provider_id.find(instance.provider_id);
        node == nullptr && !instance.provider_id.empty() && found != by_provider_id.end()) {
      node = found->second;
    }
    if (node != nullptr) {
      known.insert(instance.id);
      if (!node->node_group.empty() || !node->nodepool.empty()) continue;  // the group's already, or not ours
      // Registered before the group listed its instance (before this controller started, or within the listing's
      // refresh): the Node is the group's by its providerID, as Cluster Autoscaler's NodeGroupForNode finds it.
      state::NodeRecord adopted = *node;
      state::NodeRecord listed_node = group_node(group, instance, node->name());
      adopted.node_group = group.id;
      adopted.instance_id = instance.id;
      adopted.instance_type = listed_node.instance_type;
      adopted.zone = listed_node.zone;
      adopted.capacity_type = listed_node.capacity_type;
      adopted.price_per_hour = listed_node.price_per_hour;
      if (adopted.node.provider_id.empty()) adopted.node.provider_id = instance.provider_id;
      record("node-group-node", fmt::format("node {} is instance {} of node group {}", node->name(), instance.id,
                                            group.id));
      writer_.node_launched(std::move(adopted), /*running_already=*/false);
      continue;
    }
    if (item.state == cloud::InstanceState::Deleting) continue;
    // Its Node will register under a name of the instance's own (an EC2 hostname) with its providerID: the node
    // is planned under the instance's id until then, and is the group's node from its registration on.
    const std::string name = instance.node_name.empty() ? instance.id : instance.node_name;
    if (state_.find_node(name) != nullptr) continue;
    known.insert(instance.id);
    state::NodeRecord planned = group_node(group, instance, name);
    record("node-group-node", fmt::format("instance {} of node group {} ({} {}) is starting: the Node that "
                                          "registers with providerID {} is the group's",
                                          instance.id, group.id, planned.instance_type, planned.zone,
                                          instance.provider_id));
    planned_.emplace(name, instance.id);
    writer_.node_launched(std::move(planned), /*running_already=*/false);
    lifecycle_.launched(name, max_node_provision_time(group.id));
  }
  std::erase_if(known, [&](const std::string& id) { return !ids.contains(id); });
  std::erase_if(failed, [&](const std::string& id) { return !ids.contains(id); });
  // A planned node whose instance left the group before its Node registered (terminated by the group, or by
  // someone else): nothing came, and nothing is left to delete.
  std::vector<std::pair<std::string, std::string>> gone;  // node, instance
  std::erase_if(planned_, [&](const auto& entry) {
    const state::NodeRecord* node = state_.find_node(entry.first);
    if (node == nullptr || node->phase != state::NodePhase::Launching) return true;
    if (node->node_group != group.id || ids.contains(entry.second)) return false;
    gone.push_back(entry);
    return true;
  });
  for (const auto& [name, id] : gone) {
    record("node-group-node",
           fmt::format("instance {} left node group {} before its node registered: not waited for", id, group.id));
    writer_.nodeclaim_not_launched(name);
  }
}

state::NodeRecord ClusterAutoscalerController::group_node(const nodegroups::NodeGroup& group,
                                                          const cloud::Instance& instance,
                                                          const std::string& name) const {
  const cloud::Offering& offering = instance.offering;
  Node node = nodegroups::instantiate_template(group, 0);
  node.meta.name = name;
  node.meta.labels.set(Symbol(well_known::hostname), Symbol(name));
  // An instance in no zone (a Cluster API group with no failure domain) has no zone label rather than an empty one.
  if (!offering.zone.empty()) node.meta.labels.set(Symbol(well_known::zone), Symbol(offering.zone));
  node.meta.labels.set(Symbol(nodegroups::kNodeGroupLabel), Symbol(group.id));
  state::NodeRecord record;
  record.node_group = group.id;
  record.instance_id = instance.id;
  // A listed instance of a type the catalog lacks is taken for the group's.
  record.instance_type = instance.instance_type != nullptr ? instance.instance_type->name : group.instance_type;
  record.zone = offering.zone;
  record.capacity_type = std::string(cloud::to_string(offering.capacity_type));
  record.price_per_hour = offering.price_per_hour;
  record.launched_at = clock_.now();
  record.node = std::move(node);
  record.node.provider_id = instance.provider_id;
  return record;
}

void ClusterAutoscalerController::registers(const nodegroups::NodeGroup& group, const cloud::Instance& instance,
                                    const std::string& why, bool running_already) {
  const std::string& name = instance.node_name;
  const cloud::Offering& offering = instance.offering;
  known_instances_[group.id].insert(instance.id);
  state::NodeRecord record = group_node(group, instance, name);
  if (!running_already) {
    writer_.object_event({"Node", name, "Normal", "Launched", "ScaleUp",
                          fmt::format("instance of node group {} ({} {} {} ${:.4f}/h) for {}", group.id,
                                      record.instance_type, offering.zone, record.capacity_type,
                                      offering.price_per_hour, why)});
  }
  writer_.node_launched(std::move(record), running_already);
  if (!running_already) lifecycle_.launched(name, max_node_provision_time(group.id));
}

cloud::PlayedGroupSpec played_group(const nodegroups::NodeGroup& group, bool own_type) {
  const Node node = nodegroups::instantiate_template(group, 0);
  cloud::PlayedGroupSpec spec;
  spec.id = group.id;
  spec.instance_type = group.instance_type;
  spec.zones = group.zones;
  spec.capacity_type = group.capacity_type;
  spec.labels = node.meta.labels;
  spec.labels.set(Symbol(nodegroups::kNodeGroupLabel), Symbol(group.id));
  spec.taints = node.taints;
  if (own_type) {
    cloud::InstanceType type;
    type.name = group.instance_type;
    type.capacity = node.capacity;
    type.allocatable = node.allocatable;
    // A group that names no zone launches into none: its nodes carry no zone label, as on a cloud without zones.
    if (spec.zones.empty()) spec.zones.emplace_back();
    for (const std::string& zone : spec.zones) {
      type.offerings.push_back({zone, "", group.capacity_type, group.price_per_hour});
    }
    spec.own_type = std::move(type);
  }
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
                            nodegroups::explain_removal(unneeded, loop_.options(), loop_.group(unneeded.group),
                                                        now)});
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
