#pragma once
// The HPA's replica calculation for Resource metrics (Utilization of requests, or AverageValue), following
// kube-controller-manager's replica calculator. Pure: pods, metric samples and `now` come in as values.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/pod.h"
#include "api/result.h"

namespace scalewright::workloads {

// One container's request for the metric's resource; absent when the container does not request it.
struct HpaContainer {
  std::string name;
  // Requests in milli-units by resource name ("cpu", "memory", ...); a resource it does not request is absent.
  std::vector<std::pair<std::string, std::int64_t>> requests_milli;

  std::optional<std::int64_t> request(std::string_view resource) const {
    for (const auto& [name, amount] : requests_milli) {
      if (name == resource) return amount;
    }
    return std::nullopt;
  }
};

// The parts of a pod the replica calculation reads. Times are milliseconds on the same clock as `now`.
struct HpaPod {
  std::string name;
  PodPhase phase = PodPhase::Running;
  std::optional<bool> ready;                      // the Ready condition's status; absent: no Ready condition
  Instant ready_last_transition{};                // the Ready condition's lastTransitionTime
  std::optional<Instant> start_time;              // status.startTime; absent: not started
  bool deleting = false;                          // metadata.deletionTimestamp is set
  std::vector<HpaContainer> containers;
};

// One pod's sample from the resource metrics API: usage in milli-units over `window`, ending at `timestamp`.
struct PodMetricSample {
  std::int64_t value_milli = 0;
  Instant timestamp{};
  Duration window{0};
};

struct ResourceTarget {
  enum class Type { Utilization, AverageValue };
  Type type = Type::Utilization;
  std::int32_t average_utilization = 0;  // percent of requests, for Utilization
  std::int64_t average_value_milli = 0;  // per-pod milli-units, for AverageValue
};

// How far the usage ratio may stray from 1 before the HPA acts, per direction (upstream's Tolerances): the flag's
// value both ways unless behavior.scaleUp/scaleDown.tolerance overrides one direction.
struct Tolerances {
  double scale_down = 0.1;
  double scale_up = 0.1;

  // Upstream compares against the interval [1 - down, 1 + up], not |1 - ratio|, which differs at the edges.
  bool within(double usage_ratio) const {
    return 1.0 - scale_down <= usage_ratio && usage_ratio <= 1.0 + scale_up;
  }
};

struct ReplicaCalculatorConfig {
  double tolerance = 0.1;                              // --horizontal-pod-autoscaler-tolerance
  Duration cpu_initialization_period{5 * 60 * 1000};   // --horizontal-pod-autoscaler-cpu-initialization-period
  Duration initial_readiness_delay{30 * 1000};         // --horizontal-pod-autoscaler-initial-readiness-delay
};

struct ResourceReplicasInput {
  std::int32_t current_replicas = 0;
  std::string resource = "cpu";  // the readiness rules for fresh pods apply to cpu only; "" for Pods metrics
  std::string container;         // ContainerResource: only this container's request counts; empty: every container
  std::vector<HpaPod> pods;      // the pods the HPA's selector matches
  std::map<std::string, PodMetricSample> metrics;  // pod name -> sample
  ResourceTarget target;
  Instant now{};
  std::optional<Tolerances> tolerances;  // unset: config.tolerance in both directions
};

struct ResourceReplicas {
  std::int32_t desired_replicas = 0;
  std::int32_t utilization_percent = 0;  // Utilization only: int32(sum usage * 100 / sum requests)
  std::int64_t raw_average_milli = 0;    // average usage per pod with a metric, integer division
  double usage_ratio = 0;  // the first estimate's usage ÷ target, the ratio held against the tolerance
};

// Upstream's GetResourceReplicas (Utilization) and GetRawResourceReplicas (AverageValue); with resource "" and an
// AverageValue target also GetMetricReplicas (Pods metrics), which shares calcPlainMetricReplicas with the latter.
Result<ResourceReplicas> calculate_resource_replicas(const ResourceReplicasInput& input,
                                                     const ReplicaCalculatorConfig& config = {});
// The same over pods held elsewhere (input.pods is not read), so that a controller syncing thousands of HPAs does
// not copy every target's pods.
Result<ResourceReplicas> calculate_resource_replicas(const ResourceReplicasInput& input,
                                                     const std::vector<HpaPod>& pods,
                                                     const ReplicaCalculatorConfig& config = {});

}  // namespace scalewright::workloads
