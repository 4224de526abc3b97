#include "workloads/replica_calculator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "api/saturating.h"

namespace scalewright::workloads {
namespace {

// Upstream's pod groups. Unready pods are not yet trustworthy: dropped, then counted as 0 on a scale-up. Missing
// pods have no sample and are filled in pessimistically. Ignored pods (Failed or being deleted) never count.
enum class PodGroup { Ready, Unready, Missing, Ignored };

bool cpu_sample_unready(const HpaPod& pod, const PodMetricSample& sample, const ReplicaCalculatorConfig& config,
                        Instant now) {
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

PodGroup group_of(const HpaPod& pod, const PodMetricSample* sample, const ResourceReplicasInput& input,
                  const ReplicaCalculatorConfig& config) {
  // Failed pods and pods on their way out will not serve load, so neither their samples nor their slots count.
  if (pod.deleting || pod.phase == PodPhase::Failed) return PodGroup::Ignored;
  // Pending pods have no usage yet; they count only as 0 on a scale-up, like unready pods.
  if (pod.phase == PodPhase::Pending) return PodGroup::Unready;
  // A running pod without a sample may be busy or idle: fill it in later against the direction of scaling.
  if (sample == nullptr) return PodGroup::Missing;
  // Only cpu spikes during startup, so the readiness rules apply to cpu alone.
  if (input.resource == "cpu" && cpu_sample_unready(pod, *sample, config, input.now)) return PodGroup::Unready;
  return PodGroup::Ready;
}

// The request of the pod's containers (or of the one container); utilization is relative to requests, so a
// container without one leaves the percentage undefined.
Result<std::int64_t> pod_request(const HpaPod& pod, const ResourceReplicasInput& input) {
  std::int64_t sum = 0;
  for (const HpaContainer& container : pod.containers) {
    if (!input.container.empty() && container.name != input.container) continue;
    const std::optional<std::int64_t> request = container.request(input.resource);
    if (!request) {
      return Error{
          fmt::format("missing request for {} in container {} of Pod {}", input.resource, container.name, pod.name)};
    }
    sum += *request;
    if (!input.container.empty()) return sum;  // container names are unique within a pod
  }
  if (!input.container.empty())
    return Error{fmt::format("container {} not found in Pod {}", input.container, pod.name)};
  return sum;
}

// One usage value taking part in the ratio. A sample for a pod outside the selection has no request.
struct UsageEntry {
  std::int64_t usage = 0;
  std::optional<std::int64_t> request;
};

struct Utilization {
  double ratio = 0;
  std::int32_t percent = 0;  // as the status reports it (int32): saturated, while the ratio uses the whole value
  std::int64_t raw_average = 0;
};

Result<Utilization> utilization_ratio(const std::vector<UsageEntry>& entries, std::int32_t target) {
  std::int64_t usage_total = 0;
  std::int64_t requests_total = 0;
  std::int64_t counted = 0;
  for (const UsageEntry& entry : entries) {
    // Without a request a sample cannot take part in a percentage.
    if (!entry.request) continue;
    usage_total = saturating_add(usage_total, entry.usage);
    requests_total = saturating_add(requests_total, *entry.request);
    ++counted;
  }
  if (requests_total == 0) return Error{"no metrics returned matched known pods"};
  Utilization result;
  // Upstream truncates to a whole percent before dividing by the target; the ratio inherits that truncation.
  // Upstream computes usage * 100 in int64 and narrows to int32, which wraps for a large usage (a negative
  // utilization that scales down); here the product cannot overflow and the percentage saturates.
  const std::int64_t percent = saturating_mul(usage_total, 100) / requests_total;
  result.percent = saturate_cast<std::int32_t>(percent);
  result.ratio = static_cast<double>(percent) / static_cast<double>(target);
  result.raw_average = usage_total / counted;
  return result;
}

struct Average {
  double ratio = 0;
  std::int64_t average = 0;
};

Average average_ratio(const std::vector<UsageEntry>& entries, std::int64_t target) {
  std::int64_t total = 0;
  for (const UsageEntry& entry : entries) total = saturating_add(total, entry.usage);
  Average result;
  // The per-pod average is an integer division, as upstream's, before it is compared to the target.
  result.average = total / static_cast<std::int64_t>(entries.size());
  result.ratio = static_cast<double>(result.average) / static_cast<double>(target);
  return result;
}

std::int32_t ceil_replicas(double ratio, std::size_t pods) {
  return saturate_cast<std::int32_t>(std::ceil(ratio * static_cast<double>(pods)));
}

}  // namespace

Result<ResourceReplicas> calculate_resource_replicas(const ResourceReplicasInput& input,
                                                     const ReplicaCalculatorConfig& config) {
  return calculate_resource_replicas(input, input.pods, config);
}

Result<ResourceReplicas> calculate_resource_replicas(const ResourceReplicasInput& input,
                                                     const std::vector<HpaPod>& pods,
                                                     const ReplicaCalculatorConfig& config) {
  const bool utilization = input.target.type == ResourceTarget::Type::Utilization;
  const Tolerances tolerances = input.tolerances.value_or(Tolerances{config.tolerance, config.tolerance});
  // A zero target would make every ratio infinite; the API server rejects it, so reject it here too.
  if (utilization ? input.target.average_utilization <= 0 : input.target.average_value_milli <= 0) {
    return Error{fmt::format("invalid target for resource {}: must be positive", input.resource)};
  }
  // Nothing measured means nothing to decide on; the caller keeps the current scale.
  if (input.metrics.empty()) {
    return Error{fmt::format("unable to get metrics for resource {}: no metrics returned from resource metrics API",
                             input.resource)};
  }
  if (pods.empty()) return Error{"no pods returned by selector while calculating replica count"};

  // Work on usage values only: the samples of ready pods (and of pods outside the selection, which upstream keeps),
  // without those of ignored and unready pods.
  std::vector<UsageEntry> entries;
  entries.reserve(pods.size());
  std::vector<std::size_t> unready;
  std::vector<std::size_t> missing;
  std::vector<std::int64_t> requests(utilization ? pods.size() : 0);
  std::optional<Error> request_error;  // reported after the empty-metrics check, in upstream's order
  std::size_t ready_count = 0;
  std::size_t samples_of_pods = 0;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    auto found = input.metrics.find(pods[i].name);
    const PodMetricSample* sample = found == input.metrics.end() ? nullptr : &found->second;
    if (sample != nullptr) ++samples_of_pods;
    if (utilization) {
      // Every selected pod needs a request, counted or not, as upstream computes them over the whole list.
      auto request = pod_request(pods[i], input);
      if (request) {
        requests[i] = *request;
      } else if (!request_error) {
        request_error = request.error();
      }
    }
    switch (group_of(pods[i], sample, input, config)) {
      case PodGroup::Ready:
        ++ready_count;
        entries.push_back({sample->value_milli, std::nullopt});
        if (utilization) entries.back().request = requests[i];
        break;
      case PodGroup::Unready:
        unready.push_back(i);
        break;
      case PodGroup::Missing:
        missing.push_back(i);
        break;
      case PodGroup::Ignored:
        break;
    }
  }
  if (samples_of_pods < input.metrics.size()) {
    // Samples for pods the selection did not return stay in, as in upstream's metrics map (without a request).
    std::vector<std::string_view> names;
    names.reserve(pods.size());
    for (const HpaPod& pod : pods) names.push_back(pod.name);
    std::sort(names.begin(), names.end());
    for (const auto& [name, sample] : input.metrics) {
      if (!std::binary_search(names.begin(), names.end(), std::string_view(name))) {
        entries.push_back({sample.value_milli, std::nullopt});
      }
    }
  }
  if (entries.empty()) return Error{"did not receive metrics for targeted pods (pods might be unready)"};
  if (request_error) return *request_error;

  // First estimate from the pods whose samples are trusted.
  ResourceReplicas result;
  double ratio = 0;
  if (utilization) {
    auto first = utilization_ratio(entries, input.target.average_utilization);
    if (!first) return first.error();
    ratio = first->ratio;
    result.utilization_percent = first->percent;
    result.raw_average_milli = first->raw_average;
  } else {
    const Average first = average_ratio(entries, input.target.average_value_milli);
    ratio = first.ratio;
    result.raw_average_milli = first.average;
  }

  result.usage_ratio = ratio;
  // Unready pods matter only when scaling up: they are about to take load, so they dampen the scale-up.
  const bool scale_up_with_unready = !unready.empty() && ratio > 1.0;
  if (!scale_up_with_unready && missing.empty()) {
    // A change this small is noise: keep the current scale to avoid flapping.
    if (tolerances.within(ratio)) {
      result.desired_replicas = input.current_replicas;
      return result;
    }
    // Every counted pod has a trusted sample, so scale the ready pods by the ratio.
    result.desired_replicas = ceil_replicas(ratio, ready_count);
    return result;
  }

  auto request_of = [&](std::size_t pod) {
    return utilization ? std::optional<std::int64_t>(requests[pod]) : std::nullopt;
  };
  if (!missing.empty()) {
    if (ratio < 1.0) {
      // On a scale-down assume the unmeasured pods are busy (at least their full request, or the target when it
      // is above 100 %), so they slow the scale-down rather than speed it.
      for (std::size_t pod : missing) {
        const std::int64_t fill =
            utilization ? requests[pod] * std::max<std::int64_t>(100, input.target.average_utilization) / 100
                        : input.target.average_value_milli;
        entries.push_back({fill, request_of(pod)});
      }
    } else if (ratio > 1.0) {
      // On a scale-up assume they are idle, so they slow the scale-up. At a ratio of exactly 1 nothing is filled,
      // so the re-estimate stays within tolerance.
      for (std::size_t pod : missing) entries.push_back({0, request_of(pod)});
    }
  }
  if (scale_up_with_unready) {
    // Unready pods will soon share the load: count them as idle so the scale-up is not overstated.
    for (std::size_t pod : unready) entries.push_back({0, request_of(pod)});
  }

  // Re-estimate with the filled-in pods.
  double new_ratio = 0;
  if (utilization) {
    auto second = utilization_ratio(entries, input.target.average_utilization);
    if (!second) return second.error();
    new_ratio = second->ratio;
  } else {
    new_ratio = average_ratio(entries, input.target.average_value_milli).ratio;
  }

  // If the pessimistic fill brings the change into tolerance or reverses its direction, the signal is too weak
  // to act on.
  if (tolerances.within(new_ratio) || (ratio < 1.0 && new_ratio > 1.0) || (ratio > 1.0 && new_ratio < 1.0)) {
    result.desired_replicas = input.current_replicas;
    return result;
  }
  const std::int32_t desired = ceil_replicas(new_ratio, entries.size());
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
