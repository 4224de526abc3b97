#include "workloads/keda.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "workloads/formula.h"
#include "workloads/keda_triggers.h"

namespace scalewright::workloads {

using detail::is_resource_trigger;
using detail::quantity_value;
using detail::read_value;
using detail::using_modifiers;

TriggerReader::~TriggerReader() = default;

namespace {

using std::chrono::seconds;

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

}  // namespace

KedaPoll poll_scaled_object(const ScaledObject& so, ScaledObjectState& state, std::int32_t current_replicas,
                            const TriggerReader& reader, Instant now, std::chrono::sys_seconds wall_clock) {
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

}  // namespace scalewright::workloads
