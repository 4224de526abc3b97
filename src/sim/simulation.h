#pragma once
// The simulated environment, inside: one Simulation runs a scenario. It keeps the virtual clock and the event
// queue, plays what Kubernetes itself does (the workload controllers, kube-scheduler, the kubelet, the node
// lifecycle controller's taint manager), the cloud with its faults, the load and its metrics, and keeps the report.
// The autoscaling decisions are the controllers' (src/controllers/): the Simulation observes every change into the
// cluster state they read, and implements the ports they act through — it is their Clock and their ClusterWriter.
// Its members are defined in simulator.cpp (the loop, the timeline and the report), kubernetes.cpp (what
// Kubernetes does) and simulated_ports.cpp (the ports).
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "api/instant.h"
#include "api/wording.h"
#include "cloud/clusterapi/scalable_manifest.h"
#include "controllers/disruption/controller.h"
#include "controllers/cluster_autoscaler_controller.h"
#include "controllers/node_lifecycle.h"
#include "controllers/node_names.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/static_capacity.h"
#include "controllers/node_repair.h"
#include "controllers/termination.h"
#include "controllers/workload_autoscaler_controller.h"
#include "scheduling/scheduler.h"
#include "sim/load_metrics.h"
#include "sim/load_model.h"
#include "sim/simulated_cloud.h"
#include "sim/simulator.h"
#include "state/cluster_state.h"

namespace scalewright::sim {

// The spot interruption warning: the cloud reclaims the instance this long after it.
inline constexpr Duration kSpotNotice{2 * 60'000};
// Where the simulated wall clock starts, for cron triggers, budget schedules and CA's status: a Monday, 00:00 UTC.
inline constexpr std::chrono::sys_seconds kWallClockAtStart{std::chrono::sys_days{std::chrono::year{2024} / 1 / 1}};

enum class EventKind {
  Timeline,
  Timer,
  NodeReady,
  SpotNotice,
  SpotReclaim,
  MetricsScrape,
  PodTerminated,
  StatusRequest,
  NodeFailure,
  TaintEviction
};

struct Event {
  Instant at{};
  std::uint64_t sequence = 0;  // ties at the same time run in the order scheduled; a timer's id
  EventKind kind = EventKind::Timeline;
  std::size_t index = 0;       // timeline step, fault
  std::string subject;         // the node or pod it concerns
  std::function<void()> wake;  // a controller's timer
  friend bool operator>(const Event& a, const Event& b) { return a.at != b.at ? a.at > b.at : a.sequence > b.sequence; }
};

class Simulation final : public controllers::Clock, public controllers::ClusterWriter {
 public:
  explicit Simulation(SimulationInput input);
  SimulationReport run();

  // --- controllers::Clock ---
  Instant now() const override { return now_; }
  controllers::TimerId wake_at(Instant at, std::function<void()> wake) override;
  void cancel(controllers::TimerId timer) override { cancelled_.insert(timer); }

  // --- controllers::ClusterWriter: each change observed into the state at once, as a watch would deliver it ---
  void record(TimelineEntry entry) override { timeline_.push_back(std::move(entry)); }
  void nominate(const state::PodRecord& pod, const std::string& node) override;
  void release_nominations(const std::string& node) override { state_.nominations_released(node); }
  void evict(const state::PodRecord& pod, Duration grace) override;
  void set_taint(const std::string& node, const Taint& taint, bool present) override;
  bool nodeclaim_created(state::NodeRecord claim, const std::vector<cloud::LaunchOption>& offerings) override;
  void nodeclaim_not_launched(const std::string& name) override { state_.nodeclaim_not_launched(name); }
  void node_launched(state::NodeRecord node, bool running_already) override;
  // delete_node's first step: cordons the node and deletes its pods at once.
  void drain(const std::string& node);
  void delete_node(const std::string& node) override;
  // The simulated API server holds no finalizers: a NodeClaim deleted is gone, and none waits to be released.
  void release_nodeclaim(const std::string&) override {}
  void scale(const std::string& workload, std::int32_t replicas) override {
    state_.workload_scaled(workload, replicas);
  }
  // Kept for `explain` (with object_records), beside the timeline where the controller's own line says what it did.
  void object_event(controllers::ObjectEvent event) override {
    if (object_records_) object_events_.push_back({now_, std::move(event)});
  }

 private:
  state::PodRecord& record_of(const state::PodRecord& pod);
  // --- the loop (simulator.cpp) ---
  void push(Event e);
  bool pop_due(Event& out, std::optional<Instant> at);
  void handle(Event& e);
  void settle();
  void run_timeline_step(const TimelineStep& step);
  void apply_objects(ManifestSet objects);
  std::string nodepool_of(const Node& node) const;
  std::string workload_of(const Pod& pod) const;
  void start_cluster_autoscaler();
  void start_autoscaling();
  void on_spot_notice(std::int32_t count);
  void on_spot_reclaim(const std::string& node);
  void stop(std::string reason);
  void note(std::string kind, std::string message) { record({now_, std::move(kind), std::move(message)}); }
  RunProgress progress() const;
  void advance_to(Instant t);
  // The run's last instant: spec.duration after its start (or where it stopped).
  Instant end() const { return Instant(scenario_.duration); }
  // The cluster as it stands now, as sample `at` (the state holds from the last event until the next).
  Sample sample(Instant at) const;
  SimulationReport report();

  // --- what Kubernetes does (kubernetes.cpp) ---
  void price_static_node(state::NodeRecord& node) const;
  void reconcile_workloads();
  void reconcile_ordered(const std::string& key, state::WorkloadRecord& record);
  void create_pod(Pod pod, const std::string& workload);
  void delete_pod(const std::string& key);
  void schedule_pending();
  void bind(state::PodRecord& pod, scheduling::NodeId node, bool count_wait = true);
  void on_node_ready(const std::string& name);
  void add_daemon_pods(const state::NodeRecord& node);
  void set_unschedulable(const std::string& node, bool unschedulable);
  // The pod gets its deletionTimestamp and leaves its controller's count; it stops at `stops_at` (never: its node
  // cannot confirm it, and it goes with the node).
  void mark_deleted(state::PodRecord& pod, std::optional<Instant> stops_at);
  void on_pod_terminated(const std::string& key);
  void on_node_failure(const NodeFailureEvent& failure);
  void on_taint_eviction(const std::string& node);
  void on_metrics_scrape();
  void record_outcome(const state::PodRecord& pod);

  Scenario scenario_;
  // The Cluster API objects the run starts with: Cluster Autoscaler's node groups with --cloud-provider=clusterapi.
  std::vector<cloud::clusterapi::ScalableObjectPtr> cluster_api_objects_;
  SimulatedCloud cloud_;
  std::vector<Instant> status_at_;
  TimelineStream stream_;  // the timeline to the input's sink as the run goes
  SimulationLimits limits_;
  bool object_records_ = true;
  std::string stopped_;  // why the run ended early (a limit); empty while it goes on

  Instant now_{};
  std::uint64_t next_sequence_ = 0;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::unordered_set<controllers::TimerId> cancelled_;

  state::ClusterState state_;
  scheduling::Scheduler scheduler_;    // kube-scheduler
  std::uint64_t scheduling_seen_ = 0;  // the state's scheduling_changes() at kube-scheduler's last pass
  LoadModel load_;
  controllers::StateAutoscalingView view_{state_};
  LoadModelMetrics metrics_{view_, load_, scenario_.cloud.faults.prometheus_outages, now_};
  bool autoscaling_started_ = false;

  // The controllers, as a real cluster runs them.
  controllers::NodeNames names_;
  controllers::LaunchesAtOnce launches_at_once_{cloud_};
  controllers::Ports ports_{state_, *this, *this, cloud_, cloud_.node_groups(), launches_at_once_};
  controllers::NodeLifecycleController lifecycle_{ports_};
  controllers::TerminationController termination_{ports_};
  controllers::NodeRepairController node_repair_{ports_, scenario_.feature_gates.node_repair};
  controllers::ProvisioningController provisioning_;
  controllers::DisruptionController disruption_{ports_, termination_, provisioning_, kWallClockAtStart};
  controllers::StaticCapacityController static_capacity_{ports_, provisioning_, termination_};
  controllers::WorkloadAutoscalerController workload_autoscaler_{ports_, metrics_, kWallClockAtStart};
  std::unique_ptr<controllers::ClusterAutoscalerController> node_groups_;  // with Cluster Autoscaler

  std::set<std::string> not_ready_;  // NodePools said not ready (their node class is not there)
  std::set<std::string> catalog_notes_;  // what the catalogs do not know, said once
  bool status_requested_ = false;  // keep CA's status once everything due at this instant has happened
  std::vector<SimulationReport::StatusAt> statuses_;
  std::vector<TimelineEntry> timeline_;
  std::vector<PodOutcome> outcomes_;
  std::vector<ObjectEventAt> object_events_;
  std::vector<Duration> waits_;
  std::int32_t peak_nodes_ = 0;
  std::int32_t launches_ = 0;
  std::int32_t interruptions_ = 0;
  std::int32_t evictions_ = 0;
  // Requested ÷ allocatable of Ready nodes, integrated over time for the mean allocation.
  double cpu_allocation_integral_ = 0;
  double memory_allocation_integral_ = 0;
  double ready_time_ = 0;
  std::vector<Sample> samples_;
  Duration sample_interval_{0};
  // The live nodes by owner and capacity type, and their cost, as the last sample counted them: counted again only
  // once a node changed (an hour's samples of a cluster that stands still walk its nodes once). A cache.
  struct NodeTally {
    std::map<std::string, std::int32_t> nodes;
    double cost_per_hour = 0;
  };
  mutable std::optional<NodeTally> node_tally_;
  mutable state::NodeChanges sampled_nodes_{state_};
};

}  // namespace scalewright::sim
