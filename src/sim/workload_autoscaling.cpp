#include "sim/workload_autoscaling.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "api/saturating.h"
#include "sim/promql_subset.h"
#include "workloads/prometheus_client.h"
#include "workloads/prometheus_trigger_reader.h"

namespace scalewright::sim {
namespace {

// metrics.k8s.io as metrics-server would answer it from the load model's latest scrape. A container's usage is
// the pod's on its first container (the one serving the load) and nothing on the others.
class LoadMetrics : public workloads::MetricsSource {
 public:
  LoadMetrics(const AutoscalingView& view, const LoadModel& load) : view_(view), load_(load) {}

  Result<std::map<std::string, workloads::PodMetricSample>> pod_resource_usage(
      const std::string& namespace_, const std::string& resource, const std::string& container,
      const LabelSelector& selector) const override {
    if (resource != "cpu" && resource != "memory") {
      return Error{fmt::format("the simulator measures cpu and memory, not {}", resource)};
    }
    std::map<std::string, workloads::PodMetricSample> samples;
    for (const ObservedPod& observed : view_.pods(namespace_, selector)) {
      const PodUsage* usage = load_.usage(observed.key);
      if (usage == nullptr) continue;
      const bool first = container.empty() || (!observed.pod.containers.empty() &&
                                               observed.pod.containers.front().name == container);
      std::int64_t value = resource == "cpu" ? usage->cpu_milli : usage->memory_bytes * 1000;
      samples[observed.pod.name] = {first ? value : 0, usage->timestamp, LoadModel::kScrapeInterval};
    }
    if (samples.empty()) return Error{"no metrics returned from resource metrics API"};
    return samples;
  }
  // custom.metrics.k8s.io for pods: the request rate each pod served, as prometheus-adapter's usual rule turns
  // http_requests_total into http_requests_per_second.
  Result<std::map<std::string, workloads::PodMetricSample>> pod_metric(const std::string& namespace_,
                                                                      const MetricIdentifier& metric,
                                                                      const LabelSelector& selector) const override {
    if (metric.name != LoadModel::kPodRequestRate) {
      return Error{fmt::format("the simulator serves the pods metric {}, not {}", LoadModel::kPodRequestRate,
                               metric.name)};
    }
    std::map<std::string, workloads::PodMetricSample> samples;
    for (const ObservedPod& observed : view_.pods(namespace_, selector)) {
      if (const PodUsage* usage = load_.usage(observed.key)) {
        samples[observed.pod.name] = {saturate_cast<std::int64_t>(std::round(usage->requests_per_second * 1000)),
                                      usage->timestamp, LoadModel::kScrapeInterval};
      }
    }
    if (samples.empty()) return Error{"no metrics returned from custom metrics API"};
    return samples;
  }
  Result<std::int64_t> object_metric(const std::string&, const MetricIdentifier& metric,
                                     const CrossVersionObjectReference&) const override {
    return Error{fmt::format("the simulator serves no object metric {}", metric.name)};
  }
  Result<std::vector<std::int64_t>> external_metric(const std::string&, const MetricIdentifier& metric) const override {
    return Error{fmt::format("the simulator serves no external metric {} outside KEDA", metric.name)};
  }

 private:
  const AutoscalingView& view_;
  const LoadModel& load_;
};

// KEDA's prometheus scaler answered from the load model's request counters, with KEDA's single-value rule.
class LoadTriggerReader : public workloads::TriggerReader {
 public:
  LoadTriggerReader(const LoadModel& load, const std::vector<OutageWindow>& outages)
      : load_(load), outages_(outages) {}
  void set_now(Duration now) { now_ = now; }

  Result<double> read(const ScaledObject& scaled_object, std::size_t index) const override {
    const ScaledObjectTrigger& trigger = scaled_object.triggers.at(index);
    if (trigger.type != "prometheus") {
      return Error{fmt::format("trigger type {} is not simulated", trigger.type)};
    }
    auto query = trigger.metadata.find("query");
    if (query == trigger.metadata.end()) return Error{"prometheus trigger without a query"};
    for (const OutageWindow& outage : outages_) {
      if (outage.at <= now_ && now_ < outage.at + outage.duration) {
        auto server = trigger.metadata.find("serverAddress");
        return Error{fmt::format("prometheus {} did not answer: connection refused (simulated outage)",
                                 server == trigger.metadata.end() ? "" : server->second)};
      }
    }
    Result<PromQuery> parsed = parse_promql(query->second);
    if (!parsed) return parsed.error();
    Result<std::vector<double>> values = evaluate(*parsed, load_.request_series(), now_);
    if (!values) return values.error();
    workloads::PrometheusQueryData data;
    for (double v : *values) data.samples.push_back({{{"series", std::to_string(data.samples.size())}}, 0, v});
    return workloads::prometheus_single_value(data, workloads::ignore_null_values(trigger));
  }

 private:
  const LoadModel& load_;
  const std::vector<OutageWindow>& outages_;
  Duration now_{0};
};

std::string target_name(const std::string& namespace_, const CrossVersionObjectReference& ref) {
  return fmt::format("{} {}/{}", ref.kind, namespace_, ref.name);
}

}  // namespace

struct WorkloadAutoscaling::Hpa {
  HorizontalPodAutoscaler spec;
  std::string label;  // "hpa/php-apache"
  workloads::HpaState state;
  Scaled* owner = nullptr;  // the ScaledObject that generated it
  std::string last_problem;
  // Tallies for the summary, brought up to date by account().
  Duration accounted_until{0};
  std::optional<std::int32_t> replicas;
  bool above = false;
  AutoscalerSummary summary;
};

struct WorkloadAutoscaling::Scaled {
  ScaledObject spec;
  std::string label;  // "scaledobject/podinfo"
  workloads::ScaledObjectState state;
  LoadTriggerReader reader;
  Hpa* hpa = nullptr;
  Duration next_poll{0};
  std::string last_problem;
  std::int32_t activations = 0;
  std::int32_t deactivations = 0;

  Scaled(ScaledObject s, const LoadModel& load, const std::vector<OutageWindow>& outages)
      : spec(std::move(s)), reader(load, outages) {}
};

WorkloadAutoscaling::WorkloadAutoscaling(const LoadModel& load, std::chrono::sys_seconds wall_clock_at_start,
                                         std::vector<OutageWindow> outages)
    : load_(&load), wall_clock_at_start_(wall_clock_at_start), outages_(std::move(outages)) {}

WorkloadAutoscaling::~WorkloadAutoscaling() = default;

void WorkloadAutoscaling::add(HorizontalPodAutoscaler spec, Duration now) {
  auto hpa = std::make_unique<Hpa>();
  hpa->accounted_until = now;
  hpa->label = "hpa/" + spec.meta.name;
  hpa->summary.name = hpa->label;
  hpa->summary.target = target_name(spec.meta.namespace_, spec.scale_target_ref);
  hpa->spec = std::move(spec);
  hpas_.push_back(std::move(hpa));
}

void WorkloadAutoscaling::add(ScaledObject spec, Duration now) {
  auto scaled = std::make_unique<Scaled>(std::move(spec), *load_, outages_);
  scaled->label = "scaledobject/" + scaled->spec.meta.name;
  scaled->state.created = now;
  scaled->next_poll = now;
  add(workloads::keda_hpa(scaled->spec), now);
  scaled->hpa = hpas_.back().get();
  scaled->hpa->owner = scaled.get();
  scaled->hpa->summary.name = scaled->label;
  scaled_objects_.push_back(std::move(scaled));
}

std::optional<Duration> WorkloadAutoscaling::next_poll() const {
  std::optional<Duration> next;
  for (const auto& s : scaled_objects_) next = next ? std::min(*next, s->next_poll) : s->next_poll;
  return next;
}

void WorkloadAutoscaling::account(Duration now, const AutoscalingView& view) {
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

std::vector<ScaleChange> WorkloadAutoscaling::reconcile(Hpa& hpa, const workloads::MetricsSource& metrics,
                                                        Duration now, const AutoscalingView& view,
                                                        std::vector<TimelineEntry>& timeline) {
  const std::string& ns = hpa.spec.meta.namespace_;
  std::optional<ScaleTarget> target = view.scale_target(ns, hpa.spec.scale_target_ref);
  auto problem = [&](const std::string& message) {
    if (message == hpa.last_problem) return;  // said once, not every 15 s
    hpa.last_problem = message;
    timeline.push_back({now, "autoscaler-warning", fmt::format("{}: {}", hpa.label, message)});
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
  if (!decision.rescale) return {};
  std::string why = decision.reason;
  if (decision.deciding_metric) {
    const workloads::MetricReading& m = decision.metrics[*decision.deciding_metric];
    why = fmt::format("{} {} of {} target", m.name, m.current, m.target);
  }
  timeline.push_back({now, "autoscale", fmt::format("{} {} -> {}: {}", hpa.label, decision.current_replicas,
                                                    decision.desired_replicas, why)});
  if (decision.desired_replicas > decision.current_replicas) {
    ++hpa.summary.scale_ups;
  } else {
    ++hpa.summary.scale_downs;
  }
  return {{target->workload, decision.desired_replicas}};
}

std::vector<ScaleChange> WorkloadAutoscaling::sync_hpas(Duration now, const AutoscalingView& view,
                                                        std::vector<TimelineEntry>& timeline) {
  account(now, view);
  LoadMetrics resources(view, *load_);
  std::vector<ScaleChange> changes;
  for (auto& hpa : hpas_) {
    std::vector<ScaleChange> change;
    if (hpa->owner != nullptr) {
      // KEDA's metrics adapter answers the External metrics of the HPA it generated.
      hpa->owner->reader.set_now(now);
      workloads::ScaledObjectMetrics adapter(hpa->owner->spec, hpa->owner->state, hpa->owner->reader, &resources);
      adapter.set_now(now);
      adapter.set_wall_clock(wall_clock_at_start_ + std::chrono::duration_cast<std::chrono::seconds>(now));
      const bool fallback_before = hpa->owner->state.fallback_active;
      change = reconcile(*hpa, adapter, now, view, timeline);
      if (hpa->owner->state.fallback_active != fallback_before) {
        const ScaledObject& so = hpa->owner->spec;
        timeline.push_back(
            {now, "autoscaler-warning",
             hpa->owner->state.fallback_active
                 ? fmt::format("{}: fallback: its metrics failed more than {} times in a row; they read as {} "
                               "replicas' worth until they answer again",
                               hpa->owner->label, so.fallback ? so.fallback->failure_threshold : 0,
                               so.fallback ? so.fallback->replicas : 0)
                 : fmt::format("{}: its metrics answer again; fallback over", hpa->owner->label)});
      }
    } else {
      change = reconcile(*hpa, resources, now, view, timeline);
    }
    for (ScaleChange& c : change) {
      hpa->replicas = c.replicas;
      changes.push_back(std::move(c));
    }
  }
  return changes;
}

std::vector<ScaleChange> WorkloadAutoscaling::poll_scaled_objects(Duration now, const AutoscalingView& view,
                                                                  std::vector<TimelineEntry>& timeline) {
  account(now, view);
  std::vector<ScaleChange> changes;
  for (auto& scaled : scaled_objects_) {
    if (scaled->next_poll > now) continue;
    const ScaledObject& spec = scaled->spec;
    std::optional<ScaleTarget> target = view.scale_target(spec.meta.namespace_, spec.scale_target_ref);
    scaled->reader.set_now(now);
    const std::int32_t current = target ? target->replicas : 0;
    workloads::KedaPoll poll =
        workloads::poll_scaled_object(spec, scaled->state, current, scaled->reader, now,
                                      wall_clock_at_start_ + std::chrono::duration_cast<std::chrono::seconds>(now));
    scaled->next_poll = poll.next_poll > now ? poll.next_poll
                                              : now + Duration(workloads::kDefaultPollingIntervalSeconds * 1000);
    auto warning = std::find_if(poll.events.begin(), poll.events.end(),
                                [](const workloads::KedaEvent& e) { return e.warning; });
    if (warning != poll.events.end()) {
      const std::string message = fmt::format("{}: {}: {}", scaled->label, warning->reason, warning->message);
      if (message != scaled->last_problem) timeline.push_back({now, "autoscaler-warning", message});
      scaled->last_problem = message;
    } else {
      scaled->last_problem.clear();
    }
    if (!target) continue;
    if (!poll.scale || poll.desired_replicas == current) continue;
    timeline.push_back({now, "autoscale", fmt::format("{} {} -> {}: {}", scaled->label, current,
                                                      poll.desired_replicas, poll.reason)});
    AutoscalerSummary& tally = scaled->hpa->summary;
    ++(poll.desired_replicas > current ? tally.scale_ups : tally.scale_downs);
    scaled->hpa->replicas = poll.desired_replicas;
    changes.push_back({target->workload, poll.desired_replicas});
  }
  return changes;
}

std::vector<AutoscalerSummary> WorkloadAutoscaling::summary() const {
  std::vector<AutoscalerSummary> out;
  for (const auto& hpa : hpas_) out.push_back(hpa->summary);
  return out;
}

}  // namespace scalewright::sim
