// The HPA's scaling rules, policies and stabilization (with and without `behavior`), out of hpa.cpp so that no file
// of the controller is over 600 lines.
#include "workloads/hpa_behavior.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "api/saturating.h"

namespace scalewright::workloads::detail {
namespace {

using std::chrono::seconds;

// Upstream's defaults (pkg/apis/autoscaling/v2/defaults.go and the controller's constants).
constexpr double kScaleUpLimitFactor = 2.0;
constexpr double kScaleUpLimitMinimum = 4.0;
constexpr std::int32_t kDefaultPolicyPeriodSeconds = 15;

// --- behavior, with upstream's defaults applied ------------------------------------------------------------------

// Upstream's default policies, which apply where `behavior` gives none for a direction.
constexpr HpaScalingPolicy kDefaultScaleUpPolicies[] = {
    {HpaScalingPolicy::Type::Pods, 4, kDefaultPolicyPeriodSeconds},
    {HpaScalingPolicy::Type::Percent, 100, kDefaultPolicyPeriodSeconds}};
constexpr HpaScalingPolicy kDefaultScaleDownPolicies[] = {
    {HpaScalingPolicy::Type::Percent, 100, kDefaultPolicyPeriodSeconds}};

}  // namespace

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

// --- normalization without behavior ------------------------------------------------------------------------------

// Upstream's stabilizeRecommendation: the highest recommendation of the downscale window wins, so a dip must last
// the whole window before the HPA scales down. One expired entry is recycled for the new recommendation.
std::int32_t stabilize_without_behavior(std::vector<TimestampedRecommendation>& recommendations, std::int32_t proposal,
                                        Instant now, Duration window) {
  std::int32_t highest = proposal;
  std::optional<std::size_t> expired;
  const Instant cutoff = now - window;
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

// Upstream's stabilizeRecommendationWithBehaviors: the lowest recommendation of the scale-up window bounds a
// scale-up, the highest of the scale-down window bounds a scale-down, and the current count sits between them.
Stabilized stabilize_with_behavior(std::vector<TimestampedRecommendation>& recommendations, std::int32_t current,
                                   std::int32_t proposal, const ScalingRules& up, const ScalingRules& down,
                                   Instant now) {
  const Instant up_cutoff = now - seconds(up.stabilization_window_seconds);
  const Instant down_cutoff = now - seconds(down.stabilization_window_seconds);
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

namespace {

// Upstream's getReplicasChangePerPeriod: the replicas a direction moved within the last `period_seconds`.
// Summed in int64: several large steps within one period may add up past int32.
std::int64_t change_in_period(const std::vector<ScaleEvent>& events, std::int32_t period_seconds, Instant now) {
  const Instant cutoff = now - seconds(period_seconds);
  std::int64_t change = 0;
  for (const ScaleEvent& event : events) {
    if (event.at > cutoff) change += event.change;
  }
  return change;
}

// The replica count a policy's period started from: the current one less the period's scale-ups, plus its
// scale-downs.
std::int64_t replicas_at_period_start(std::int32_t current, const HpaState& state, const HpaScalingPolicy& policy,
                                      Instant now) {
  return current - change_in_period(state.scale_up_events, policy.period_seconds, now) +
         change_in_period(state.scale_down_events, policy.period_seconds, now);
}

// The most a scale-up may reach now: each policy allows its step from the count at the start of its period.
std::int32_t scale_up_limit(std::int32_t current, const HpaState& state, const ScalingRules& rules, Instant now) {
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
std::int32_t scale_down_limit(std::int32_t current, const HpaState& state, const ScalingRules& rules, Instant now) {
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

std::int32_t longest_period(const ScalingRules& rules) {
  std::int32_t longest = 0;
  for (const HpaScalingPolicy& policy : rules.policies) longest = std::max(longest, policy.period_seconds);
  return longest;
}

}  // namespace

// Upstream's convertDesiredReplicasWithBehaviorRate.
Limited limit_with_behavior(std::int32_t current, std::int32_t desired, std::int32_t min_replicas,
                            std::int32_t max_replicas, const HpaState& state, const ScalingRules& up,
                            const ScalingRules& down, Instant now) {
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

// Upstream's storeScaleEvent: only HPAs with behavior keep events; one that has left the longest policy period
// is recycled for the new one.
void record_scale_event(HpaState& state, const HorizontalPodAutoscaler& hpa, const HpaControllerConfig& config,
                        std::int32_t previous, std::int32_t next, Instant now) {
  if (!hpa.behavior) return;
  const bool up = next > previous;
  const ScalingRules rules = up ? scale_up_rules(*hpa.behavior) : scale_down_rules(*hpa.behavior, config);
  std::vector<ScaleEvent>& events = up ? state.scale_up_events : state.scale_down_events;
  const Instant cutoff = now - seconds(longest_period(rules));
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

}  // namespace scalewright::workloads::detail
