// The HPA's per-metric computations (resource, pods, object, external), out of hpa.cpp so that no file of the
// controller is over 600 lines; reconcile_hpa keeps the flow that combines them.
#include "workloads/hpa_metrics.h"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>

#include "workloads/hpa_status_format.h"
#include "workloads/metric_replicas.h"

namespace scalewright::workloads::detail {
namespace {

// Upstream's default (pkg/apis/autoscaling/v2/defaults.go).
constexpr std::int32_t kDefaultCpuUtilization = 80;

// Upstream's getUnableComputeReplicaCountCondition: a warning event with the metric's error, and the condition
// the HPA gets when this is the first failing metric. `error` is what computeReplicasForMetric returns.
void fail(MetricOutcome& outcome, std::vector<HpaEvent>& events, std::string_view reason, const std::string& cause,
          std::string error) {
  events.push_back({true, std::string(reason), cause});
  outcome.failed = true;
  outcome.condition = {"ScalingActive", false, std::string(reason),
                       "the HPA was unable to compute the replica count: " + cause};
  outcome.reading.current = "<unknown>";
  outcome.reading.error = std::move(error);
}

MetricOutcome resource_metric(const SyncInputs& in, const MetricSpec& spec, std::vector<HpaEvent>& events) {
  const bool container_metric = spec.type == MetricSpec::Type::ContainerResource;
  const std::string_view reason = container_metric ? "FailedGetContainerResourceMetric" : "FailedGetResourceMetric";
  // The words computeReplicasForMetric wraps a failure in; built only when something failed.
  auto wrap = [&](const std::string& cause) {
    return container_metric ? fmt::format("failed to get {} container metric value: {}", spec.container, cause)
                            : fmt::format("failed to get {} resource metric value: {}", spec.resource, cause);
  };
  MetricOutcome outcome;
  outcome.reading.name = spec.resource;

  ResourceReplicasInput input;
  input.current_replicas = in.spec_replicas;
  input.resource = spec.resource;
  if (container_metric) input.container = spec.container;
  input.now = in.now;
  input.tolerances = in.tolerances;
  // Upstream looks at averageValue first, whatever `type` says.
  const bool average_value = spec.target.average_value.has_value();
  if (average_value) {
    input.target.type = ResourceTarget::Type::AverageValue;
    input.target.average_value_milli = spec.target.average_value->milli_value();
    outcome.reading.target = format_milli(input.target.average_value_milli);
  } else if (spec.target.average_utilization) {
    input.target.type = ResourceTarget::Type::Utilization;
    input.target.average_utilization = *spec.target.average_utilization;
    outcome.reading.target = format_percent(input.target.average_utilization);
  } else {
    const std::string cause =
        "invalid resource metric source: neither an average utilization target nor an average value (usage) target "
        "was set";
    fail(outcome, events, reason, cause, wrap(cause));
    return outcome;
  }

  auto usage =
      in.metrics.pod_resource_usage(in.hpa.meta.namespace_, spec.resource, input.container, in.target.selector);
  Result<ResourceReplicas> computed = Error{};
  if (usage) {
    input.metrics = std::move(*usage);
    computed = calculate_resource_replicas(input, in.target.pods, in.config.calculator);
  } else {
    computed = Error{fmt::format("unable to get metrics for resource {}: {}", spec.resource, usage.error().message)};
  }
  if (!computed) {
    const std::string cause = fmt::format("failed to get {} {}: {}", spec.resource,
                                          average_value ? "usage" : "utilization", computed.error().message);
    fail(outcome, events, reason, cause, wrap(cause));
    return outcome;
  }
  outcome.replicas = computed->desired_replicas;
  outcome.reading.proposal = computed->desired_replicas;
  outcome.reading.usage_ratio = computed->usage_ratio;
  if (average_value) {
    outcome.name = spec.resource;
    outcome.name += " resource";
    outcome.reading.current = format_milli(computed->raw_average_milli);
  } else {
    outcome.name = spec.resource;
    outcome.name += container_metric ? " container resource utilization (percentage of request)"
                                     : " resource utilization (percentage of request)";
    outcome.reading.current = format_percent(computed->utilization_percent);
  }
  return outcome;
}

MetricOutcome pods_metric(const SyncInputs& in, const MetricSpec& spec, std::vector<HpaEvent>& events) {
  constexpr std::string_view reason = "FailedGetPodsMetric";
  const std::string wrap = "failed to get pods metric value: ";
  MetricOutcome outcome;
  outcome.reading.name = spec.metric.name;
  if (!spec.target.average_value) {
    const std::string cause = "invalid pods metric source: an average value target must be set";
    fail(outcome, events, reason, cause, wrap + cause);
    return outcome;
  }
  const std::int64_t target = spec.target.average_value->milli_value();
  outcome.reading.target = format_milli(target);

  auto samples = in.metrics.pod_metric(in.hpa.meta.namespace_, spec.metric, in.target.selector);
  Result<ResourceReplicas> computed = Error{""};
  if (!samples) {
    computed = Error{fmt::format("unable to get metric {}: {}", spec.metric.name, samples.error().message)};
  } else if (samples->empty()) {
    computed =
        Error{fmt::format("unable to get metric {}: no metrics returned from custom metrics API", spec.metric.name)};
  } else {
    // calcPlainMetricReplicas with no resource name: pod grouping and missing-pod filling, no cpu readiness rules.
    ResourceReplicasInput input;
    input.current_replicas = in.spec_replicas;
    input.resource = "";
    input.metrics = std::move(*samples);
    input.target.type = ResourceTarget::Type::AverageValue;
    input.target.average_value_milli = target;
    input.now = in.now;
    input.tolerances = in.tolerances;
    computed = calculate_resource_replicas(input, in.target.pods, in.config.calculator);
  }
  if (!computed) {
    fail(outcome, events, reason, computed.error().message, wrap + computed.error().message);
    return outcome;
  }
  outcome.replicas = computed->desired_replicas;
  outcome.reading.proposal = computed->desired_replicas;
  outcome.reading.usage_ratio = computed->usage_ratio;
  outcome.reading.current = format_milli(computed->raw_average_milli);
  outcome.name = fmt::format("pods metric {}", spec.metric.name);
  return outcome;
}

MetricOutcome object_metric(const SyncInputs& in, const MetricSpec& spec, std::vector<HpaEvent>& events) {
  constexpr std::string_view reason = "FailedGetObjectMetric";
  const std::string wrap = "failed to get object metric value: ";
  MetricOutcome outcome;
  outcome.reading.name = spec.metric.name;
  const MetricTarget& target = spec.target;
  const bool value_target = target.type == MetricTarget::Type::Value && target.value;
  const bool average_target = target.type == MetricTarget::Type::AverageValue && target.average_value;
  if (!value_target && !average_target) {
    const std::string cause =
        "invalid object metric source: neither a value target nor an average value target was set";
    fail(outcome, events, reason, cause, wrap + cause);
    return outcome;
  }
  const std::int64_t target_milli = value_target ? target.value->milli_value() : target.average_value->milli_value();
  outcome.reading.target = format_milli(target_milli);

  const CrossVersionObjectReference& object = spec.described_object;
  auto usage = in.metrics.object_metric(in.hpa.meta.namespace_, spec.metric, object);
  if (!usage) {
    // Upstream's format string puts its arguments in this (odd) order; events keep its exact words.
    const std::string cause = fmt::format("unable to get metric {}: {} on {} {}/{}", spec.metric.name, object.kind,
                                          in.hpa.meta.namespace_, object.name, usage.error().message);
    if (value_target) {
      fail(outcome, events, reason, cause, wrap + cause);
    } else {
      fail(outcome, events, reason, cause,
           wrap + fmt::format("failed to get {} object metric: {}", spec.metric.name, cause));
    }
    return outcome;
  }

  if (value_target) {
    auto computed = calculate_value_replicas(in.spec_replicas, *usage, target_milli, in.target.pods, in.tolerances);
    if (!computed) {
      fail(outcome, events, reason, computed.error().message, wrap + computed.error().message);
      return outcome;
    }
    outcome.replicas = computed->desired_replicas;
    outcome.reading.current = format_milli(computed->usage_milli);
    outcome.reading.usage_ratio = computed->usage_ratio;
    outcome.name = fmt::format("{} metric {}", object.kind, spec.metric.name);
  } else {
    const ValueReplicas computed =
        calculate_per_pod_replicas(in.status_replicas, *usage, target_milli, in.tolerances);
    outcome.replicas = computed.desired_replicas;
    outcome.reading.current = format_milli(computed.usage_milli);
    outcome.reading.usage_ratio = computed.usage_ratio;
    // Upstream names this proposal as if it were an External metric; the rescale reason keeps its words.
    outcome.name = fmt::format("external metric {}({})", spec.metric.name, go_selector(spec.metric.selector));
  }
  outcome.reading.proposal = outcome.replicas;
  return outcome;
}

MetricOutcome external_metric(const SyncInputs& in, const MetricSpec& spec, std::vector<HpaEvent>& events) {
  constexpr std::string_view reason = "FailedGetExternalMetric";
  // The words computeReplicasForMetric wraps a failure in; built only when something failed.
  auto wrap = [&](const std::string& inner) {
    return fmt::format("failed to get {} external metric value: {}", spec.metric.name, inner);
  };
  MetricOutcome outcome;
  outcome.reading.name = spec.metric.name;
  const MetricTarget& target = spec.target;
  // Upstream looks at averageValue first, whatever `type` says.
  const bool average_target = target.average_value.has_value();
  if (!average_target && !target.value) {
    const std::string cause =
        "invalid external metric source: neither a value target nor an average value target was set";
    fail(outcome, events, reason, cause, wrap(cause));
    return outcome;
  }
  const std::int64_t target_milli =
      average_target ? target.average_value->milli_value() : target.value->milli_value();
  outcome.reading.target = format_milli(target_milli);

  auto values = in.metrics.external_metric(in.hpa.meta.namespace_, spec.metric);
  if (values && values->empty()) values = Error{"no metrics returned from external metrics API"};
  if (!values) {
    const std::string cause = fmt::format("unable to get external metric {}/{}/{}: {}", in.hpa.meta.namespace_,
                                          spec.metric.name, go_selector(spec.metric.selector),
                                          values.error().message);
    const std::string inner = average_target
                                  ? fmt::format("failed to get {} external metric: {}", spec.metric.name, cause)
                                  : fmt::format("failed to get external metric {}: {}", spec.metric.name, cause);
    fail(outcome, events, reason, cause, wrap(inner));
    return outcome;
  }
  const std::int64_t usage = sum_series(*values);
  if (average_target) {
    const ValueReplicas computed = calculate_per_pod_replicas(in.status_replicas, usage, target_milli, in.tolerances);
    outcome.replicas = computed.desired_replicas;
    outcome.reading.current = format_milli(computed.usage_milli);
    outcome.reading.usage_ratio = computed.usage_ratio;
  } else {
    auto computed = calculate_value_replicas(in.spec_replicas, usage, target_milli, in.target.pods, in.tolerances);
    if (!computed) {
      const std::string inner =
          fmt::format("failed to get external metric {}: {}", spec.metric.name, computed.error().message);
      fail(outcome, events, reason, computed.error().message, wrap(inner));
      return outcome;
    }
    outcome.replicas = computed->desired_replicas;
    outcome.reading.current = format_milli(computed->usage_milli);
    outcome.reading.usage_ratio = computed->usage_ratio;
  }
  outcome.reading.proposal = outcome.replicas;
  // "external metric <name>(<selector>)"
  outcome.name = "external metric ";
  outcome.name += spec.metric.name;
  outcome.name += '(';
  append_go_selector(outcome.name, spec.metric.selector);
  outcome.name += ')';
  return outcome;
}

}  // namespace

MetricOutcome compute_metric(const SyncInputs& in, const MetricSpec& spec, std::vector<HpaEvent>& events) {
  switch (spec.type) {
    case MetricSpec::Type::Resource:
    case MetricSpec::Type::ContainerResource:
      return resource_metric(in, spec, events);
    case MetricSpec::Type::Pods:
      return pods_metric(in, spec, events);
    case MetricSpec::Type::Object:
      return object_metric(in, spec, events);
    case MetricSpec::Type::External:
      return external_metric(in, spec, events);
  }
  return {};
}

const std::vector<MetricSpec>& default_metrics() {
  static const std::vector<MetricSpec> metrics = [] {
    MetricSpec cpu;
    cpu.type = MetricSpec::Type::Resource;
    cpu.resource = "cpu";
    cpu.target.type = MetricTarget::Type::Utilization;
    cpu.target.average_utilization = kDefaultCpuUtilization;
    return std::vector<MetricSpec>{cpu};
  }();
  return metrics;
}

}  // namespace scalewright::workloads::detail
