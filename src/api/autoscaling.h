#pragma once
// Workload autoscalers as users write them: HorizontalPodAutoscaler (autoscaling/v2, and v1 converted to it) and
// KEDA's ScaledObject (keda.sh/v1alpha1). Field names follow upstream; optional fields stay optional so that
// defaults are applied where upstream applies them (the controller), not where the object is read.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "api/quantity.h"

namespace scalewright {

// spec.scaleTargetRef / describedObject.
struct CrossVersionObjectReference {
  std::string kind;
  std::string name;
  std::string api_version;
  friend bool operator==(const CrossVersionObjectReference&, const CrossVersionObjectReference&) = default;
};

// autoscaling/v2 MetricTarget. Exactly one of the values is set, the one `type` names.
struct MetricTarget {
  enum class Type { Utilization, Value, AverageValue };
  Type type = Type::Utilization;
  std::optional<std::int32_t> average_utilization;  // percent of requests
  std::optional<Quantity> value;
  std::optional<Quantity> average_value;
};

// autoscaling/v2 MetricIdentifier: a metric name and an optional selector over its labels.
struct MetricIdentifier {
  std::string name;
  std::optional<LabelSelector> selector;
};

// autoscaling/v2 MetricSpec, flattened: `type` says which of the fields below are meaningful.
//   Resource:          resource, target (Utilization or AverageValue)
//   ContainerResource: resource, container, target (Utilization or AverageValue)
//   Pods:              metric, target (AverageValue)
//   Object:            metric, described_object, target (Value or AverageValue)
//   External:          metric, target (Value or AverageValue)
struct MetricSpec {
  enum class Type { Resource, ContainerResource, Pods, Object, External };
  Type type = Type::Resource;
  std::string resource;   // "cpu", "memory", ...
  std::string container;  // ContainerResource
  MetricIdentifier metric;
  CrossVersionObjectReference described_object;
  MetricTarget target;
};

struct HpaScalingPolicy {
  enum class Type { Pods, Percent };
  Type type = Type::Pods;
  std::int32_t value = 0;
  std::int32_t period_seconds = 0;
};

enum class ScalingPolicySelect { Max, Min, Disabled };

// behavior.scaleUp / behavior.scaleDown. Unset fields take upstream's defaults for the direction.
struct HpaScalingRules {
  std::optional<std::int32_t> stabilization_window_seconds;
  std::optional<ScalingPolicySelect> select_policy;
  std::vector<HpaScalingPolicy> policies;  // empty: the direction's default policies
  std::optional<double> tolerance;         // behavior.scaleUp/scaleDown.tolerance (1.33+); unset: the flag
};

struct HpaBehavior {
  std::optional<HpaScalingRules> scale_up;
  std::optional<HpaScalingRules> scale_down;
};

struct HorizontalPodAutoscaler {
  ObjectMeta meta;
  CrossVersionObjectReference scale_target_ref;
  std::optional<std::int32_t> min_replicas;  // unset: 1
  std::int32_t max_replicas = 0;
  std::vector<MetricSpec> metrics;  // empty: cpu at 80 % of requests, as upstream defaults it
  std::optional<HpaBehavior> behavior;
};

// --- KEDA ---------------------------------------------------------------------------------------------------

// One entry of spec.triggers. `metadata` keeps the scaler's settings as written (KEDA reads them as strings);
// each scaler validates its own keys when the ScaledObject is decoded.
struct ScaledObjectTrigger {
  std::string type;  // "prometheus", "cpu", "memory", "cron", ...
  std::string name;
  std::map<std::string, std::string> metadata;
  std::optional<MetricTarget::Type> metric_type;  // unset: AverageValue (cpu/memory: Utilization)
  bool use_cached_metrics = false;
};

struct ScaledObjectFallback {
  std::int32_t failure_threshold = 0;
  std::int32_t replicas = 0;
};

// spec.advanced.scalingModifiers: one composed metric from the triggers' values.
struct ScalingModifiers {
  std::string formula;
  std::optional<Quantity> target;
  std::optional<Quantity> activation_target;
  std::optional<MetricTarget::Type> metric_type;
};

struct ScaledObject {
  ObjectMeta meta;
  CrossVersionObjectReference scale_target_ref;  // kind defaults to Deployment
  std::optional<std::int32_t> polling_interval_seconds;         // unset: 30
  std::optional<std::int32_t> cooldown_period_seconds;          // unset: 300
  std::optional<std::int32_t> initial_cooldown_period_seconds;  // unset: 0
  std::optional<std::int32_t> min_replica_count;                // unset: 0
  std::optional<std::int32_t> max_replica_count;                // unset: 100
  std::optional<std::int32_t> idle_replica_count;
  std::optional<ScaledObjectFallback> fallback;
  std::optional<HpaBehavior> hpa_behavior;  // advanced.horizontalPodAutoscalerConfig.behavior
  std::string hpa_name;                     // advanced.horizontalPodAutoscalerConfig.name; empty: keda-hpa-<name>
  std::optional<ScalingModifiers> scaling_modifiers;
  std::vector<ScaledObjectTrigger> triggers;
};

// The name of the HPA KEDA makes for a ScaledObject (getHpaName): advanced.horizontalPodAutoscalerConfig.name, else
// "keda-hpa-<name>".
inline std::string keda_hpa_name(const ScaledObject& so) {
  return so.hpa_name.empty() ? "keda-hpa-" + so.meta.name : so.hpa_name;
}

}  // namespace scalewright
