#include "workloads/replica_calculator.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace scalewright::workloads {
namespace {

struct PodGroups {
  int ready_count = 0;
  std::set<std::string> unready;  // not yet trustworthy: dropped, then counted as 0 on a scale-up
  std::set<std::string> missing;  // no sample: filled pessimistically
  std::set<std::string> ignored;  // Failed or being deleted: never counted
};

bool cpu_sample_unready(const HpaPod& pod, const PodMetricSample& sample, const ReplicaCalculatorConfig& config,
                        Duration now) {
  // Without a Ready condition or a start time nothing says the pod is serving, so its sample is not trusted.
  if (!pod.ready || !pod.start_time) return true;
  if (*pod.start_time + config.cpu_initialization_period > now) {
    // Fresh pods burn cpu while starting: trust the sample only once ready for a whole metric window.
    return !*pod.ready || sample.timestamp < pod.ready_last_transition + sample.window;
  }
  // Past initialisation, distrust only a pod that is unready and never became ready (its last transition came
  // within the initial readiness delay of its start, so it is still the one from startup).
  return !*pod.ready && *pod.start_time + config.initial_readiness_delay > pod.ready_last_transition;
}

PodGroups group_pods(const ResourceReplicasInput& input, const ReplicaCalculatorConfig& config) {
  PodGroups groups;
  for (const HpaPod& pod : input.pods) {
    // Failed pods and pods on their way out will not serve load, so neither their samples nor their slots count.
    if (pod.deleting || pod.phase == PodPhase::Failed) {
      groups.ignored.insert(pod.name);
      continue;
    }
    // Pending pods have no usage yet; they count only as 0 on a scale-up, like unready pods.
    if (pod.phase == PodPhase::Pending) {
      groups.unready.insert(pod.name);
      continue;
    }
    auto sample = input.metrics.find(pod.name);
    // A running pod without a sample may be busy or idle: fill it in later against the direction of scaling.
    if (sample == input.metrics.end()) {
      groups.missing.insert(pod.name);
      continue;
    }
    // Only cpu spikes during startup, so the readiness rules apply to cpu alone.
    if (input.resource == "cpu" && cpu_sample_unready(pod, sample->second, config, input.now)) {
      groups.unready.insert(pod.name);
      continue;
    }
    ++groups.ready_count;
  }
  return groups;
}

// Sum of the containers' requests per pod; utilization is relative to requests, so a container without one
// leaves the percentage undefined.
Result<std::map<std::string, std::int64_t>> pod_requests(const ResourceReplicasInput& input) {
  std::map<std::string, std::int64_t> requests;
  for (const HpaPod& pod : input.pods) {
    std::int64_t sum = 0;
    for (const HpaContainer& container : pod.containers) {
      if (!container.request_milli) {
        return Error{fmt::format("missing request for {} in container {} of pod {}", input.resource,
                                 container.name, pod.name)};
      }
      sum += *container.request_milli;
    }
    requests[pod.name] = sum;
  }
  return requests;
}

struct Utilization {
  double ratio = 0;
  std::int32_t percent = 0;
  std::int64_t raw_average = 0;
};

Result<Utilization> utilization_ratio(const std::map<std::string, std::int64_t>& usage,
                                      const std::map<std::string, std::int64_t>& requests, std::int32_t target) {
  std::int64_t usage_total = 0;
  std::int64_t requests_total = 0;
  std::int64_t entries = 0;
  for (const auto& [name, value] : usage) {
    auto request = requests.find(name);
    // A sample for a pod outside the selection has no request: it cannot take part in a percentage.
    if (request == requests.end()) continue;
    usage_total += value;
    requests_total += request->second;
    ++entries;
  }
  if (requests_total == 0) return Error{"no metrics returned matched known pods"};
  Utilization result;
  // Upstream truncates to a whole percent before dividing by the target; the ratio inherits that truncation.
  result.percent = static_cast<std::int32_t>(usage_total * 100 / requests_total);
  result.ratio = static_cast<double>(result.percent) / static_cast<double>(target);
  result.raw_average = usage_total / entries;
  return result;
}

struct Average {
  double ratio = 0;
  std::int64_t average = 0;
};

Average average_ratio(const std::map<std::string, std::int64_t>& usage, std::int64_t target) {
  std::int64_t total = 0;
  for (const auto& [name, value] : usage) total += value;
  Average result;
  // The per-pod average is an integer division, as upstream's, before it is compared to the target.
  result.average = total / static_cast<std::int64_t>(usage.size());
  result.ratio = static_cast<double>(result.average) / static_cast<double>(target);
  return result;
}

bool within_tolerance(double ratio, double tolerance) { return std::abs(1.0 - ratio) <= tolerance; }

std::int32_t ceil_replicas(double ratio, std::size_t pods) {
  return static_cast<std::int32_t>(std::ceil(ratio * static_cast<double>(pods)));
}

}  // namespace

Result<ResourceReplicas> calculate_resource_replicas(const ResourceReplicasInput& input,
                                                     const ReplicaCalculatorConfig& config) {
  const bool utilization = input.target.type == ResourceTarget::Type::Utilization;
  // A zero target would make every ratio infinite; the API server rejects it, so reject it here too.
  if (utilization ? input.target.average_utilization <= 0 : input.target.average_value_milli <= 0) {
    return Error{fmt::format("invalid target for resource {}: must be positive", input.resource)};
  }
  // Nothing measured means nothing to decide on; the caller keeps the current scale.
  if (input.metrics.empty()) {
    return Error{fmt::format("unable to get metrics for resource {}: no metrics returned from resource metrics API",
                             input.resource)};
  }
  if (input.pods.empty()) return Error{"no pods returned by selector while calculating replica count"};

  const PodGroups groups = group_pods(input, config);
  // Work on usage values only; drop the samples of ignored and unready pods before the first estimate.
  std::map<std::string, std::int64_t> usage;
  for (const auto& [name, sample] : input.metrics) {
    if (!groups.ignored.contains(name) && !groups.unready.contains(name)) usage[name] = sample.value_milli;
  }

  std::map<std::string, std::int64_t> requests;
  if (utilization) {
    auto computed = pod_requests(input);
    if (!computed) return computed.error();
    requests = std::move(*computed);
  }
  if (usage.empty()) return Error{"did not receive metrics for targeted pods (pods might be unready)"};

  // First estimate from the pods whose samples are trusted.
  ResourceReplicas result;
  double ratio = 0;
  if (utilization) {
    auto first = utilization_ratio(usage, requests, input.target.average_utilization);
    if (!first) return first.error();
    ratio = first->ratio;
    result.utilization_percent = first->percent;
    result.raw_average_milli = first->raw_average;
  } else {
    const Average first = average_ratio(usage, input.target.average_value_milli);
    ratio = first.ratio;
    result.raw_average_milli = first.average;
  }

  // Unready pods matter only when scaling up: they are about to take load, so they dampen the scale-up.
  const bool scale_up_with_unready = !groups.unready.empty() && ratio > 1.0;
  if (!scale_up_with_unready && groups.missing.empty()) {
    // A change this small is noise: keep the current scale to avoid flapping.
    if (within_tolerance(ratio, config.tolerance)) {
      result.desired_replicas = input.current_replicas;
      return result;
    }
    // Every counted pod has a trusted sample, so scale the ready pods by the ratio.
    result.desired_replicas = ceil_replicas(ratio, static_cast<std::size_t>(groups.ready_count));
    return result;
  }

  if (!groups.missing.empty()) {
    if (ratio < 1.0) {
      // On a scale-down assume the unmeasured pods are busy (at least their full request, or the target when it
      // is above 100 %), so they slow the scale-down rather than speed it.
      for (const std::string& name : groups.missing) {
        usage[name] = utilization
                          ? requests[name] * std::max<std::int64_t>(100, input.target.average_utilization) / 100
                          : input.target.average_value_milli;
      }
    } else if (ratio > 1.0 || !utilization) {
      // On a scale-up assume they are idle, so they slow the scale-up. (The AverageValue path also takes this
      // branch at a ratio of exactly 1, as upstream's does.)
      for (const std::string& name : groups.missing) usage[name] = 0;
    }
  }
  if (scale_up_with_unready) {
    // Unready pods will soon share the load: count them as idle so the scale-up is not overstated.
    for (const std::string& name : groups.unready) usage[name] = 0;
  }

  // Re-estimate with the filled-in pods.
  double new_ratio = 0;
  if (utilization) {
    auto second = utilization_ratio(usage, requests, input.target.average_utilization);
    if (!second) return second.error();
    new_ratio = second->ratio;
  } else {
    new_ratio = average_ratio(usage, input.target.average_value_milli).ratio;
  }

  // If the pessimistic fill brings the change into tolerance or reverses its direction, the signal is too weak
  // to act on.
  if (within_tolerance(new_ratio, config.tolerance) || (ratio < 1.0 && new_ratio > 1.0) ||
      (ratio > 1.0 && new_ratio < 1.0)) {
    result.desired_replicas = input.current_replicas;
    return result;
  }
  const std::int32_t desired = ceil_replicas(new_ratio, usage.size());
  // Counting more or fewer pods than the target has can still turn a scale-down into a scale-up (or back);
  // never move against the direction the ratio asks for.
  if ((new_ratio < 1.0 && desired > input.current_replicas) ||
      (new_ratio > 1.0 && desired < input.current_replicas)) {
    result.desired_replicas = input.current_replicas;
    return result;
  }
  result.desired_replicas = desired;
  return result;
}

}  // namespace scalewright::workloads
