#pragma once
// The HPA's replica calculation for the metric kinds that are not per-pod resource usage: one value for an object
// (Object) or a set of series (External), against a total (Value) or a per-pod (AverageValue) target, following
// kube-controller-manager's GetObjectMetricReplicas, GetObjectPerPodMetricReplicas, GetExternalMetricReplicas and
// GetExternalPerPodMetricReplicas. Per-pod custom metrics (Pods) reuse calculate_resource_replicas with resource "".
#include <cstdint>
#include <vector>

#include "api/result.h"
#include "workloads/replica_calculator.h"

namespace scalewright::workloads {

struct ValueReplicas {
  std::int32_t desired_replicas = 0;
  std::int64_t usage_milli = 0;  // Value: the total; AverageValue: the total per replica, rounded up
  double usage_ratio = 0;        // usage ÷ target, the ratio held against the tolerance
};

// Pods that are Running with Ready=True: the replicas a total-value metric is spread over (getReadyPodsCount).
Result<std::int64_t> ready_pod_count(const std::vector<HpaPod>& pods);

// Value target: usageRatio = usage / target, applied to the ready pods; from zero replicas, ceil(usageRatio).
Result<ValueReplicas> calculate_value_replicas(std::int32_t current_replicas, std::int64_t usage_milli,
                                               std::int64_t target_milli, const std::vector<HpaPod>& pods,
                                               const Tolerances& tolerances);

// AverageValue target: the total is divided among status.replicas; outside tolerance, ceil(usage / target).
ValueReplicas calculate_per_pod_replicas(std::int32_t status_replicas, std::int64_t usage_milli,
                                         std::int64_t target_average_milli, const Tolerances& tolerances);

// The sum of an external metric's series, saturating at the int64 limit as upstream does.
std::int64_t sum_series(const std::vector<std::int64_t>& values);

}  // namespace scalewright::workloads
