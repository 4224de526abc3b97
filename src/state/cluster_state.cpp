#include "state/cluster_state.h"

#include <algorithm>
#include <cassert>

#include "scheduling/equivalence.h"

namespace scalewright::state {

PodRecord* ClusterState::pod_created(Pod pod, const std::string& workload, Instant now) {
  // One lookup both refuses a name already taken and makes the entry.
  auto [it, inserted] = pods_.try_emplace(pod.meta.key());
  if (!inserted) return nullptr;
  PodRecord& added = it->second;
  added.pod = std::make_shared<Pod>(std::move(pod));
  added.created = now;
  added.workload = Symbol(workload);
  added.daemon = added.pod->is_daemonset_pod();
  added.scheduling_class = Symbol(scheduling::scheduling_key(*added.pod));
  added.serial = next_pod_serial_++;
  added.key = it->first;
  if (auto owner = workloads_.find(workload); owner != workloads_.end()) owner->second.pods.insert(added.key);
  unbound_.emplace(added.key, &added);
  queue_[added.scheduling_class].insert(&added);
  if (!added.daemon) {
    ++needing_capacity_;
    ++unreported_;
  }
  ++scheduling_changes_;
  ++capacity_changes_;
  return &added;
}

void ClusterState::pod_bound(PodRecord& pod, scheduling::NodeId node, Instant now) {
  pod_nominated(pod, Symbol());
  leave_queue(pod);
  pod.pod->spec.node_name = snapshot_.node(node).name();
  pod.bound_at = now;
  unbound_.erase(pod.key);
  count_busy(pod, +1);
  pods_changed_on(pod);
  ++bindings_;
  ready_requested_ += pod.pod->effective_requests();
  snapshot_.add_pod(std::shared_ptr<const Pod>(pod.pod), node, pod.scheduling_class);
  if (!ordered_workloads_.empty() && ordered_workloads_.contains(pod.workload)) {
    workloads_.find(pod.workload.string())->second.dirty = true;
    ++ordered_pods_running_;
  }
}

void ClusterState::pod_nominated(PodRecord& pod, Symbol node) {
  if (pod.bound_at || pod.nominated_node == node) return;
  count_busy(pod, -1);
  if (pod.nominated_node.empty()) {
    if (!pod.daemon) --needing_capacity_;
  } else {
    drop_nominee(pod);
  }
  pod.nominated_node = node;
  if (node.empty()) {
    if (!pod.daemon) ++needing_capacity_;
  } else {
    nominees_[node].insert(&pod);
  }
  count_busy(pod, +1);
}

void ClusterState::nominations_released(const std::string& node) {
  auto it = nominees_.find(Symbol(node));
  if (it == nominees_.end()) return;
  const std::vector<PodRecord*> pods(it->second.begin(), it->second.end());  // pod_nominated() edits the set
  for (PodRecord* pod : pods) {
    pod_nominated(*pod, Symbol());
    ++pod->nominations_ended;
  }
}

void ClusterState::pod_deleting(PodRecord& pod, Instant stops_at, Instant now) {
  if (!pod.terminating_until) ++terminating_pods_;
  pod.terminating_until = stops_at;
  pod.pod->meta.deletion_timestamp = since_start(now).count() / 1000;
  pods_changed_on(pod);
  if (auto owner = workloads_.find(pod.workload.string()); owner != workloads_.end()) {
    owner->second.pods.erase(pod.key);
    owner->second.dirty = true;
    owner->second.running_prefix = 0;
  }
}

void ClusterState::pod_deleted(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  PodRecord& pod = it->second;
  count_busy(pod, -1);
  pods_changed_on(pod);
  if (pod.terminating_until) --terminating_pods_;
  if (auto owner = workloads_.find(pod.workload.string()); owner != workloads_.end()) {
    owner->second.pods.erase(pod.key);
    owner->second.dirty = true;  // a deleted pod is replaced, as its ReplicaSet would
    owner->second.running_prefix = 0;
  }
  if (pod.bound_at) {
    if (snapshot_.node_of_pod(key)) {
      const bool lost_count = ready_totals_saturated();
      ready_requested_ -= pod.pod->effective_requests();
      snapshot_.remove_pod(key);
      ++room_changes_;
      if (lost_count) recount_ready_totals();
    }
  } else {
    drop_nominee(pod);
    leave_queue(pod);
  }
  unbound_.erase(pod.key);
  pods_.erase(it);
  ++scheduling_changes_;
}

void ClusterState::drop_nominee(PodRecord& pod) {
  auto was = nominees_.find(pod.nominated_node);
  if (was == nominees_.end()) return;
  was->second.erase(&pod);
  if (was->second.empty()) nominees_.erase(was);
}

// A pending pod leaves kube-scheduler's queue (bound or deleted), and the counts of pending pods it was in.
void ClusterState::leave_queue(PodRecord& pod) {
  auto cls = queue_.find(pod.scheduling_class);
  cls->second.erase(&pod);
  if (cls->second.empty()) queue_.erase(cls);
  if (pod.daemon) return;
  if (pod.nominated_node.empty()) --needing_capacity_;
  if (pod.serial >= reported_below_) --unreported_;
}

void ClusterState::pods_changed_on(const PodRecord& pod) {
  if (!pod.bound_at) return;
  if (NodeRecord* record = find_node(pod.pod->spec.node_name)) {
    ++record->pod_changes;
    node_changed(record->name());
  }
}

// Nominees count too: a nomination made or released changes what the node is waiting for.
void ClusterState::count_busy(const PodRecord& pod, int delta) {
  const std::string& node = pod.bound_at ? pod.pod->spec.node_name : pod.nominated_node.string();
  if (node.empty()) return;
  node_changed(node);  // a node not (or no longer) there too: a nomination to it is to be released
  NodeRecord* record = find_node(node);
  if (record != nullptr && !pod.daemon) record->busy += delta;
}

NodeChanges::NodeChanges(const ClusterState& state) : state_(state) { state_.node_readers_.push_back(this); }

NodeChanges::~NodeChanges() { std::erase(state_.node_readers_, this); }

std::vector<std::string> NodeChanges::take() {
  std::vector<std::string> names(names_.begin(), names_.end());
  names_.clear();
  std::sort(names.begin(), names.end());
  return names;
}

void ClusterState::node_changed(const std::string& name) {
  for (NodeChanges* reader : node_readers_) reader->names_.insert(name);
}

// A total that saturated (see ResourceList) has lost its sum, and taking a part from it would under-count the rest:
// when a part leaves one, both are summed again from the snapshot, which holds the Ready nodes and their pods.
bool ClusterState::ready_totals_saturated() const {
  return ready_requested_.any_saturated() || ready_allocatable_.any_saturated();
}

void ClusterState::recount_ready_totals() {
  ready_requested_ = ResourceList();
  ready_allocatable_ = ResourceList();
  for (const scheduling::NodeInfo& node : snapshot_.nodes()) {
    if (node.removed) continue;
    ready_requested_ += node.requested;
    ready_allocatable_ += node.allocatable;
  }
}

NodeRecord& ClusterState::node_added(NodeRecord node) {
  const std::string name = node.name();
  NodeRecord& added = nodes_[name] = std::move(node);
  ++live_nodes_;
  node_changed(name);
  return added;
}

NodeRecord& ClusterState::node_launched(NodeRecord launched) {
  auto it = nodes_.find(launched.name());
  if (it == nodes_.end()) return node_added(std::move(launched));
  NodeRecord& claim = it->second;
  if (claim.phase != NodePhase::Launching) {
    // Its node registered before the answer was observed (a real cluster's race): the node as observed stands,
    // and the record learns what the instance is.
    claim.instance_id = std::move(launched.instance_id);
    claim.instance_type = std::move(launched.instance_type);
    claim.zone = std::move(launched.zone);
    claim.capacity_type = std::move(launched.capacity_type);
    claim.price_per_hour = launched.price_per_hour;
    if (claim.node.provider_id.empty()) claim.node.provider_id = std::move(launched.node.provider_id);
    if (!launched.node_group.empty() && claim.node_group.empty() && claim.nodepool.empty()) {
      // A node group's instance whose Node registered before the group listed it: the Node is the group's node, and
      // what Cluster Autoscaler's simulations saw of the cluster changed.
      claim.node_group = std::move(launched.node_group);
      node_updated(claim);
    }
  } else {
    launched.busy = claim.busy;
    launched.pod_changes = claim.pod_changes;
    claim = std::move(launched);
  }
  node_changed(it->first);
  return claim;
}

void ClusterState::nodeclaim_not_launched(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.phase != NodePhase::Launching) return;
  nodes_.erase(it);
  --live_nodes_;
  node_changed(name);
}

void ClusterState::node_ready(NodeRecord& node) {
  node.phase = NodePhase::Ready;
  node.node.conditions = {{"Ready", "True", "KubeletReady"}};
  node_changed(node.name());
  snapshot_.add_node(node.node);
  ready_allocatable_ += node.node.allocatable;
  ++scheduling_changes_;
  ++room_changes_;
}

void ClusterState::node_updated(const NodeRecord& node) {
  node_changed(node.name());
  const scheduling::NodeId id = snapshot_.find_node(node.name());
  if (id == scheduling::kNoNode) return;
  std::vector<std::pair<std::shared_ptr<const Pod>, Symbol>> bound;
  for (const auto& placed : snapshot_.node(id).pods) bound.emplace_back(placed.pod, placed.scheduling_class);
  snapshot_.remove_node(id);
  const scheduling::NodeId fresh = snapshot_.add_node(node.node);
  for (auto& [pod, cls] : bound) snapshot_.add_pod(std::move(pod), fresh, cls);
  ++scheduling_changes_;
  ++room_changes_;
}

void ClusterState::interruption_noticed(NodeRecord& node, Instant at, InterruptionKind kind) {
  node.reclaimed_at = at;
  node.interruption = kind;
  ++interruption_notices_;
}

void ClusterState::node_draining(NodeRecord& node) {
  if (const scheduling::NodeId id = snapshot_.find_node(node.name()); id != scheduling::kNoNode) {
    const bool lost_count = ready_totals_saturated();
    ready_allocatable_ -= node.node.allocatable;
    snapshot_.remove_node(id);
    if (lost_count) recount_ready_totals();
  }
  node.phase = NodePhase::Draining;
  node_changed(node.name());
  ++scheduling_changes_;
  ++node_departures_;
}

void ClusterState::node_terminated(NodeRecord& node, Instant at) {
  node.phase = NodePhase::Terminated;
  node.terminated_at = at;
  node_changed(node.name());
  --live_nodes_;
  to_retire_.push_back(node.name());
  ++node_departures_;
  ++capacity_changes_;  // capacity and NodePool limits freed
}

void ClusterState::retire_terminated(bool keep) {
  for (const std::string& name : to_retire_) {
    auto it = nodes_.find(name);
    if (it == nodes_.end()) continue;
    if (keep) retired_.push_back(std::move(it->second));
    nodes_.erase(it);
  }
  to_retire_.clear();
}

void ClusterState::scaled_object_applied(ScaledObject scaled_object) {
  const std::string key = scaled_object.meta.key();
  scaled_object_revisions_[key] = ++scaled_object_changes_;
  auto same = std::find_if(scaled_objects_.begin(), scaled_objects_.end(),
                           [&](const ScaledObject& s) { return s.meta.key() == key; });
  if (same != scaled_objects_.end()) {
    *same = std::move(scaled_object);
  } else {
    scaled_objects_.push_back(std::move(scaled_object));
  }
}

void ClusterState::scaled_object_deleted(const std::string& key) {
  if (scaled_object_revisions_.erase(key) == 0) return;
  ++scaled_object_changes_;
  std::erase_if(scaled_objects_, [&](const ScaledObject& s) { return s.meta.key() == key; });
}

std::uint64_t ClusterState::scaled_object_revision(const std::string& key) const {
  auto it = scaled_object_revisions_.find(key);
  return it == scaled_object_revisions_.end() ? 0 : it->second;
}

void ClusterState::pdb_applied(PodDisruptionBudget pdb) {
  ++disruption_budget_changes_;
  const std::string key = pdb.meta.key();
  auto same = std::find_if(pdbs_.begin(), pdbs_.end(), [&](const PodDisruptionBudget& p) { return p.meta.key() == key; });
  if (same != pdbs_.end()) {
    *same = std::move(pdb);
  } else {
    pdbs_.push_back(std::move(pdb));
  }
}

void ClusterState::pdb_deleted(const std::string& key) {
  ++disruption_budget_changes_;
  std::erase_if(pdbs_, [&](const PodDisruptionBudget& p) { return p.meta.key() == key; });
}

void ClusterState::namespace_seen(const Namespace& ns) {
  snapshot_.set_namespace_labels(ns.meta.name, ns.meta.labels);
  ++room_changes_;
}

WorkloadRecord& ClusterState::workload_applied(Workload workload) {
  const std::string key = object_key(to_string(workload.kind), workload.meta.namespace_, workload.meta.name);
  auto [it, inserted] = workloads_.try_emplace(key, WorkloadRecord{workload, 0, {}, true});
  if (!inserted) it->second.workload = std::move(workload);  // re-applying updates the template and replicas
  it->second.dirty = true;
  ++workload_changes_;
  const Workload& applied = it->second.workload;
  if (applied.kind == WorkloadKind::StatefulSet && applied.pod_management_policy == PodManagementPolicy::OrderedReady) {
    ordered_workloads_.insert(Symbol(key));
  } else {
    ordered_workloads_.erase(Symbol(key));
  }
  return it->second;
}

void ClusterState::workload_scaled(const std::string& key, std::int32_t replicas) {
  auto it = workloads_.find(key);
  if (it == workloads_.end()) return;
  it->second.workload.replicas = replicas;
  it->second.dirty = true;
}

std::vector<std::string> ClusterState::workload_deleted(const std::string& key) {
  auto it = workloads_.find(key);
  if (it == workloads_.end()) return {};
  std::vector<std::string> owned(it->second.pods.begin(), it->second.pods.end());
  ordered_workloads_.erase(Symbol(key));
  workloads_.erase(it);
  ++workload_changes_;
  return owned;
}

void ClusterState::nodepool_scaled(const std::string& name, std::int64_t replicas) {
  auto it = nodepools_.find(name);
  if (it == nodepools_.end() || !it->second.is_static()) return;
  it->second.replicas = replicas;
  ++capacity_changes_;
}

void ClusterState::nodepool_applied(NodePool pool) {
  std::string name = pool.meta.name;
  nodepools_[std::move(name)] = std::move(pool);
  ++capacity_changes_;
  ++nodepool_changes_;
}

PodRecord* ClusterState::find_pod(const std::string& key) {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second;
}
const PodRecord* ClusterState::find_pod(const std::string& key) const {
  auto it = pods_.find(key);
  return it == pods_.end() ? nullptr : &it->second;
}
NodeRecord* ClusterState::find_node(const std::string& name) {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}
const NodeRecord* ClusterState::find_node(const std::string& name) const {
  auto it = nodes_.find(name);
  return it == nodes_.end() ? nullptr : &it->second;
}
const NodePool* ClusterState::find_nodepool(const std::string& name) const {
  auto it = nodepools_.find(name);
  return it == nodepools_.end() ? nullptr : &it->second;
}

std::optional<Instant> ClusterState::node_failed_at(const PodRecord& pod) const {
  if (!pod.bound_at) return std::nullopt;
  const NodeRecord* node = find_node(pod.pod->spec.node_name);
  return node == nullptr ? std::nullopt : node->failed_at;
}

bool ClusterState::in_flight(const std::string& node) const {
  if (node.empty()) return false;  // most pending pods wait for no node
  const NodeRecord* record = find_node(node);
  return record != nullptr && record->phase == NodePhase::Launching;
}

// The counts kept as pods come and go, checked against a scan of every pending pod in debug builds, where
// scenarios are small.
void ClusterState::check_indexes() const {
#ifndef NDEBUG
  std::size_t needing = 0;
  std::size_t queued = 0;
  for (const auto& [key, pod] : unbound_) needing += !pod->daemon && pod->nominated_node.empty();
  for (const auto& [cls, pods] : queue_) queued += pods.size();
  assert(needing == needing_capacity_);
  assert(queued == unbound_.size());
#endif
}

}  // namespace scalewright::state
