#include "sim/simulator.h"

#include <algorithm>
#include <cassert>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <unordered_set>

#include "provisioning/batcher.h"
#include "provisioning/provisioner.h"
#include "scheduling/equivalence.h"
#include "scheduling/placement.h"
#include "scheduling/scheduler.h"
#include "nodegroups/discovery.h"
#include "nodegroups/drainability.h"
#include "nodegroups/estimator.h"
#include "sim/cluster_autoscaler.h"
#include "sim/random.h"
#include "sim/simulated_cloud.h"
#include "sim/workload_autoscaling.h"

namespace scalewright::sim {
namespace {

using scheduling::ClusterSnapshot;
using scheduling::NodeId;

// Karpenter's timings that are not configurable per scenario.
constexpr Duration kUnavailableOfferingTtl{3 * 60'000};  // an offering that returned ICE is avoided this long
constexpr Duration kRegistrationTtl{15 * 60'000};        // a node not Ready by then is given up on
constexpr Duration kSpotNotice{2 * 60'000};              // the spot interruption warning
constexpr Duration kDisruptionPoll{10'000};              // how often disruption looks again when budgets held it back
// Cluster Autoscaler's drain: a refused eviction is tried again this much later (its EvictionRetryTime).
constexpr Duration kEvictionRetry{10'000};
// kube-controller-manager's node lifecycle: a node that stops reporting is tainted unreachable, and a pod that does
// not say how long it tolerates that gets 300 s (the DefaultTolerationSeconds admission plugin).
constexpr std::string_view kUnreachableTaint = "node.kubernetes.io/unreachable";
constexpr std::int64_t kDefaultUnreachableTolerationSeconds = 300;

struct SimPod {
  std::shared_ptr<Pod> pod;
  Duration created{0};
  std::optional<Duration> bound_at;
  Symbol nominated_node;       // the node (NodeClaim) the provisioner planned it onto (interned, as is the next)
  Symbol workload;             // owning workload's key, interned (a million pods share it); empty for bare pods
  Symbol scheduling_class;     // equivalence class, interned once: pods of one class fail together
  std::string_view key;        // "namespace/name": the key of its entry in pods_, which does not move
  std::uint64_t serial = 0;    // creation order among all pods; the timeline reports a pod pending once
  bool daemon = false;
  Symbol last_reason;          // last provisioning verdict reported, so the timeline says it once
  // Evicted: it keeps its place on the node (and out of its controller's count) until its grace period ends.
  std::optional<Duration> terminating_until;
};

// kube-scheduler's queue order: higher priority first, then older, then by key.
struct QueueOrder {
  bool operator()(const SimPod* a, const SimPod* b) const {
    if (a->pod->priority() != b->pod->priority()) return a->pod->priority() > b->pod->priority();
    if (a->created != b->created) return a->created < b->created;
    return a->key < b->key;
  }
};

enum class NodeState { Launching, Ready, Draining, Terminated };

struct SimNode {
  Node node;
  std::string nodepool;    // empty for nodes from the manifests and node groups
  std::string node_group;  // the Auto Scaling group of a Cluster Autoscaler node
  std::string instance_id;
  std::string instance_type;
  std::string zone;
  std::string capacity_type;
  double price_per_hour = 0;
  Duration launched_at{0};
  std::optional<Duration> terminated_at;
  NodeState state = NodeState::Launching;
  std::optional<Duration> empty_since;
  std::optional<Duration> failed_at;  // stopped reporting: NotReady and unreachable from then on
};

struct WorkloadState {
  Workload workload;
  std::int32_t next_ordinal = 0;
  // Keys of the pods it owns, kept as pods come and go: views of the keys of pods_, whose entries do not move.
  std::set<std::string_view> pods;
  bool dirty = true;           // replicas or pods changed since the controller last looked
};

enum class EventKind {
  Timeline, BatchDeadline, ProvisioningRetry, NodeReady, RegistrationTimeout, DisruptionCheck, SpotNotice, SpotReclaim,
  MetricsScrape, HpaSync, KedaPoll, ClusterAutoscalerScan, EvictionRetry, PodTerminated, StatusRequest,
  NodeFailure, TaintEviction
};

// How long `pod` stays on a node that became unreachable: its toleration of the unreachable NoExecute taint
// (nullopt: for good), or the 300 s every pod without one is given.
std::optional<Duration> unreachable_toleration(const Pod& pod) {
  const Taint taint{std::string(kUnreachableTaint), "", TaintEffect::NoExecute};
  for (const Toleration& t : pod.spec.tolerations) {
    if (!t.tolerates(taint)) continue;
    if (!t.toleration_seconds) return std::nullopt;
    return Duration(std::max<std::int64_t>(*t.toleration_seconds, 0) * 1000);
  }
  return Duration(kDefaultUnreachableTolerationSeconds * 1000);
}

constexpr Duration kHpaSyncPeriod{15'000};  // kube-controller-manager's --horizontal-pod-autoscaler-sync-period
// Where the simulated wall clock starts, for cron triggers: a Monday, 00:00 UTC.
constexpr std::chrono::sys_seconds kWallClockAtStart{std::chrono::sys_days{std::chrono::year{2024} / 1 / 1}};

struct Event {
  Duration at{0};
  std::uint64_t sequence = 0;  // ties at the same time run in the order scheduled
  EventKind kind = EventKind::Timeline;
  std::size_t index = 0;       // timeline step
  std::string node;
  friend bool operator>(const Event& a, const Event& b) {
    return a.at != b.at ? a.at > b.at : a.sequence > b.sequence;
  }
};

// A container as the HPA reads it: its requests in milli-units (cpu is kept in milli-cpu already).
workloads::HpaContainer hpa_container(const Container& c) {
  workloads::HpaContainer out;
  out.name = c.name;
  for (const auto& [name, amount] : c.requests.entries()) {
    out.requests_milli.emplace_back(name.string(), name == resource_names::cpu() ? amount : amount * 1000);
  }
  return out;
}

std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

class Simulation : private AutoscalingView {
 public:
  explicit Simulation(SimulationInput input)
      : scenario_(std::move(input.scenario)),
        cloud_(std::move(input.catalog), scenario_.cloud, scenario_.seed),
        random_(scenario_.seed ^ 0x5ca1e5ca1eull),
        batcher_(provisioning::BatchWindow{scenario_.batching.idle, scenario_.batching.max}),
        status_at_(std::move(input.status_at)),
        stream_(input.timeline_sink),
        limits_(input.limits),
        pod_outcomes_(input.pod_outcomes) {
    // Without spec.clusterAutoscaler, CA's own Deployment configures the CA this simulation runs (the CLI has
    // usually done this already, and refused two of them).
    if (!scenario_.cluster_autoscaler) {
      if (Result<std::optional<std::string>> adopted =
              adopt_cluster_autoscaler_deployment(scenario_, input.objects.cluster_autoscaler_deployments);
          adopted && *adopted) {
        note("cluster-autoscaler", **adopted);
      }
    }
    apply_objects(std::move(input.objects));
    start_cluster_autoscaler();
  }

  SimulationReport run();

 private:
  // --- events ---
  void push(Event e) {
    e.sequence = next_sequence_++;
    events_.push(std::move(e));
  }
  void handle(const Event& e);
  void run_timeline_step(const TimelineStep& step);
  void settle();

  // --- node groups: Cluster Autoscaler's scans, carried out on the simulated Auto Scaling groups ---
  void start_cluster_autoscaler();
  void on_cluster_autoscaler_scan();
  void launch_group_nodes(const nodegroups::NodeGroup& group, std::int32_t count, bool already_running);
  void remove_group_node(const nodegroups::UnneededNode& unneeded);
  void evict_drained_pods(const std::string& node);
  void evict(SimPod& pod);
  // The pod gets its deletionTimestamp and leaves its controller's count; it stops at `stops_at` (never: its node
  // cannot confirm it, and it goes with the node).
  void mark_deleted(SimPod& pod, std::optional<Duration> stops_at);
  void on_pod_terminated(const std::string& key);
  void finish_drain_if_done(const std::string& node);
  void set_to_be_deleted_taint(const std::string& node, bool tainted);

  // --- workload autoscaling: metrics from the load model, HPA syncs, KEDA polls ---
  void start_autoscaling();
  void on_metrics_scrape();
  void apply_scale_changes(const std::vector<ScaleChange>& changes);
  std::optional<ScaleTarget> scale_target(const std::string& namespace_,
                                          const CrossVersionObjectReference& ref) const override;
  std::vector<ObservedPod> pods(const std::string& namespace_, const LabelSelector& selector) const override;

  // --- the cluster's own controllers ---
  void apply_objects(ManifestSet objects);
  void price_static_node(SimNode& node) const;
  void reconcile_workloads();
  void create_pod(Pod pod, std::string workload);
  void delete_pod(const std::string& key);
  void schedule_pending();
  void bind(SimPod& pod, NodeId node, bool count_wait = true);
  // Plans `pod` onto `node` (empty: no plan), keeping the per-node count of pods that keep a node busy.
  void nominate(SimPod& pod, const std::string& node);
  void count_busy(const SimPod& pod, int delta);
  void add_daemon_pods(SimNode& node);
  void set_unschedulable(const std::string& node_name, bool unschedulable);
  // The snapshot holds nodes by value: after a change to a node's spec, it is put back with its pods.
  void refresh_snapshot_node(const SimNode& node);

  // --- the engine's decisions and the cloud ---
  void on_batch_deadline();
  void retry_after_unavailable();
  void provision();
  bool in_flight(const std::string& node_name) const;  // a NodeClaim launched whose node is not Ready yet
  void leave_queue(SimPod& pod);
  void drop_nominee(SimPod& pod);  // from nominees_, its nomination left as it is
  void release_nominations(const std::string& node);
  void check_pending_counts() const;
  void stop(std::string reason);
  bool node_limit_reached();  // and stops the run when it is
  void launch(provisioning::NewNodeClaim claim, const std::vector<SimPod*>& pods);
  std::string new_claim_name(const std::string& nodepool);
  void on_node_ready(const std::string& name);
  void on_registration_timeout(const std::string& name);
  void update_emptiness();
  void on_disruption_check();
  void on_spot_notice(std::int32_t count);
  void on_node_failure(const NodeFailureEvent& failure);
  void on_taint_eviction(const std::string& node);
  // When the node `pod` is bound to stopped reporting; nullopt while it reports (or the pod is not bound).
  std::optional<Duration> node_failed_at(const SimPod& pod) const;
  void drain(SimNode& node);
  void terminate(SimNode& node, Duration at);

  // --- accounting ---
  void record_outcome(const SimPod& pod);
  void retire_terminated();
  void note(std::string kind, std::string message) { timeline_.push_back({now_, std::move(kind), std::move(message)}); }
  RunProgress progress() const {
    return {now_, scenario_.duration, pods_.size() - unbound_.size(), unbound_.size(), live_nodes_};
  }
  void advance_to(Duration t);
  void count_nodes();
  SimulationReport report();

  const NodePool* find_nodepool(const std::string& name) const {
    auto it = nodepools_.find(name);
    return it == nodepools_.end() ? nullptr : &it->second;
  }

  Scenario scenario_;
  SimulatedCloud cloud_;
  Random random_;
  provisioning::Batcher batcher_;
  scheduling::Scheduler scheduler_;
  provisioning::UnavailableOfferings unavailable_;

  Duration now_{0};
  std::uint64_t next_sequence_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;

  ClusterSnapshot snapshot_;  // Ready nodes and the pods bound to them: what kube-scheduler sees
  std::map<std::string, SimPod> pods_;
  // Pods not bound to a node, by key: what the scheduler and the provisioner scan. Map nodes do not move, so
  // the pointers stay valid until the pod is deleted.
  std::map<std::string_view, SimPod*> unbound_;  // keyed by views of pods_' keys
  // The same pods by scheduling class, each class in queue order: a scheduling pass merges the classes' heads, so
  // it costs the pods it binds plus one try per class, not a sort of every pending pod at every event.
  std::unordered_map<Symbol, std::set<SimPod*, QueueOrder>> queue_;
  // Kept as pods come and go, so that a pass need not scan every pending pod to know them:
  std::size_t needing_capacity_ = 0;  // pending pods, not DaemonSet pods, nominated nowhere
  std::size_t unreported_ = 0;        // pending pods, not DaemonSet pods, with serial >= reported_below_
  std::uint64_t reported_below_ = 0;  // pods created before it have been reported pending (or bound)
  std::uint64_t next_pod_serial_ = 0;
  // node -> the pending pods nominated to it.
  std::unordered_map<Symbol, std::unordered_set<SimPod*>> nominees_;
  std::map<std::string, SimNode> nodes_;         // launching, Ready or draining
  std::vector<SimNode> retired_;                 // terminated: kept for the bill
  std::vector<std::string> to_retire_;           // terminated during this event, moved out when it settles
  std::int32_t live_nodes_ = 0;
  std::unordered_map<std::string, std::int32_t> busy_;  // node -> pods (not daemons) bound or planned there
  std::map<std::string, WorkloadState> workloads_;
  std::map<std::string, NodePool> nodepools_;
  std::vector<PodDisruptionBudget> pdbs_;
  std::vector<ConfigMap> config_maps_;
  std::optional<ClusterAutoscalerLoop> cluster_autoscaler_;
  // With both models, a pending pod is Cluster Autoscaler's first: NodePools provision only for the pods CA's last
  // scan found no node group for (its reason kept, to say why they went to a NodePool).
  std::map<std::string, std::string> declined_by_cluster_autoscaler_;
  // CA's scale-downs of non-empty nodes under way: the node is tainted and its pods are being evicted.
  struct NodeDrain {
    std::string group;
    Duration started{0};
    Duration unneeded_since{0};
    std::vector<std::string> to_evict;               // pods whose eviction was refused so far, retried
    std::vector<std::string> evicted;                // the node goes when these have stopped
    std::map<std::string, std::string> last_refusal;  // pod -> what the last refusal said, said once
  };
  std::map<std::string, NodeDrain> node_drains_;
  LoadModel load_;
  WorkloadAutoscaling autoscaling_{load_, kWallClockAtStart, scenario_.cloud.faults.prometheus_outages};
  bool autoscaling_started_ = false;
  bool keda_poll_pending_ = false;
  bool hpa_sync_scheduled_ = false;
  bool scheduling_dirty_ = true;
  // Something that may let pending pods be provisioned changed: new pods, NodePools, freed capacity or limits.
  bool provisioning_dirty_ = false;
  bool disruption_check_pending_ = false;

  std::vector<Duration> status_at_;
  bool status_requested_ = false;  // keep CA's status once everything due at this instant has happened
  std::vector<SimulationReport::StatusAt> statuses_;

  std::vector<TimelineEntry> timeline_;
  TimelineStream stream_;  // the timeline to the input's sink as the run goes
  SimulationLimits limits_;
  bool pod_outcomes_ = true;
  std::string stopped_;  // why the run ended early (a limit); empty while it goes on
  std::vector<PodOutcome> outcomes_;
  std::vector<Duration> waits_;
  std::int32_t peak_nodes_ = 0;
  std::int32_t launches_ = 0;
  std::int32_t ice_errors_ = 0;
  std::int32_t interruptions_ = 0;
  // Requested and allocatable resources of Ready nodes, integrated over time for the mean allocation.
  ResourceList ready_requested_;
  ResourceList ready_allocatable_;
  double cpu_allocation_integral_ = 0;
  double memory_allocation_integral_ = 0;
  double ready_time_ = 0;
};

SimulationReport Simulation::run() {
  for (std::size_t i = 0; i < scenario_.timeline.size(); ++i) {
    push({scenario_.timeline[i].at, 0, EventKind::Timeline, i, {}});
  }
  for (const SpotInterruptionEvent& s : scenario_.cloud.faults.spot_interruptions) {
    push({s.at, 0, EventKind::SpotNotice, static_cast<std::size_t>(s.count), {}});
  }
  for (std::size_t i = 0; i < scenario_.cloud.faults.node_failures.size(); ++i) {
    push({scenario_.cloud.faults.node_failures[i].at, 0, EventKind::NodeFailure, i, {}});
  }
  if (cluster_autoscaler_) {
    for (Duration at : status_at_) push({at, 0, EventKind::StatusRequest, 0, {}});
  }
  settle();
  stream_.flush(timeline_, progress());
  while (stopped_.empty() && !events_.empty() && events_.top().at <= scenario_.duration) {
    Event e = events_.top();
    events_.pop();
    advance_to(e.at);
    handle(e);
    // Everything due at this instant happens before the cluster settles, as controllers see one state.
    while (!events_.empty() && events_.top().at == now_) {
      Event same = events_.top();
      events_.pop();
      handle(same);
    }
    settle();
    // The instant settles as it would have (pods already made go pending), then the run ends on that line.
    if (!stopped_.empty()) note("stopped", fmt::format("run stopped: {}", stopped_));
    stream_.flush(timeline_, progress());
    if (status_requested_) {
      status_requested_ = false;
      statuses_.push_back({now_, cluster_autoscaler_->status(now_, kWallClockAtStart)});
    }
  }
  advance_to(scenario_.duration);
  stream_.flush(timeline_, progress());
  return report();
}

void Simulation::handle(const Event& e) {
  cloud_.set_now(now_);
  switch (e.kind) {
    case EventKind::Timeline: run_timeline_step(scenario_.timeline[e.index]); break;
    case EventKind::BatchDeadline: on_batch_deadline(); break;
    case EventKind::ProvisioningRetry: provisioning_dirty_ = true; scheduling_dirty_ = true; break;
    case EventKind::NodeReady: on_node_ready(e.node); break;
    case EventKind::RegistrationTimeout: on_registration_timeout(e.node); break;
    case EventKind::DisruptionCheck: disruption_check_pending_ = false; on_disruption_check(); break;
    case EventKind::SpotNotice: on_spot_notice(static_cast<std::int32_t>(e.index)); break;
    case EventKind::MetricsScrape: on_metrics_scrape(); break;
    case EventKind::ClusterAutoscalerScan: on_cluster_autoscaler_scan(); break;
    case EventKind::EvictionRetry: evict_drained_pods(e.node); break;
    case EventKind::PodTerminated: on_pod_terminated(e.node); break;
    case EventKind::StatusRequest: status_requested_ = true; break;
    case EventKind::NodeFailure: on_node_failure(scenario_.cloud.faults.node_failures[e.index]); break;
    case EventKind::TaintEviction: on_taint_eviction(e.node); break;
    case EventKind::HpaSync:
      apply_scale_changes(autoscaling_.sync_hpas(now_, *this, timeline_));
      push({now_ + kHpaSyncPeriod, 0, EventKind::HpaSync, 0, {}});
      break;
    case EventKind::KedaPoll:
      keda_poll_pending_ = false;
      apply_scale_changes(autoscaling_.poll_scaled_objects(now_, *this, timeline_));
      break;
    case EventKind::SpotReclaim: {
      auto it = nodes_.find(e.node);
      if (it != nodes_.end() && it->second.state != NodeState::Terminated) {
        terminate(it->second, now_);
        note("reclaimed", fmt::format("spot node {} reclaimed by the cloud", e.node));
        // An Auto Scaling group keeps its desired capacity: it launches a replacement.
        const nodegroups::NodeGroup* group =
            cluster_autoscaler_ ? cluster_autoscaler_->group(it->second.node_group) : nullptr;
        if (group != nullptr) launch_group_nodes(*group, 1, /*already_running=*/false);
      }
      break;
    }
  }
}

// After anything changes: controllers create and delete pods, the scheduler binds what fits, and pods that fit
// nowhere open (or extend) a provisioning batch.
void Simulation::settle() {
  retire_terminated();
  reconcile_workloads();
  schedule_pending();
  update_emptiness();
  count_nodes();
}

void Simulation::run_timeline_step(const TimelineStep& step) {
  switch (step.action) {
    case TimelineStep::Action::Scale: {
      auto it = workloads_.find(object_key(step.target.kind, step.target.namespace_, step.target.name));
      if (it == workloads_.end()) {
        note("warning", fmt::format("scale: no {} {}/{}", step.target.kind, step.target.namespace_, step.target.name));
        return;
      }
      note("scale", fmt::format("scale {} {}/{} {} -> {}", step.target.kind, step.target.namespace_, step.target.name,
                                it->second.workload.replicas, step.replicas));
      it->second.workload.replicas = step.replicas;
      it->second.dirty = true;
      return;
    }
    case TimelineStep::Action::Apply: {
      Result<ManifestSet> objects = decode_manifests(step.apply_source, "timeline apply");
      if (!objects) {
        note("warning", objects.error().message);  // validated when the scenario loaded; kept for safety
        return;
      }
      note("apply", "apply objects");
      apply_objects(std::move(*objects));
      return;
    }
    case TimelineStep::Action::Delete: {
      const ObjectReference& t = step.target;
      if (t.kind == "NodePool") {
        nodepools_.erase(t.name);
      } else if (t.kind == "Pod") {
        delete_pod(t.namespace_ + "/" + t.name);
      } else if (t.kind == "Node") {
        auto it = nodes_.find(t.name);
        if (it != nodes_.end() && it->second.state != NodeState::Terminated) {
          drain(it->second);
          terminate(it->second, now_);
        }
      } else {
        const std::string key = object_key(t.kind, t.namespace_, t.name);
        auto it = workloads_.find(key);
        if (it != workloads_.end()) {
          const std::vector<std::string> owned(it->second.pods.begin(), it->second.pods.end());
          workloads_.erase(it);
          for (const std::string& k : owned) delete_pod(k);
        }
      }
      note("delete", fmt::format("delete {} {}", t.kind, t.kind == "NodePool" || t.kind == "Node" ? t.name : t.namespace_ + "/" + t.name));
      return;
    }
    case TimelineStep::Action::Load: {
      const ObjectReference& t = step.target;
      const std::string key = object_key(t.kind, t.namespace_, t.name);
      auto it = workloads_.find(key);
      if (it == workloads_.end()) {
        note("warning", fmt::format("load: no {} {}/{}", t.kind, t.namespace_, t.name));
        return;
      }
      std::vector<std::pair<std::string, std::string>> labels{{"namespace", t.namespace_}};
      for (const auto& [k, v] : it->second.workload.pod_template.meta.labels) labels.emplace_back(k.str(), v.str());
      load_.set_load(key, std::move(labels), step.load, step.cost, now_);
      note("load", fmt::format("load {} {}/{}: {}", t.kind, t.namespace_, t.name, describe(step.load)));
      start_autoscaling();
      return;
    }
    case TimelineStep::Action::Cordon:
    case TimelineStep::Action::Uncordon: {
      const bool cordon = step.action == TimelineStep::Action::Cordon;
      set_unschedulable(step.node, cordon);
      note(cordon ? "cordon" : "uncordon", fmt::format("{} node {}", cordon ? "cordon" : "uncordon", step.node));
      return;
    }
  }
}

void Simulation::apply_objects(ManifestSet objects) {
  for (NodePool& pool : objects.nodepools) nodepools_[pool.meta.name] = pool;
  for (Namespace& ns : objects.namespaces) snapshot_.set_namespace_labels(ns.meta.name, ns.meta.labels);
  for (Node& n : objects.nodes) {
    if (nodes_.count(n.meta.name)) continue;
    SimNode node;
    node.node = std::move(n);
    node.launched_at = now_;
    price_static_node(node);
    const std::string name = node.node.meta.name;
    nodes_[name] = std::move(node);
    ++live_nodes_;
    on_node_ready(name);
  }
  for (Workload& w : objects.workloads) {
    const std::string key = object_key(to_string(w.kind), w.meta.namespace_, w.meta.name);
    auto [it, inserted] = workloads_.try_emplace(key, WorkloadState{w, 0, {}, true});
    if (!inserted) it->second.workload = std::move(w);  // re-applying updates the template and replicas
    it->second.dirty = true;
    if (it->second.workload.kind == WorkloadKind::DaemonSet) {
      for (auto& [name, node] : nodes_) {
        if (node.state == NodeState::Ready) add_daemon_pods(node);
      }
    }
  }
  for (Pod& p : objects.pods) {
    if (p.is_terminal()) continue;
    const std::string node = p.spec.node_name;
    p.spec.node_name.clear();
    const std::string key = p.meta.key();
    create_pod(std::move(p), "");
    NodeId id = node.empty() ? scheduling::kNoNode : snapshot_.find_node(node);
    auto it = pods_.find(key);
    if (id != scheduling::kNoNode && it != pods_.end() && !it->second.bound_at) {
      bind(it->second, id, /*count_wait=*/false);  // already running when the scenario starts
    }
  }
  for (PodDisruptionBudget& pdb : objects.pod_disruption_budgets) pdbs_.push_back(std::move(pdb));
  for (ConfigMap& config_map : objects.config_maps) config_maps_.push_back(std::move(config_map));
  for (HorizontalPodAutoscaler& hpa : objects.horizontal_pod_autoscalers) autoscaling_.add(std::move(hpa), now_);
  for (ScaledObject& scaled : objects.scaled_objects) autoscaling_.add(std::move(scaled), now_);
  if (!objects.horizontal_pod_autoscalers.empty() || !objects.scaled_objects.empty()) start_autoscaling();
  if (!objects.nodepools.empty()) provisioning_dirty_ = true;
  scheduling_dirty_ = true;
}

// Cluster Autoscaler runs when the scenario gives it flags: the Auto Scaling groups' desired nodes are running
// when the scenario starts, and CA scans from t=0 on.
void Simulation::start_cluster_autoscaler() {
  if (!scenario_.cluster_autoscaler) return;
  Result<ClusterAutoscalerLoop> loop = ClusterAutoscalerLoop::create(scenario_, cloud_.catalog(), config_maps_);
  if (!loop) {
    note("warning", "cluster autoscaler not started: " + loop.error().message);  // the CLI checks this first
    return;
  }
  cluster_autoscaler_ = std::move(*loop);
  for (const nodegroups::NodeGroup& group : cluster_autoscaler_->groups()) {
    launch_group_nodes(group, group.target_size, /*already_running=*/true);
  }
  push({now_, 0, EventKind::ClusterAutoscalerScan, 0, {}});
}

void Simulation::on_cluster_autoscaler_scan() {
  push({now_ + cluster_autoscaler_->options().scan_interval, 0, EventKind::ClusterAutoscalerScan, 0, {}});
  NodeGroupScan scan;
  scan.snapshot = &snapshot_;
  scan.scheduler = &scheduler_;
  scan.pdbs = pdbs_;
  // Every group is listed, with no Ready node too: its upcoming nodes are its target minus what registered.
  for (const nodegroups::NodeGroup& group : cluster_autoscaler_->groups()) scan.registered[group.id] = 0;
  for (const auto& [name, node] : nodes_) {
    if (node.state == NodeState::Ready) {
      ++scan.cluster_nodes;
      if (node.failed_at) ++scan.cluster_unready;
    }
    if (node.node_group.empty()) continue;
    if (node.state == NodeState::Ready) {
      scan.group_of_node[name] = node.node_group;
      ++scan.registered[node.node_group];
      if (node.failed_at) ++scan.unready[node.node_group];
    } else if (node.state == NodeState::Launching) {
      ++scan.launching[node.node_group];
    }
  }
  for (const auto& [name, drain] : node_drains_) {
    ++scan.deletions_in_progress[drain.group];
    ++scan.drains_in_progress;
  }
  for (const auto& [key, pod] : unbound_) {
    if (pod->daemon) continue;
    scan.pending_pods.push_back(pod->pod);
    auto nominated = nodes_.find(pod->nominated_node.string());
    if (nominated != nodes_.end() && nominated->second.node_group.empty()) continue;  // a NodeClaim is coming
    scan.unschedulable.push_back({pod->pod, pod->created});
  }
  NodeGroupActions actions = cluster_autoscaler_->scan(scan, now_, timeline_);
  if (!nodepools_.empty()) {
    std::map<std::string, std::size_t> handed;  // reason -> pods newly left to the NodePools
    for (const auto& [pod, reason] : actions.declined_pods) {
      if (!declined_by_cluster_autoscaler_.count(pod)) ++handed[reason];
    }
    for (const auto& [reason, count] : handed) {
      note("handoff", fmt::format("{} left to NodePools: no node group takes them ({})", plural(count, "pod"), reason));
    }
    if (!handed.empty()) {
      provisioning_dirty_ = true;
      scheduling_dirty_ = true;  // the pending pass opens the provisioning batch for them
    }
  }
  declined_by_cluster_autoscaler_ = std::move(actions.declined_pods);
  for (const nodegroups::ScaleUpInfo& info : actions.scale_ups) {
    if (const nodegroups::NodeGroup* group = cluster_autoscaler_->group(info.group)) {
      launch_group_nodes(*group, info.new_size - info.current_size, /*already_running=*/false);
    }
  }
  for (const nodegroups::UnneededNode& unneeded : actions.removals) remove_group_node(unneeded);
}

// The Auto Scaling group launches `count` instances across its zones (the ones running at the start are Ready at
// once); each registers as the group's template node, under a name of its own.
void Simulation::launch_group_nodes(const nodegroups::NodeGroup& group, std::int32_t count, bool already_running) {
  const cloud::InstanceType* type = cloud_.catalog().find(group.instance_type);
  if (type == nullptr || group.zones.empty()) return;  // discovery checked both
  const Symbol* capacity_label = group.template_node.meta.labels.find(Symbol(nodegroups::eks_labels::capacity_type));
  const cloud::CapacityType capacity = capacity_label != nullptr && capacity_label->str() == "SPOT"
                                           ? cloud::CapacityType::Spot
                                           : cloud::CapacityType::OnDemand;
  // Zones in turn, counted over the group's live nodes, as an Auto Scaling group balances its subnets.
  std::map<std::string, int> per_zone;
  for (const auto& [n, node] : nodes_) {
    if (node.node_group == group.id && node.state != NodeState::Terminated) ++per_zone[node.zone];
  }
  for (std::int32_t i = 0; i < count && !node_limit_reached(); ++i) {
    const std::string name = new_claim_name(group.id);
    const std::string zone = *std::min_element(group.zones.begin(), group.zones.end(),
                                               [&](const std::string& a, const std::string& b) {
                                                 return per_zone[a] != per_zone[b] ? per_zone[a] < per_zone[b] : a < b;
                                               });
    const cloud::Offering* offering = type->offering(zone, capacity);
    if (offering == nullptr) continue;
    Node node = nodegroups::instantiate_template(group, 0);
    node.meta.name = name;
    node.meta.labels.set(Symbol(well_known::hostname), Symbol(name));
    node.meta.labels.set(Symbol(well_known::zone), Symbol(zone));
    cloud::LaunchRequest request{name, type, offering, node.meta.labels, node.taints};
    cloud::LaunchOutcome outcome = cloud_.launch(request);
    if (outcome.insufficient_capacity) {
      ++ice_errors_;
      note("insufficient-capacity", fmt::format("{}: {}", group.id, outcome.message));
      cluster_autoscaler_->provisioning_failed(group.id, "OutOfResource", now_);
      continue;
    }
    SimNode sim;
    sim.node_group = group.id;
    sim.instance_id = outcome.instance->id;
    sim.instance_type = type->name;
    sim.zone = zone;
    sim.capacity_type = std::string(cloud::to_string(capacity));
    sim.price_per_hour = offering->price_per_hour;
    sim.launched_at = now_;
    sim.node = std::move(node);
    sim.node.provider_id = "aws:///" + zone + "/" + sim.instance_id;
    std::optional<Duration> ready = already_running ? std::optional(now_) : cloud_.ready_at(sim.instance_id);
    nodes_[name] = std::move(sim);
    ++per_zone[zone];
    ++live_nodes_;
    if (!already_running) ++launches_;
    if (already_running) {
      on_node_ready(name);
    } else if (ready) {
      push({*ready, 0, EventKind::NodeReady, 0, name});
    } else {
      push({now_ + cluster_autoscaler_->options().max_node_provision_time, 0, EventKind::RegistrationTimeout, 0, name});
    }
  }
}

// Scale-down as CA carries it out. An empty node is tainted ToBeDeletedByClusterAutoscaler and deleted at once.
// Any other is tainted (nothing new schedules there) and drained: its pods are evicted through the eviction API's
// rules, each refused eviction (a PodDisruptionBudget that allows no disruption now) retried every 10 s for
// --max-pod-eviction-time; an evicted pod's controller replaces it elsewhere at once, while the pod itself runs
// out its grace period (terminationGracePeriodSeconds, at most --max-graceful-termination-sec). The node is
// deleted, shrinking its group, when the last evicted pod is gone; a pod that could not be evicted in time fails
// the scale-down: the taint comes off and scale-down waits --scale-down-delay-after-failure.
void Simulation::remove_group_node(const nodegroups::UnneededNode& unneeded) {
  auto it = nodes_.find(unneeded.node);
  if (it == nodes_.end() || it->second.state != NodeState::Ready || node_drains_.count(unneeded.node)) return;
  set_to_be_deleted_taint(unneeded.node, true);
  if (unneeded.empty) {
    note("scale-down", fmt::format("empty node {} of {} removed (no pods to move), unneeded since {}", unneeded.node,
                                   unneeded.group, format_time(unneeded.since)));
    terminate(it->second, now_);
    cluster_autoscaler_->node_removed(unneeded.group, now_);
    return;
  }
  NodeDrain drain{unneeded.group, now_, unneeded.since, {}, {}, {}};
  if (NodeId id = snapshot_.find_node(unneeded.node); id != scheduling::kNoNode) {
    std::vector<std::shared_ptr<const Pod>> movable;
    for (const auto& placed : snapshot_.node(id).pods) {
      const SimPod& pod = pods_.at(placed.pod->meta.key());
      if (!pod.daemon && !pod.terminating_until && !nodegroups::is_mirror_pod(*pod.pod)) movable.push_back(placed.pod);
    }
    for (const auto& pod : nodegroups::eviction_order(std::move(movable))) drain.to_evict.push_back(pod->meta.key());
  }
  note("drain", fmt::format("draining node {} of {}: {} to evict, unneeded since {}", unneeded.node, unneeded.group,
                            plural(drain.to_evict.size(), "pod"), format_time(unneeded.since)));
  node_drains_.emplace(unneeded.node, std::move(drain));
  evict_drained_pods(unneeded.node);
}

// One round of evictions on a node being drained. The budgets are the PDBs' disruptionsAllowed as they stand
// (the pods being deleted out, pending replacements counted but not healthy), lowered by each eviction of the
// round, as the eviction API lowers a PDB's status before its controller recomputes it.
void Simulation::evict_drained_pods(const std::string& node) {
  auto found = node_drains_.find(node);
  if (found == node_drains_.end()) return;
  NodeDrain& drain = found->second;
  auto live = nodes_.find(node);
  if (live == nodes_.end() || live->second.state != NodeState::Ready) {
    node_drains_.erase(found);  // the node went another way (a spot reclaim, a deletion): nothing to finish
    return;
  }
  // Pods gone meanwhile (deleted by their controller, or evicted by someone else) need no eviction.
  std::erase_if(drain.to_evict, [&](const std::string& key) {
    auto it = pods_.find(key);
    return it == pods_.end() || it->second.terminating_until || it->second.pod->spec.node_name != node;
  });
  if (drain.to_evict.empty()) {
    finish_drain_if_done(node);
    return;
  }
  const nodegroups::AutoscalerOptions& options = cluster_autoscaler_->options();
  if (now_ >= drain.started + options.max_pod_eviction_time) {
    const std::string& first = drain.to_evict.front();
    note("scale-down-failed",
         fmt::format("ScaleDownFailed: failed to drain node {} of {}: {} not evicted within {} ({}); the taint is "
                     "removed and scale-down waits {}",
                     node, drain.group, first, format_duration(options.max_pod_eviction_time),
                     drain.last_refusal[first], format_duration(options.scale_down_delay_after_failure)));
    set_to_be_deleted_taint(node, false);
    cluster_autoscaler_->scale_down_failed(now_);
    node_drains_.erase(found);
    return;
  }
  std::vector<nodegroups::PdbBudget> budgets;
  if (!pdbs_.empty()) {
    std::vector<const Pod*> all;
    all.reserve(pods_.size());
    for (const auto& [key, pod] : pods_) all.push_back(pod.pod.get());
    for (const PodDisruptionBudget& pdb : pdbs_) budgets.push_back({pdb, nodegroups::disruptions_allowed(pdb, all)});
  }
  std::vector<std::string> refused;
  for (const std::string& key : drain.to_evict) {
    auto it = pods_.find(key);
    if (it == pods_.end()) continue;  // scaled in by its controller during this round
    std::vector<nodegroups::PdbBudget*> covering;
    for (nodegroups::PdbBudget& budget : budgets) {
      if (budget.selects(*it->second.pod)) covering.push_back(&budget);
    }
    std::string refusal;
    if (covering.size() > 1) {
      refusal = "the pod has more than one PodDisruptionBudget, which the eviction subresource does not support";
    } else if (covering.size() == 1 && covering.front()->disruptions_allowed <= 0) {
      refusal = fmt::format("cannot evict pod as it would violate the pod's disruption budget {}/{}",
                            covering.front()->pdb.meta.namespace_, covering.front()->pdb.meta.name);
    }
    if (refusal.empty()) {
      if (!covering.empty()) --covering.front()->disruptions_allowed;
      evict(it->second);
      drain.evicted.push_back(key);
      continue;
    }
    std::string& last = drain.last_refusal[key];
    if (last != refusal) note("eviction-refused", fmt::format("eviction of {} from node {}: {}; retrying every {}",
                                                              key, node, refusal, format_duration(kEvictionRetry)));
    last = refusal;
    refused.push_back(key);
  }
  drain.to_evict = std::move(refused);
  if (!drain.to_evict.empty()) {
    push({now_ + kEvictionRetry, 0, EventKind::EvictionRetry, 0, node});
    return;
  }
  finish_drain_if_done(node);
}

// The eviction API's delete: the pod is marked for deletion and leaves its controller's count (a replacement is
// created now), and it stops after its grace period.
void Simulation::evict(SimPod& pod) {
  const std::int64_t grace_seconds = nodegroups::eviction_grace_period_seconds(
      *pod.pod, cluster_autoscaler_->options().max_graceful_termination.count() / 1000);
  mark_deleted(pod, now_ + Duration(std::max<std::int64_t>(grace_seconds, 0) * 1000));
}

void Simulation::mark_deleted(SimPod& pod, std::optional<Duration> stops_at) {
  pod.terminating_until = stops_at.value_or(Duration::max());
  pod.pod->meta.deletion_timestamp = now_.count() / 1000;
  const std::string key = pod.pod->meta.key();
  if (auto owner = workloads_.find(pod.workload.string()); owner != workloads_.end()) {
    owner->second.pods.erase(key);
    owner->second.dirty = true;
  }
  // The ReplicaSet controller creates the replacement before anything else looks: a PDB counts it as expected
  // (and not yet healthy) from this instant on.
  reconcile_workloads();
  if (stops_at) push({*stops_at, 0, EventKind::PodTerminated, 0, key});
}

void Simulation::on_pod_terminated(const std::string& key) {
  auto it = pods_.find(key);
  // The pod may have gone already with its node, and a new pod may carry its name (a StatefulSet's).
  if (it == pods_.end() || !it->second.terminating_until || *it->second.terminating_until > now_) return;
  const std::string node = it->second.pod->spec.node_name;
  delete_pod(key);
  finish_drain_if_done(node);
}

// A drained node goes once every eviction went through and no evicted pod is still running out its grace period.
void Simulation::finish_drain_if_done(const std::string& node) {
  auto found = node_drains_.find(node);
  if (found == node_drains_.end() || !found->second.to_evict.empty()) return;
  auto it = nodes_.find(node);
  if (it == nodes_.end() || it->second.state != NodeState::Ready) {
    node_drains_.erase(found);  // the node went another way (a spot reclaim, a deletion): nothing to finish
    return;
  }
  const NodeDrain& drain = found->second;
  for (const std::string& key : drain.evicted) {
    auto pod = pods_.find(key);
    if (pod != pods_.end() && pod->second.terminating_until && pod->second.pod->spec.node_name == node) return;
  }
  note("scale-down",
       fmt::format("drained node {} of {} removed ({} evicted, drain took {}), unneeded since {}", node, drain.group,
                   plural(drain.evicted.size(), "pod"), format_duration(now_ - drain.started),
                   format_time(drain.unneeded_since)));
  terminate(it->second, now_);
  cluster_autoscaler_->node_removed(drain.group, now_);
  node_drains_.erase(found);
}

void Simulation::set_to_be_deleted_taint(const std::string& node_name, bool tainted) {
  auto it = nodes_.find(node_name);
  if (it == nodes_.end()) return;
  std::vector<Taint>& taints = it->second.node.taints;
  std::erase_if(taints, [](const Taint& t) { return t.key == nodegroups::kToBeDeletedTaint; });
  if (tainted) taints.push_back({std::string(nodegroups::kToBeDeletedTaint), "", TaintEffect::NoSchedule});
  refresh_snapshot_node(it->second);
}

// The metrics scrape and the HPA controller's sync start with the first autoscaler or load; KEDA polls whenever
// a ScaledObject is due.
void Simulation::start_autoscaling() {
  if (!autoscaling_started_) {
    autoscaling_started_ = true;
    push({now_, 0, EventKind::MetricsScrape, 0, {}});
  }
  if (std::optional<Duration> next = autoscaling_.next_poll(); next && !keda_poll_pending_) {
    keda_poll_pending_ = true;
    push({std::max(*next, now_), 0, EventKind::KedaPoll, 0, {}});
  }
}

void Simulation::on_metrics_scrape() {
  std::map<std::string, std::vector<RunningPod>> running;
  for (const auto& [key, pod] : pods_) {
    // An evicted pod is out of its Service's endpoints: it gets no requests while it shuts down.
    if (!pod.bound_at || pod.daemon || pod.workload.empty() || pod.terminating_until || node_failed_at(pod)) continue;
    std::int64_t limit = 0;
    if (!pod.pod->spec.containers.empty()) limit = pod.pod->spec.containers.front().limits.cpu_milli();
    running[pod.workload.string()].push_back({key, *pod.bound_at, limit});
  }
  load_.scrape(now_, running);
  push({now_ + LoadModel::kScrapeInterval, 0, EventKind::MetricsScrape, 0, {}});
  // Scheduled after the next scrape, so that every sync reads the scrape of the same instant.
  if (!hpa_sync_scheduled_) {
    hpa_sync_scheduled_ = true;
    push({now_ + kHpaSyncPeriod, 0, EventKind::HpaSync, 0, {}});
  }
}

void Simulation::apply_scale_changes(const std::vector<ScaleChange>& changes) {
  for (const ScaleChange& change : changes) {
    auto it = workloads_.find(change.workload);
    if (it == workloads_.end()) continue;
    it->second.workload.replicas = change.replicas;
    it->second.dirty = true;
  }
  start_autoscaling();  // the next KEDA poll
}

std::optional<ScaleTarget> Simulation::scale_target(const std::string& namespace_,
                                                    const CrossVersionObjectReference& ref) const {
  auto it = workloads_.find(object_key(ref.kind, namespace_, ref.name));
  if (it == workloads_.end() || it->second.workload.kind == WorkloadKind::DaemonSet) return std::nullopt;
  return ScaleTarget{it->first, it->second.workload.replicas, it->second.workload.selector};
}

std::vector<ObservedPod> Simulation::pods(const std::string& namespace_, const LabelSelector& selector) const {
  std::vector<ObservedPod> out;
  const std::string prefix = namespace_ + "/";
  for (auto it = pods_.lower_bound(prefix); it != pods_.end() && it->first.starts_with(prefix); ++it) {
    const SimPod& sim = it->second;
    if (sim.daemon || !selector.matches(sim.pod->meta.labels)) continue;
    ObservedPod observed{it->first, {}};
    workloads::HpaPod& pod = observed.pod;
    pod.name = sim.pod->meta.name;
    pod.deleting = sim.terminating_until.has_value();
    // The simulator starts a container as it binds and counts it Ready at once.
    pod.phase = sim.bound_at ? PodPhase::Running : PodPhase::Pending;
    if (sim.bound_at) {
      // On a node that stopped reporting, the node lifecycle controller has marked the pod NotReady.
      const std::optional<Duration> failed = node_failed_at(sim);
      pod.ready = !failed;
      pod.ready_last_transition = failed.value_or(*sim.bound_at);
      pod.start_time = *sim.bound_at;
    }
    for (const Container& c : sim.pod->spec.containers) pod.containers.push_back(hpa_container(c));
    out.push_back(std::move(observed));
  }
  return out;
}

// A node that came with the manifests costs what its instance type costs in its zone (on-demand unless labelled
// spot), so that the summary's bill includes it.
void Simulation::price_static_node(SimNode& node) const {
  const Labels& labels = node.node.meta.labels;
  const Symbol* type = labels.find(Symbol(well_known::instance_type));
  if (type == nullptr) return;
  node.instance_type = type->string();
  const Symbol* capacity = labels.find(Symbol(karpenter_labels::capacity_type));
  const Symbol* zone = labels.find(Symbol(well_known::zone));
  const cloud::CapacityType capacity_type =
      capacity && capacity->str() == "spot" ? cloud::CapacityType::Spot : cloud::CapacityType::OnDemand;
  node.capacity_type = std::string(cloud::to_string(capacity_type));
  const cloud::InstanceType* t = cloud_.catalog().find(node.instance_type);
  if (t == nullptr) return;
  if (const cloud::Offering* o = zone ? t->offering(zone->str(), capacity_type) : nullptr) {
    node.zone = o->zone;
    node.price_per_hour = o->price_per_hour;
  } else {
    node.price_per_hour = t->cheapest(capacity_type).value_or(0);
  }
}

void Simulation::reconcile_workloads() {
  for (auto& [key, state] : workloads_) {
    if (!stopped_.empty()) return;
    if (!state.dirty) continue;
    state.dirty = false;
    const Workload& w = state.workload;
    if (w.kind == WorkloadKind::DaemonSet) continue;
    const auto want = static_cast<std::size_t>(std::max(w.replicas, 0));
    const std::size_t have = state.pods.size();
    if (have < want) {
      std::int32_t ordinal = w.kind == WorkloadKind::StatefulSet ? 0 : state.next_ordinal;
      for (std::size_t missing = want - have; missing > 0 && stopped_.empty(); ++ordinal) {
        Pod pod = w.make_pod(ordinal);
        if (state.pods.count(pod.meta.key())) continue;
        create_pod(std::move(pod), key);
        --missing;
      }
      if (w.kind != WorkloadKind::StatefulSet) state.next_ordinal = ordinal;
    } else if (have > want) {
      std::vector<std::string> mine(state.pods.begin(), state.pods.end());
      // As the ReplicaSet controller: pods not yet bound go first, then the newest.
      std::sort(mine.begin(), mine.end(), [&](const std::string& a, const std::string& b) {
        const SimPod& pa = pods_.at(a);
        const SimPod& pb = pods_.at(b);
        if (pa.bound_at.has_value() != pb.bound_at.has_value()) return !pa.bound_at.has_value();
        return pa.created != pb.created ? pa.created > pb.created : a > b;
      });
      for (std::size_t i = 0; i < mine.size() - want; ++i) delete_pod(mine[i]);
    }
    state.dirty = false;  // its own creations and deletions above are what it asked for
  }
}

void Simulation::create_pod(Pod pod, std::string workload) {
  std::string key = pod.meta.key();
  if (pods_.size() >= limits_.max_pods) {
    if (pods_.count(key)) return;
    stop(fmt::format("the simulation holds at most {} pods; {} asked for more", limits_.max_pods,
                     workload.empty() ? "pod " + key : workload));
    return;
  }
  // One lookup both refuses a name already taken and makes the entry.
  auto [it, inserted] = pods_.try_emplace(std::move(key));
  if (!inserted) return;
  SimPod& added = it->second;
  added.pod = std::make_shared<Pod>(std::move(pod));
  added.created = now_;
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
  scheduling_dirty_ = true;
  provisioning_dirty_ = true;
}

void Simulation::delete_pod(const std::string& key) {
  auto it = pods_.find(key);
  if (it == pods_.end()) return;
  record_outcome(it->second);
  count_busy(it->second, -1);
  if (auto owner = workloads_.find(it->second.workload.string()); owner != workloads_.end()) {
    owner->second.pods.erase(key);
    owner->second.dirty = true;  // a deleted pod is replaced, as its ReplicaSet would
  }
  if (it->second.bound_at) {
    auto node = snapshot_.node_of_pod(key);
    if (node) {
      ready_requested_ -= it->second.pod->effective_requests();
      snapshot_.remove_pod(key);
    }
  }
  if (!it->second.bound_at) {
    drop_nominee(it->second);
    leave_queue(it->second);
  }
  unbound_.erase(key);
  pods_.erase(it);
  scheduling_dirty_ = true;
}

void Simulation::drop_nominee(SimPod& pod) {
  auto was = nominees_.find(pod.nominated_node);
  if (was == nominees_.end()) return;
  was->second.erase(&pod);
  if (was->second.empty()) nominees_.erase(was);
}

// A pending pod leaves kube-scheduler's queue (bound or deleted), and the counts of pending pods it was in.
void Simulation::leave_queue(SimPod& pod) {
  auto cls = queue_.find(pod.scheduling_class);
  cls->second.erase(&pod);
  if (cls->second.empty()) queue_.erase(cls);
  if (pod.daemon) return;
  if (pod.nominated_node.empty()) --needing_capacity_;
  if (pod.serial >= reported_below_) --unreported_;
}

void Simulation::count_busy(const SimPod& pod, int delta) {
  if (pod.daemon) return;
  const std::string node = pod.bound_at ? pod.pod->spec.node_name : pod.nominated_node.string();
  if (!node.empty()) busy_[node] += delta;
}

void Simulation::nominate(SimPod& pod, const std::string& node_name) {
  const Symbol node = node_name.empty() ? Symbol() : Symbol(node_name);
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

void Simulation::bind(SimPod& pod, NodeId node, bool count_wait) {
  nominate(pod, "");
  leave_queue(pod);
  pod.pod->spec.node_name = snapshot_.node(node).name();
  pod.bound_at = now_;
  unbound_.erase(pod.pod->meta.key());
  count_busy(pod, +1);
  ready_requested_ += pod.pod->effective_requests();
  snapshot_.add_pod(std::shared_ptr<const Pod>(pod.pod), node);
  if (!pod.daemon && count_wait) waits_.push_back(now_ - pod.created);
}

// kube-scheduler's loop, one pass: pending pods in queue order, each bound before the next. Pods equivalent to
// one that just failed fail too without another try, which keeps a pass over 50,000 replicas cheap: the pass
// walks each class's queue only while its pods bind.
void Simulation::schedule_pending() {
  if (!scheduling_dirty_) return;
  scheduling_dirty_ = false;
  // The classes' first pods, best first (a heap ordered by the queue order, reversed for std::push_heap).
  auto later = [](const SimPod* a, const SimPod* b) { return QueueOrder()(b, a); };
  std::vector<SimPod*> heads;
  heads.reserve(queue_.size());
  for (const auto& [cls, pods] : queue_) heads.push_back(*pods.begin());
  std::make_heap(heads.begin(), heads.end(), later);
  std::map<std::string, int> bound_per_node;
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    SimPod* pod = heads.back();
    heads.pop_back();
    scheduling::SchedulingResult result = scheduler_.schedule(snapshot_, *pod->pod);
    if (!result.scheduled()) continue;  // its class fails for the rest of the pass
    const Symbol cls = pod->scheduling_class;
    bind(*pod, result.chosen);
    ++bound_per_node[snapshot_.node(result.chosen).name()];
    if (auto next = queue_.find(cls); next != queue_.end()) {
      heads.push_back(*next->second.begin());
      std::push_heap(heads.begin(), heads.end(), later);
    }
  }
  if (!bound_per_node.empty()) {
    int total = 0;
    std::string where;
    for (const auto& [node, n] : bound_per_node) {
      total += n;
      where += fmt::format("{}{}: {}", where.empty() ? "" : ", ", node, n);
    }
    note("bound", fmt::format("{} bound ({})", plural(static_cast<std::size_t>(total), "pod"), where));
  }
  if (unreported_ > 0) note("pending", fmt::format("{} pending: no node fits them", plural(unreported_, "pod")));
  unreported_ = 0;
  reported_below_ = next_pod_serial_;
  // A nomination holds while its node is in flight. Once the node is Ready, kube-scheduler binds pods in its own
  // queue order, not the provisioner's plan, so a nominated pod it could not place there needs capacity again
  // (Karpenter re-plans every pending pod on each batch); left nominated, it would wait for good.
  std::vector<std::string> landed;  // nodes no longer in flight that pods are still nominated to
  for (const auto& [node, pods] : nominees_) {
    if (!in_flight(node.string())) landed.push_back(node.string());
  }
  for (const std::string& node : landed) release_nominations(node);
  if (!landed.empty()) provisioning_dirty_ = true;
  check_pending_counts();
  // Pods that fit nowhere and wait for no planned node need capacity: they open or extend a batch.
  if (needing_capacity_ > 0 && provisioning_dirty_ && !nodepools_.empty()) {
    provisioning_dirty_ = false;
    push({batcher_.trigger(now_), 0, EventKind::BatchDeadline, 0, {}});
  }
}

// The counts kept as pods come and go, checked against a scan of every pending pod in debug builds (the tests'
// sanitizer build), where scenarios are small.
void Simulation::check_pending_counts() const {
#ifndef NDEBUG
  std::size_t needing = 0;
  std::size_t queued = 0;
  for (const auto& [key, pod] : unbound_) needing += !pod->daemon && pod->nominated_node.empty();
  for (const auto& [cls, pods] : queue_) queued += pods.size();
  assert(needing == needing_capacity_);
  assert(queued == unbound_.size());
#endif
}

// Ends the run at the current instant: the report covers the run up to now, and says why it ended.
void Simulation::stop(std::string reason) {
  if (!stopped_.empty()) return;
  stopped_ = std::move(reason);
  scenario_.duration = now_;
}

bool Simulation::node_limit_reached() {
  if (live_nodes_ < static_cast<std::int64_t>(limits_.max_nodes)) return false;
  stop(fmt::format("the simulation holds at most {} nodes; more were to be launched", limits_.max_nodes));
  return true;
}

// Ends every nomination to `node` (Ready without those pods, or going away): its pods need capacity again.
void Simulation::release_nominations(const std::string& node) {
  auto it = nominees_.find(Symbol(node));
  if (it == nominees_.end()) return;
  const std::vector<SimPod*> pods(it->second.begin(), it->second.end());  // nominate() edits the set
  for (SimPod* pod : pods) {
    nominate(*pod, "");
    pod->last_reason = Symbol();
  }
}

bool Simulation::in_flight(const std::string& node_name) const {
  auto node = nodes_.find(node_name);
  return node != nodes_.end() && node->second.state == NodeState::Launching;
}

void Simulation::on_batch_deadline() {
  if (!batcher_.due(now_)) return;
  batcher_.close();
  provision();
}

void Simulation::provision() {
  provisioning::ProvisioningInput input;
  std::vector<SimPod*> batch;  // the batch's pods, in the order of input.pending
  std::map<std::string, std::vector<std::shared_ptr<const Pod>>> planned;  // in-flight node -> pods nominated to it
  for (auto& [key, pod_ptr] : unbound_) {
    SimPod& pod = *pod_ptr;
    if (pod.daemon) continue;
    if (in_flight(pod.nominated_node.string())) {
      planned[pod.nominated_node.string()].push_back(pod.pod);  // waits for its node: not part of the batch
      continue;
    }
    // With Cluster Autoscaler, only what its last scan left to the NodePools (not a group's, nor yet unseen).
    if (cluster_autoscaler_ && !declined_by_cluster_autoscaler_.count(std::string(key))) continue;
    nominate(pod, "");
    input.pending.push_back(pod.pod);  // shared, not copied
    batch.push_back(&pod);
  }
  if (input.pending.empty()) return;

  // The provisioner sees Ready nodes and in-flight ones, each with the pods already planned onto it.
  snapshot_.fork();
  for (auto& [name, node] : nodes_) {
    // A node group's upcoming node is for the pods Cluster Autoscaler launched it for, not for these.
    if (node.state != NodeState::Launching || !node.node_group.empty()) continue;
    NodeId id = snapshot_.add_node(node.node);
    input.in_flight_nodes.push_back(name);
    for (std::shared_ptr<const Pod>& pod : planned[name]) snapshot_.add_pod(std::move(pod), id);  // shared
  }
  for (const auto& [key, state] : workloads_) {
    if (state.workload.kind == WorkloadKind::DaemonSet) input.daemonsets.push_back(state.workload);
  }
  for (const auto& [name, pool] : nodepools_) input.nodepools.push_back(pool);
  for (const auto& [name, node] : nodes_) {
    if (node.nodepool.empty() || node.state == NodeState::Terminated) continue;
    input.nodepool_usage[node.nodepool] += node.node.capacity;
  }
  input.cluster = &snapshot_;
  input.catalog = &cloud_.catalog();
  input.unavailable = &unavailable_;
  input.now = now_;
  provisioning::ProvisioningPlan plan = provisioning::plan_provisioning(input);
  snapshot_.revert();

  for (const provisioning::Nomination& n : plan.existing) nominate(*batch[n.pod], n.node);
  for (const provisioning::Unschedulable& u : plan.unschedulable) {
    SimPod& pod = *batch[u.pod];
    if (pod.last_reason.str() != u.reason) {
      pod.last_reason = Symbol(u.reason);
      note("unschedulable", fmt::format("pod {} cannot be provisioned: {}", pod.key, u.reason));
    }
  }
  for (provisioning::NewNodeClaim& claim : plan.new_claims) {
    std::vector<SimPod*> pods;
    for (std::size_t i : claim.pods) pods.push_back(batch[i]);
    launch(std::move(claim), pods);
  }
}

// Offerings marked unavailable come back after their TTL: look again then.
void Simulation::retry_after_unavailable() { push({now_ + kUnavailableOfferingTtl, 0, EventKind::ProvisioningRetry, 0, {}}); }

std::string Simulation::new_claim_name(const std::string& nodepool) {
  for (;;) {
    std::string name = nodepool + "-";
    for (int i = 0; i < 5; ++i) name += kSafeNameAlphabet[random_.next() % kSafeNameAlphabet.size()];
    if (!nodes_.count(name)) return name;
  }
}

// Launches the claim from its cheapest available offering; an offering that has no capacity is remembered for
// three minutes and the next one tried, as Karpenter does.
void Simulation::launch(provisioning::NewNodeClaim claim, const std::vector<SimPod*>& pods) {
  if (node_limit_reached()) return;
  const std::string name = new_claim_name(claim.nodepool);
  for (;;) {
    std::optional<provisioning::LaunchChoice> choice = provisioning::choose_offering(claim, unavailable_, now_);
    if (!choice) {
      note("launch-failed", fmt::format("NodeClaim for {} not launched: every offering that fits is unavailable",
                                        plural(pods.size(), "pod")));
      retry_after_unavailable();
      return;
    }
    const cloud::InstanceType& type = *choice->instance_type;
    const cloud::Offering& offering = *choice->offering;
    cloud::LaunchRequest request{name, &type, &offering, claim.labels, claim.taints};
    cloud::LaunchOutcome outcome = cloud_.launch(request);
    if (outcome.insufficient_capacity) {
      ++ice_errors_;
      unavailable_.mark({type.name, offering.zone, offering.capacity_type}, now_ + kUnavailableOfferingTtl);
      note("insufficient-capacity", outcome.message + "; trying the next offering");
      continue;
    }
    SimNode node;
    node.nodepool = claim.nodepool;
    node.instance_id = outcome.instance->id;
    node.instance_type = type.name;
    node.zone = offering.zone;
    node.capacity_type = std::string(cloud::to_string(offering.capacity_type));
    node.price_per_hour = offering.price_per_hour;
    node.launched_at = now_;
    node.node.meta.name = name;
    node.node.meta.labels = claim.labels;
    for (const auto& [k, v] : type.labels) node.node.meta.labels.set(k, v);
    node.node.meta.labels.set(Symbol(well_known::zone), Symbol(offering.zone));
    node.node.meta.labels.set(Symbol(karpenter_labels::capacity_type), Symbol(node.capacity_type));
    node.node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol(claim.nodepool));
    node.node.meta.labels.set(Symbol(well_known::hostname), Symbol(name));
    node.node.taints = claim.taints;  // startup taints are gone by the time pods are bound (see on_node_ready)
    node.node.capacity = type.capacity;
    node.node.allocatable = type.allocatable;
    node.node.provider_id = "aws:///" + offering.zone + "/" + node.instance_id;
    ++launches_;
    note("launch", fmt::format("NodeClaim {} launched {} {} {} ${:.4f}/h for {}", name, type.name, offering.zone,
                               node.capacity_type, offering.price_per_hour, plural(pods.size(), "pod")));
    std::optional<Duration> ready = cloud_.ready_at(node.instance_id);
    nodes_[name] = std::move(node);
    ++live_nodes_;
    for (SimPod* pod : pods) nominate(*pod, name);
    if (ready) {
      push({*ready, 0, EventKind::NodeReady, 0, name});
    } else {
      push({now_ + kRegistrationTtl, 0, EventKind::RegistrationTimeout, 0, name});
    }
    return;
  }
}

void Simulation::on_node_ready(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.state != NodeState::Launching) return;
  SimNode& node = it->second;
  node.state = NodeState::Ready;
  node.node.conditions = {{"Ready", "True", "KubeletReady"}};
  snapshot_.add_node(node.node);
  ready_allocatable_ += node.node.allocatable;
  if ((!node.nodepool.empty() || !node.node_group.empty()) && now_ > node.launched_at) {
    note("ready", fmt::format("node {} Ready ({} after launch)", name, format_duration(now_ - node.launched_at)));
  }
  add_daemon_pods(node);
  scheduling_dirty_ = true;
}

void Simulation::add_daemon_pods(SimNode& node) {
  NodeId id = snapshot_.find_node(node.node.meta.name);
  if (id == scheduling::kNoNode) return;
  for (auto& [key, state] : workloads_) {
    if (state.workload.kind != WorkloadKind::DaemonSet) continue;
    std::optional<Pod> pod = scheduling::daemon_pod_for_node(state.workload, node.node, state.next_ordinal);
    if (!pod) continue;
    // One pod per DaemonSet and node: the name carries the node so that re-adding is a no-op.
    pod->meta.name = state.workload.meta.name + "-" + node.node.meta.name;
    if (pods_.count(pod->meta.key())) continue;
    ++state.next_ordinal;
    const std::string pod_key = pod->meta.key();
    create_pod(std::move(*pod), key);
    SimPod& created = pods_.at(pod_key);
    // The pod is pinned to this node and the controller has checked selectors and taints: what is left is
    // whether it fits (asking the scheduler would cache verdicts for a class of one pod per node).
    const scheduling::NodeInfo& info = snapshot_.node(id);
    if ((info.requested + created.pod->effective_requests()).fits_in(info.allocatable)) bind(created, id);
  }
}

void Simulation::set_unschedulable(const std::string& node_name, bool unschedulable) {
  auto it = nodes_.find(node_name);
  if (it == nodes_.end()) return;
  it->second.node.unschedulable = unschedulable;
  refresh_snapshot_node(it->second);
}

void Simulation::refresh_snapshot_node(const SimNode& node) {
  NodeId id = snapshot_.find_node(node.node.meta.name);
  if (id == scheduling::kNoNode) return;
  std::vector<std::shared_ptr<const Pod>> bound;
  for (const auto& placed : snapshot_.node(id).pods) bound.push_back(placed.pod);
  snapshot_.remove_node(id);
  NodeId fresh = snapshot_.add_node(node.node);
  for (auto& pod : bound) snapshot_.add_pod(pod, fresh);
  scheduling_dirty_ = true;
}

void Simulation::on_registration_timeout(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.state != NodeState::Launching) return;
  const std::string group = it->second.node_group;
  const Duration limit = group.empty() || !cluster_autoscaler_ ? kRegistrationTtl
                                                               : cluster_autoscaler_->options().max_node_provision_time;
  note("registration-timeout", fmt::format("{} {} did not become Ready within {}; deleted",
                                           group.empty() ? "NodeClaim" : "node", name, format_duration(limit)));
  terminate(it->second, now_);
  if (!group.empty() && cluster_autoscaler_) {
    cluster_autoscaler_->provisioning_failed(group, "FailedToRegister", now_);
  }
  scheduling_dirty_ = true;  // terminate() drained it: the pods planned onto it need capacity again
}

// Emptiness as Karpenter's disruption controller sees it: a NodePool node with no pods but DaemonSet pods, and
// no pods planned onto it, is empty; after the NodePool's consolidateAfter it is removed.
void Simulation::update_emptiness() {
  std::optional<Duration> earliest;
  for (auto& [name, node] : nodes_) {
    if (node.state != NodeState::Ready || node.nodepool.empty()) continue;
    const NodePool* pool = find_nodepool(node.nodepool);
    auto busy = busy_.find(name);
    if ((busy != busy_.end() && busy->second > 0) || pool == nullptr || !pool->consolidate_after) {
      node.empty_since.reset();
      continue;
    }
    if (!node.empty_since) node.empty_since = now_;
    Duration due = *node.empty_since + *pool->consolidate_after;
    if (!earliest || due < *earliest) earliest = due;
  }
  if (earliest && !disruption_check_pending_) {
    disruption_check_pending_ = true;
    push({std::max(*earliest, now_), 0, EventKind::DisruptionCheck, 0, {}});
  }
}

void Simulation::on_disruption_check() {
  // Budgets: at most `nodes` of a NodePool's nodes disrupted at once ("10%" rounds up, as Karpenter does).
  std::map<std::string, std::int32_t> pool_nodes;
  for (const auto& [name, node] : nodes_) {
    if (!node.nodepool.empty() && node.state != NodeState::Terminated) ++pool_nodes[node.nodepool];
  }
  std::map<std::string, std::int32_t> allowed;
  for (const auto& [pool_name, count] : pool_nodes) {
    const NodePool* pool = find_nodepool(pool_name);
    std::int32_t limit = count;
    if (pool) {
      for (const DisruptionBudget& b : pool->budgets) limit = std::min(limit, b.nodes.scaled(count, /*round_up=*/true));
    }
    allowed[pool_name] = limit;
  }
  bool held_back = false;
  for (auto& [name, node] : nodes_) {
    if (node.state != NodeState::Ready || !node.empty_since) continue;
    const NodePool* pool = find_nodepool(node.nodepool);
    if (pool == nullptr || !pool->consolidate_after) continue;
    if (*node.empty_since + *pool->consolidate_after > now_) continue;
    if (allowed[node.nodepool] <= 0) {
      held_back = true;
      continue;
    }
    --allowed[node.nodepool];
    note("removed", fmt::format("node {} empty, removed after {}", name, format_duration(now_ - *node.empty_since)));
    drain(node);
    terminate(node, now_);
  }
  if (held_back) {
    disruption_check_pending_ = true;
    push({now_ + kDisruptionPoll, 0, EventKind::DisruptionCheck, 0, {}});
  }
}

// The spot interruption warning: Karpenter cordons and drains the node at once and provisions replacements for
// its pods; the cloud reclaims the instance two minutes later.
void Simulation::on_spot_notice(std::int32_t count) {
  std::vector<SimNode*> spot;
  for (auto& [name, node] : nodes_) {
    if (node.capacity_type == "spot" && (node.state == NodeState::Ready || node.state == NodeState::Launching)) {
      spot.push_back(&node);
    }
  }
  std::stable_sort(spot.begin(), spot.end(), [](const SimNode* a, const SimNode* b) { return a->launched_at < b->launched_at; });
  for (std::int32_t i = 0; i < count && i < static_cast<std::int32_t>(spot.size()); ++i) {
    SimNode& node = *spot[static_cast<std::size_t>(i)];
    ++interruptions_;
    note("interruption", fmt::format("spot interruption notice for node {} ({} {}); draining, reclaimed in {}",
                                     node.node.meta.name, node.instance_type, node.zone, format_duration(kSpotNotice)));
    drain(node);
    push({now_ + kSpotNotice, 0, EventKind::SpotReclaim, 0, node.node.meta.name});
  }
}

// A node stops reporting: the node lifecycle controller sets its Ready condition Unknown and taints it unreachable
// (NoSchedule, NoExecute); its pods are NotReady at once and deleted when their toleration ends. The instance keeps
// running (and billing) until an autoscaler or the timeline removes the node.
void Simulation::on_node_failure(const NodeFailureEvent& failure) {
  std::vector<SimNode*> matching;
  for (auto& [name, node] : nodes_) {
    if (node.state != NodeState::Ready || node.failed_at) continue;
    if (!failure.node_group.empty() && node.node_group != failure.node_group) continue;
    if (!failure.nodepool.empty() && node.nodepool != failure.nodepool) continue;
    matching.push_back(&node);
  }
  std::stable_sort(matching.begin(), matching.end(),
                   [](const SimNode* a, const SimNode* b) { return a->launched_at < b->launched_at; });
  if (matching.empty()) {
    note("warning", "node failure: no Ready node" + (failure.node_group.empty() ? "" : " of " + failure.node_group) +
                        (failure.nodepool.empty() ? "" : " of NodePool " + failure.nodepool) + " to fail");
    return;
  }
  for (std::int32_t i = 0; i < failure.count && i < static_cast<std::int32_t>(matching.size()); ++i) {
    SimNode& node = *matching[static_cast<std::size_t>(i)];
    const std::string& name = node.node.meta.name;
    node.failed_at = now_;
    auto ready = std::find_if(node.node.conditions.begin(), node.node.conditions.end(),
                              [](const NodeCondition& c) { return c.type == "Ready"; });
    if (ready == node.node.conditions.end()) ready = node.node.conditions.insert(ready, NodeCondition{"Ready", "", ""});
    ready->status = "Unknown";
    ready->reason = "NodeStatusUnknown";
    for (TaintEffect effect : {TaintEffect::NoSchedule, TaintEffect::NoExecute}) {
      node.node.taints.push_back({std::string(kUnreachableTaint), "", effect});
    }
    refresh_snapshot_node(node);
    std::set<Duration> deletions;
    std::size_t pods = 0;
    if (NodeId id = snapshot_.find_node(name); id != scheduling::kNoNode) {
      for (const auto& placed : snapshot_.node(id).pods) {
        const SimPod& pod = pods_.at(placed.pod->meta.key());
        if (pod.daemon || pod.terminating_until) continue;
        ++pods;
        if (std::optional<Duration> toleration = unreachable_toleration(*pod.pod)) deletions.insert(now_ + *toleration);
      }
    }
    for (Duration at : deletions) push({at, 0, EventKind::TaintEviction, 0, name});
    note("node-failure", fmt::format("node {} stopped reporting: NotReady, tainted {}; {} on it, each deleted when "
                                     "its toleration of the taint ends ({} by default)",
                                     name, kUnreachableTaint, plural(pods, "pod"),
                                     format_duration(Duration(kDefaultUnreachableTolerationSeconds * 1000))));
  }
}

// The taint manager deletes the pods whose toleration of the unreachable taint ends now. The kubelet cannot confirm
// it, so they stay Terminating on the node (holding its room) until the node goes; their controllers replace them.
void Simulation::on_taint_eviction(const std::string& name) {
  auto it = nodes_.find(name);
  if (it == nodes_.end() || it->second.state != NodeState::Ready || !it->second.failed_at) return;
  NodeId id = snapshot_.find_node(name);
  if (id == scheduling::kNoNode) return;
  std::vector<SimPod*> due;
  for (const auto& placed : snapshot_.node(id).pods) {
    SimPod& pod = pods_.at(placed.pod->meta.key());
    if (pod.daemon || pod.terminating_until) continue;
    std::optional<Duration> toleration = unreachable_toleration(*pod.pod);
    if (toleration && *it->second.failed_at + *toleration == now_) due.push_back(&pod);
  }
  for (SimPod* pod : due) mark_deleted(*pod, std::nullopt);
  if (!due.empty()) {
    note("taint-eviction", fmt::format("{} on unreachable node {} deleted after {}; controllers create replacements",
                                       plural(due.size(), "pod"), name, format_duration(now_ - *it->second.failed_at)));
  }
}

std::optional<Duration> Simulation::node_failed_at(const SimPod& pod) const {
  if (!pod.bound_at) return std::nullopt;
  auto it = nodes_.find(pod.pod->spec.node_name);
  return it == nodes_.end() ? std::nullopt : it->second.failed_at;
}

// Takes the node out of scheduling and evicts its pods; their controllers create replacements.
void Simulation::drain(SimNode& node) {
  const std::string& name = node.node.meta.name;
  std::vector<std::string> evicted;
  if (NodeId id = snapshot_.find_node(name); id != scheduling::kNoNode) {
    for (const auto& placed : snapshot_.node(id).pods) evicted.push_back(placed.pod->meta.key());
  }
  for (const std::string& key : evicted) delete_pod(key);
  release_nominations(name);
  NodeId id = snapshot_.find_node(name);
  if (id != scheduling::kNoNode) {
    ready_allocatable_ -= node.node.allocatable;
    snapshot_.remove_node(id);
  }
  node.state = NodeState::Draining;
  scheduling_dirty_ = true;
}

void Simulation::terminate(SimNode& node, Duration at) {
  if (node.state != NodeState::Draining) drain(node);
  provisioning_dirty_ = true;  // capacity and NodePool limits freed
  if (!node.instance_id.empty()) cloud_.terminate(node.instance_id);
  node.state = NodeState::Terminated;
  node.terminated_at = at;
  --live_nodes_;
  to_retire_.push_back(node.node.meta.name);
}

void Simulation::record_outcome(const SimPod& pod) {
  if (pod.daemon || !pod_outcomes_) return;
  PodOutcome outcome{pod.pod->meta.key(), {}, {}, std::nullopt};
  if (pod.bound_at) {
    outcome.node = pod.pod->spec.node_name;
    auto node = nodes_.find(outcome.node);
    if (node != nodes_.end()) outcome.nodepool = node->second.nodepool;
    outcome.wait = *pod.bound_at - pod.created;
  }
  outcomes_.push_back(std::move(outcome));
}

void Simulation::advance_to(Duration t) {
  if (t <= now_) return;
  const double seconds = static_cast<double>((t - now_).count()) / 1000;
  if (ready_allocatable_.cpu_milli() > 0) {
    cpu_allocation_integral_ +=
        seconds * static_cast<double>(ready_requested_.cpu_milli()) / static_cast<double>(ready_allocatable_.cpu_milli());
    if (ready_allocatable_.memory() > 0) {
      memory_allocation_integral_ +=
          seconds * static_cast<double>(ready_requested_.memory()) / static_cast<double>(ready_allocatable_.memory());
    }
    ready_time_ += seconds;
  }
  now_ = t;
}

void Simulation::count_nodes() { peak_nodes_ = std::max(peak_nodes_, live_nodes_); }

// Terminated nodes leave the working set (which every event scans) for the bill.
void Simulation::retire_terminated() {
  for (const std::string& name : to_retire_) {
    auto it = nodes_.find(name);
    if (it == nodes_.end()) continue;
    busy_.erase(name);
    retired_.push_back(std::move(it->second));
    nodes_.erase(it);
  }
  to_retire_.clear();
}

SimulationReport Simulation::report() {
  autoscaling_.account(scenario_.duration, *this);
  SimulationReport r;
  r.scenario = scenario_.meta.name;
  r.seed = scenario_.seed;
  r.duration = scenario_.duration;
  r.stopped = stopped_;
  r.timeline = std::move(timeline_);
  Summary& s = r.summary;
  std::map<std::tuple<std::string, std::string, std::string>, CostLine> lines;
  retire_terminated();
  std::vector<const SimNode*> every_node;
  for (const SimNode& node : retired_) every_node.push_back(&node);
  for (const auto& [name, node] : nodes_) every_node.push_back(&node);
  for (const SimNode* n : every_node) {
    const SimNode& node = *n;
    const Duration end = node.terminated_at.value_or(scenario_.duration);
    const double hours = static_cast<double>((end - node.launched_at).count()) / 3'600'000.0;
    const std::string owner = node.node_group.empty() ? node.nodepool : "group/" + node.node_group;
    CostLine& line = lines[{owner, node.instance_type, node.capacity_type}];
    line.nodepool = owner;
    line.instance_type = node.instance_type;
    line.capacity_type = node.capacity_type;
    ++line.nodes;
    line.node_hours += hours;
    line.cost += hours * node.price_per_hour;
    s.nodes_at_end += node.state != NodeState::Terminated;
  }
  for (auto& [key, line] : lines) {
    s.total_cost += line.cost;
    s.total_node_hours += line.node_hours;
    s.cost_lines.push_back(std::move(line));
  }
  if (pod_outcomes_) {
    for (const auto& [key, pod] : pods_) record_outcome(pod);
  }
  std::stable_sort(outcomes_.begin(), outcomes_.end(),
                   [](const PodOutcome& a, const PodOutcome& b) { return a.pod < b.pod; });
  r.pods = std::move(outcomes_);
  s.pod_wait.pods_bound = waits_.size();
  for (const auto& [key, pod] : pods_) s.pod_wait.pods_pending_at_end += !pod.bound_at && !pod.daemon;
  s.pod_wait.p50 = quantile(waits_, 0.50);
  s.pod_wait.p99 = quantile(waits_, 0.99);
  s.pod_wait.max = waits_.empty() ? Duration(0) : *std::max_element(waits_.begin(), waits_.end());
  s.peak_nodes = peak_nodes_;
  s.launches = launches_;
  s.insufficient_capacity_errors = ice_errors_;
  s.spot_interruptions = interruptions_;
  s.autoscalers = autoscaling_.summary();
  if (cluster_autoscaler_) r.cluster_autoscaler_status = cluster_autoscaler_->status(now_, kWallClockAtStart);
  r.cluster_autoscaler_status_at = std::move(statuses_);
  s.dropped_requests = load_.dropped_requests();
  if (ready_time_ > 0) {
    s.mean_cpu_allocation = cpu_allocation_integral_ / ready_time_;
    s.mean_memory_allocation = memory_allocation_integral_ / ready_time_;
  }
  return r;
}

}  // namespace

SimulationReport simulate(SimulationInput input) { return Simulation(std::move(input)).run(); }

}  // namespace scalewright::sim
