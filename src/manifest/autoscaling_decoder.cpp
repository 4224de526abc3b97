#include "manifest/autoscaling_decoder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <utility>

#include "api/integer.h"
#include "api/time_zone.h"

#include "manifest/meta_decoder.h"
#include "manifest/selectors.h"

namespace scalewright::manifest {
namespace {

// The API server's bounds (pkg/apis/autoscaling/validation).
constexpr std::int32_t kMaxPeriodSeconds = 1800;
constexpr std::int32_t kMaxStabilizationWindowSeconds = 3600;
// KEDA's default maxReplicaCount when the ScaledObject leaves it out.
constexpr std::int32_t kDefaultMaxReplicaCount = 100;

using TargetType = MetricTarget::Type;

std::string_view target_type_name(TargetType type) {
  switch (type) {
    case TargetType::Utilization: return "Utilization";
    case TargetType::Value: return "Value";
    case TargetType::AverageValue: return "AverageValue";
  }
  return "";
}

std::string_view metric_type_name(MetricSpec::Type type) {
  switch (type) {
    case MetricSpec::Type::Resource: return "Resource";
    case MetricSpec::Type::ContainerResource: return "ContainerResource";
    case MetricSpec::Type::Pods: return "Pods";
    case MetricSpec::Type::Object: return "Object";
    case MetricSpec::Type::External: return "External";
  }
  return "";
}

// The key of each source's block in a MetricSpec, in the order upstream lists them.
std::string_view metric_source_key(MetricSpec::Type type) {
  switch (type) {
    case MetricSpec::Type::Resource: return "resource";
    case MetricSpec::Type::ContainerResource: return "containerResource";
    case MetricSpec::Type::Pods: return "pods";
    case MetricSpec::Type::Object: return "object";
    case MetricSpec::Type::External: return "external";
  }
  return "";
}

std::optional<TargetType> maybe_target_type(const Field& parent, std::string_view key) {
  return parent.maybe_choice<TargetType>(key, "metric target type",
                                         {{"Utilization", TargetType::Utilization},
                                          {"Value", TargetType::Value},
                                          {"AverageValue", TargetType::AverageValue}});
}

bool positive(const Quantity& q) { return !q.negative() && !q.is_zero(); }

// A number as Go's strconv.ParseFloat reads KEDA's metadata ("10", "0.5", "1e3", "+2"); finite values only.
std::optional<double> parse_number(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '+') return std::nullopt;
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A quantity's value as a double: plain numbers ("0.05", "1e-2") exactly as written, suffixed ones scaled.
double quantity_to_double(const Quantity& q) {
  const std::string& text = q.text();
  if (std::optional<double> plain = parse_number(text)) return *plain;
  static constexpr std::pair<std::string_view, double> kSuffixes[] = {
      {"Ki", 0x1p10}, {"Mi", 0x1p20}, {"Gi", 0x1p30}, {"Ti", 0x1p40}, {"Pi", 0x1p50},
      {"Ei", 0x1p60}, {"n", 1e-9},    {"u", 1e-6},    {"m", 1e-3},    {"k", 1e3},
      {"M", 1e6},     {"G", 1e9},     {"T", 1e12},    {"P", 1e15},    {"E", 1e18}};
  for (const auto& [suffix, scale] : kSuffixes) {
    if (text.size() > suffix.size() && text.ends_with(suffix)) {
      if (std::optional<double> mantissa =
              parse_number(std::string_view(text).substr(0, text.size() - suffix.size()))) {
        return *mantissa * scale;
      }
    }
  }
  return static_cast<double>(q.milli_value()) / 1000.0;
}

// --- HorizontalPodAutoscaler --------------------------------------------------------------------------------

// scaleTargetRef / describedObject: kind and name required, as ValidateCrossVersionObjectReference says.
CrossVersionObjectReference decode_object_reference(const Field& ref) {
  CrossVersionObjectReference out;
  out.kind = ref.required_string("kind");
  out.name = ref.required_string("name");
  out.api_version = ref.optional_string("apiVersion");
  return out;
}

MetricIdentifier decode_metric_identifier(const Field& metric) {
  MetricIdentifier out;
  out.name = metric.required_string("name");
  out.selector = maybe_label_selector(metric, "selector");
  return out;
}

// A MetricTarget whose type must be one of `allowed` for the metric source, with exactly the value the type names.
MetricTarget decode_metric_target(const Field& target, MetricSpec::Type source,
                                  std::initializer_list<TargetType> allowed) {
  MetricTarget out;
  std::optional<TargetType> type = maybe_target_type(target, "type");
  if (!type) target.fail_at("type", "required");
  if (std::find(allowed.begin(), allowed.end(), *type) == allowed.end()) {
    std::string expected;
    for (TargetType t : allowed) expected += (expected.empty() ? "" : ", ") + std::string(target_type_name(t));
    target.fail_at("type", std::string(target_type_name(*type)) + " is not supported for a " +
                               std::string(metric_type_name(source)) + " metric (expected " + expected + ")");
  }
  out.type = *type;
  out.average_utilization = target.maybe_int32("averageUtilization");
  if (out.average_utilization && *out.average_utilization < 1) {
    target.fail_at("averageUtilization", "must be greater than 0");
  }
  out.value = target.quantity("value");
  if (out.value && !positive(*out.value)) target.fail_at("value", "must be positive");
  out.average_value = target.quantity("averageValue");
  if (out.average_value && !positive(*out.average_value)) target.fail_at("averageValue", "must be positive");

  const std::pair<std::string_view, bool> values[] = {{"averageUtilization", out.average_utilization.has_value()},
                                                      {"value", out.value.has_value()},
                                                      {"averageValue", out.average_value.has_value()}};
  const std::string_view named = out.type == TargetType::Utilization ? "averageUtilization"
                                 : out.type == TargetType::Value     ? "value"
                                                                     : "averageValue";
  const std::string with_type = "target type " + std::string(target_type_name(out.type));
  for (const auto& [key, set] : values) {
    if (key == named && !set) target.fail_at(key, "required for " + with_type);
    if (key != named && set) target.fail_at(key, "must not be set with " + with_type);
  }
  return out;
}

MetricSpec decode_metric(const Field& metric) {
  MetricSpec out;
  out.type = metric.required_choice<MetricSpec::Type>("type", "metric source type",
                                                      {{"Resource", MetricSpec::Type::Resource},
                                                       {"ContainerResource", MetricSpec::Type::ContainerResource},
                                                       {"Pods", MetricSpec::Type::Pods},
                                                       {"Object", MetricSpec::Type::Object},
                                                       {"External", MetricSpec::Type::External}});
  for (MetricSpec::Type other : {MetricSpec::Type::Resource, MetricSpec::Type::ContainerResource,
                                 MetricSpec::Type::Pods, MetricSpec::Type::Object, MetricSpec::Type::External}) {
    if (other != out.type && metric.has(metric_source_key(other))) {
      metric.fail_at(metric_source_key(other),
                     "must not be set for a " + std::string(metric_type_name(out.type)) + " metric");
    }
  }
  Field source = metric.required_child(metric_source_key(out.type));
  switch (out.type) {
    case MetricSpec::Type::Resource:
      out.resource = source.required_string("name");
      out.target = decode_metric_target(source.required_child("target"), out.type,
                                        {TargetType::Utilization, TargetType::AverageValue});
      break;
    case MetricSpec::Type::ContainerResource:
      out.resource = source.required_string("name");
      out.container = source.required_string("container");
      out.target = decode_metric_target(source.required_child("target"), out.type,
                                        {TargetType::Utilization, TargetType::AverageValue});
      break;
    case MetricSpec::Type::Pods:
      out.metric = decode_metric_identifier(source.required_child("metric"));
      out.target = decode_metric_target(source.required_child("target"), out.type, {TargetType::AverageValue});
      break;
    case MetricSpec::Type::Object:
      out.described_object = decode_object_reference(source.required_child("describedObject"));
      out.metric = decode_metric_identifier(source.required_child("metric"));
      out.target = decode_metric_target(source.required_child("target"), out.type,
                                        {TargetType::Value, TargetType::AverageValue});
      break;
    case MetricSpec::Type::External:
      out.metric = decode_metric_identifier(source.required_child("metric"));
      out.target = decode_metric_target(source.required_child("target"), out.type,
                                        {TargetType::Value, TargetType::AverageValue});
      break;
  }
  return out;
}

HpaScalingPolicy decode_scaling_policy(const Field& policy) {
  HpaScalingPolicy out;
  out.type = policy.required_choice<HpaScalingPolicy::Type>(
      "type", "scaling policy type",
      {{"Pods", HpaScalingPolicy::Type::Pods}, {"Percent", HpaScalingPolicy::Type::Percent}});
  std::optional<std::int32_t> value = policy.maybe_int32("value");
  if (!value) policy.fail_at("value", "required");
  if (*value <= 0) policy.fail_at("value", "must be greater than 0, got " + std::to_string(*value));
  out.value = *value;
  std::optional<std::int32_t> period = policy.maybe_int32("periodSeconds");
  if (!period) policy.fail_at("periodSeconds", "required");
  if (*period <= 0 || *period > kMaxPeriodSeconds) {
    policy.fail_at("periodSeconds",
                   "must be between 1 and " + std::to_string(kMaxPeriodSeconds) + ", got " + std::to_string(*period));
  }
  out.period_seconds = *period;
  return out;
}

HpaScalingRules decode_scaling_rules(const Field& rules) {
  HpaScalingRules out;
  out.stabilization_window_seconds = rules.maybe_int32("stabilizationWindowSeconds");
  if (out.stabilization_window_seconds &&
      (*out.stabilization_window_seconds < 0 || *out.stabilization_window_seconds > kMaxStabilizationWindowSeconds)) {
    rules.fail_at("stabilizationWindowSeconds", "must be between 0 and " +
                                                    std::to_string(kMaxStabilizationWindowSeconds) + ", got " +
                                                    std::to_string(*out.stabilization_window_seconds));
  }
  out.select_policy = rules.maybe_choice<ScalingPolicySelect>("selectPolicy", "select policy",
                                                              {{"Max", ScalingPolicySelect::Max},
                                                               {"Min", ScalingPolicySelect::Min},
                                                               {"Disabled", ScalingPolicySelect::Disabled}});
  rules.each("policies", [&](const Field& p) { out.policies.push_back(decode_scaling_policy(p)); });
  if (std::optional<Quantity> tolerance = rules.quantity("tolerance")) {
    if (tolerance->negative()) rules.fail_at("tolerance", "must not be negative, got " + quote(tolerance->text()));
    out.tolerance = quantity_to_double(*tolerance);
  }
  return out;
}

// --- ScaledObject triggers ----------------------------------------------------------------------------------

// A trigger's metadata value, read as KEDA reads it: a string, absent or empty meaning "not given".
std::optional<std::string> metadata_value(const ScaledObjectTrigger& trigger, const std::string& key) {
  auto it = trigger.metadata.find(key);
  if (it == trigger.metadata.end() || it->second.empty()) return std::nullopt;
  return it->second;
}

std::string required_metadata(const ScaledObjectTrigger& trigger, const Field& metadata, const std::string& key) {
  std::optional<std::string> value = metadata_value(trigger, key);
  if (!value) metadata.fail_at(key, "required for a " + trigger.type + " trigger");
  return *value;
}

std::optional<double> metadata_number(const ScaledObjectTrigger& trigger, const Field& metadata,
                                      const std::string& key) {
  std::optional<std::string> text = metadata_value(trigger, key);
  if (!text) return std::nullopt;
  std::optional<double> value = parse_number(*text);
  if (!value) metadata.fail_at(key, "expected a number, got " + quote(*text));
  return value;
}

// Go's strconv.ParseBool, which KEDA's scalers use for boolean metadata.
void check_metadata_bool(const ScaledObjectTrigger& trigger, const Field& metadata, const std::string& key) {
  std::optional<std::string> text = metadata_value(trigger, key);
  if (text && !parse_go_bool(*text)) {
    metadata.fail_at(key, "expected true or false, got " + quote(*text));
  }
}

// KEDA's prometheus scaler: serverAddress, query and a numeric threshold are required. KEDA's HPA targets the
// threshold in thousandths, truncated (GetMetricTargetMili), and the API server refuses a target that is not
// positive, so a threshold under 0.001 never makes a ScaledObject. A negative activationThreshold KEDA takes.
void check_prometheus_trigger(const ScaledObjectTrigger& trigger, const Field& metadata,
                              std::vector<std::string>& warnings) {
  required_metadata(trigger, metadata, "serverAddress");
  required_metadata(trigger, metadata, "query");
  std::optional<double> threshold = metadata_number(trigger, metadata, "threshold");
  if (!threshold) metadata.fail_at("threshold", "required for a prometheus trigger");
  if (*threshold * 1000.0 < 1.0) {
    metadata.fail_at("threshold", "must be at least 0.001 (KEDA's HPA target is the threshold in thousandths, which "
                                  "must be positive), got " + quote(*metadata_value(trigger, "threshold")));
  }
  std::optional<double> activation = metadata_number(trigger, metadata, "activationThreshold");
  if (activation && *activation < 0) {
    warnings.push_back(metadata.path_of("activationThreshold") + ": " +
                       quote(*metadata_value(trigger, "activationThreshold")) +
                       " is negative: the trigger is active whenever the query gives 0 or more");
  }
  check_metadata_bool(trigger, metadata, "ignoreNullValues");
}

// KEDA's cpu/memory scaler: the target type comes from metricType or (deprecated) metadata.type, never both;
// value is a whole percentage for Utilization and a quantity for AverageValue.
void check_resource_trigger(ScaledObjectTrigger& trigger, const Field& object_trigger, const Field& metadata) {
  std::optional<std::string> legacy_type = metadata_value(trigger, "type");
  if (legacy_type && trigger.metric_type) {
    metadata.fail_at("type", "cannot be set together with metricType (set only one of them)");
  }
  if (legacy_type) {
    if (*legacy_type == "Utilization") {
      trigger.metric_type = TargetType::Utilization;
    } else if (*legacy_type == "AverageValue") {
      trigger.metric_type = TargetType::AverageValue;
    } else {
      metadata.fail_at("type",
                       "unknown metric type " + quote(*legacy_type) + " (expected Utilization, AverageValue)");
    }
  }
  if (!trigger.metric_type) {
    object_trigger.fail_at("metricType", "required for a " + trigger.type + " trigger (Utilization or AverageValue)");
  }
  if (*trigger.metric_type == TargetType::Value) {
    object_trigger.fail_at("metricType", "Value is not supported for a " + trigger.type +
                                             " trigger (expected Utilization, AverageValue)");
  }
  std::string value = required_metadata(trigger, metadata, "value");
  if (*trigger.metric_type == TargetType::Utilization) {
    std::optional<std::int64_t> percent = parse_integer(value);
    if (!percent || *percent > std::numeric_limits<std::int32_t>::max() || *percent < 1) {
      metadata.fail_at("value", "expected a utilization percentage greater than 0, got " + quote(value));
    }
  } else {
    Result<Quantity> quantity = Quantity::parse(value);
    if (!quantity) metadata.fail_at("value", quantity.error().message);
    if (!positive(*quantity)) metadata.fail_at("value", "must be positive, got " + quote(value));
  }
}

// Standard 5-field cron expressions, as KEDA's parser (minute hour day-of-month month day-of-week) takes them.
void check_cron_schedule(const ScaledObjectTrigger& trigger, const Field& metadata, const std::string& key) {
  std::string schedule = required_metadata(trigger, metadata, key);
  std::istringstream words(schedule);
  std::size_t fields = 0;
  for (std::string word; words >> word;) ++fields;
  if (fields != 5) {
    metadata.fail_at(key, "expected a cron expression of 5 fields (minute hour day month weekday), got " +
                              std::to_string(fields) + " in " + quote(schedule));
  }
}

// KEDA's cron scaler loads the zone from the tz database of its image (Go's time.LoadLocation) at every poll, and
// fails each one when it cannot: refused here, for check and simulate alike, with the database of this system.
void check_cron_trigger(const ScaledObjectTrigger& trigger, const Field& metadata) {
  Result<std::shared_ptr<const TimeZone>> zone = TimeZone::locate(required_metadata(trigger, metadata, "timezone"));
  if (!zone) metadata.fail_at("timezone", "unable to load timezone: " + zone.error().message);
  check_cron_schedule(trigger, metadata, "start");
  check_cron_schedule(trigger, metadata, "end");
  if (metadata_value(trigger, "start") == metadata_value(trigger, "end")) {
    metadata.fail_at("end", "must differ from start");
  }
  std::string desired = required_metadata(trigger, metadata, "desiredReplicas");
  std::optional<std::int64_t> replicas = parse_integer(desired);
  if (!replicas || *replicas < 0 || *replicas > std::numeric_limits<std::int32_t>::max()) {
    metadata.fail_at("desiredReplicas", "expected a number of replicas, got " + quote(desired));
  }
}

bool resource_trigger(const std::string& type) { return type == "cpu" || type == "memory"; }

ScaledObjectTrigger decode_trigger(const Field& t, std::vector<std::string>& warnings) {
  t.known({"authenticationRef"});
  ScaledObjectTrigger out;
  out.type = t.required_string("type");
  out.name = t.optional_string("name");
  Field metadata = t.child("metadata");
  for (auto& [key, value] : t.string_map("metadata")) out.metadata[key] = std::move(value);
  out.metric_type = maybe_target_type(t, "metricType");
  out.use_cached_metrics = t.optional_bool("useCachedMetrics", false);
  if (out.use_cached_metrics && (resource_trigger(out.type) || out.type == "cron")) {
    t.fail_at("useCachedMetrics", "is not supported for a " + out.type + " trigger");
  }
  if (!resource_trigger(out.type) && out.metric_type == TargetType::Utilization) {
    t.fail_at("metricType",
              "Utilization is only supported for cpu and memory triggers (expected Value, AverageValue)");
  }
  if (out.type == "prometheus") {
    check_prometheus_trigger(out, metadata, warnings);
  } else if (resource_trigger(out.type)) {
    check_resource_trigger(out, t, metadata);
  } else if (out.type == "cron") {
    check_cron_trigger(out, metadata);
  } else {
    warnings.push_back(t.path() + ": trigger type " + out.type + " is not simulated");
  }
  return out;
}

// scalingModifiers.target/activationTarget: KEDA reads them with strconv.ParseFloat.
std::optional<Quantity> modifier_number(const Field& modifiers, std::string_view key) {
  std::optional<std::string> text = modifiers.maybe_string(key);
  if (!text || text->empty()) return std::nullopt;
  Result<Quantity> quantity = Quantity::parse(*text);
  if (!parse_number(*text) || !quantity) modifiers.fail_at(key, "expected a number, got " + quote(*text));
  return *quantity;
}

std::optional<ScalingModifiers> decode_scaling_modifiers(const Field& modifiers) {
  ScalingModifiers out;
  out.formula = modifiers.optional_string("formula");
  out.target = modifier_number(modifiers, "target");
  out.activation_target = modifier_number(modifiers, "activationTarget");
  out.metric_type = maybe_target_type(modifiers, "metricType");
  // KEDA treats an all-empty block as absent.
  if (out.formula.empty() && !out.target && !out.activation_target && !out.metric_type) return std::nullopt;
  if (out.formula.empty()) modifiers.fail_at("formula", "required");
  if (!out.target) modifiers.fail_at("target", "required with a formula");
  if (!positive(*out.target)) modifiers.fail_at("target", "must be positive, got " + quote(out.target->text()));
  if (out.metric_type == TargetType::Utilization) {
    modifiers.fail_at("metricType",
                      "Utilization is not supported for a composed metric (expected Value, AverageValue)");
  }
  return out;
}

// KEDA's webhook (verifyName): the ScaledObject's name is the value of the label scaledobject.keda.sh/name, and the
// name of its HPA is a DNS-1123 label: at most 63 characters each, in KEDA's words.
void check_scaled_object_names(const Field& object, const Field& hpa_config, const ScaledObject& so) {
  constexpr std::size_t kMax = 63;
  const std::string& name = so.meta.name;
  if (name.size() > kMax) {
    object.child("metadata").fail_at(
        "name", "scaledobject name " + quote(name) + " is " + std::to_string(name.size()) +
                    " characters long; must be no more than 63 characters because it is used as the "
                    "\"scaledobject.keda.sh/name\" label value");
  }
  const std::string hpa = keda_hpa_name(so);
  if (hpa.size() > kMax) {
    (so.hpa_name.empty() ? object.child("metadata") : hpa_config)
        .fail_at("name", "HPA name " + quote(hpa) + " derived from scaledobject is " + std::to_string(hpa.size()) +
                             " characters long; must be no more than 63 characters; set "
                             "spec.advanced.horizontalPodAutoscalerConfig.name to a shorter name or shorten the "
                             "scaledobject name");
  }
}

void check_replica_counts(const Field& spec, const ScaledObject& so) {
  const std::int32_t min = so.min_replica_count.value_or(0);
  const std::int32_t max = so.max_replica_count.value_or(kDefaultMaxReplicaCount);
  if (min > max) {
    std::string bound = so.max_replica_count ? std::to_string(max) : "default " + std::to_string(max);
    spec.fail_at("minReplicaCount",
                 "must not be greater than maxReplicaCount (" + bound + "), got " + std::to_string(min));
  }
  if (so.idle_replica_count && *so.idle_replica_count >= min) {
    std::string bound = so.min_replica_count ? std::to_string(min) : "default 0";
    spec.fail_at("idleReplicaCount",
                 "must be less than minReplicaCount (" + bound + "), got " + std::to_string(*so.idle_replica_count));
  }
}

// KEDA 2.17's webhook: the fallback replicas are served as an AverageValue metric, so at least one trigger must be
// one whose metric is an AverageValue (unset means AverageValue) and not cpu or memory (served by metrics-server).
void check_fallback(const Field& spec, const ScaledObject& so) {
  const bool supported = std::any_of(so.triggers.begin(), so.triggers.end(), [](const ScaledObjectTrigger& t) {
    return !resource_trigger(t.type) && t.metric_type.value_or(TargetType::AverageValue) == TargetType::AverageValue;
  });
  if (!supported) {
    spec.fail_at("fallback", "needs at least one trigger other than cpu and memory with metricType AverageValue");
  }
}

// KEDA's webhook rejects a Deployment or StatefulSet scaled only on cpu/memory with minReplicaCount 0: those
// metrics come from running pods, so it could never scale back up from zero.
void check_resource_only_scale_to_zero(const Field& spec, const ScaledObject& so) {
  const std::string& kind = so.scale_target_ref.kind;
  if (kind != "Deployment" && kind != "StatefulSet") return;
  const bool resource_only = std::all_of(so.triggers.begin(), so.triggers.end(),
                                         [](const ScaledObjectTrigger& t) { return resource_trigger(t.type); });
  if (resource_only && so.min_replica_count.value_or(0) == 0) {
    spec.fail_at("minReplicaCount",
                 "must be at least 1 when every trigger is cpu or memory (they cannot scale from zero)");
  }
}

}  // namespace

HpaBehavior decode_hpa_behavior(const Field& behavior) {
  HpaBehavior out;
  if (behavior.has("scaleUp")) out.scale_up = decode_scaling_rules(behavior.child("scaleUp"));
  if (behavior.has("scaleDown")) out.scale_down = decode_scaling_rules(behavior.child("scaleDown"));
  return out;
}

HorizontalPodAutoscaler decode_horizontal_pod_autoscaler(const Field& object) {
  HorizontalPodAutoscaler hpa;
  hpa.meta = decode_object_meta(object, Scope::Namespaced);
  Field spec = object.required_child("spec");
  hpa.scale_target_ref = decode_object_reference(spec.required_child("scaleTargetRef"));
  hpa.min_replicas = spec.maybe_int32("minReplicas");
  if (hpa.min_replicas && *hpa.min_replicas < 1) {
    spec.fail_at("minReplicas", *hpa.min_replicas == 0
                                    ? "must be at least 1 (0 needs the HPAScaleToZero feature gate, off by default)"
                                    : "must be at least 1");
  }
  std::optional<std::int32_t> max = spec.maybe_int32("maxReplicas");
  if (!max) spec.fail_at("maxReplicas", "required");
  if (*max < 1) spec.fail_at("maxReplicas", "must be at least 1");
  if (hpa.min_replicas && *max < *hpa.min_replicas) {
    spec.fail_at("maxReplicas", "must be at least minReplicas (" + std::to_string(*hpa.min_replicas) + ")");
  }
  hpa.max_replicas = *max;

  if (object.optional_string("apiVersion") == "autoscaling/v1") {
    // v1 has one target, cpu utilization; the API server converts it to the v2 metric below.
    if (std::optional<std::int32_t> percent = spec.maybe_int32("targetCPUUtilizationPercentage")) {
      if (*percent < 1) spec.fail_at("targetCPUUtilizationPercentage", "must be greater than 0");
      MetricSpec cpu;
      cpu.type = MetricSpec::Type::Resource;
      cpu.resource = "cpu";
      cpu.target.type = TargetType::Utilization;
      cpu.target.average_utilization = *percent;
      hpa.metrics.push_back(std::move(cpu));
    }
    return hpa;
  }
  spec.each("metrics", [&](const Field& m) { hpa.metrics.push_back(decode_metric(m)); });
  if (spec.has("behavior")) hpa.behavior = decode_hpa_behavior(spec.child("behavior"));
  return hpa;
}

ScaledObject decode_scaled_object(const Field& object, std::vector<std::string>& warnings) {
  ScaledObject so;
  so.meta = decode_object_meta(object, Scope::Namespaced);
  Field spec = object.required_child("spec");
  Field ref = spec.required_child("scaleTargetRef");
  ref.known({"envSourceContainerName"});
  so.scale_target_ref.name = ref.required_string("name");
  so.scale_target_ref.kind = ref.optional_string("kind", "Deployment");
  so.scale_target_ref.api_version = ref.optional_string("apiVersion");
  // KEDA's CRD: pollingInterval has a minimum of 1 (KEDA would poll without pause at 0); cooldownPeriod a minimum of
  // 0, which KEDA takes as it is: no cooldown.
  so.polling_interval_seconds = spec.maybe_int32("pollingInterval");
  if (so.polling_interval_seconds && *so.polling_interval_seconds < 1) {
    spec.fail_at("pollingInterval", "must be at least 1 (KEDA's CRD: minimum 1), got " +
                                        std::to_string(*so.polling_interval_seconds));
  }
  so.cooldown_period_seconds = spec.maybe_non_negative_int32("cooldownPeriod");
  so.initial_cooldown_period_seconds = spec.maybe_non_negative_int32("initialCooldownPeriod");
  so.min_replica_count = spec.maybe_non_negative_int32("minReplicaCount");
  so.max_replica_count = spec.maybe_non_negative_int32("maxReplicaCount");
  so.idle_replica_count = spec.maybe_non_negative_int32("idleReplicaCount");
  if (spec.has("fallback")) {
    Field fallback = spec.child("fallback");
    fallback.known({"behavior"});
    std::optional<std::int32_t> threshold = fallback.maybe_non_negative_int32("failureThreshold");
    if (!threshold) fallback.fail_at("failureThreshold", "required");
    std::optional<std::int32_t> replicas = fallback.maybe_non_negative_int32("replicas");
    if (!replicas) fallback.fail_at("replicas", "required");
    so.fallback = ScaledObjectFallback{*threshold, *replicas};
  }
  Field advanced = spec.child("advanced");
  advanced.known({"restoreToOriginalReplicaCount"});
  Field hpa_config = advanced.child("horizontalPodAutoscalerConfig");
  if (hpa_config.has("behavior")) so.hpa_behavior = decode_hpa_behavior(hpa_config.child("behavior"));
  so.hpa_name = hpa_config.optional_string("name");
  check_scaled_object_names(object, hpa_config, so);
  so.scaling_modifiers = decode_scaling_modifiers(advanced.child("scalingModifiers"));

  std::vector<std::string> trigger_warnings;
  std::set<std::string> names;
  spec.each("triggers", [&](const Field& t) {
    so.triggers.push_back(decode_trigger(t, trigger_warnings));
    const std::string& name = so.triggers.back().name;
    if (!name.empty() && !names.insert(name).second) {
      t.fail_at("name", "trigger name " + quote(name) + " is used more than once; names must be unique");
    }
  });
  if (so.triggers.empty()) spec.fail_at("triggers", "at least one trigger is required");

  check_replica_counts(spec, so);
  if (so.fallback) check_fallback(spec, so);
  check_resource_only_scale_to_zero(spec, so);
  std::move(trigger_warnings.begin(), trigger_warnings.end(), std::back_inserter(warnings));
  return so;
}

}  // namespace scalewright::manifest
