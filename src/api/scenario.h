#pragma once
// Scenario (scalewright.dev/v1alpha1): our own kind, written like a Kubernetes object, that turns a user's
// manifests into a simulation: how long to run, the random seed, the simulated cloud and its faults, and a
// timeline of changes (scale a workload, apply or delete objects, cordon a node).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/meta.h"

namespace scalewright {

struct InsufficientCapacityWindow {
  Instant at{};
  Duration duration{0};
  std::string instance_type;  // empty: every type
  std::string zone;           // empty: every zone
  std::string capacity_type;  // "spot", "on-demand"; empty: both
};

struct SpotInterruptionEvent {
  Instant at{};
  std::int32_t count = 1;  // the oldest `count` spot nodes get the two-minute notice
};

// Nodes that stop reporting (an instance failure, a kubelet that died): they turn NotReady for good, the node
// lifecycle controller taints them unreachable, and their pods are deleted once their toleration runs out.
struct NodeFailureEvent {
  Instant at{};
  std::int32_t count = 1;   // the oldest `count` Ready nodes matching the filters below
  std::string node_group;   // only nodes of this Auto Scaling group; empty: any
  std::string nodepool;     // only nodes of this NodePool; empty: any
};

// A time during which the metrics backend (Prometheus) answers every query with an error.
struct OutageWindow {
  Instant at{};
  Duration duration{0};
};

struct CloudFaults {
  double insufficient_capacity_rate = 0;  // chance that one launch attempt returns insufficient capacity
  std::vector<InsufficientCapacityWindow> insufficient_capacity;
  double never_ready_rate = 0;  // chance that a launched node never becomes Ready
  std::vector<SpotInterruptionEvent> spot_interruptions;
  std::vector<NodeFailureEvent> node_failures;
  std::vector<OutageWindow> prometheus_outages;
};

// A node group by name with its bounds, as Cluster Autoscaler's --nodes=MIN:MAX:NAME gives it.
struct StaticNodeGroup {
  std::int32_t min_size = 0;
  std::int32_t max_size = 0;
  std::string name;
};

// A group of identical instances the cloud keeps at a desired size, with the tags a user put on it: what the
// scenario's cloud runs (`cloud.autoScalingGroups`). Which groups Cluster Autoscaler manages, and what their tags
// mean (bounds, auto-discovery, template labels and taints), is the provider's reading: src/cloud/aws/ reads them
// as an Auto Scaling group's.
struct CloudNodeGroup {
  std::string name;
  std::string instance_type;
  std::vector<std::string> zones;  // one per subnet; empty: every zone the instance type is offered in
  std::string capacity_type = "on-demand";  // "on-demand" or "spot"
  std::int32_t min_size = 0, max_size = 0, desired_capacity = 0;
  std::map<std::string, std::string> tags;
};

struct CloudSpec {
  std::string region = "us-east-1";
  std::vector<std::string> instance_types;  // empty: the whole catalog of the region
  Duration launch_latency_min{45'000};       // launch → Ready, drawn uniformly
  Duration launch_latency_max{75'000};
  std::optional<double> spot_price_fraction;  // overrides the data-derived spot discount
  CloudFaults faults;
  std::vector<CloudNodeGroup> node_groups;  // cloud.autoScalingGroups
};

// Karpenter's feature gates that Scalewright acts on (its --feature-gates, the chart's settings.featureGates), with
// upstream's defaults.
struct FeatureGates {
  bool node_repair = false;  // NodeRepair: replace nodes the cloud provider's repair policies give up on
};

struct BatchingSpec {
  Duration idle{1'000};
  Duration max{10'000};
};

struct ObjectReference {
  std::string kind;
  std::string name;
  std::string namespace_ = "default";
};

// Requests per second offered to a workload over time, from the moment a timeline step sets it.
struct LoadShape {
  enum class Kind { Constant, Ramp, Step, Sine, Points };
  Kind kind = Kind::Constant;
  double requests_per_second = 0;  // Constant
  double from = 0;                 // Ramp, Step
  double to = 0;                   // Ramp, Step
  Duration over{0};                // Ramp: how long from `from` to `to`; Step: how long `from` holds
  double mean = 0;                 // Sine: mean + amplitude * sin(2 pi t / period)
  double amplitude = 0;
  Duration period{0};
  // Points: (time since the step, requests per second), straight lines between them, the last one holding.
  std::vector<std::pair<Duration, double>> points;

  // The offered rate `elapsed` after the step that set this shape; never negative.
  double at(Duration elapsed) const;
};

// What serving one request costs a pod, and what it uses idle: turns a workload's request rate into the cpu and
// memory usage the metrics API reports. Requests are spread evenly over the workload's ready pods; a pod cannot
// use more cpu than its limit, so an overloaded pod serves fewer requests (as a throttled container does).
struct LoadCost {
  std::int64_t cpu_per_request_milli = 0;  // cpu-milliseconds of work per request ("10m": 10 ms per request)
  std::int64_t idle_cpu_milli = 0;         // per pod
  std::int64_t memory_bytes = 0;           // per pod
};

struct TimelineStep {
  enum class Action { Scale, Apply, Delete, Cordon, Uncordon, Load };
  Instant at{};
  Action action = Action::Scale;
  ObjectReference target;          // Scale, Delete, Load
  std::int32_t replicas = 0;       // Scale
  std::string apply_source;        // Apply: the objects as YAML text, decoded when the scenario loads
  std::string node;                // Cordon, Uncordon
  LoadShape load;                  // Load
  std::optional<LoadCost> cost;    // Load; absent: keep what an earlier step set
  std::size_t index = 0;           // its place in spec.timeline as written (the timeline is sorted by `at`)
};

// Cluster Autoscaler's command line as the user's CA Deployment has it (spec.clusterAutoscaler.args), checked when
// the scenario loads and read by config/cluster_autoscaler_flags.h.
struct ClusterAutoscalerSpec {
  std::vector<std::string> args;
};

struct Scenario {
  ObjectMeta meta;
  Duration duration{3600'000};
  std::uint64_t seed = 1;
  CloudSpec cloud;
  BatchingSpec batching;
  FeatureGates feature_gates;  // spec.provisioning.featureGates
  std::vector<TimelineStep> timeline;  // sorted by `at`, stable
  std::optional<ClusterAutoscalerSpec> cluster_autoscaler;  // absent: the scenario does not run CA
};

}  // namespace scalewright
