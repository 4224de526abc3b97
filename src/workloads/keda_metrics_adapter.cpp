// KEDA's metrics adapter (ScaledObjectMetrics): the External metrics the generated HPA reads, with fallback; out of
// keda.cpp so that no file of KEDA's logic is over 600 lines.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/formula.h"
#include "workloads/keda.h"
#include "workloads/keda_triggers.h"

namespace scalewright::workloads {

using detail::is_resource_trigger;
using detail::parse_int;
using detail::read_value;
using detail::to_milli;
using detail::using_modifiers;

namespace {

bool equal_fold(std::string_view a, std::string_view b) {
  if (a == b) return true;  // the usual case: the HPA asks with the very name keda_hpa gave it
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

}  // namespace

struct ScaledObjectMetrics::Sample {
  std::optional<double> value;
  std::string error;
};

ScaledObjectMetrics::ScaledObjectMetrics(ScaledObject scaled_object, ScaledObjectState& state,
                                         const TriggerReader& reader, const MetricsSource* resources)
    : scaled_object_(std::move(scaled_object)), state_(&state), reader_(&reader), resources_(resources) {
  // The ScaledObject is fixed for the adapter's life, so its triggers are parsed (or found parsed) once.
  triggers_ = state.parsed_triggers.of(scaled_object_);
  owner_.set(Symbol(kScaledObjectNameLabel), Symbol(scaled_object_.meta.name));
}

Result<std::map<std::string, PodMetricSample>> ScaledObjectMetrics::pod_resource_usage(
    const std::string& namespace_, const std::string& resource, const std::string& container,
    const LabelSelector& pods) const {
  if (resources_ == nullptr) {
    return Error{"ScaledObject " + scaled_object_.meta.key() + ": no source for " + resource + " metrics"};
  }
  return resources_->pod_resource_usage(namespace_, resource, container, pods);
}

Result<std::map<std::string, PodMetricSample>> ScaledObjectMetrics::pod_metric(const std::string& namespace_,
                                                                               const MetricIdentifier& metric,
                                                                               const LabelSelector& pods) const {
  if (resources_ == nullptr) {
    return Error{"ScaledObject " + scaled_object_.meta.key() + ": no source for pods metric " + metric.name};
  }
  return resources_->pod_metric(namespace_, metric, pods);
}

Result<std::int64_t> ScaledObjectMetrics::object_metric(const std::string& namespace_, const MetricIdentifier& metric,
                                                        const CrossVersionObjectReference& object) const {
  if (resources_ == nullptr) {
    return Error{"ScaledObject " + scaled_object_.meta.key() + ": no source for object metric " + metric.name};
  }
  return resources_->object_metric(namespace_, metric, object);
}

ScaledObjectMetrics::Sample ScaledObjectMetrics::read_trigger(const KedaTrigger& trigger) const {
  // useCachedMetrics: the poll's last reading, error included, instead of asking the source again.
  if (scaled_object_.triggers[trigger.index].use_cached_metrics) {
    auto it = state_->cached.find(trigger.metric_name);
    if (it != state_->cached.end()) return {it->second.value, it->second.error};
  }
  TriggerReading reading = read_value(scaled_object_, trigger, *reader_, wall_clock_, now_);
  return {reading.value, reading.error};
}

Result<double> ScaledObjectMetrics::with_fallback(const KedaTrigger& trigger, const Sample& sample,
                                                  bool& fell_back) const {
  const ScaledObject& so = scaled_object_;
  bool modifiers = using_modifiers(so);
  // isFallbackEnabled + HasValidFallback.
  bool enabled = so.fallback.has_value();
  if (enabled) {
    MetricTarget::Type type = modifiers ? so.scaling_modifiers->metric_type.value_or(MetricTarget::Type::AverageValue)
                                        : trigger.target_type;
    enabled = type == MetricTarget::Type::AverageValue;
  }
  std::int64_t modifiers_target = 0;
  if (enabled && modifiers) {
    std::optional<std::int64_t> t =
        so.scaling_modifiers->target ? parse_int(so.scaling_modifiers->target->text()) : std::nullopt;
    enabled = t && *t > 0;  // fallback.go reads the target with ParseInt
    modifiers_target = t.value_or(0);
  }
  if (enabled) enabled = so.fallback->failure_threshold >= 0 && so.fallback->replicas >= 0;
  if (!enabled) {
    if (sample.value) return *sample.value;
    return Error{sample.error};
  }

  TriggerHealth& health = state_->health[trigger.metric_name];
  if (sample.value) {
    health = TriggerHealth{};
  } else {
    health.failing = true;
    ++health.number_of_failures;
  }
  state_->fallback_active = false;
  for (const auto& [name, h] : state_->health) {
    if (h.failing && h.number_of_failures > so.fallback->failure_threshold) state_->fallback_active = true;
  }
  if (sample.value) return *sample.value;
  if (health.number_of_failures > so.fallback->failure_threshold) {
    fell_back = true;
    // doFallback: the target truncated to a whole number, times fallback.replicas.
    double normalisation = modifiers ? static_cast<double>(modifiers_target) : std::trunc(trigger.target);
    return normalisation * so.fallback->replicas;
  }
  return Error{sample.error};
}

Result<std::vector<std::int64_t>> ScaledObjectMetrics::external_metric(const std::string& namespace_,
                                                                       const MetricIdentifier& metric) const {
  const ScaledObject& so = scaled_object_;
  if (!namespace_.empty() && !so.meta.namespace_.empty() && namespace_ != so.meta.namespace_) {
    return Error{"ScaledObject " + so.meta.key() + " serves no metrics in namespace " + namespace_};
  }
  if (metric.selector) {
    if (!metric.selector->matches(owner_)) {
      return Error{"metric " + metric.name + ": selector does not select ScaledObject " + so.meta.key()};
    }
  }

  if (using_modifiers(so) && equal_fold(metric.name, kCompositeMetricName)) {
    std::map<std::string, double> values;
    std::optional<double> fallback_value;
    std::string first_error;
    for (std::size_t i = 0; i < so.triggers.size(); ++i) {
      if (is_resource_trigger(so.triggers[i])) continue;
      const Result<KedaTrigger>& trigger = (*triggers_)[i];
      if (!trigger) {
        if (first_error.empty()) first_error = trigger.error().message;
        continue;
      }
      bool fell_back = false;
      Result<double> value = with_fallback(*trigger, read_trigger(*trigger), fell_back);
      if (!value) {
        if (first_error.empty()) first_error = value.error().message;
        continue;
      }
      if (fell_back && !fallback_value) fallback_value = *value;
      if (!trigger->name.empty()) values[trigger->name] = *value;
    }
    // Any fallback replaces the whole composite (HandleScalingModifiers); otherwise any error fails it.
    if (fallback_value) return std::vector<std::int64_t>{to_milli(*fallback_value)};
    if (!first_error.empty()) {
      return Error{"metric:" + std::string(kCompositeMetricName) + " encountered error: " + first_error};
    }
    Result<Formula> formula = Formula::parse(so.scaling_modifiers->formula);
    if (!formula) return formula.error();
    Result<double> composite = formula->evaluate(values);
    if (!composite) return composite.error();
    return std::vector<std::int64_t>{to_milli(*composite)};
  }

  for (std::size_t i = 0; i < so.triggers.size(); ++i) {
    if (is_resource_trigger(so.triggers[i])) continue;
    const Result<KedaTrigger>& trigger = (*triggers_)[i];
    if (!trigger || !equal_fold(trigger->metric_name, metric.name)) continue;
    bool fell_back = false;
    Result<double> value = with_fallback(*trigger, read_trigger(*trigger), fell_back);
    if (!value) return Error{"metric:" + metric.name + " encountered error: " + value.error().message};
    return std::vector<std::int64_t>{to_milli(*value)};
  }
  return Error{"no matching metrics found for " + metric.name + " in ScaledObject " + so.meta.key()};
}

}  // namespace scalewright::workloads
