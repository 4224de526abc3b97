#include "cluster/observer.h"

#include <algorithm>

#include "api/nodepool.h"
#include "api/timestamp.h"
#include "kube/model_json.h"
#include "nodegroups/node_group.h"

namespace scalewright::cluster {

using nlohmann::json;

namespace {

// The taint a NodeClaim's node registers with, until Scalewright has synced its labels and taints (Karpenter's).
constexpr std::string_view kUnregisteredTaint = "karpenter.sh/unregistered";

std::string label_of(const Labels& labels, std::string_view key) {
  const Symbol* value = labels.find(Symbol(key));
  return value == nullptr ? std::string() : value->string();
}

bool has_taint(const Node& node, std::string_view key) {
  return std::any_of(node.taints.begin(), node.taints.end(), [&](const Taint& t) { return t.key == key; });
}

// Ready for pods: its kubelet has reported the Ready condition True, and neither Karpenter's startup taint nor the
// not-ready taint the API server puts on every new node is left on it. The condition must be there: a node of a
// manifest without status counts as Ready (Node::is_ready), but a node just registered has reported nothing yet,
// not even its allocatable, and the node lifecycle controller takes the not-ready taint off such a node (it
// taints by the condition it sees, and there is none).
bool schedulable_ready(const Node& node) {
  const bool reported_ready = std::any_of(node.conditions.begin(), node.conditions.end(), [](const NodeCondition& c) {
    return c.type == "Ready" && c.status == "True";
  });
  return reported_ready && !has_taint(node, kUnregisteredTaint) && !has_taint(node, well_known::taint_not_ready);
}

}  // namespace

std::optional<ManifestSet> ClusterObserver::decode(const json& object, const Resource& resource) {
  Result<ManifestSet> decoded = decode_api_object(object, resource);
  if (!decoded) {
    listener_.object_unreadable(decoded.error().message);
    return std::nullopt;
  }
  return std::move(*decoded);
}

void ClusterObserver::relist_started(const Resource& resource) { listed_[resource.kind].clear(); }

void ClusterObserver::relist_done(const Resource& resource, Instant now) {
  const std::set<std::string>& listed = listed_[resource.kind];
  std::vector<std::string> known;
  const std::string_view kind = resource.kind;
  if (kind == "Pod") {
    for (const auto& [key, record] : state_.pods()) known.push_back(key);
    for (const auto& [key, held] : held_) known.push_back(key);
  } else if (kind == "Node") {
    known.assign(node_objects_.begin(), node_objects_.end());
  } else if (kind == "NodeClaim") {
    for (const auto& [name, claim] : nodeclaims_) known.push_back(name);
  } else if (kind == "NodePool") {
    for (const auto& [name, pool] : state_.nodepools()) known.push_back(name);
  } else if (kind == "PodDisruptionBudget") {
    for (const PodDisruptionBudget& pdb : state_.pdbs()) known.push_back(pdb.meta.key());
  } else if (kind == "ScaledObject") {
    for (const auto& [key, generation] : scaled_object_generations_) known.push_back(key);
  } else {  // workloads, ReplicaSets included
    const std::string prefix = std::string(kind) + "/";
    for (const auto& [key, record] : state_.workloads()) {
      if (key.starts_with(prefix)) known.push_back(key.substr(prefix.size()));
    }
    if (kind == "ReplicaSet") {
      for (const auto& [key, owner] : rs_owner_) known.push_back(key);
    }
  }
  for (const std::string& key : known) {
    if (!listed.contains(key)) forget(resource, key, now);
  }
  listed_.erase(resource.kind);
}

void ClusterObserver::observe(const Resource& resource, Change change, const json& object, Instant now) {
  if (change == Change::Listed) listed_[resource.kind].insert(object_key_of(object));
  const std::string_view kind = resource.kind;
  if (kind == "Pod") {
    observe_pod(change, object, now);
  } else if (kind == "Node") {
    observe_node(change, object, now);
  } else if (kind == "NodeClaim") {
    observe_nodeclaim(change, object, now);
  } else if (kind == "NodePool") {
    observe_nodepool(change, object);
  } else if (kind == "PodDisruptionBudget") {
    observe_pdb(change, object);
  } else if (kind == "ScaledObject") {
    observe_scaled_object(change, object);
  } else {
    observe_workload(resource, change, object);
  }
}

void ClusterObserver::forget(const Resource& resource, const std::string& key, Instant now) {
  const std::string_view kind = resource.kind;
  if (kind == "Pod") {
    pod_gone(key);
  } else if (kind == "Node") {
    waiting_nodes_.erase(key);
    node_gone(names_.record_of(key), now);
  } else if (kind == "NodeClaim") {
    if (auto seen = nodeclaims_.find(key); seen != nodeclaims_.end()) {
      if (auto claim = nodeclaim_of_provider_id_.find(seen->second.provider_id);
          claim != nodeclaim_of_provider_id_.end() && claim->second == key) {
        nodeclaim_of_provider_id_.erase(claim);
      }
      nodeclaims_.erase(seen);
    }
    state_.nodeclaim_finalizing(key, false);
    // A NodeClaim whose node never registered: with it gone, so is the node the state held in flight.
    if (!node_objects_.contains(names_.object_of(key))) node_gone(key, now);
    if (launching_claims_.erase(key) > 0) observe_waiting_nodes_if_no_launch(now);
  } else if (kind == "NodePool") {
    state_.nodepool_deleted(key);
  } else if (kind == "PodDisruptionBudget") {
    state_.pdb_deleted(key);
  } else if (kind == "ScaledObject") {
    if (scaled_object_generations_.erase(key) > 0) state_.scaled_object_deleted(key);
  } else if (kind == "ReplicaSet" && rs_owner_.erase(key) > 0) {
    return;
  } else {
    state_.workload_deleted(std::string(kind) + "/" + key);
  }
}

// --- pods ---

std::string ClusterObserver::workload_of(const ObjectMeta& meta) const {
  const OwnerReference* owner = meta.controller();
  if (owner == nullptr) return "";
  const std::string owner_key = meta.namespace_ + "/" + owner->name;
  if (owner->kind == "ReplicaSet") {
    if (auto deployment = rs_owner_.find(owner_key); deployment != rs_owner_.end()) return deployment->second;
  }
  return object_key(owner->kind, meta.namespace_, owner->name);
}

void ClusterObserver::observe_pod(Change change, const json& object, Instant now) {
  const std::string key = object_key_of(object);
  if (change == Change::Deleted) {
    pod_gone(key);
    return;
  }
  // A pod that ran to completion holds no resources: kube-scheduler and the autoscalers count it out.
  const std::string phase = object.value("status", json::object()).value("phase", "");
  if (phase == "Succeeded" || phase == "Failed") {
    pod_gone(key);
    return;
  }
  std::optional<ManifestSet> decoded = decode(object, resources::pods);
  if (!decoded || decoded->pods.empty()) return;
  Pod pod = std::move(decoded->pods.front());
  // Bound to the Node object: the state knows its node by the NodeClaim's name.
  if (!pod.spec.node_name.empty()) pod.spec.node_name = names_.record_of(pod.spec.node_name);
  const ConditionState scheduled = condition_of(object, "PodScheduled");
  const bool unschedulable = scheduled.status == "False" && scheduled.reason == "Unschedulable";

  if (state::PodRecord* record = state_.find_pod(key)) {
    if (!record->bound_at && !pod.spec.node_name.empty()) {
      const scheduling::NodeId node = state_.snapshot().find_node(pod.spec.node_name);
      if (node != scheduling::kNoNode) {
        state_.pod_bound(*record, node, now);
      } else {  // bound to a node the state does not hold Ready yet: out of the state until it is
        HeldPod held{*record->pod, record->workload.string()};
        held.pod.spec.node_name = pod.spec.node_name;
        state_.pod_deleted(key);
        held_on_[pod.spec.node_name].insert(key);
        held_.insert_or_assign(key, std::move(held));
        return;
      }
    }
    if (pod.meta.deletion_timestamp && !record->terminating_until) {
      state_.pod_deleting(*record, std::max(now, time_.at_unix_seconds(*pod.meta.deletion_timestamp)), now);
    }
    // Phase and readiness as the kubelet reports them since: a PodDisruptionBudget counts healthy pods by them.
    // The snapshot holds this same object, so the disruption checks see it at once.
    PodStatus& status = record->pod->status;
    if (status.phase != pod.status.phase || status.conditions.get() != pod.status.conditions.get()) {
      status.phase = pod.status.phase;
      status.conditions = pod.status.conditions;
      state_.pod_status_changed();
    }
    return;
  }
  pod_parts_.share(pod);
  std::string workload = workload_of(pod.meta);
  if (auto held = held_.find(key); held != held_.end()) {
    if (!held->second.pod.spec.node_name.empty()) held_on_[held->second.pod.spec.node_name].erase(key);
    held_.erase(held);
  }
  admit_pod(std::move(pod), std::move(workload), unschedulable, now);
}

void ClusterObserver::admit_pod(Pod pod, std::string workload, bool unschedulable, Instant now) {
  const std::string key = pod.meta.key();
  const std::string node = pod.spec.node_name;
  scheduling::NodeId node_id = node.empty() ? scheduling::kNoNode : state_.snapshot().find_node(node);
  if ((node.empty() && !unschedulable) || (!node.empty() && node_id == scheduling::kNoNode)) {
    if (!node.empty()) held_on_[node].insert(key);
    held_.insert_or_assign(key, HeldPod{std::move(pod), std::move(workload)});
    return;
  }
  const std::optional<std::int64_t> deleting = pod.meta.deletion_timestamp;
  pod.spec.node_name.clear();  // the state binds it
  state::PodRecord* record = state_.pod_created(std::move(pod), workload, now);
  if (record == nullptr) return;
  if (node_id != scheduling::kNoNode) state_.pod_bound(*record, node_id, now);
  if (deleting) state_.pod_deleting(*record, std::max(now, time_.at_unix_seconds(*deleting)), now);
}

void ClusterObserver::pod_gone(const std::string& key) {
  if (auto held = held_.find(key); held != held_.end()) {
    if (!held->second.pod.spec.node_name.empty()) held_on_[held->second.pod.spec.node_name].erase(key);
    held_.erase(held);
    return;
  }
  const state::PodRecord* record = state_.find_pod(key);
  if (record == nullptr) return;
  const std::string node = record->bound_at ? record->pod->spec.node_name : std::string();
  state_.pod_deleted(key);
  if (!node.empty()) listener_.pod_left(node);
}

void ClusterObserver::release_held(const std::string& node, Instant now) {
  auto waiting = held_on_.find(node);
  if (waiting == held_on_.end()) return;
  const std::set<std::string> keys = std::move(waiting->second);
  held_on_.erase(waiting);
  for (const std::string& key : keys) {
    auto held = held_.find(key);
    if (held == held_.end()) continue;
    HeldPod pod = std::move(held->second);
    held_.erase(held);
    admit_pod(std::move(pod.pod), std::move(pod.workload), false, now);
  }
}

// --- nodes ---

state::NodeRecord ClusterObserver::record_for(Node node, Instant now) const {
  state::NodeRecord record;
  record.nodepool = label_of(node.meta.labels, karpenter_labels::nodepool);
  record.node_group = label_of(node.meta.labels, nodegroups::kNodeGroupLabel);
  record.instance_type = label_of(node.meta.labels, well_known::instance_type);
  record.zone = label_of(node.meta.labels, well_known::zone);
  record.capacity_type = label_of(node.meta.labels, karpenter_labels::capacity_type);
  record.launched_at = now;
  // A node of a NodeClaim carries the NodeClaim's template hash (they share their name).
  if (auto claim = nodeclaims_.find(node.meta.name); claim != nodeclaims_.end()) {
    record.nodepool_hash = claim->second.nodepool_hash;
    record.nodepool_hash_version = claim->second.nodepool_hash_version;
  }
  if (const cloud::NodeOffering found = cloud::offering_of_node(catalog_, node.meta.labels); found.offering) {
    record.price_per_hour = found.offering->price_per_hour;
  }
  record.node = std::move(node);
  return record;
}

std::string ClusterObserver::nodeclaim_of_instance(const std::string& provider_id) const {
  if (provider_id.empty()) return "";
  if (auto claim = nodeclaim_of_provider_id_.find(provider_id); claim != nodeclaim_of_provider_id_.end()) {
    return claim->second;
  }
  // Launched in this run, its NodeClaim's status not written or not observed yet: the launch's answer says it. Or
  // a node group's instance, planned when its group listed it (Cluster Autoscaler's node of a cloud instance).
  for (const auto& [name, record] : state_.nodes()) {
    if ((!record.nodepool.empty() || !record.node_group.empty()) && record.phase == state::NodePhase::Launching &&
        (record.node.provider_id == provider_id || record.instance_id == provider_id)) {
      return name;
    }
  }
  return "";
}

void ClusterObserver::link(const std::string& nodeclaim, const std::string& node_object) {
  if (names_.object_of(nodeclaim) == node_object) return;
  names_.link(nodeclaim, node_object);
  // Pods bound to the Node before it was known as the NodeClaim's wait under the NodeClaim's name.
  auto waiting = held_on_.find(node_object);
  if (waiting == held_on_.end()) return;
  std::set<std::string> keys = std::move(waiting->second);
  held_on_.erase(waiting);
  for (const std::string& key : keys) {
    if (auto held = held_.find(key); held != held_.end()) held->second.pod.spec.node_name = nodeclaim;
  }
  held_on_[nodeclaim].merge(keys);
}

std::optional<std::string> ClusterObserver::name_in_state(const Node& node) {
  const std::string& object_name = node.meta.name;
  if (std::string record = names_.record_of(object_name); record != object_name) return record;
  if (state_.find_node(object_name) != nullptr || nodeclaims_.contains(object_name)) return object_name;
  // Karpenter's registration: the NodeClaim whose status.providerID is the Node's spec.providerID.
  if (const std::string claim = nodeclaim_of_instance(node.provider_id); !claim.empty()) {
    link(claim, object_name);
    return claim;
  }
  // A NodeClaim's node (Karpenter's launch registers it with this taint) whose NodeClaim is not known yet: not a
  // node of its own meanwhile, which would count its capacity twice.
  if (has_taint(node, kUnregisteredTaint)) return std::nullopt;
  // A new Node with a providerID while launches are in flight may be one of theirs whose NodeClaim has not said its
  // providerID yet: a cloud whose nodes do not register tainted (Cluster API's Machines join as their bootstrap
  // makes them) races the launch's answer. It waits until they have said theirs.
  if (!node.provider_id.empty() && !launching_claims_.empty()) return std::nullopt;
  return object_name;  // not a NodeClaim's
}

void ClusterObserver::observe_node(Change change, const json& object, Instant now) {
  const std::string object_name = object_key_of(object);
  if (change == Change::Deleted) {
    waiting_nodes_.erase(object_name);
    node_gone(names_.record_of(object_name), now);
    return;
  }
  std::optional<ManifestSet> decoded = decode(object, resources::nodes);
  if (!decoded || decoded->nodes.empty()) return;
  Node node = std::move(decoded->nodes.front());
  node_objects_.insert(object_name);
  const std::optional<std::string> known_as = name_in_state(node);
  if (!known_as) {
    waiting_nodes_.insert_or_assign(object_name, object);
    return;
  }
  waiting_nodes_.erase(object_name);
  const std::string& name = *known_as;
  node.meta.name = name;
  state::NodeRecord* record = state_.find_node(name);
  if (record != nullptr && record->phase == state::NodePhase::Terminated) return;  // deleted by us, still going
  if (record == nullptr) record = &state_.node_added(record_for(node, now));
  const bool ready = schedulable_ready(node);
  if (record->phase == state::NodePhase::Launching) {
    observe_conditions(*record, node.conditions, now);
    // Registration syncs the NodeClaim's labels onto the Node (KubernetesWriter::node_registered): the node is
    // planned on with them from the start, whichever of the two writes the watch shows first. Its hostname is the
    // Node's own.
    for (const auto& [key, value] : record->node.meta.labels) {
      if (key.str() != well_known::hostname) node.meta.labels.set(key, value);
    }
    record->node = std::move(node);
    if (registered_.insert(name).second) listener_.node_registered(name);
    if (!ready) return;
    state_.node_ready(*record);
    listener_.node_ready(name);
    release_held(name, now);
    return;
  }
  if (record->phase != state::NodePhase::Ready) return;
  // What scheduling reads of a Ready node's spec, taints and cordon, and what node repair reads of its status: its
  // conditions' statuses.
  const bool conditions_changed = observe_conditions(*record, node.conditions, now);
  if (record->node.taints != node.taints || record->node.unschedulable != node.unschedulable || conditions_changed) {
    record->node.taints = node.taints;
    record->node.unschedulable = node.unschedulable;
    record->node.conditions = std::move(node.conditions);
    state_.node_updated(*record);
  }
}

bool ClusterObserver::observe_conditions(state::NodeRecord& record, const std::vector<NodeCondition>& conditions,
                                         Instant now) const {
  bool changed = conditions.size() != record.node.conditions.size();
  for (const NodeCondition& condition : conditions) {
    auto before = std::find_if(record.node.conditions.begin(), record.node.conditions.end(),
                               [&](const NodeCondition& c) { return c.type == condition.type; });
    const bool same = before != record.node.conditions.end() && before->status == condition.status;
    if (same && record.condition_since.contains(condition.type)) continue;
    changed = changed || !same;
    // Since the kubelet's lastTransitionTime (which a restart of this controller keeps), or since it was seen to
    // change here; never later than now.
    record.condition_since[condition.type] =
        condition.last_transition_time ? std::min(now, time_.at_unix_seconds(*condition.last_transition_time)) : now;
  }
  return changed;
}

void ClusterObserver::node_gone(const std::string& name, Instant now) {
  node_objects_.erase(names_.object_of(name));
  registered_.erase(name);
  if (!nodeclaims_.contains(name)) names_.unlink(name);
  state::NodeRecord* record = state_.find_node(name);
  if (record == nullptr || record->phase == state::NodePhase::Terminated) return;
  if (record->phase != state::NodePhase::Draining) state_.node_draining(*record);
  state_.node_terminated(*record, now);
}

void ClusterObserver::observe_nodeclaim(Change change, const json& object, Instant now) {
  const std::string name = object_key_of(object);
  if (change == Change::Deleted) {
    forget(resources::nodeclaims, name, now);
    return;
  }
  const json& metadata = object.value("metadata", json::object());
  NodeClaimSeen& seen = nodeclaims_[name];
  seen.deleting = metadata.contains("deletionTimestamp");
  const json finalizers = metadata.value("finalizers", json::array());
  seen.finalizer = std::find(finalizers.begin(), finalizers.end(), json("karpenter.sh/termination")) != finalizers.end();
  state_.nodeclaim_finalizing(name, seen.deleting && seen.finalizer);
  const json& annotations = metadata.value("annotations", json::object());
  seen.nodepool_hash = annotations.value(std::string(karpenter_annotations::nodepool_hash), "");
  seen.nodepool_hash_version = annotations.value(std::string(karpenter_annotations::nodepool_hash_version), "");
  const json& status = object.value("status", json::object());
  if (std::string provider_id = status.value("providerID", ""); provider_id != seen.provider_id) {
    if (!seen.provider_id.empty()) nodeclaim_of_provider_id_.erase(seen.provider_id);
    seen.provider_id = std::move(provider_id);
    if (!seen.provider_id.empty()) nodeclaim_of_provider_id_[seen.provider_id] = name;
  }
  // Registered under another name (by this controller before a restart, or another leader): the Node is its node.
  if (const std::string node_name = status.value("nodeName", ""); !node_name.empty() && node_name != name) {
    link(name, node_name);
  }
  const bool was_launching = launching_claims_.contains(name);
  if (!seen.deleting && seen.provider_id.empty()) {
    launching_claims_.insert(name);
  } else {
    launching_claims_.erase(name);
  }
  observe_nodeclaim_record(name, seen, object, now);
  // A Node that registered for it before it was known to be its own is now.
  std::vector<json> waiting;
  for (const auto& [node_name, node] : waiting_nodes_) {
    const json& spec = node.value("spec", json::object());
    if (!seen.provider_id.empty() && spec.value("providerID", "") == seen.provider_id) waiting.push_back(node);
  }
  for (const json& node : waiting) observe_node(Change::Modified, node, now);
  if (was_launching && !launching_claims_.contains(name)) observe_waiting_nodes_if_no_launch(now);
}

void ClusterObserver::observe_waiting_nodes_if_no_launch(Instant now) {
  // The Nodes that waited for launches in flight and are none of theirs are nodes of their own (those tainted
  // karpenter.sh/unregistered wait on).
  if (!launching_claims_.empty() || waiting_nodes_.empty()) return;
  std::vector<json> waiting;
  for (const auto& [node_name, node] : waiting_nodes_) waiting.push_back(node);
  for (const json& node : waiting) observe_node(Change::Modified, node, now);
}

void ClusterObserver::observe_nodeclaim_record(const std::string& name, const NodeClaimSeen& seen, const json& object,
                                               Instant now) {
  const json& metadata = object.value("metadata", json::object());
  // Karpenter's registration TTL runs from the NodeClaim's creation, whichever leader created it.
  std::optional<Instant> created;
  if (auto stamp = parse_micro_time(metadata.value("creationTimestamp", ""))) {
    created = time_.at(*stamp);
  }
  if (state::NodeRecord* known = state_.find_node(name)) {
    if (created && known->phase == state::NodePhase::Launching) {
      known->launched_at = std::min(known->launched_at, *created);
    }
    known->nodepool_hash = seen.nodepool_hash;
    known->nodepool_hash_version = seen.nodepool_hash_version;
    return;
  }
  if (seen.deleting) return;
  // A NodeClaim launched before this controller started (a restart, or another leader's): in flight until its node
  // registers, counted against its NodePool's limits meanwhile.
  Node node;
  node.meta.name = name;
  node.meta.labels = nodeclaim_labels(object);
  node.provider_id = seen.provider_id;
  state::NodeRecord record = record_for(std::move(node), created ? std::min(now, *created) : now);
  if (const cloud::InstanceType* type = catalog_.find(record.instance_type)) {
    record.node.capacity = type->capacity;
    record.node.allocatable = type->allocatable;
  }
  record.instance_id = seen.provider_id;
  state_.node_added(std::move(record));
}

// --- the rest ---

void ClusterObserver::observe_nodepool(Change change, const json& object) {
  if (change == Change::Deleted) {
    state_.nodepool_deleted(object_key_of(object));
    return;
  }
  std::optional<ManifestSet> decoded = decode(object, resources::nodepools);
  if (!decoded || decoded->nodepools.empty()) return;
  state_.nodepool_applied(std::move(decoded->nodepools.front()));
  state_.objects_applied();
}

void ClusterObserver::observe_workload(const Resource& resource, Change change, const json& object) {
  const std::string key = object_key_of(object);
  if (change == Change::Deleted) {
    forget(resource, key, Instant{});
    return;
  }
  std::optional<ManifestSet> decoded = decode(object, resource);
  if (!decoded || decoded->workloads.empty()) return;
  Workload workload = std::move(decoded->workloads.front());
  // A Deployment's ReplicaSet is not a workload of its own: its pods are the Deployment's.
  if (const OwnerReference* owner = workload.meta.controller();
      workload.kind == WorkloadKind::ReplicaSet && owner != nullptr && owner->kind == "Deployment") {
    rs_owner_[key] = object_key("Deployment", workload.meta.namespace_, owner->name);
    return;
  }
  state_.workload_applied(std::move(workload));
}

// KEDA's ScaledObjects are Scalewright's to run. A new metadata.generation is a change of spec (one of status or
// metadata alone keeps it): the workload autoscaler takes the new spec on. A deleted one stops scaling its target.
void ClusterObserver::observe_scaled_object(Change change, const json& object) {
  const std::string key = object_key_of(object);
  if (change == Change::Deleted) {
    if (scaled_object_generations_.erase(key) > 0) state_.scaled_object_deleted(key);
    return;
  }
  const std::int64_t generation = object["metadata"].value("generation", std::int64_t{0});
  auto seen = scaled_object_generations_.find(key);
  if (seen != scaled_object_generations_.end() && seen->second == generation) return;
  std::optional<ManifestSet> decoded = decode(object, resources::scaledobjects);
  if (!decoded || decoded->scaled_objects.empty()) return;
  scaled_object_generations_[key] = generation;
  state_.scaled_object_applied(std::move(decoded->scaled_objects.front()));
}

void ClusterObserver::observe_pdb(Change change, const json& object) {
  if (change == Change::Deleted) {
    state_.pdb_deleted(object_key_of(object));
    return;
  }
  std::optional<ManifestSet> decoded = decode(object, resources::pdbs);
  if (!decoded || decoded->pod_disruption_budgets.empty()) return;
  state_.pdb_applied(std::move(decoded->pod_disruption_budgets.front()));
}

}  // namespace scalewright::cluster
