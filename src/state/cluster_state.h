#pragma once
// The observed cluster, as every controller reads it: pods, nodes (with the NodeClaim or node group behind them),
// workloads, NodePools, PodDisruptionBudgets, and the indexes the engine needs kept up to date as objects come and
// go — the pending pods by scheduling class, the pods per node and what is nominated where, and the scheduling
// snapshot of Ready nodes. It is fed by observations (an object added, updated or deleted), from simulated events
// or from a Kubernetes watch; controllers read it and act through their ports, never by writing into it.
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/autoscaling.h"
#include "api/duration.h"
#include "api/instant.h"
#include "api/meta.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/symbol.h"
#include "api/workloads.h"
#include "scheduling/snapshot.h"

namespace scalewright::state {

struct PodRecord {
  std::shared_ptr<Pod> pod;
  Instant created{};
  std::optional<Instant> bound_at;
  Symbol nominated_node;     // the node (NodeClaim) the provisioner planned it onto (interned, as is the next)
  Symbol workload;           // owning workload's key, interned (a million pods share it); empty for bare pods
  Symbol scheduling_class;   // equivalence class, interned once: pods of one class fail together
  std::string_view key;      // "namespace/name": the key of its entry in the state, which does not move
  std::uint64_t serial = 0;  // creation order among all pods
  bool daemon = false;
  // How many times a nomination of it ended with its node's (nominations_released): the provisioner says why a pod
  // cannot be provisioned once, and anew after that.
  std::uint32_t nominations_ended = 0;
  // Deleted (evicted, or by the taint manager): it keeps its place on the node (and out of its controller's
  // count) until its grace period ends, or for good when its node cannot confirm it.
  std::optional<Instant> terminating_until;
};

// kube-scheduler's queue order: higher priority first, then older, then by key.
struct QueueOrder {
  bool operator()(const PodRecord* a, const PodRecord* b) const {
    if (a->pod->priority() != b->pod->priority()) return a->pod->priority() > b->pod->priority();
    if (a->created != b->created) return a->created < b->created;
    return a->key < b->key;
  }
};

enum class NodePhase { Launching, Ready, Draining, Terminated };

// What the cloud said is happening to a node's instance, for the interruption Event that names it (as Karpenter's
// AWS provider names each): all of them drain the node and replace it.
enum class InterruptionKind {
  SpotInterruption,                 // a spot instance reclaimed (EC2's two-minute warning, the simulator's fault)
  ScheduledChange,                  // a maintenance event is scheduled for it (AWS Health)
  Stopping,                         // stopping or stopped
  Terminating,                      // shutting down or terminated
  CapacityReservationInterruption,  // its capacity reservation takes it back
};

// A node as the controllers see it: the Node, and the NodeClaim or node group instance behind it.
struct NodeRecord {
  Node node;
  std::string nodepool;    // empty for nodes from the manifests and node groups
  std::string node_group;  // the Auto Scaling group of a Cluster Autoscaler node
  std::string instance_id;
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;
  // Its NodePool's template hash when it was launched (karpenter.sh/nodepool-hash and -version on the NodeClaim):
  // drift is a change of it. Empty for nodes launched by others.
  std::string nodepool_hash;
  std::string nodepool_hash_version;
  Instant launched_at{};
  std::optional<Instant> terminated_at;
  NodePhase phase = NodePhase::Launching;
  std::optional<Instant> failed_at;  // stopped reporting: NotReady and unreachable from then on
  // When each of its conditions last changed status (its lastTransitionTime on the engine's clock): how long a node
  // has been unhealthy, for node repair.
  std::map<std::string, Instant, std::less<>> condition_since;
  // An interruption notice said the cloud takes its instance back then (a spot instance's two-minute warning, as the
  // simulator's fault or an SQS poller observes it; the notice's own time for the other kinds), and why.
  std::optional<Instant> reclaimed_at;
  InterruptionKind interruption = InterruptionKind::SpotInterruption;
  // Pods (not DaemonSet pods) bound or nominated to it, kept by the state as pods come and go: with none, the node
  // is empty.
  std::int32_t busy = 0;
  // Moves when a pod is bound to it, starts terminating on it or leaves it: what is known of its pods (a
  // consolidation candidate's list, its verdict) holds while this stays.
  std::uint64_t pod_changes = 0;

  const std::string& name() const { return node.meta.name; }
};

struct WorkloadRecord {
  Workload workload;
  std::int32_t next_ordinal = 0;
  // Keys of the pods it owns, kept as pods come and go: views of the state's pod keys, whose entries do not move.
  std::set<std::string_view> pods;
  bool dirty = true;  // replicas or pods changed since its controller last looked
  // An OrderedReady StatefulSet's: the ordinals [0, running_prefix) were Running and Ready at its controller's last
  // look, so the next look starts after them; 0 again when one of its pods is deleted (or its node fails).
  std::int32_t running_prefix = 0;
};

class ClusterState;

// The names of the nodes whose record changed since its reader last took them: added, Ready, updated, draining or
// gone, or a pod bound, nominated, released or deleted there. A controller that keeps something per node looks at
// these alone; a walk over every node at every look grows with nodes x events, which a burst makes quadratic. The
// reader registers with the state for its lifetime (the state must outlive it).
class NodeChanges {
 public:
  explicit NodeChanges(const ClusterState& state);
  ~NodeChanges();
  NodeChanges(const NodeChanges&) = delete;
  NodeChanges& operator=(const NodeChanges&) = delete;

  // The names changed since the last call, each once, sorted (so that what is done with them is reproducible).
  std::vector<std::string> take();

 private:
  friend class ClusterState;
  const ClusterState& state_;
  std::unordered_set<std::string> names_;
};

class ClusterState {
 public:
  ClusterState() = default;
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;

  // --- observations: pods ---
  // A pod was created (owned by `workload`, empty for a bare pod); null when a pod of that name exists.
  PodRecord* pod_created(Pod pod, const std::string& workload, Instant now);
  // A pending pod was bound to `node` (a Ready node of the snapshot).
  void pod_bound(PodRecord& pod, scheduling::NodeId node, Instant now);
  // The pod's nominated node changed (empty: none).
  void pod_nominated(PodRecord& pod, Symbol node);
  // Every nomination to `node` ended (the node is Ready without those pods, or going away).
  void nominations_released(const std::string& node);
  // The pod got its deletionTimestamp; it stops at `stops_at` (Instant::max(): not before its node goes).
  void pod_deleting(PodRecord& pod, Instant stops_at, Instant now);
  // The kubelet reported another phase or readiness of the pod (already written into its status).
  void pod_status_changed() { ++disruption_budget_changes_; }
  // The pod is gone.
  void pod_deleted(const std::string& key);

  // --- observations: nodes ---
  // A NodeClaim (or a group's instance) launched, or a node that came with the manifests; its phase says which.
  NodeRecord& node_added(NodeRecord node);
  // An instance was launched. A NodeClaim created before it (`node_added` made its record, in flight with no
  // instance) takes what the cloud answered (instance, type, zone, capacity), keeping the pods counted on it; any
  // other (a node group's instance) is added, or, when its Node registered first, makes that node the group's.
  NodeRecord& node_launched(NodeRecord launched);
  // A NodeClaim whose launch failed is gone with nothing launched: its record leaves without a trace (no bill, no
  // departure). Its pods were un-nominated before.
  void nodeclaim_not_launched(const std::string& name);
  // The node registered and is Ready: it joins the scheduling snapshot.
  void node_ready(NodeRecord& node);
  // The node's spec changed (taints, unschedulable): the snapshot holds nodes by value, so it is put back with its
  // pods.
  void node_updated(const NodeRecord& node);
  // The node left scheduling (it is going away); its pods were deleted before.
  void node_draining(NodeRecord& node);
  // The cloud warned that `node`'s instance is reclaimed at `at`, for the reason `kind`: an observation, which the
  // disruption controller acts on (Karpenter's interruption controller acts on the NodeClaim in the same way).
  void interruption_noticed(NodeRecord& node, Instant at,
                            InterruptionKind kind = InterruptionKind::SpotInterruption);
  // A NodeClaim was deleted and its termination finalizer holds it (`deleting`), or it went / its finalizer was
  // removed (not `deleting`): whoever deleted it, its node is drained and its instance terminated before the
  // finalizer comes off (Karpenter's termination controller). Observed apart from the node's record, which may be
  // gone first.
  void nodeclaim_finalizing(const std::string& name, bool deleting) {
    if (deleting) {
      nodeclaims_finalizing_.insert(name);
    } else {
      nodeclaims_finalizing_.erase(name);
    }
  }
  // The instance is gone; the record leaves the working set at the next retire_terminated().
  void node_terminated(NodeRecord& node, Instant at);
  // Terminated nodes move out of nodes(), which every scan would otherwise walk, into retired() when `keep` (the
  // simulator's bill reads them), else they are forgotten (a controller running for months keeps no history).
  void retire_terminated(bool keep = true);

  // --- observations: the rest ---
  void namespace_seen(const Namespace& ns);
  // Returns the record (created, or updated: the template and replicas of a re-applied workload).
  WorkloadRecord& workload_applied(Workload workload);
  void workload_scaled(const std::string& key, std::int32_t replicas);
  // Deletes the workload; returns the keys of the pods it owned (not deleted here).
  std::vector<std::string> workload_deleted(const std::string& key);
  void nodepool_applied(NodePool pool);
  // A provider's node class was applied: the NodePools naming it may launch other shapes, or launch again, so the
  // pending pods are looked at again (one that waited on a class not yet ready can now be provisioned).
  void node_class_applied() {
    ++scheduling_changes_;
    ++capacity_changes_;
    ++nodepool_changes_;
    ++node_class_changes_;
  }
  // A static NodePool's spec.replicas changed (its scale subresource).
  void nodepool_scaled(const std::string& name, std::int64_t replicas);
  void nodepool_deleted(const std::string& name) {
    nodepools_.erase(name);
    ++nodepool_changes_;
  }
  // A set of objects was applied: whatever it held, the next scheduling pass looks again.
  void objects_applied() { ++scheduling_changes_; }
  // Adds the PDB, or replaces the one of that namespace and name (a watch delivers updates).
  void pdb_applied(PodDisruptionBudget pdb);
  void pdb_deleted(const std::string& key);
  void config_map_applied(ConfigMap config_map) { config_maps_.push_back(std::move(config_map)); }
  // The workload autoscalers, in the order applied (the simulator neither updates nor deletes HPAs; in a real
  // cluster they are kube-controller-manager's).
  void hpa_applied(HorizontalPodAutoscaler hpa) { hpas_.push_back(std::move(hpa)); }
  // Adds the ScaledObject, or replaces the one of that namespace and name where it stood; either is a new revision.
  void scaled_object_applied(ScaledObject scaled_object);
  void scaled_object_deleted(const std::string& key);

  // --- reads ---
  const std::map<std::string, PodRecord>& pods() const { return pods_; }
  PodRecord* find_pod(const std::string& key);
  const PodRecord* find_pod(const std::string& key) const;
  // Pods on no node, by key (views of the pods' keys).
  const std::map<std::string_view, PodRecord*>& unbound() const { return unbound_; }
  // The same pods by scheduling class, each class in kube-scheduler's queue order.
  const std::unordered_map<Symbol, std::set<PodRecord*, QueueOrder>>& queue() const { return queue_; }
  // Pending pods, not DaemonSet pods, nominated nowhere: what needs capacity.
  std::size_t needing_capacity() const { return needing_capacity_; }
  // Pending pods (not DaemonSet pods) created since pending_reported() was last called: reported pending once.
  std::size_t unreported_pending() const { return unreported_; }
  void pending_reported() {
    unreported_ = 0;
    reported_below_ = next_pod_serial_;
  }
  // node -> the pending pods nominated to it.
  const std::unordered_map<Symbol, std::unordered_set<PodRecord*>>& nominees() const { return nominees_; }

  std::map<std::string, NodeRecord>& nodes() { return nodes_; }
  const std::map<std::string, NodeRecord>& nodes() const { return nodes_; }
  NodeRecord* find_node(const std::string& name);
  const NodeRecord* find_node(const std::string& name) const;
  const std::vector<NodeRecord>& retired() const { return retired_; }
  std::int32_t live_nodes() const { return live_nodes_; }
  // When the node `pod` is bound to stopped reporting; nullopt while it reports (or the pod is not bound).
  std::optional<Instant> node_failed_at(const PodRecord& pod) const;
  // A NodeClaim launched (or a group's instance) whose node is not Ready yet.
  bool in_flight(const std::string& node) const;

  std::map<std::string, WorkloadRecord>& workloads() { return workloads_; }
  const std::map<std::string, WorkloadRecord>& workloads() const { return workloads_; }
  const std::map<std::string, NodePool>& nodepools() const { return nodepools_; }
  const NodePool* find_nodepool(const std::string& name) const;
  const std::vector<PodDisruptionBudget>& pdbs() const { return pdbs_; }
  const std::vector<ConfigMap>& config_maps() const { return config_maps_; }
  const std::vector<HorizontalPodAutoscaler>& hpas() const { return hpas_; }
  const std::vector<ScaledObject>& scaled_objects() const { return scaled_objects_; }
  // Counts every ScaledObject applied or deleted; a ScaledObject's revision is this count when it was last applied.
  std::uint64_t scaled_object_changes() const { return scaled_object_changes_; }
  std::uint64_t scaled_object_revision(const std::string& key) const;

  // Ready nodes and the pods bound to them: what kube-scheduler sees. What-if questions fork it and revert it
  // before they return (see WhatIf); it is otherwise changed only by observations.
  const scheduling::ClusterSnapshot& snapshot() const { return snapshot_; }
  // Requests of pods bound to Ready nodes, and those nodes' allocatable: the cluster's allocation.
  const ResourceList& ready_requested() const { return ready_requested_; }
  const ResourceList& ready_allocatable() const { return ready_allocatable_; }

  // Counters that move when something a scheduling pass, or a provisioning decision, would see has changed: a
  // loop remembers the value it last acted on.
  std::uint64_t scheduling_changes() const { return scheduling_changes_; }
  std::uint64_t capacity_changes() const { return capacity_changes_; }
  // Moves when a node starts draining or is terminated.
  std::uint64_t node_departures() const { return node_departures_; }
  // Moves when a NodePool is applied or deleted.
  std::uint64_t nodepool_changes() const { return nodepool_changes_; }
  std::uint64_t node_class_changes() const { return node_class_changes_; }
  // Moves when some Ready node may have gained room: a pod left it, a node became Ready or was updated (a taint
  // off, a label on), a namespace's labels changed. Pods arriving only take room: a pod that fit nowhere before
  // fits nowhere while this stays.
  std::uint64_t room_changes() const { return room_changes_; }
  // Moves when a workload is applied or deleted: its template changed (a DaemonSet's, the overhead on every node).
  std::uint64_t workload_changes() const { return workload_changes_; }
  // Moves when a PodDisruptionBudget is applied or deleted, or a pod's phase or readiness changes (what a PDB
  // counts healthy).
  std::uint64_t disruption_budget_changes() const { return disruption_budget_changes_; }
  // Moves with every interruption notice observed.
  std::uint64_t interruption_notices() const { return interruption_notices_; }
  const std::set<std::string>& nodeclaims_finalizing() const { return nodeclaims_finalizing_; }
  // Pods with a deletion timestamp, not gone yet: what counts of them changes with time alone.
  std::size_t terminating_pods() const { return terminating_pods_; }
  // Counts every pod bound to a node.
  std::uint64_t bindings() const { return bindings_; }
  // Moves when a pod of an OrderedReady StatefulSet starts running: its controller may make the next pod.
  std::uint64_t ordered_pods_running() const { return ordered_pods_running_; }

  // The checks of the indexes against a scan, in debug builds (the tests' sanitizer build).
  void check_indexes() const;

  // A what-if over the scheduling snapshot: forked on creation, reverted on destruction, so that the observed
  // state is as it was when the question is answered.
  class WhatIf {
   public:
    explicit WhatIf(const ClusterState& state) : snapshot_(state.snapshot_) { snapshot_.fork(); }
    ~WhatIf() { snapshot_.revert(); }
    WhatIf(const WhatIf&) = delete;
    WhatIf& operator=(const WhatIf&) = delete;
    scheduling::ClusterSnapshot& snapshot() { return snapshot_; }

   private:
    scheduling::ClusterSnapshot& snapshot_;
  };

 private:
  friend class NodeChanges;
  // Tells every NodeChanges the node changed.
  void node_changed(const std::string& name);
  void leave_queue(PodRecord& pod);
  void drop_nominee(PodRecord& pod);
  void count_busy(const PodRecord& pod, int delta);
  // The node the pod is bound to has changed pods.
  void pods_changed_on(const PodRecord& pod);
  bool ready_totals_saturated() const;
  void recount_ready_totals();

  std::map<std::string, PodRecord> pods_;
  std::map<std::string_view, PodRecord*> unbound_;  // keyed by views of pods_' keys
  std::unordered_map<Symbol, std::set<PodRecord*, QueueOrder>> queue_;
  std::size_t needing_capacity_ = 0;
  std::size_t unreported_ = 0;        // pending pods, not DaemonSet pods, with serial >= reported_below_
  std::uint64_t reported_below_ = 0;  // pods created before it have been reported pending (or bound)
  std::uint64_t next_pod_serial_ = 0;
  std::unordered_map<Symbol, std::unordered_set<PodRecord*>> nominees_;
  std::map<std::string, NodeRecord> nodes_;  // launching, Ready or draining
  std::set<std::string> nodeclaims_finalizing_;  // deleted NodeClaims their finalizer still holds
  std::vector<NodeRecord> retired_;          // terminated: kept for the bill
  std::vector<std::string> to_retire_;       // terminated since the last retire_terminated()
  std::int32_t live_nodes_ = 0;
  std::map<std::string, WorkloadRecord> workloads_;
  // Keys of the StatefulSets whose pods are made one at a time (OrderedReady): a pod of theirs that starts running
  // makes them dirty.
  std::unordered_set<Symbol> ordered_workloads_;
  std::uint64_t ordered_pods_running_ = 0;
  std::map<std::string, NodePool> nodepools_;
  std::vector<PodDisruptionBudget> pdbs_;
  std::vector<ConfigMap> config_maps_;
  std::vector<HorizontalPodAutoscaler> hpas_;
  std::vector<ScaledObject> scaled_objects_;
  std::map<std::string, std::uint64_t> scaled_object_revisions_;
  std::uint64_t scaled_object_changes_ = 0;
  // Mutable for WhatIf only: a fork that is reverted before the question returns changes no observed state.
  mutable scheduling::ClusterSnapshot snapshot_;
  ResourceList ready_requested_;
  ResourceList ready_allocatable_;
  std::uint64_t scheduling_changes_ = 1;
  std::uint64_t capacity_changes_ = 0;
  std::uint64_t node_departures_ = 0;
  std::uint64_t nodepool_changes_ = 0;
  std::uint64_t node_class_changes_ = 0;
  std::uint64_t room_changes_ = 0;
  std::uint64_t workload_changes_ = 0;
  std::uint64_t disruption_budget_changes_ = 0;
  std::uint64_t interruption_notices_ = 0;
  std::size_t terminating_pods_ = 0;
  std::uint64_t bindings_ = 0;
  // The readers' bookkeeping, not observed state: readers hold the state const.
  mutable std::vector<NodeChanges*> node_readers_;
};

// One number for several of the counters above, which moves when any of them does: what a decision read, for a
// later one to tell whether anything it depends on changed (a collision keeps an answer one look too long at
// worst).
inline std::uint64_t combined_version(std::initializer_list<std::uint64_t> counters) {
  std::uint64_t version = 14695981039346656037ULL;
  for (const std::uint64_t counter : counters) version = (version ^ counter) * 1099511628211ULL;
  return version;
}

}  // namespace scalewright::state
