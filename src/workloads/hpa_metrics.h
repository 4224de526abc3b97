#pragma once
// The HPA controller's per-metric computations (computeReplicasForMetric for Resource, ContainerResource, Pods,
// Object and External metrics), internal to the hpa*.cpp files: reconcile_hpa reads every metric through them.
#include <cstdint>
#include <string>
#include <vector>

#include "api/autoscaling.h"
#include "api/duration.h"
#include "api/instant.h"
#include "workloads/hpa.h"
#include "workloads/replica_calculator.h"

namespace scalewright::workloads::detail {

struct SyncInputs {
  const HorizontalPodAutoscaler& hpa;
  const HpaTarget& target;
  const MetricsSource& metrics;
  Instant now;
  const HpaControllerConfig& config;
  Tolerances tolerances;
  std::int32_t spec_replicas;
  std::int32_t status_replicas;
};

struct MetricOutcome {
  std::int32_t replicas = 0;
  std::string name;  // the proposal's name in the rescale reason ("pods metric qps")
  MetricReading reading;
  bool failed = false;
  HpaCondition condition;  // ScalingActive False with the FailedGet* reason, when failed
};

// One metric's proposal, its reading for the status, and its failure when it failed (with a warning event).
MetricOutcome compute_metric(const SyncInputs& in, const MetricSpec& spec, std::vector<HpaEvent>& events);
// What an HPA without metrics scales on: cpu at upstream's default utilization.
const std::vector<MetricSpec>& default_metrics();

}  // namespace scalewright::workloads::detail
