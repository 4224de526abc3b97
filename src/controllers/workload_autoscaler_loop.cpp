#include "controllers/workload_autoscaler_loop.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "workloads/hpa_explanation.h"


namespace scalewright::controllers {
namespace {

std::string target_name(const std::string& namespace_, const CrossVersionObjectReference& ref) {
  return fmt::format("{} {}/{}", ref.kind, namespace_, ref.name);
}

}  // namespace

struct WorkloadAutoscalerLoop::Hpa {
  HorizontalPodAutoscaler spec;
  std::string label;  // "hpa/php-apache"
  workloads::HpaState state;
  Scaled* owner = nullptr;  // the ScaledObject that generated it
  std::string last_problem;
  std::string last_held;  // the held-back recommendation last explained ("ScaleDownStabilized 2"); empty: none
  // Tallies for the summary, brought up to date by account().
  Instant accounted_until{};
  std::optional<std::int32_t> replicas;
  bool above = false;
  AutoscalerSummary summary;
};

struct WorkloadAutoscalerLoop::Scaled {
  ScaledObject spec;
  std::string label;  // "scaledobject/podinfo"
  workloads::ScaledObjectState state;
  Hpa* hpa = nullptr;
  Instant next_poll{};
  std::string last_problem;
  std::int32_t activations = 0;
  std::int32_t deactivations = 0;

  explicit Scaled(ScaledObject s) : spec(std::move(s)) {}
};

WorkloadAutoscalerLoop::WorkloadAutoscalerLoop(const AutoscalingMetrics& metrics,
                                         std::chrono::sys_seconds wall_clock_at_start)
    : metrics_(&metrics), wall_clock_at_start_(wall_clock_at_start) {}

WorkloadAutoscalerLoop::~WorkloadAutoscalerLoop() = default;

void WorkloadAutoscalerLoop::add(HorizontalPodAutoscaler spec, Instant now) {
  auto hpa = std::make_unique<Hpa>();
  hpa->accounted_until = now;
  hpa->label = "hpa/" + spec.meta.name;
  hpa->summary.name = hpa->label;
  hpa->summary.target = target_name(spec.meta.namespace_, spec.scale_target_ref);
  hpa->spec = std::move(spec);
  hpas_.push_back(std::move(hpa));
}

void WorkloadAutoscalerLoop::add(ScaledObject spec, Instant now) {
  auto scaled = std::make_unique<Scaled>(std::move(spec));
  scaled->label = "scaledobject/" + scaled->spec.meta.name;
  scaled->state.created = now;
  scaled->next_poll = now;
  add(workloads::keda_hpa(scaled->spec), now);
  scaled->hpa = hpas_.back().get();
  scaled->hpa->owner = scaled.get();
  scaled->hpa->summary.name = scaled->label;
  scaled_objects_.push_back(std::move(scaled));
}

void WorkloadAutoscalerLoop::update(ScaledObject spec, Instant now) {
  const std::string key = spec.meta.key();
  for (const auto& scaled : scaled_objects_) {
    if (scaled->spec.meta.key() != key) continue;
    scaled->spec = std::move(spec);
    scaled->hpa->spec = workloads::keda_hpa(scaled->spec);
    scaled->next_poll = now;
    return;
  }
  add(std::move(spec), now);
}

void WorkloadAutoscalerLoop::remove_scaled_object(const std::string& key) {
  auto scaled = std::find_if(scaled_objects_.begin(), scaled_objects_.end(),
                             [&](const auto& s) { return s->spec.meta.key() == key; });
  if (scaled == scaled_objects_.end()) return;
  std::erase_if(hpas_, [hpa = (*scaled)->hpa](const auto& h) { return h.get() == hpa; });
  scaled_objects_.erase(scaled);
}

std::optional<Instant> WorkloadAutoscalerLoop::next_poll() const {
  std::optional<Instant> next;
  for (const auto& s : scaled_objects_) next = next ? std::min(*next, s->next_poll) : s->next_poll;
  return next;
}

void WorkloadAutoscalerLoop::account(Instant now, const AutoscalingView& view) {
  for (auto& hpa : hpas_) {
    std::optional<ScaleTarget> target = view.scale_target(hpa->spec.meta.namespace_, hpa->spec.scale_target_ref);
    // Until an autoscaler has changed its target, the target kept the replicas it has now.
    const std::optional<std::int32_t> replicas = hpa->replicas ? hpa->replicas
                                                 : target      ? std::optional(target->replicas)
                                                               : std::nullopt;
    const double seconds = static_cast<double>((now - hpa->accounted_until).count()) / 1000;
    if (replicas) hpa->summary.replica_seconds += seconds * *replicas;
    if (hpa->above) hpa->summary.above_target += now - hpa->accounted_until;
    hpa->accounted_until = now;
    if (!target) continue;
    if (!hpa->replicas) hpa->summary.min_replicas = hpa->summary.max_replicas = target->replicas;
    hpa->replicas = target->replicas;
    hpa->summary.min_replicas = std::min(hpa->summary.min_replicas, target->replicas);
    hpa->summary.max_replicas = std::max(hpa->summary.max_replicas, target->replicas);
  }
}

// A rescale is explained every time; a recommendation held back (by stabilization, a rate policy, min or max)
// once while it is held back for the same reason at the same count, not at every 15 s sync.
void WorkloadAutoscalerLoop::explain(Hpa& hpa, const workloads::HpaDecision& decision, AutoscalingNotes& notes) {
  // A ScaledObject's HPA is KEDA's doing: its decisions are told on the ScaledObject the user wrote.
  const std::string kind = hpa.owner != nullptr ? "ScaledObject" : "HorizontalPodAutoscaler";
  const std::string key = hpa.owner != nullptr ? hpa.owner->spec.meta.key() : hpa.spec.meta.key();
  if (decision.rescale) {
    hpa.last_held.clear();
    auto rescaled = std::find_if(decision.events.begin(), decision.events.end(),
                                 [](const workloads::HpaEvent& e) { return e.reason == "SuccessfulRescale"; });
    notes.events.push_back({kind, key, "Normal", "SuccessfulRescale", "Scale",
                            fmt::format("{}; {}", rescaled == decision.events.end() ? "" : rescaled->message,
                                        workloads::explain_hpa_decision(decision))});
    return;
  }
  const bool held = decision.recommended_replicas && *decision.recommended_replicas != decision.current_replicas;
  if (!held) {
    hpa.last_held.clear();
    return;
  }
  const std::string_view reason =
      !decision.limit_reason.empty() ? decision.limit_reason : decision.stabilization_reason;
  const std::string said = fmt::format("{} {}", reason, *decision.recommended_replicas);
  if (said == hpa.last_held) return;
  hpa.last_held = said;
  notes.events.push_back({kind, key, "Normal", std::string(reason.empty() ? "ScalingHeld" : reason),
                          "Scale", workloads::explain_hpa_decision(decision)});
}

std::vector<ScaleChange> WorkloadAutoscalerLoop::reconcile(Hpa& hpa, const workloads::MetricsSource& metrics,
                                                           Instant now, const AutoscalingView& view,
                                                           AutoscalingNotes& notes) {
  const std::string& ns = hpa.spec.meta.namespace_;
  std::optional<ScaleTarget> target = view.scale_target(ns, hpa.spec.scale_target_ref);
  auto problem = [&](const std::string& message) {
    if (message == hpa.last_problem) return;  // said once, not every 15 s
    hpa.last_problem = message;
    notes.timeline.push_back({now, "autoscaler-warning", fmt::format("{}: {}", hpa.label, message)});
  };
  if (!target) {
    problem(fmt::format("FailedGetScale: {} not found", target_name(ns, hpa.spec.scale_target_ref)));
    return {};
  }
  workloads::HpaTarget observed;
  observed.spec_replicas = target->replicas;
  observed.selector = target->selector;
  for (ObservedPod& pod : view.pods(ns, target->selector)) observed.pods.push_back(std::move(pod.pod));
  workloads::HpaDecision decision = workloads::reconcile_hpa(hpa.spec, hpa.state, observed, metrics, now);
  // The first warning of a sync says what went wrong (the later ones repeat it in other words).
  auto warning = std::find_if(decision.events.begin(), decision.events.end(),
                              [](const workloads::HpaEvent& e) { return e.warning; });
  if (warning != decision.events.end()) {
    problem(fmt::format("{}: {}", warning->reason, warning->message));
  } else {
    hpa.last_problem.clear();
  }
  hpa.above = false;
  if (decision.deciding_metric) {
    const workloads::MetricReading& m = decision.metrics[*decision.deciding_metric];
    hpa.above = m.proposal && *m.proposal > decision.current_replicas;
  }
  explain(hpa, decision, notes);
  if (!decision.rescale) return {};
  std::string why = decision.reason;
  if (decision.deciding_metric) {
    const workloads::MetricReading& m = decision.metrics[*decision.deciding_metric];
    why = fmt::format("{} {} of {} target", m.name, m.current, m.target);
  }
  notes.timeline.push_back({now, "autoscale", fmt::format("{} {} -> {}: {}", hpa.label, decision.current_replicas,
                                                    decision.desired_replicas, why)});
  if (decision.desired_replicas > decision.current_replicas) {
    ++hpa.summary.scale_ups;
  } else {
    ++hpa.summary.scale_downs;
  }
  return {{target->workload, decision.desired_replicas}};
}

std::vector<ScaleChange> WorkloadAutoscalerLoop::sync_hpas(Instant now, const AutoscalingView& view,
                                                           AutoscalingNotes& notes) {
  account(now, view);
  const workloads::MetricsSource& resources = metrics_->pod_metrics();
  std::vector<ScaleChange> changes;
  for (auto& hpa : hpas_) {
    std::vector<ScaleChange> change;
    if (hpa->owner != nullptr) {
      // KEDA's metrics adapter answers the External metrics of the HPA it generated.
      workloads::ScaledObjectMetrics adapter(hpa->owner->spec, hpa->owner->state, metrics_->triggers(), &resources);
      adapter.set_now(now);
      adapter.set_wall_clock(wall_clock_at_start_ + std::chrono::duration_cast<std::chrono::seconds>(since_start(now)));
      const bool fallback_before = hpa->owner->state.fallback_active;
      change = reconcile(*hpa, adapter, now, view, notes);
      if (hpa->owner->state.fallback_active != fallback_before) {
        const ScaledObject& so = hpa->owner->spec;
        notes.timeline.push_back(
            {now, "autoscaler-warning",
             hpa->owner->state.fallback_active
                 ? fmt::format("{}: fallback: its metrics failed more than {} times in a row; they read as {} "
                               "replicas' worth until they answer again",
                               hpa->owner->label, so.fallback ? so.fallback->failure_threshold : 0,
                               so.fallback ? so.fallback->replicas : 0)
                 : fmt::format("{}: its metrics answer again; fallback over", hpa->owner->label)});
      }
    } else {
      change = reconcile(*hpa, resources, now, view, notes);
    }
    for (ScaleChange& c : change) {
      hpa->replicas = c.replicas;
      changes.push_back(std::move(c));
    }
  }
  return changes;
}

std::vector<ScaleChange> WorkloadAutoscalerLoop::poll_scaled_objects(Instant now, const AutoscalingView& view,
                                                                     AutoscalingNotes& notes) {
  account(now, view);
  std::vector<ScaleChange> changes;
  for (auto& scaled : scaled_objects_) {
    if (scaled->next_poll > now) continue;
    const ScaledObject& spec = scaled->spec;
    std::optional<ScaleTarget> target = view.scale_target(spec.meta.namespace_, spec.scale_target_ref);
    const std::int32_t current = target ? target->replicas : 0;
    workloads::KedaPoll poll = workloads::poll_scaled_object(
        spec, scaled->state, current, metrics_->triggers(), now,
        wall_clock_at_start_ + std::chrono::duration_cast<std::chrono::seconds>(since_start(now)));
    scaled->next_poll = poll.next_poll > now ? poll.next_poll
                                              : now + Duration(workloads::kDefaultPollingIntervalSeconds * 1000);
    auto warning = std::find_if(poll.events.begin(), poll.events.end(),
                                [](const workloads::KedaEvent& e) { return e.warning; });
    if (warning != poll.events.end()) {
      const std::string message = fmt::format("{}: {}: {}", scaled->label, warning->reason, warning->message);
      if (message != scaled->last_problem) notes.timeline.push_back({now, "autoscaler-warning", message});
      scaled->last_problem = message;
    } else {
      scaled->last_problem.clear();
    }
    if (!target) continue;
    if (!poll.scale || poll.desired_replicas == current) continue;
    notes.timeline.push_back({now, "autoscale", fmt::format("{} {} -> {}: {}", scaled->label, current,
                                                            poll.desired_replicas, poll.reason)});
    // KEDA's own Event of the scale (activated, deactivated), with the trigger values that decided it.
    auto scaled_event = std::find_if(poll.events.begin(), poll.events.end(),
                                     [](const workloads::KedaEvent& e) { return !e.warning; });
    std::string message = fmt::format("{} -> {}: {}", current, poll.desired_replicas, poll.reason);
    std::string reason = "KEDAScaleTargetScaled";
    if (scaled_event != poll.events.end()) {
      message = scaled_event->message + "; " + message;
      reason = scaled_event->reason;
    }
    notes.events.push_back({"ScaledObject", spec.meta.key(), "Normal", std::move(reason), "Scale", std::move(message)});
    AutoscalerSummary& tally = scaled->hpa->summary;
    ++(poll.desired_replicas > current ? tally.scale_ups : tally.scale_downs);
    scaled->hpa->replicas = poll.desired_replicas;
    changes.push_back({target->workload, poll.desired_replicas});
  }
  return changes;
}

std::vector<AutoscalerReading> WorkloadAutoscalerLoop::readings(const AutoscalingView& view) const {
  std::vector<AutoscalerReading> out;
  for (const auto& hpa : hpas_) {
    AutoscalerReading r;
    r.name = hpa->summary.name;
    if (std::optional<ScaleTarget> target = view.scale_target(hpa->spec.meta.namespace_, hpa->spec.scale_target_ref)) {
      r.replicas = target->replicas;
    }
    r.metrics = hpa->state.current_metrics;
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<AutoscalerSummary> WorkloadAutoscalerLoop::summary() const {
  std::vector<AutoscalerSummary> out;
  for (const auto& hpa : hpas_) out.push_back(hpa->summary);
  return out;
}

}  // namespace scalewright::controllers
