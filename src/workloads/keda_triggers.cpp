// KEDA's reading of a ScaledObject's triggers: the scalers' metadata parse, the admission checks, the parse cache
// and each trigger's value; out of keda.cpp so that no file of KEDA's logic is over 600 lines.
#include "workloads/keda_triggers.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "api/saturating.h"
#include "workloads/cron_window.h"
#include "workloads/formula.h"

namespace scalewright::workloads {

using detail::is_resource_trigger;
using detail::parse_int;
using detail::quantity_value;
using detail::using_modifiers;

namespace {

using std::chrono::seconds;

// Go's strconv.ParseFloat, as KEDA reads thresholds: the whole text must be a number.
std::optional<double> parse_float(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

namespace detail {

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

// A Quantity as KEDA reads scalingModifiers' strings: ParseFloat of the text, else the quantity's value.
double quantity_value(const Quantity& q) {
  if (std::optional<double> v = parse_float(q.text())) return *v;
  return static_cast<double>(q.milli_value()) / 1000.0;
}

// GenerateMetricInMili: value x 1000, truncated toward zero; a value beyond what a quantity holds saturates.
std::int64_t to_milli(double value) { return saturate_cast<std::int64_t>(value * 1000.0); }

bool is_resource_trigger(const ScaledObjectTrigger& t) { return t.type == "cpu" || t.type == "memory"; }

bool using_modifiers(const ScaledObject& so) {
  return so.scaling_modifiers.has_value() &&
         (!so.scaling_modifiers->formula.empty() || so.scaling_modifiers->target.has_value() ||
          so.scaling_modifiers->activation_target.has_value() || so.scaling_modifiers->metric_type.has_value());
}

// How each scaler's own value is read: the cron schedule here, everything else through the reader.
TriggerReading read_value(const ScaledObject& so, const KedaTrigger& trigger, const TriggerReader& reader,
                          std::chrono::sys_seconds wall_clock, Instant now) {
  TriggerReading reading;
  reading.at = now;
  if (trigger.kind == KedaTrigger::Kind::Cron) {
    Result<CronSchedule> start = CronSchedule::parse(trigger.cron_start);
    Result<CronSchedule> end = CronSchedule::parse(trigger.cron_end);
    if (!start || !end || !trigger.cron_zone) {
      reading.error = !start ? start.error().message : !end ? end.error().message : "no timezone";
      return reading;
    }
    Result<CronWindow> window = cron_window(*start, *end, *trigger.cron_zone, wall_clock);
    if (!window) {
      reading.error = window.error().message;
      return reading;
    }
    reading.active = window->active;
    // The cron scaler reports desiredReplicas inside the window and 1 outside it.
    reading.value = window->active ? trigger.cron_desired_replicas : 1.0;
    return reading;
  }
  Result<double> value = reader.read(so, trigger.index);
  if (!value) {
    reading.error = value.error().message;
    return reading;
  }
  reading.value = *value;
  reading.active = *value > trigger.activation;
  return reading;
}

}  // namespace detail

namespace {

// The first of `keys` the metadata gives a non-empty value, else "". A reference: the parse copies what it keeps.
const std::string& lookup(const ScaledObjectTrigger& t, std::initializer_list<const char*> keys) {
  static const std::string kNone;
  for (const char* key : keys) {
    auto it = t.metadata.find(key);
    if (it != t.metadata.end() && !it->second.empty()) return it->second;
  }
  return kNone;
}

std::string describe_trigger(const ScaledObject& so, std::size_t index) {
  const ScaledObjectTrigger& t = so.triggers[index];
  std::string out = "ScaledObject " + so.meta.key() + " trigger " + std::to_string(index) + " (" + t.type;
  if (!t.name.empty()) out += " \"" + t.name + "\"";
  return out + ")";
}

// cron_scaler.go parseCronTimeFormat: the schedule squeezed into a metric name.
std::string cron_name_part(std::string_view spec) {
  std::string out;
  for (char c : spec) {
    if (c == ' ') continue;
    if (c == '*') {
      out += 'x';
    } else if (c == '/') {
      out += "Sl";
    } else if (c == '?') {
      out += "Qm";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string keda_metric_name(std::size_t index, std::string_view name) {
  std::string normalized(name);
  // pkg/util NormalizeString.
  for (char& c : normalized) {
    if (c == '/' || c == '.' || c == ':' || c == '%' || c == '(' || c == ')') c = '-';
  }
  return "s" + std::to_string(index) + "-" + normalized;
}

Result<KedaTrigger> keda_trigger(const ScaledObject& so, std::size_t index) {
  if (index >= so.triggers.size()) {
    return Error{"ScaledObject " + so.meta.key() + " has no trigger " + std::to_string(index)};
  }
  const ScaledObjectTrigger& t = so.triggers[index];
  KedaTrigger out;
  out.index = index;
  out.type = t.type;
  out.name = t.name;
  auto fail = [&](const std::string& why) { return Error{describe_trigger(so, index) + ": " + why}; };

  if (is_resource_trigger(t)) {
    out.kind = KedaTrigger::Kind::Resource;
    out.metric_name = t.type;
    out.container = lookup(t, {"containerName"});
    // metricType on the trigger; the deprecated metadata.type still works.
    std::optional<MetricTarget::Type> type = t.metric_type;
    if (!type) {
      const std::string& legacy = lookup(t, {"type"});
      if (legacy == "Utilization") {
        type = MetricTarget::Type::Utilization;
      } else if (legacy == "AverageValue") {
        type = MetricTarget::Type::AverageValue;
      } else if (!legacy.empty()) {
        return fail("metadata.type \"" + legacy + "\" is not Utilization or AverageValue");
      }
    }
    out.target_type = type.value_or(MetricTarget::Type::Utilization);
    if (out.target_type == MetricTarget::Type::Value) return fail("metricType Value is not supported for cpu/memory");
    const std::string& value = lookup(t, {"value"});
    if (value.empty()) return fail("no value given");
    if (out.target_type == MetricTarget::Type::Utilization) {
      std::optional<std::int64_t> percent = parse_int(value);
      if (!percent || *percent <= 0) return fail("value \"" + value + "\" is not a positive whole percentage");
      out.target = static_cast<double>(*percent);
    } else {
      Result<Quantity> q = Quantity::parse(value);
      if (!q) return fail(q.error().message);
      out.average_value = *q;
      out.target = static_cast<double>(q->milli_value()) / 1000.0;
    }
    return out;
  }

  out.target_type = t.metric_type.value_or(MetricTarget::Type::AverageValue);
  if (out.target_type == MetricTarget::Type::Utilization) {
    return fail("'Utilization' metric type is unsupported for external metrics, allowed values are 'Value' or "
                "'AverageValue'");
  }

  if (t.type == "cron") {
    out.kind = KedaTrigger::Kind::Cron;
    out.cron_timezone = lookup(t, {"timezone"});
    out.cron_start = lookup(t, {"start"});
    out.cron_end = lookup(t, {"end"});
    if (out.cron_timezone.empty()) return fail("no timezone specified");
    if (out.cron_start.empty()) return fail("no start schedule specified");
    if (out.cron_end.empty()) return fail("no end schedule specified");
    if (Result<CronSchedule> s = CronSchedule::parse(out.cron_start); !s) return fail(s.error().message);
    if (Result<CronSchedule> e = CronSchedule::parse(out.cron_end); !e) return fail(e.error().message);
    if (out.cron_start == out.cron_end) return fail("start and end can not have exactly same time input");
    Result<std::shared_ptr<const TimeZone>> zone = TimeZone::locate(out.cron_timezone);
    if (!zone) return fail("unable to load timezone: " + zone.error().message);  // KEDA's words
    out.cron_zone = *zone;
    const std::string& desired = lookup(t, {"desiredReplicas"});
    std::optional<std::int64_t> replicas = parse_int(desired);
    if (!replicas || *replicas == 0) return fail("no desiredReplicas specified (or not a whole number)");
    out.cron_desired_replicas = static_cast<double>(*replicas);
    out.target = 1;  // the HPA target is one replica's worth, so the metric value is the replica count
    out.metric_name = keda_metric_name(index, "cron-" + out.cron_timezone + "-" + cron_name_part(out.cron_start) +
                                                  "-" + cron_name_part(out.cron_end));
    return out;
  }

  out.kind = KedaTrigger::Kind::External;
  // Every external scaler names its metric; prometheus says "prometheus", the others here their type.
  out.metric_name = keda_metric_name(index, t.type);
  const std::string& threshold = lookup(t, {"threshold", "targetValue", "value"});
  if (threshold.empty()) return fail("no threshold given");
  std::optional<double> target = parse_float(threshold);
  if (!target) return fail("threshold \"" + threshold + "\" is not a number");
  out.target = *target;
  const std::string& activation = lookup(t, {"activationThreshold", "activationTargetValue", "activationValue"});
  if (!activation.empty()) {
    std::optional<double> a = parse_float(activation);
    if (!a) return fail("activationThreshold \"" + activation + "\" is not a number");
    out.activation = *a;
  }
  return out;
}

std::vector<std::string> scaled_object_problems(const ScaledObject& so) {
  std::vector<std::string> problems;
  std::vector<std::string> trigger_names;
  for (std::size_t i = 0; i < so.triggers.size(); ++i) {
    Result<KedaTrigger> t = keda_trigger(so, i);
    if (!t) problems.push_back(t.error().message);
    if (!so.triggers[i].name.empty()) trigger_names.push_back(so.triggers[i].name);
  }
  std::string key = "ScaledObject " + so.meta.key();
  std::int32_t max = so.max_replica_count.value_or(kDefaultMaxReplicaCount);
  // CheckReplicaCountBoundsAreValid: an explicit min of 0 counts as the HPA's 1.
  std::int32_t min = so.min_replica_count ? std::max(*so.min_replica_count, 1) : 0;
  if (min > max) {
    problems.push_back(key + ": MinReplicaCount=" + std::to_string(min) + " must be less than MaxReplicaCount=" +
                       std::to_string(max));
  }
  if (so.idle_replica_count && *so.idle_replica_count >= min) {
    problems.push_back(key + ": IdleReplicaCount=" + std::to_string(*so.idle_replica_count) +
                       " must be less than MinReplicaCount=" + std::to_string(min));
  }
  if (using_modifiers(so)) {
    const ScalingModifiers& sm = *so.scaling_modifiers;
    if (sm.formula.empty() || !sm.target) {
      problems.push_back(key + ": scalingModifiers needs both formula and target");
    }
    if (sm.metric_type == MetricTarget::Type::Utilization) {
      problems.push_back(key + ": scalingModifiers.metricType Utilization is not allowed for external metrics");
    }
    if (sm.target && quantity_value(*sm.target) <= 0) {
      problems.push_back(key + ": scalingModifiers.target must be a positive number");
    }
    if (!sm.formula.empty()) {
      Result<Formula> f = Formula::parse(sm.formula);
      if (!f) {
        problems.push_back(key + ": " + f.error().message);
      } else {
        for (const std::string& name : f->names()) {
          if (std::find(trigger_names.begin(), trigger_names.end(), name) == trigger_names.end()) {
            problems.push_back(key + ": scalingModifiers.formula names \"" + name + "\", which is no trigger's name");
          }
        }
      }
    }
  }
  if (so.fallback) {
    if (so.fallback->failure_threshold < 0 || so.fallback->replicas < 0) {
      problems.push_back(key + ": fallback FailureThreshold=" + std::to_string(so.fallback->failure_threshold) +
                         " & Replicas=" + std::to_string(so.fallback->replicas) +
                         " must both be greater than or equal to 0");
    }
    for (const ScaledObjectTrigger& t : so.triggers) {
      if (is_resource_trigger(t)) {
        problems.push_back(key + ": type is " + t.type + ", but fallback is not supported by the CPU & memory "
                           "scalers");
      } else if (t.metric_type.value_or(MetricTarget::Type::AverageValue) != MetricTarget::Type::AverageValue) {
        problems.push_back(key + ": fallback can only be enabled for triggers with metric of type AverageValue");
      }
    }
  }
  return problems;
}

const std::shared_ptr<const ParsedTriggers::Parsed>& ParsedTriggers::of(const ScaledObject& so) {
  auto same_trigger = [](const ScaledObjectTrigger& a, const ScaledObjectTrigger& b) {
    return a.type == b.type && a.name == b.name && a.metric_type == b.metric_type &&
           a.use_cached_metrics == b.use_cached_metrics && a.metadata == b.metadata;
  };
  const bool same = parsed_ && so.meta.namespace_ == namespace_ && so.meta.name == name_ &&
                    std::equal(so.triggers.begin(), so.triggers.end(), triggers_.begin(), triggers_.end(),
                               same_trigger);
  if (!same) {
    auto parsed = std::make_shared<Parsed>();
    parsed->reserve(so.triggers.size());
    for (std::size_t i = 0; i < so.triggers.size(); ++i) parsed->push_back(keda_trigger(so, i));
    namespace_ = so.meta.namespace_;
    name_ = so.meta.name;
    triggers_ = so.triggers;
    parsed_ = std::move(parsed);  // a new one: adapters holding the old parse keep theirs
  }
  return parsed_;
}

}  // namespace scalewright::workloads
