#include "controllers/workload_autoscaler_controller.h"

#include <algorithm>

#include <fmt/format.h>

#include "api/saturating.h"

namespace scalewright::controllers {
namespace {

// A container as the HPA reads it: its requests in milli-units (cpu is kept in milli-cpu already), saturating as
// every product of amounts (a request of 8 PB or more passes int64 in thousandths).
workloads::HpaContainer hpa_container(const Container& c) {
  workloads::HpaContainer out;
  out.name = c.name;
  for (const auto& [name, amount] : c.requests.entries()) {
    const std::int64_t milli = name == resource_names::cpu() ? amount : saturating_mul(amount, 1000);
    out.requests_milli.emplace_back(name.string(), milli);
  }
  return out;
}

}  // namespace

std::optional<ScaleTarget> StateAutoscalingView::scale_target(const std::string& namespace_,
                                                              const CrossVersionObjectReference& ref) const {
  auto it = state_.workloads().find(object_key(ref.kind, namespace_, ref.name));
  if (it == state_.workloads().end() || it->second.workload.kind == WorkloadKind::DaemonSet) return std::nullopt;
  return ScaleTarget{it->first, it->second.workload.replicas, it->second.workload.selector};
}

std::vector<ObservedPod> StateAutoscalingView::pods(const std::string& namespace_,
                                                    const LabelSelector& selector) const {
  std::vector<ObservedPod> out;
  const std::string prefix = namespace_ + "/";
  const auto& all = state_.pods();
  for (auto it = all.lower_bound(prefix); it != all.end() && it->first.starts_with(prefix); ++it) {
    const state::PodRecord& record = it->second;
    if (record.daemon || !selector.matches(record.pod->meta.labels)) continue;
    ObservedPod observed{it->first, {}};
    workloads::HpaPod& pod = observed.pod;
    pod.name = record.pod->meta.name;
    pod.deleting = record.terminating_until.has_value();
    // A container starts as its pod binds and counts Ready at once.
    pod.phase = record.bound_at ? PodPhase::Running : PodPhase::Pending;
    if (record.bound_at) {
      // On a node that stopped reporting, the node lifecycle controller has marked the pod NotReady.
      const std::optional<Instant> failed = state_.node_failed_at(record);
      pod.ready = !failed;
      pod.ready_last_transition = failed.value_or(*record.bound_at);
      pod.start_time = *record.bound_at;
    }
    for (const Container& c : record.pod->spec.containers) pod.containers.push_back(hpa_container(c));
    out.push_back(std::move(observed));
  }
  return out;
}

void WorkloadAutoscalerController::reconcile() {
  const Instant now = clock_.now();
  for (; hpas_seen_ < state_.hpas().size(); ++hpas_seen_) autoscaling_.add(state_.hpas()[hpas_seen_], now);
  if (scaled_object_changes_seen_ != state_.scaled_object_changes()) {
    scaled_object_changes_seen_ = state_.scaled_object_changes();
    std::map<std::string, std::uint64_t> taken_on;
    for (const ScaledObject& scaled_object : state_.scaled_objects()) {
      const std::string key = scaled_object.meta.key();
      const std::uint64_t revision = state_.scaled_object_revision(key);
      auto before = scaled_objects_taken_on_.find(key);
      if (before == scaled_objects_taken_on_.end()) {
        autoscaling_.add(scaled_object, now);
      } else if (before->second != revision) {
        autoscaling_.update(scaled_object, now);
        record("scaledobject", fmt::format("ScaledObject {} changed: its new spec applies from now on", key));
      }
      taken_on.emplace(key, revision);
    }
    for (const auto& [key, revision] : scaled_objects_taken_on_) {
      if (taken_on.contains(key)) continue;
      autoscaling_.remove_scaled_object(key);
      record("scaledobject", fmt::format("ScaledObject {} deleted: its target is no longer scaled", key));
    }
    scaled_objects_taken_on_ = std::move(taken_on);
  }
  schedule_poll();
}

void WorkloadAutoscalerController::schedule_poll() {
  std::optional<Instant> next = autoscaling_.next_poll();
  if (!next) return;
  const Instant at = std::max(*next, clock_.now());
  // An edited or new ScaledObject may be due before the poll already set: that one gives way.
  if (poll_timer_ && poll_timer_->first <= at) return;
  if (poll_timer_) clock_.cancel(poll_timer_->second);
  poll_timer_.emplace(at, clock_.wake_at(at, [this] {
    poll_timer_.reset();
    poll();
  }));
}


// Set after the next scrape, so that every sync reads the scrape of the same instant.
void WorkloadAutoscalerController::metrics_scraped() {
  if (sync_scheduled_) return;
  sync_scheduled_ = true;
  clock_.wake_at(clock_.now() + kHpaSyncPeriod, [this] { sync_hpas(); });
}

void WorkloadAutoscalerController::sync_hpas() {
  AutoscalingNotes notes;
  apply(autoscaling_.sync_hpas(clock_.now(), view_, notes), notes);
  clock_.wake_at(clock_.now() + kHpaSyncPeriod, [this] { sync_hpas(); });
}

void WorkloadAutoscalerController::poll() {
  AutoscalingNotes notes;
  apply(autoscaling_.poll_scaled_objects(clock_.now(), view_, notes), notes);
}

void WorkloadAutoscalerController::apply(const std::vector<ScaleChange>& changes, AutoscalingNotes& notes) {
  for (TimelineEntry& entry : notes.timeline) writer_.record(std::move(entry));
  for (ObjectEvent& event : notes.events) writer_.object_event(std::move(event));
  for (const ScaleChange& change : changes) writer_.scale(change.workload, change.replicas);
  schedule_poll();
}

std::vector<AutoscalerSummary> WorkloadAutoscalerController::summary(Instant now) {
  autoscaling_.account(now, view_);
  return autoscaling_.summary();
}

}  // namespace scalewright::controllers
