#include "workloads/hpa.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <utility>

#include "api/saturating.h"
#include "workloads/metric_replicas.h"

namespace scalewright::workloads {
namespace {

using std::chrono::seconds;

// Upstream's defaults (pkg/apis/autoscaling/v2/defaults.go and the controller's constants).
constexpr std::int32_t kDefaultCpuUtilization = 80;
constexpr double kScaleUpLimitFactor = 2.0;
constexpr double kScaleUpLimitMinimum = 4.0;
constexpr std::int32_t kDefaultPolicyPeriodSeconds = 15;

// --- presentation ------------------------------------------------------------------------------------------------

// Appends an integer without a temporary string.
void append_int(std::string& out, std::int64_t value) {
  char buffer[24];
  const auto [end, ec] = std::to_chars(std::begin(buffer), std::end(buffer), value);
  out.append(buffer, end);
}

// A milli-value in apimachinery's canonical DecimalSI form, as kubectl prints a status quantity ("12500m", "3",
// "2k"): the largest SI suffix that keeps the mantissa whole.
std::string format_milli(std::int64_t milli) {
  if (milli == 0) return "0";
  static constexpr const char* kSuffixes[] = {"m", "", "k", "M", "G", "T", "P", "E"};
  const bool negative = milli < 0;
  std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(milli) : static_cast<std::uint64_t>(milli);
  std::size_t suffix = 0;
  while (suffix + 1 < std::size(kSuffixes) && magnitude % 1000 == 0) {
    magnitude /= 1000;
    ++suffix;
  }
  // Built by hand rather than with fmt: every sync formats a target and a current value per metric.
  char buffer[32];
  char* end = buffer;
  if (negative) *end++ = '-';
  end = std::to_chars(end, std::end(buffer), magnitude).ptr;
  std::string out(buffer, end);
  out += kSuffixes[suffix];
  return out;
}

// "<value>%", as kubectl shows a utilization.
std::string format_percent(std::int64_t value) {
  std::string out;
  append_int(out, value);
  out += '%';
  return out;
}

// Go's %+v of a *metav1.LabelSelector, which upstream puts into External metric names and errors: "nil", or the
// generated String() form. matchLabels are the one-value In requirements, as the model keeps them. Appended to
// `out` by hand, without fmt or a map: the name of every External metric proposal carries it, every sync.
void append_go_selector(std::string& out, const std::optional<LabelSelector>& selector) {
  if (!selector) {
    out += "nil";
    return;
  }
  // matchLabels: the first one-value In requirement of each key, printed in key order (a Go map's %v order).
  std::vector<std::pair<std::string_view, std::string_view>> match_labels;
  auto is_match_label = [&](const LabelRequirement& requirement) {
    if (requirement.op != SelectorOperator::In || requirement.values.size() != 1) return false;
    for (const auto& [key, value] : match_labels) {
      if (key == requirement.key.str()) return false;
    }
    return true;
  };
  std::string expressions;
  for (const LabelRequirement& requirement : selector->requirements) {
    if (is_match_label(requirement)) {
      match_labels.emplace_back(requirement.key.str(), requirement.values.front().str());
      continue;
    }
    expressions += "LabelSelectorRequirement{Key:";
    expressions += requirement.key.str();
    expressions += ",Operator:";
    expressions += to_string(requirement.op);
    expressions += ",Values:[";
    for (std::size_t i = 0; i < requirement.values.size(); ++i) {
      if (i > 0) expressions += ' ';
      expressions += requirement.values[i].str();
    }
    expressions += "],},";
  }
  std::sort(match_labels.begin(), match_labels.end());
  out += "&LabelSelector{MatchLabels:map[string]string{";
  for (const auto& [key, value] : match_labels) {
    out += key;
    out += ": ";
    out += value;
    out += ',';
  }
  out += "},MatchExpressions:[]LabelSelectorRequirement{";
  out += expressions;
  out += "},}";
}

std::string go_selector(const std::optional<LabelSelector>& selector) {
  std::string out;
  append_go_selector(out, selector);
  return out;
}

// Upstream sets the same conditions on every sync, mostly to what they already say: assign only what changed, so
// that an unchanged condition costs a comparison rather than a new string. `message` is `message_head` followed by
// `message_tail`, so that a message made of two parts need not be built to be compared.
void set_condition(std::vector<HpaCondition>& conditions, std::string_view type, bool status,
                   std::string_view reason, std::string_view message_head, std::string_view message_tail = {}) {
  auto assign_message = [&](std::string& message) {
    const bool same = message.size() == message_head.size() + message_tail.size() &&
                      message.starts_with(message_head) && message.ends_with(message_tail);
    if (same) return;
    message.assign(message_head);
    message.append(message_tail);
  };
  for (HpaCondition& condition : conditions) {
    if (condition.type == type) {
      condition.status = status;
      if (condition.reason != reason) condition.reason.assign(reason);
      assign_message(condition.message);
      return;
    }
  }
  HpaCondition& condition = conditions.emplace_back();
  condition.type.assign(type);
  condition.status = status;
  condition.reason.assign(reason);
  assign_message(condition.message);
}

// --- behavior, with upstream's defaults applied ------------------------------------------------------------------

// Upstream's default policies, which apply where `behavior` gives none for a direction.
constexpr HpaScalingPolicy kDefaultScaleUpPolicies[] = {
    {HpaScalingPolicy::Type::Pods, 4, kDefaultPolicyPeriodSeconds},
    {HpaScalingPolicy::Type::Percent, 100, kDefaultPolicyPeriodSeconds}};
constexpr HpaScalingPolicy kDefaultScaleDownPolicies[] = {
    {HpaScalingPolicy::Type::Percent, 100, kDefaultPolicyPeriodSeconds}};

struct ScalingRules {
  std::int32_t stabilization_window_seconds = 0;
  ScalingPolicySelect select_policy = ScalingPolicySelect::Max;
  // The defaults above or the HPA's own policies, not a copy: the rules are rebuilt on every sync.
  std::span<const HpaScalingPolicy> policies;
};

ScalingRules scale_up_rules(const HpaBehavior& behavior) {
  ScalingRules rules;
  rules.policies = kDefaultScaleUpPolicies;
  if (!behavior.scale_up) return rules;
  rules.stabilization_window_seconds = behavior.scale_up->stabilization_window_seconds.value_or(0);
  rules.select_policy = behavior.scale_up->select_policy.value_or(ScalingPolicySelect::Max);
  if (!behavior.scale_up->policies.empty()) rules.policies = behavior.scale_up->policies;
  return rules;
}

ScalingRules scale_down_rules(const HpaBehavior& behavior, const HpaControllerConfig& config) {
  ScalingRules rules;
  // An unset scale-down window takes the controller's flag, not a fixed default (maybeInitScaleDownStabilization).
  rules.stabilization_window_seconds =
      static_cast<std::int32_t>(std::chrono::duration_cast<seconds>(config.downscale_stabilization).count());
  rules.policies = kDefaultScaleDownPolicies;
  if (!behavior.scale_down) return rules;
  if (behavior.scale_down->stabilization_window_seconds) {
    rules.stabilization_window_seconds = *behavior.scale_down->stabilization_window_seconds;
  }
  rules.select_policy = behavior.scale_down->select_policy.value_or(ScalingPolicySelect::Max);
  if (!behavior.scale_down->policies.empty()) rules.policies = behavior.scale_down->policies;
  return rules;
}

Tolerances tolerances_for(const HorizontalPodAutoscaler& hpa, const HpaControllerConfig& config) {
  Tolerances tolerances{config.calculator.tolerance, config.calculator.tolerance};
  if (!hpa.behavior) return tolerances;
  if (hpa.behavior->scale_down && hpa.behavior->scale_down->tolerance) {
    tolerances.scale_down = *hpa.behavior->scale_down->tolerance;
  }
  if (hpa.behavior->scale_up && hpa.behavior->scale_up->tolerance) {
    tolerances.scale_up = *hpa.behavior->scale_up->tolerance;
  }
  return tolerances;
}

// --- one metric --------------------------------------------------------------------------------------------------

struct SyncInputs {
  const HorizontalPodAutoscaler& hpa;
  const HpaTarget& target;
  const MetricsSource& metrics;
  Duration now;
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
    outcome.name = fmt::format("{} metric {}", object.kind, spec.metric.name);
  } else {
    const ValueReplicas computed =
        calculate_per_pod_replicas(in.status_replicas, *usage, target_milli, in.tolerances);
    outcome.replicas = computed.desired_replicas;
    outcome.reading.current = format_milli(computed.usage_milli);
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

// --- normalization without behavior ------------------------------------------------------------------------------

struct Limited {
  std::int32_t replicas = 0;
  std::string_view reason;  // upstream's fixed words
  std::string_view message;
};

// Upstream's stabilizeRecommendation: the highest recommendation of the downscale window wins, so a dip must last
// the whole window before the HPA scales down. One expired entry is recycled for the new recommendation.
std::int32_t stabilize_without_behavior(std::vector<TimestampedRecommendation>& recommendations,
                                        std::int32_t proposal, Duration now, Duration window) {
  std::int32_t highest = proposal;
  std::optional<std::size_t> expired;
  const Duration cutoff = now - window;
  for (std::size_t i = 0; i < recommendations.size(); ++i) {
    if (recommendations[i].at < cutoff) {
      expired = i;
    } else {
      highest = std::max(highest, recommendations[i].replicas);
    }
  }
  if (expired) {
    recommendations[*expired] = {proposal, now};
  } else {
    recommendations.push_back({proposal, now});
  }
  return highest;
}

// Upstream's convertDesiredReplicasWithRules: min/max, and at most max(2 * current, 4) so that one bogus sample
// cannot multiply the workload.
Limited limit_without_behavior(std::int32_t current, std::int32_t desired, std::int32_t min_replicas,
                               std::int32_t max_replicas) {
  const auto scale_up_limit =
      saturate_cast<std::int32_t>(std::max(kScaleUpLimitFactor * static_cast<double>(current), kScaleUpLimitMinimum));
  Limited upper{max_replicas, "TooManyReplicas", "the desired replica count is more than the maximum replica count"};
  if (max_replicas > scale_up_limit) {
    upper = {scale_up_limit, "ScaleUpLimit",
             "the desired replica count is increasing faster than the maximum scale rate"};
  }
  if (desired < min_replicas) {
    return {min_replicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"};
  }
  if (desired > upper.replicas) return upper;
  return {desired, "DesiredWithinRange", "the desired count is within the acceptable range"};
}

// --- normalization with behavior ---------------------------------------------------------------------------------

struct Stabilized {
  std::int32_t replicas = 0;
  std::string_view reason;  // upstream's fixed words
  std::string_view message;
};

// Upstream's stabilizeRecommendationWithBehaviors: the lowest recommendation of the scale-up window bounds a
// scale-up, the highest of the scale-down window bounds a scale-down, and the current count sits between them.
Stabilized stabilize_with_behavior(std::vector<TimestampedRecommendation>& recommendations, std::int32_t current,
                                   std::int32_t proposal, const ScalingRules& up, const ScalingRules& down,
                                   Duration now) {
  const Duration up_cutoff = now - seconds(up.stabilization_window_seconds);
  const Duration down_cutoff = now - seconds(down.stabilization_window_seconds);
  std::int32_t up_recommendation = proposal;
  std::int32_t down_recommendation = proposal;
  std::optional<std::size_t> expired;
  for (std::size_t i = 0; i < recommendations.size(); ++i) {
    const TimestampedRecommendation& rec = recommendations[i];
    if (rec.at > up_cutoff) up_recommendation = std::min(up_recommendation, rec.replicas);
    if (rec.at > down_cutoff) down_recommendation = std::max(down_recommendation, rec.replicas);
    if (rec.at < up_cutoff && rec.at < down_cutoff) expired = i;
  }
  std::int32_t recommendation = current;
  if (recommendation < up_recommendation) recommendation = up_recommendation;
  if (recommendation > down_recommendation) recommendation = down_recommendation;
  if (expired) {
    recommendations[*expired] = {proposal, now};
  } else {
    recommendations.push_back({proposal, now});
  }
  if (proposal >= current) {
    return {recommendation, "ScaleUpStabilized",
            "recent recommendations were lower than current one, applying the lowest recent recommendation"};
  }
  return {recommendation, "ScaleDownStabilized",
          "recent recommendations were higher than current one, applying the highest recent recommendation"};
}

// Upstream's getReplicasChangePerPeriod: the replicas a direction moved within the last `period_seconds`.
// Summed in int64: several large steps within one period may add up past int32.
std::int64_t change_in_period(const std::vector<ScaleEvent>& events, std::int32_t period_seconds, Duration now) {
  const Duration cutoff = now - seconds(period_seconds);
  std::int64_t change = 0;
  for (const ScaleEvent& event : events) {
    if (event.at > cutoff) change += event.change;
  }
  return change;
}

// The replica count a policy's period started from: the current one less the period's scale-ups, plus its
// scale-downs.
std::int64_t replicas_at_period_start(std::int32_t current, const HpaState& state, const HpaScalingPolicy& policy,
                                      Duration now) {
  return current - change_in_period(state.scale_up_events, policy.period_seconds, now) +
         change_in_period(state.scale_down_events, policy.period_seconds, now);
}

// The most a scale-up may reach now: each policy allows its step from the count at the start of its period.
std::int32_t scale_up_limit(std::int32_t current, const HpaState& state, const ScalingRules& rules, Duration now) {
  if (rules.select_policy == ScalingPolicySelect::Disabled) return current;
  const bool min_change = rules.select_policy == ScalingPolicySelect::Min;
  std::int32_t result =
      min_change ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::min();
  for (const HpaScalingPolicy& policy : rules.policies) {
    const std::int64_t period_start = replicas_at_period_start(current, state, policy, now);
    std::int32_t proposed = 0;
    if (policy.type == HpaScalingPolicy::Type::Pods) {
      proposed = saturate_cast<std::int32_t>(period_start + policy.value);
    } else {
      // Rounded up: a small percentage of a small count must still allow one more replica.
      proposed = saturate_cast<std::int32_t>(
          std::ceil(static_cast<double>(period_start) * (1 + static_cast<double>(policy.value) / 100)));
    }
    result = min_change ? std::min(result, proposed) : std::max(result, proposed);
  }
  return result;
}

// The least a scale-down may reach now; Percent rounds down (truncates), as upstream's int32 conversion does.
std::int32_t scale_down_limit(std::int32_t current, const HpaState& state, const ScalingRules& rules, Duration now) {
  if (rules.select_policy == ScalingPolicySelect::Disabled) return current;
  const bool min_change = rules.select_policy == ScalingPolicySelect::Min;
  std::int32_t result =
      min_change ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int32_t>::max();
  for (const HpaScalingPolicy& policy : rules.policies) {
    const std::int64_t period_start = replicas_at_period_start(current, state, policy, now);
    std::int32_t proposed = 0;
    if (policy.type == HpaScalingPolicy::Type::Pods) {
      proposed = saturate_cast<std::int32_t>(period_start - policy.value);
    } else {
      proposed = saturate_cast<std::int32_t>(static_cast<double>(period_start) *
                                             (1 - static_cast<double>(policy.value) / 100));
    }
    result = min_change ? std::max(result, proposed) : std::min(result, proposed);
  }
  return result;
}

// Upstream's convertDesiredReplicasWithBehaviorRate.
Limited limit_with_behavior(std::int32_t current, std::int32_t desired, std::int32_t min_replicas,
                            std::int32_t max_replicas, const HpaState& state, const ScalingRules& up,
                            const ScalingRules& down, Duration now) {
  if (desired > current) {
    // Events of the period may already exceed the policy; then hold, never shrink on a scale-up.
    const std::int32_t limit = std::max(scale_up_limit(current, state, up, now), current);
    Limited upper{max_replicas, "TooManyReplicas",
                  "the desired replica count is more than the maximum replica count"};
    if (max_replicas > limit) {
      upper = {limit, "ScaleUpLimit", "the desired replica count is increasing faster than the maximum scale rate"};
    }
    if (desired > upper.replicas) return upper;
  } else if (desired < current) {
    const std::int32_t limit = std::min(scale_down_limit(current, state, down, now), current);
    Limited lower{min_replicas, "TooFewReplicas", "the desired replica count is less than the minimum replica count"};
    if (min_replicas < limit) {
      lower = {limit, "ScaleDownLimit", "the desired replica count is decreasing faster than the maximum scale rate"};
    }
    if (desired < lower.replicas) return lower;
  }
  return {desired, "DesiredWithinRange", "the desired count is within the acceptable range"};
}

std::int32_t longest_period(const ScalingRules& rules) {
  std::int32_t longest = 0;
  for (const HpaScalingPolicy& policy : rules.policies) longest = std::max(longest, policy.period_seconds);
  return longest;
}

// Upstream's storeScaleEvent: only HPAs with behavior keep events; one that has left the longest policy period
// is recycled for the new one.
void record_scale_event(HpaState& state, const HorizontalPodAutoscaler& hpa, const HpaControllerConfig& config,
                        std::int32_t previous, std::int32_t next, Duration now) {
  if (!hpa.behavior) return;
  const bool up = next > previous;
  const ScalingRules rules = up ? scale_up_rules(*hpa.behavior) : scale_down_rules(*hpa.behavior, config);
  std::vector<ScaleEvent>& events = up ? state.scale_up_events : state.scale_down_events;
  const Duration cutoff = now - seconds(longest_period(rules));
  std::optional<std::size_t> outdated;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i].at < cutoff) events[i].outdated = true;
    if (events[i].outdated) outdated = i;
  }
  const ScaleEvent event{up ? next - previous : previous - next, now, false};
  if (outdated) {
    events[*outdated] = event;
  } else {
    events.push_back(event);
  }
}

}  // namespace

HpaDecision reconcile_hpa(const HorizontalPodAutoscaler& hpa, HpaState& state, const HpaTarget& target,
                          const MetricsSource& metrics, Duration now, const HpaControllerConfig& config) {
  HpaDecision decision;
  const std::int32_t current = target.spec_replicas;
  decision.current_replicas = current;
  set_condition(state.conditions, "AbleToScale", true, "SucceededGetScale",
                "the HPA controller was able to get the target's current scale");
  // The first sync remembers the current count as a recommendation, so no scale-down happens before a whole
  // stabilization window has been observed.
  if (state.recommendations.empty()) state.recommendations.push_back({current, now});

  const std::int32_t min_replicas = hpa.min_replicas.value_or(1);
  std::int32_t desired = 0;
  std::string rescale_reason;
  bool rescale = true;

  if (current == 0 && min_replicas != 0) {
    // A target scaled to zero by hand is left alone until someone scales it up again.
    rescale = false;
    set_condition(state.conditions, "ScalingActive", false, "ScalingDisabled",
                  "scaling is disabled since the replica count of the target is zero");
  } else if (current > hpa.max_replicas) {
    rescale_reason = "Current number of replicas above Spec.MaxReplicas";
    desired = hpa.max_replicas;
  } else if (current < min_replicas) {
    rescale_reason = "Current number of replicas below Spec.MinReplicas";
    desired = min_replicas;
  } else {
    const std::vector<MetricSpec>& specs = hpa.metrics.empty() ? default_metrics() : hpa.metrics;
    const SyncInputs inputs{hpa,     target,
                            metrics, now,
                            config,  tolerances_for(hpa, config),
                            current, target.status_replicas.value_or(current)};
    std::int32_t metric_desired = 0;
    std::string metric_name;
    std::size_t invalid = 0;
    std::optional<HpaCondition> first_invalid_condition;
    std::string first_invalid_error;
    decision.metrics.reserve(specs.size());
    for (std::size_t i = 0; i < specs.size(); ++i) {
      MetricOutcome outcome = compute_metric(inputs, specs[i], decision.events);
      decision.metrics.push_back(std::move(outcome.reading));
      if (outcome.failed) {
        if (invalid == 0) {
          first_invalid_condition = outcome.condition;
          first_invalid_error = decision.metrics.back().error;
        }
        ++invalid;
        continue;
      }
      // The largest proposal wins; the first valid one always counts, even a proposal of zero.
      if (metric_desired == 0 || outcome.replicas > metric_desired) {
        metric_desired = outcome.replicas;
        metric_name = std::move(outcome.name);
        decision.deciding_metric = i;
      }
    }
    // Without every metric a scale-down could remove capacity a failing metric needs: act only on a scale-up.
    if (invalid >= specs.size() || (invalid > 0 && metric_desired < current)) {
      const std::string error = fmt::format("invalid metrics ({} invalid out of {}), first error is: {}", invalid,
                                            specs.size(), first_invalid_error);
      set_condition(state.conditions, first_invalid_condition->type, first_invalid_condition->status,
                    first_invalid_condition->reason, first_invalid_condition->message);
      decision.events.push_back({true, "FailedComputeMetricsReplicas", error});
      decision.deciding_metric.reset();
      decision.desired_replicas = current;
      state.current_replicas = current;
      state.current_metrics = decision.metrics;
      return decision;
    }
    set_condition(state.conditions, "ScalingActive", true, "ValidMetricFound",
                  "the HPA was able to successfully calculate a replica count from ", metric_name);

    std::string rescale_metric;
    if (metric_desired > desired) {
      desired = metric_desired;
      rescale_metric = metric_name;
    }
    if (desired > current) rescale_reason = rescale_metric + " above target";
    if (desired < current) rescale_reason = "All metrics below target";

    std::int32_t stabilized = 0;
    Limited limited;
    if (!hpa.behavior) {
      stabilized = stabilize_without_behavior(state.recommendations, desired, now, config.downscale_stabilization);
      if (stabilized != desired) {
        set_condition(state.conditions, "AbleToScale", true, "ScaleDownStabilized",
                      "recent recommendations were higher than current one, applying the highest recent "
                      "recommendation");
      } else {
        set_condition(state.conditions, "AbleToScale", true, "ReadyForNewScale",
                      "recommended size matches current size");
      }
      limited = limit_without_behavior(current, stabilized, min_replicas, hpa.max_replicas);
    } else {
      const ScalingRules up = scale_up_rules(*hpa.behavior);
      const ScalingRules down = scale_down_rules(*hpa.behavior, config);
      Stabilized result = stabilize_with_behavior(state.recommendations, current, desired, up, down, now);
      stabilized = result.replicas;
      if (stabilized != desired) {
        set_condition(state.conditions, "AbleToScale", true, result.reason, result.message);
      } else {
        set_condition(state.conditions, "AbleToScale", true, "ReadyForNewScale",
                      "recommended size matches current size");
      }
      limited = limit_with_behavior(current, stabilized, min_replicas, hpa.max_replicas, state, up, down, now);
    }
    set_condition(state.conditions, "ScalingLimited", limited.replicas != stabilized, limited.reason,
                  limited.message);
    desired = limited.replicas;
    rescale = desired != current;
  }

  if (rescale) {
    set_condition(state.conditions, "AbleToScale", true, "SucceededRescale",
                  fmt::format("the HPA controller was able to update the target scale to {}", desired));
    decision.events.push_back(
        {false, "SuccessfulRescale", fmt::format("New size: {}; reason: {}", desired, rescale_reason)});
    record_scale_event(state, hpa, config, current, desired, now);
    state.last_scale_time = now;
    decision.reason = rescale_reason;
  } else {
    desired = current;
  }
  decision.rescale = rescale;
  decision.desired_replicas = desired;
  state.current_replicas = current;
  state.desired_replicas = desired;
  state.current_metrics = decision.metrics;
  return decision;
}

}  // namespace scalewright::workloads
