#pragma once
// What a simulation run reports: a timeline a person can read, and a summary of cost, pod wait and utilisation.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "api/duration.h"
#include "api/instant.h"
#include "controllers/ports.h"
#include "controllers/workload_autoscaler_loop.h"

namespace scalewright::sim {

using controllers::AutoscalerSummary;
using controllers::TimelineEntry;
using scalewright::format_time;

struct CostLine {
  std::string nodepool;       // "" for nodes that came with the manifests
  std::string instance_type;
  std::string capacity_type;  // on-demand / spot
  std::int32_t nodes = 0;
  double node_hours = 0;
  double cost = 0;  // USD
};

struct PodWait {
  std::size_t pods_bound = 0;
  std::size_t pods_pending_at_end = 0;
  Duration p50{0};
  Duration p99{0};
  Duration max{0};
};

struct Summary {
  std::vector<CostLine> cost_lines;  // by nodepool, then instance type, then capacity type
  double total_cost = 0;
  double total_node_hours = 0;
  PodWait pod_wait;
  std::int32_t peak_nodes = 0;
  std::int32_t nodes_at_end = 0;
  std::int32_t launches = 0;
  std::int32_t insufficient_capacity_errors = 0;
  std::int32_t spot_interruptions = 0;
  // Pods the autoscalers took off their nodes through the eviction API (consolidation, drift, expiry, interruption,
  // scale-down drains): what their disruption cost the workloads.
  std::int32_t evictions = 0;
  // Requested ÷ allocatable over Ready nodes, averaged over the time any node was Ready.
  double mean_cpu_allocation = 0;
  double mean_memory_allocation = 0;
  std::vector<AutoscalerSummary> autoscalers;
  double dropped_requests = 0;  // offered by the scenario's load but not served (no ready pod, or cpu-bound pods)
};

// Where a pod ended up (at the end of the run, or when it was deleted).
struct PodOutcome {
  std::string pod;       // namespace/name
  std::string node;      // empty: never bound
  std::string nodepool;  // the node's NodePool; empty for nodes from the manifests
  std::optional<Duration> wait;  // creation to bind
  Instant created{};
};

// An Event a controller recorded on one object: why it nominated a pod, launched a NodeClaim, disrupted a node or
// rescaled a workload. `scalewright run` records the same as Kubernetes Events; a run keeps them for `explain`.
struct ObjectEventAt {
  Instant at{};
  controllers::ObjectEvent event;
};

// The cluster at one moment of the run, for a report's charts over time.
struct Sample {
  Instant at{};
  // Live nodes (launching, Ready or draining) by owner and capacity type: "default on-demand", "group/ng-1 spot",
  // "(manifests) on-demand".
  std::map<std::string, std::int32_t> nodes;
  double cost_per_hour = 0;  // of those nodes
  std::int32_t pending_pods = 0;
  Duration longest_wait{0};  // of the pods pending then, so far
  double cpu_allocation = 0;  // requested ÷ allocatable over Ready nodes
  double memory_allocation = 0;
  std::vector<controllers::AutoscalerReading> autoscalers;
};

struct SimulationReport {
  std::string scenario;
  std::uint64_t seed = 0;
  Duration duration{0};
  std::vector<TimelineEntry> timeline;
  Summary summary;
  std::vector<PodOutcome> pods;  // every pod that ran or waited, by name (DaemonSet pods left out)
  std::vector<ObjectEventAt> events;  // in the order recorded
  std::string cluster_autoscaler_status;  // the cluster-autoscaler-status report at the end; empty without CA
  // The report as it stood at the times asked for (SimulationInput::status_at), in time order.
  struct StatusAt {
    Instant at{};
    std::string status;
  };
  std::vector<StatusAt> cluster_autoscaler_status_at;
  // Why the run ended before the scenario's end (a limit of SimulationLimits was reached); empty when it ran to the
  // end. `duration` is then the time it stopped.
  std::string stopped;
  // The cluster every `sample_interval`, from the start to the end (kSamples or fewer, 10 s apart at least).
  std::vector<Sample> samples;
  Duration sample_interval{0};
};

// How many samples a run keeps at most: enough for a chart as wide as a screen.
inline constexpr std::int64_t kSamples = 600;

void print_timeline(const SimulationReport& report, std::ostream& out);
// One line of print_timeline: "t=1m17.346s  node default-52cfd Ready ...".
void print_timeline_entry(const TimelineEntry& entry, std::ostream& out);
void print_summary(const SimulationReport& report, std::ostream& out);
// The cluster-autoscaler-status reports asked for during the run, each headed by its time.
void print_requested_statuses(const SimulationReport& report, std::ostream& out);
// Cost, nodes and pod wait of several runs of one workload, a column per run headed by `names`.
void print_comparison(const std::vector<SimulationReport>& reports, const std::vector<std::string>& names,
                      std::ostream& out);
nlohmann::json to_json(const SimulationReport& report);

// The value at quantile q (0..1) of `values`, by the nearest-rank method; 0 for an empty list.
Duration quantile(std::vector<Duration> values, double q);

// A time as the JSON report and the HTML page write it: seconds (an instant: since the run's start).
inline double seconds(Duration d) { return static_cast<double>(d.count()) / 1000; }
inline double seconds(Instant at) { return seconds(since_start(at)); }

}  // namespace scalewright::sim
