#include "workloads/hpa.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "workloads/hpa_behavior.h"
#include "workloads/hpa_metrics.h"

namespace scalewright::workloads {

using detail::compute_metric;
using detail::default_metrics;
using detail::limit_with_behavior;
using detail::limit_without_behavior;
using detail::Limited;
using detail::MetricOutcome;
using detail::record_scale_event;
using detail::scale_down_rules;
using detail::scale_up_rules;
using detail::ScalingRules;
using detail::stabilize_with_behavior;
using detail::stabilize_without_behavior;
using detail::Stabilized;
using detail::SyncInputs;
using detail::tolerances_for;

namespace {

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

}  // namespace

HpaDecision reconcile_hpa(const HorizontalPodAutoscaler& hpa, HpaState& state, const HpaTarget& target,
                          const MetricsSource& metrics, Instant now, const HpaControllerConfig& config) {
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
    decision.tolerances = inputs.tolerances;
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
    decision.recommended_replicas = desired;
    if (desired > current) rescale_reason = rescale_metric + " above target";
    if (desired < current) rescale_reason = "All metrics below target";

    std::int32_t stabilized = 0;
    Limited limited;
    if (!hpa.behavior) {
      stabilized = stabilize_without_behavior(state.recommendations, desired, now, config.downscale_stabilization);
      if (stabilized != desired) {
        decision.stabilization_reason = "ScaleDownStabilized";
        decision.stabilization_message =
            "recent recommendations were higher than current one, applying the highest recent recommendation";
        set_condition(state.conditions, "AbleToScale", true, decision.stabilization_reason,
                      decision.stabilization_message);
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
        decision.stabilization_reason = result.reason;
        decision.stabilization_message = result.message;
        set_condition(state.conditions, "AbleToScale", true, result.reason, result.message);
      } else {
        set_condition(state.conditions, "AbleToScale", true, "ReadyForNewScale",
                      "recommended size matches current size");
      }
      limited = limit_with_behavior(current, stabilized, min_replicas, hpa.max_replicas, state, up, down, now);
    }
    decision.stabilized_replicas = stabilized;
    if (limited.replicas != stabilized) {
      decision.limit_reason = limited.reason;
      decision.limit_message = limited.message;
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
