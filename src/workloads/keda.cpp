#include "workloads/keda.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "api/labels.h"
#include "api/saturating.h"
#include "workloads/cron_schedule.h"
#include "workloads/formula.h"

namespace scalewright::workloads {

TriggerReader::~TriggerReader() = default;

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

// "12.5", "10", "0.333333": what a user reads in a reason, appended to it. to_chars with a precision prints as
// printf's %.6g does, without printf's cost; every poll prints a number per trigger.
void append_number(std::string& out, double v) {
  char buffer[64];
  char* end = buffer;
  if (std::isfinite(v) && v == std::trunc(v) && std::fabs(v) < 1e15) {
    end = std::to_chars(buffer, std::end(buffer), static_cast<std::int64_t>(v)).ptr;
  } else if (std::isfinite(v)) {
    end = std::to_chars(buffer, std::end(buffer), v, std::chars_format::general, 6).ptr;
  } else {
    end = buffer + std::snprintf(buffer, sizeof buffer, "%.6g", v);  // inf, nan: printf's own spelling
  }
  out.append(buffer, end);
}

std::string number(double v) {
  std::string out;
  append_number(out, v);
  return out;
}

// GenerateMetricInMili: value x 1000, truncated toward zero; a value beyond what a quantity holds saturates.
std::int64_t to_milli(double value) { return saturate_cast<std::int64_t>(value * 1000.0); }

bool equal_fold(std::string_view a, std::string_view b) {
  if (a == b) return true;  // the usual case: the HPA asks with the very name keda_hpa gave it
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

bool is_resource_trigger(const ScaledObjectTrigger& t) { return t.type == "cpu" || t.type == "memory"; }

bool using_modifiers(const ScaledObject& so) {
  return so.scaling_modifiers.has_value() &&
         (!so.scaling_modifiers->formula.empty() || so.scaling_modifiers->target.has_value() ||
          so.scaling_modifiers->activation_target.has_value() || so.scaling_modifiers->metric_type.has_value());
}

// The composite metric replaces the triggers' metrics only when the target is a positive number (hpa.go).
bool composite_in_hpa(const ScaledObject& so) {
  return using_modifiers(so) && so.scaling_modifiers->target.has_value() &&
         quantity_value(*so.scaling_modifiers->target) > 0 &&
         so.scaling_modifiers->metric_type.value_or(MetricTarget::Type::AverageValue) !=
             MetricTarget::Type::Utilization;
}

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

std::string target_kind(const ScaledObject& so) {
  const std::string& api = so.scale_target_ref.api_version.empty() ? std::string("apps/v1")
                                                                    : so.scale_target_ref.api_version;
  const std::string& kind = so.scale_target_ref.kind.empty() ? std::string("Deployment") : so.scale_target_ref.kind;
  return api + "." + kind;  // status.scaleTargetKind
}

std::string target_key(const ScaledObject& so) {
  return so.meta.namespace_.empty() ? so.scale_target_ref.name
                                    : so.meta.namespace_ + "/" + so.scale_target_ref.name;
}

// How each scaler's own value is read: the cron schedule here, everything else through the reader.
TriggerReading read_value(const ScaledObject& so, const KedaTrigger& trigger, const TriggerReader& reader,
                          std::chrono::sys_seconds wall_clock, Duration now) {
  TriggerReading reading;
  reading.at = now;
  if (trigger.kind == KedaTrigger::Kind::Cron) {
    Result<CronSchedule> start = CronSchedule::parse(trigger.cron_start);
    Result<CronSchedule> end = CronSchedule::parse(trigger.cron_end);
    Result<seconds> offset = parse_cron_timezone(trigger.cron_timezone);
    if (!start || !end || !offset) {
      reading.error = !start ? start.error().message : !end ? end.error().message : offset.error().message;
      return reading;
    }
    Result<CronWindow> window = cron_window(*start, *end, *offset, wall_clock);
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

LabelSelector owner_selector(const ScaledObject& so) {
  LabelSelector selector;
  LabelRequirement requirement;
  requirement.key = Symbol(kScaledObjectNameLabel);
  requirement.op = SelectorOperator::In;
  requirement.values.push_back(Symbol(so.meta.name));
  selector.requirements.push_back(requirement);
  return selector;
}

int metric_type_order(MetricSpec::Type type) {
  // KEDA sorts by the type's name: ContainerResource < External < Object < Pods < Resource.
  switch (type) {
    case MetricSpec::Type::ContainerResource:
      return 0;
    case MetricSpec::Type::External:
      return 1;
    case MetricSpec::Type::Object:
      return 2;
    case MetricSpec::Type::Pods:
      return 3;
    case MetricSpec::Type::Resource:
      return 4;
  }
  return 5;
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

std::string keda_hpa_name(const ScaledObject& so) { return "keda-hpa-" + so.meta.name; }

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
    if (Result<seconds> tz = parse_cron_timezone(out.cron_timezone); !tz) return fail(tz.error().message);
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

HorizontalPodAutoscaler keda_hpa(const ScaledObject& so) {
  HorizontalPodAutoscaler hpa;
  hpa.meta.name = keda_hpa_name(so);
  hpa.meta.namespace_ = so.meta.namespace_;
  // A label value has at most 63 characters and must end alphanumeric.
  std::string label_name = hpa.meta.name;
  if (label_name.size() > 63) {
    label_name.resize(63);
    while (!label_name.empty() && !std::isalnum(static_cast<unsigned char>(label_name.back()))) label_name.pop_back();
  }
  hpa.meta.labels.set(Symbol("app.kubernetes.io/name"), Symbol(label_name));
  hpa.meta.labels.set(Symbol("app.kubernetes.io/part-of"), Symbol(so.meta.name));
  hpa.meta.labels.set(Symbol("app.kubernetes.io/managed-by"), Symbol("keda-operator"));
  for (const auto& [k, v] : so.meta.labels) hpa.meta.labels.set(k, v);
  hpa.meta.annotations = so.meta.annotations;
  hpa.meta.owner_references.push_back({"keda.sh/v1alpha1", "ScaledObject", so.meta.name, so.meta.uid, true});

  hpa.scale_target_ref = so.scale_target_ref;
  if (hpa.scale_target_ref.kind.empty()) hpa.scale_target_ref.kind = "Deployment";
  if (hpa.scale_target_ref.api_version.empty()) hpa.scale_target_ref.api_version = "apps/v1";
  hpa.min_replicas = so.min_replica_count && *so.min_replica_count > 0 ? *so.min_replica_count : 1;
  hpa.max_replicas = so.max_replica_count.value_or(kDefaultMaxReplicaCount);
  hpa.behavior = so.hpa_behavior;

  bool composite = composite_in_hpa(so);
  for (std::size_t i = 0; i < so.triggers.size(); ++i) {
    Result<KedaTrigger> t = keda_trigger(so, i);
    if (!t) continue;
    MetricSpec spec;
    if (t->kind == KedaTrigger::Kind::Resource) {
      spec.type = t->container.empty() ? MetricSpec::Type::Resource : MetricSpec::Type::ContainerResource;
      spec.resource = t->type;
      spec.container = t->container;
      spec.target.type = t->target_type;
      if (t->target_type == MetricTarget::Type::Utilization) {
        spec.target.average_utilization = saturate_cast<std::int32_t>(t->target);
      } else {
        spec.target.average_value = t->average_value;
      }
    } else {
      if (composite) continue;  // replaced by the composite metric below
      spec.type = MetricSpec::Type::External;
      spec.metric.name = t->metric_name;
      spec.metric.selector = owner_selector(so);
      spec.target.type = t->target_type;
      // GetMetricTargetMili: the threshold in thousandths.
      Quantity q = Quantity::from_milli(to_milli(t->target));
      if (t->target_type == MetricTarget::Type::Value) {
        spec.target.value = q;
      } else {
        spec.target.average_value = q;
      }
    }
    hpa.metrics.push_back(spec);
  }
  std::stable_sort(hpa.metrics.begin(), hpa.metrics.end(), [](const MetricSpec& a, const MetricSpec& b) {
    return metric_type_order(a.type) < metric_type_order(b.type);
  });
  if (composite) {
    const ScalingModifiers& sm = *so.scaling_modifiers;
    MetricSpec spec;
    spec.type = MetricSpec::Type::External;
    spec.metric.name = std::string(kCompositeMetricName);
    spec.metric.selector = owner_selector(so);
    spec.target.type = sm.metric_type.value_or(MetricTarget::Type::AverageValue);
    Quantity q = Quantity::from_milli(to_milli(quantity_value(*sm.target)));
    if (spec.target.type == MetricTarget::Type::Value) {
      spec.target.value = q;
    } else {
      spec.target.average_value = q;
    }
    hpa.metrics.push_back(spec);  // after the resource metrics, as hpa.go appends it
  }
  return hpa;
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

KedaPoll poll_scaled_object(const ScaledObject& so, ScaledObjectState& state, std::int32_t current_replicas,
                            const TriggerReader& reader, Duration now, std::chrono::sys_seconds wall_clock) {
  KedaPoll poll;
  poll.current_replicas = current_replicas;
  poll.desired_replicas = current_replicas;
  poll.next_poll = now + seconds(so.polling_interval_seconds.value_or(kDefaultPollingIntervalSeconds));
  // KEDA stamps a missing creationTimestamp with the first look at the object.
  if (!state.created) state.created = now;

  const ParsedTriggers::Parsed& parsed = *state.parsed_triggers.of(so);
  bool modifiers = using_modifiers(so);
  std::size_t resource_triggers = 0;
  // Why active, or why not: the explanations joined by ", ", written straight into the reason.
  std::string activity;
  auto explain = [&]() -> std::string& {
    if (!activity.empty()) activity += ", ";
    return activity;
  };
  std::map<std::string, double> values_by_name;  // the formula's variables; filled only with scalingModifiers
  poll.triggers.reserve(so.triggers.size());
  for (std::size_t i = 0; i < so.triggers.size(); ++i) {
    const ScaledObjectTrigger& spec = so.triggers[i];
    KedaTriggerResult& result = poll.triggers.emplace_back();
    result.type = spec.type;
    if (is_resource_trigger(spec)) {
      // No External metric: KEDA's scale loop skips it; the HPA alone scales on it.
      ++resource_triggers;
      result.metric_name = spec.type;
      continue;
    }
    const Result<KedaTrigger>& trigger = parsed[i];
    if (!trigger) {
      result.error = trigger.error().message;
    } else {
      result.metric_name = trigger->metric_name;
      TriggerReading reading = read_value(so, *trigger, reader, wall_clock, now);
      result.value = reading.value;
      result.active = reading.active;
      result.error = reading.error;
      if (spec.use_cached_metrics) state.cached[trigger->metric_name] = std::move(reading);
    }
    // "<type> <metric name>" ("<type> trigger <i>" when the metadata did not parse)
    auto append_label = [&](std::string& out) {
      out += spec.type;
      out += ' ';
      if (result.metric_name.empty()) {
        out += "trigger ";
        out += std::to_string(i);
      } else {
        out += result.metric_name;
      }
    };
    // With a formula the per-trigger explanations give way to the formula's (below), so they are not written.
    if (!result.error.empty()) {
      poll.error = true;
      poll.events.push_back({true, modifiers ? "KEDAMetricSourceFailed" : "KEDAScalerFailed", result.error});
      if (!modifiers) {
        std::string& out = explain();
        append_label(out);
        out += " failed: ";
        out += result.error;
      }
    } else if (modifiers) {
      if (!spec.name.empty()) values_by_name[spec.name] = *result.value;
    } else {
      std::string& out = explain();
      append_label(out);
      if (trigger->kind == KedaTrigger::Kind::Cron) {
        out += result.active ? " inside its window (value " : " outside its window (value ";
        append_number(out, *result.value);
        out += ')';
      } else {
        out += " value ";
        append_number(out, *result.value);
        out += result.active ? " above activation threshold " : " not above activation threshold ";
        append_number(out, trigger->activation);
      }
      if (result.active) poll.active = true;
    }
  }

  bool formula_active = false;  // the event's "triggered by" with scalingModifiers
  if (modifiers) {
    // With a formula only the composite value activates, and nothing does while a source fails.
    poll.active = false;
    const ScalingModifiers& sm = *so.scaling_modifiers;
    Result<Formula> formula = Formula::parse(sm.formula);
    if (!formula) {
      // KEDA cannot build the scalers cache and skips the whole scale request.
      poll.error = true;
      poll.reason = "scalingModifiers: " + formula.error().message + "; scale left alone";
      return poll;
    }
    if (!poll.error) {
      double activation = sm.activation_target ? quantity_value(*sm.activation_target) : 0.0;
      Result<double> composite = formula->evaluate(values_by_name);
      if (!composite) {
        explain() += "scalingModifiers " + composite.error().message;
      } else {
        poll.active = *composite > activation;
        formula_active = poll.active;
        explain() += "scalingModifiers formula value " + number(*composite) +
                     (poll.active ? " above" : " not above") + " activationTarget " + number(activation);
      }
    } else {
      explain() += "a metric source of the scalingModifiers formula failed";
    }
  }
  // cpu/memory alone can never bring a target back from zero, so KEDA keeps such a ScaledObject active.
  if (so.triggers.size() <= resource_triggers && !poll.error) {
    poll.active = true;
    explain() += "only cpu/memory triggers: always active";
  }
  if (activity.empty()) activity = "no trigger active";

  std::int32_t min = so.min_replica_count.value_or(0);
  auto scale_to = [&](std::int32_t replicas) {
    poll.desired_replicas = replicas;
    poll.scale = replicas != current_replicas;
  };
  // The reason: the activity, then what the operator does about it.
  std::string& reason = poll.reason;
  reason = std::move(activity);
  reason += "; ";
  std::optional<std::string> condition_reason;
  if (poll.active) {
    if ((so.idle_replica_count && current_replicas < min) || current_replicas == 0) {
      std::int32_t to = min > 0 ? min : 1;
      scale_to(to);
      // getScalerState names an active trigger by its name, else by the scaler's Go type; with scalingModifiers
      // only the formula counts.
      std::string triggered_by;
      if (modifiers) {
        if (formula_active) triggered_by = "ModifiersTrigger";
      } else {
        for (std::size_t i = 0; i < so.triggers.size(); ++i) {
          if (!poll.triggers[i].active) continue;
          const ScaledObjectTrigger& spec = so.triggers[i];
          triggered_by += (triggered_by.empty() ? "" : ";") + (spec.name.empty() ? spec.type + "Scaler" : spec.name);
        }
      }
      poll.events.push_back({false, "KEDAScaleTargetActivated",
                             "Scaled " + target_kind(so) + " " + target_key(so) + " from " +
                                 std::to_string(current_replicas) + " to " + std::to_string(to) + ", triggered by " +
                                 triggered_by});
      state.last_active = now;
      reason += "activated from " + std::to_string(current_replicas) + " to " + std::to_string(to);
    } else if (poll.error) {
      // RequestScale's PartialTriggerError: lastActiveTime is not refreshed.
      reason += "some triggers failed (PartialTriggerError); lastActiveTime not refreshed";
    } else {
      state.last_active = now;
      reason += "the HPA scales between ";
      reason += std::to_string(std::max(min, 1));
      reason += " and ";
      reason += std::to_string(so.max_replica_count.value_or(kDefaultMaxReplicaCount));
    }
  } else if (poll.error && so.fallback && so.fallback->replicas != 0) {
    reason += "a trigger failed: not scaling in, the HPA falls back to " + std::to_string(so.fallback->replicas) +
              " replicas after failureThreshold " + std::to_string(so.fallback->failure_threshold);
  } else if (poll.error && !so.fallback) {
    reason += "a trigger failed and no fallback is set (TriggerError): scale left alone";
  } else if ((so.idle_replica_count && current_replicas > *so.idle_replica_count) ||
             (current_replicas > 0 && min == 0)) {
    Duration cooldown = seconds(so.cooldown_period_seconds.value_or(kDefaultCooldownPeriodSeconds));
    Duration initial = seconds(so.initial_cooldown_period_seconds.value_or(0));
    bool ready = state.last_active ? *state.last_active + cooldown < now : *state.created + initial < now;
    if (ready) {
      std::int32_t to = so.idle_replica_count ? *so.idle_replica_count : min;
      scale_to(to);
      poll.events.push_back({false, "KEDAScaleTargetDeactivated",
                             "Deactivated " + target_kind(so) + " " + target_key(so) + " from " +
                                 std::to_string(current_replicas) + " to " + std::to_string(to)});
      condition_reason = "ScalerNotActive";
      reason += state.last_active
                    ? "no trigger active for " + format_duration(now - *state.last_active) + " (cooldownPeriod " +
                          format_duration(cooldown) + "): scaled from " + std::to_string(current_replicas) + " to " +
                          std::to_string(to)
                    : "never active since creation " + format_duration(now - *state.created) +
                          " ago (initialCooldownPeriod " + format_duration(initial) + "): scaled from " +
                          std::to_string(current_replicas) + " to " + std::to_string(to);
    } else {
      condition_reason = "ScalerCooldown";
      reason += state.last_active
                    ? "cooling down: no trigger active for " + format_duration(now - *state.last_active) +
                          " of cooldownPeriod " + format_duration(cooldown)
                    : "cooling down: created " + format_duration(now - *state.created) +
                          " ago, initialCooldownPeriod " + format_duration(initial);
    }
  } else if (current_replicas < min && !so.idle_replica_count) {
    scale_to(min);
    reason += "below minReplicaCount: scaled from " + std::to_string(current_replicas) + " to " + std::to_string(min);
  } else {
    reason += "no change";
  }

  if (condition_reason) {
    state.active = false;
    state.active_reason = *condition_reason;
  }
  if (!state.active || *state.active != poll.active) {
    state.active = poll.active;
    state.active_reason = poll.active ? "ScalerActive" : "ScalerNotActive";
  }
  return poll;
}

// --- the metrics adapter ------------------------------------------------------------------------------------

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
