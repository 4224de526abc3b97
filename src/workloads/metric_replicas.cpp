#include "workloads/metric_replicas.h"

#include <cmath>
#include <limits>

#include "api/saturating.h"

namespace scalewright::workloads {
namespace {

// A huge metric must not overflow the int32 replica count; upstream saturates at MaxInt32.
std::int32_t saturating_replicas(double replicas) { return saturate_cast<std::int32_t>(replicas); }

}  // namespace

Result<std::int64_t> ready_pod_count(const std::vector<HpaPod>& pods) {
  if (pods.empty()) return Error{"no pods returned by selector while calculating replica count"};
  std::int64_t ready = 0;
  for (const HpaPod& pod : pods) {
    if (pod.phase == PodPhase::Running && pod.ready.value_or(false)) ++ready;
  }
  return ready;
}

Result<ValueReplicas> calculate_value_replicas(std::int32_t current_replicas, std::int64_t usage_milli,
                                               std::int64_t target_milli, const std::vector<HpaPod>& pods,
                                               const Tolerances& tolerances) {
  ValueReplicas result;
  result.usage_milli = usage_milli;
  const double ratio = static_cast<double>(usage_milli) / static_cast<double>(target_milli);
  result.usage_ratio = ratio;
  if (current_replicas == 0) {
    // Scaled to zero there are no pods to count and no change too small: the ratio alone says how many to start.
    result.desired_replicas = saturating_replicas(std::ceil(ratio));
    return result;
  }
  if (tolerances.within(ratio)) {
    result.desired_replicas = current_replicas;
    return result;
  }
  // Only pods that serve now share the total, so the ratio scales the ready pods, not spec.replicas.
  auto ready = ready_pod_count(pods);
  if (!ready) return Error{"unable to calculate ready pods: " + ready.error().message};
  result.desired_replicas = saturating_replicas(std::ceil(ratio * static_cast<double>(*ready)));
  return result;
}

ValueReplicas calculate_per_pod_replicas(std::int32_t status_replicas, std::int64_t usage_milli,
                                         std::int64_t target_average_milli, const Tolerances& tolerances) {
  ValueReplicas result;
  result.desired_replicas = status_replicas;
  const double usage = static_cast<double>(usage_milli);
  const double ratio = usage / (static_cast<double>(target_average_milli) * static_cast<double>(status_replicas));
  result.usage_ratio = ratio;
  if (!tolerances.within(ratio)) {
    result.desired_replicas = saturating_replicas(std::ceil(usage / static_cast<double>(target_average_milli)));
  }
  if (status_replicas > 0) {
    result.usage_milli = saturate_cast<std::int64_t>(std::ceil(usage / static_cast<double>(status_replicas)));
  } else {
    // Upstream divides by zero here (an undefined conversion in Go); with no replicas there is no per-pod
    // value to report, so report the total.
    result.usage_milli = usage_milli;
  }
  return result;
}

std::int64_t sum_series(const std::vector<std::int64_t>& values) {
  std::int64_t sum = 0;
  for (std::int64_t value : values) {
    if (value > 0 && sum > std::numeric_limits<std::int64_t>::max() - value) {
      return std::numeric_limits<std::int64_t>::max();
    }
    sum += value;
  }
  return sum;
}

}  // namespace scalewright::workloads
