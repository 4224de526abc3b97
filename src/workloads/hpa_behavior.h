#pragma once
// The HPA controller's normalization of a proposal, internal to the hpa*.cpp files: the scaling rules with upstream's
// defaults applied, stabilization and limits with and without `behavior`, and the scale events the policies count.
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "api/autoscaling.h"
#include "api/duration.h"
#include "api/instant.h"
#include "workloads/hpa.h"
#include "workloads/replica_calculator.h"

namespace scalewright::workloads::detail {

struct ScalingRules {
  std::int32_t stabilization_window_seconds = 0;
  ScalingPolicySelect select_policy = ScalingPolicySelect::Max;
  // The defaults above or the HPA's own policies, not a copy: the rules are rebuilt on every sync.
  std::span<const HpaScalingPolicy> policies;
};

ScalingRules scale_up_rules(const HpaBehavior& behavior);
ScalingRules scale_down_rules(const HpaBehavior& behavior, const HpaControllerConfig& config);
Tolerances tolerances_for(const HorizontalPodAutoscaler& hpa, const HpaControllerConfig& config);

struct Limited {
  std::int32_t replicas = 0;
  std::string_view reason;  // upstream's fixed words
  std::string_view message;
};

std::int32_t stabilize_without_behavior(std::vector<TimestampedRecommendation>& recommendations, std::int32_t proposal,
                                        Instant now, Duration window);
Limited limit_without_behavior(std::int32_t current, std::int32_t desired, std::int32_t min_replicas,
                               std::int32_t max_replicas);

struct Stabilized {
  std::int32_t replicas = 0;
  std::string_view reason;  // upstream's fixed words
  std::string_view message;
};

Stabilized stabilize_with_behavior(std::vector<TimestampedRecommendation>& recommendations, std::int32_t current,
                                   std::int32_t proposal, const ScalingRules& up, const ScalingRules& down,
                                   Instant now);
Limited limit_with_behavior(std::int32_t current, std::int32_t desired, std::int32_t min_replicas,
                            std::int32_t max_replicas, const HpaState& state, const ScalingRules& up,
                            const ScalingRules& down, Instant now);
void record_scale_event(HpaState& state, const HorizontalPodAutoscaler& hpa, const HpaControllerConfig& config,
                        std::int32_t previous, std::int32_t next, Instant now);

}  // namespace scalewright::workloads::detail
