#pragma once
// The world of the HPA controller tests (hpa_metrics_test.cpp, hpa_behavior_test.cpp, hpa_status_test.cpp): a
// Scenario around one sync (reconcile_hpa), the fixed metrics it reads and the table of hand-computed cases.
//
// Unless a case says otherwise: now = 1 h; the target has 4 Running pods, Ready since 0 (well past the cpu
// initialization period), each with one container "app" requesting 500m cpu; samples are taken at `now` over 60 s;
// the HPA has min 1, max 20, one metric cpu at 50 % of requests and no behavior; tolerance 0.1. The controller has
// been running for an hour, so the one recommendation it remembers has expired and a single sync is not held back
// by stabilization (sequences start from scratch).
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/instant.h"
#include "workloads/hpa.h"

namespace scalewright::workloads::hpa_test {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

inline constexpr Instant kNow{hours(1)};

// Fixed values keyed by resource ("cpu", or "cpu/app" for one container) or metric name; a name in `failing`
// returns an error, as an unreachable metrics API would.
class FixedMetrics : public MetricsSource {
 public:
  std::map<std::string, std::map<std::string, PodMetricSample>> resource;
  std::map<std::string, std::map<std::string, PodMetricSample>> pods;
  std::map<std::string, std::int64_t> objects;
  std::map<std::string, std::vector<std::int64_t>> external;
  std::set<std::string> failing;

  Result<std::map<std::string, PodMetricSample>> pod_resource_usage(const std::string&, const std::string& name,
                                                                    const std::string& container,
                                                                    const LabelSelector&) const override {
    const std::string key = container.empty() ? name : name + "/" + container;
    if (failing.contains(key)) return Error{"metrics API unavailable"};
    auto found = resource.find(key);
    return found == resource.end() ? std::map<std::string, PodMetricSample>{} : found->second;
  }
  Result<std::map<std::string, PodMetricSample>> pod_metric(const std::string&, const MetricIdentifier& metric,
                                                            const LabelSelector&) const override {
    if (failing.contains(metric.name)) return Error{"metrics API unavailable"};
    auto found = pods.find(metric.name);
    return found == pods.end() ? std::map<std::string, PodMetricSample>{} : found->second;
  }
  Result<std::int64_t> object_metric(const std::string&, const MetricIdentifier& metric,
                                     const CrossVersionObjectReference&) const override {
    auto found = objects.find(metric.name);
    if (failing.contains(metric.name) || found == objects.end()) return Error{"metrics API unavailable"};
    return found->second;
  }
  Result<std::vector<std::int64_t>> external_metric(const std::string&,
                                                    const MetricIdentifier& metric) const override {
    if (failing.contains(metric.name)) return Error{"metrics API unavailable"};
    auto found = external.find(metric.name);
    return found == external.end() ? std::vector<std::int64_t>{} : found->second;
  }
};

inline PodMetricSample sample(std::int64_t milli) { return {milli, kNow, seconds(60)}; }

inline HpaPod ready_pod(const std::string& name) {
  HpaPod pod;
  pod.name = name;
  pod.ready = true;
  pod.start_time = Instant{};
  pod.containers.push_back({"app", {{"cpu", 500}, {"memory", 500}}});
  return pod;
}

inline MetricSpec cpu_utilization(std::int32_t percent) {
  MetricSpec spec;
  spec.type = MetricSpec::Type::Resource;
  spec.resource = "cpu";
  spec.target.type = MetricTarget::Type::Utilization;
  spec.target.average_utilization = percent;
  return spec;
}

inline Quantity q(const char* text) { return *Quantity::parse(text); }

inline MetricSpec resource_average(const std::string& resource, const char* average,
                                   const std::string& container = "") {
  MetricSpec spec;
  spec.type = container.empty() ? MetricSpec::Type::Resource : MetricSpec::Type::ContainerResource;
  spec.resource = resource;
  spec.container = container;
  spec.target.type = MetricTarget::Type::AverageValue;
  spec.target.average_value = q(average);
  return spec;
}

inline MetricSpec pods_metric(const std::string& name, const char* average) {
  MetricSpec spec;
  spec.type = MetricSpec::Type::Pods;
  spec.metric.name = name;
  spec.target.type = MetricTarget::Type::AverageValue;
  spec.target.average_value = q(average);
  return spec;
}

inline MetricSpec object_metric(const std::string& name, MetricTarget::Type type, const char* target) {
  MetricSpec spec;
  spec.type = MetricSpec::Type::Object;
  spec.metric.name = name;
  spec.described_object = {"Ingress", "main-route", "networking.k8s.io/v1"};
  spec.target.type = type;
  (type == MetricTarget::Type::Value ? spec.target.value : spec.target.average_value) = q(target);
  return spec;
}

inline MetricSpec external_metric(const std::string& name, MetricTarget::Type type, const char* target) {
  MetricSpec spec;
  spec.type = MetricSpec::Type::External;
  spec.metric.name = name;
  spec.target.type = type;
  (type == MetricTarget::Type::Value ? spec.target.value : spec.target.average_value) = q(target);
  return spec;
}

struct Scenario {
  HorizontalPodAutoscaler hpa;
  HpaTarget target;
  FixedMetrics metrics;
  HpaState state;
  HpaControllerConfig config;

  Scenario() {
    hpa.meta.name = "web";
    hpa.meta.namespace_ = "default";
    hpa.min_replicas = 1;
    hpa.max_replicas = 20;
    hpa.metrics = {cpu_utilization(50)};
    state.recommendations = {{1, kNow - hours(1)}};
    pods(4, 0);
  }

  // `count` ready pods, each using `cpu_milli`; spec.replicas follows.
  void pods(int count, std::int64_t cpu_milli) {
    target.pods.clear();
    target.spec_replicas = 0;
    metrics.resource["cpu"].clear();
    for (int i = 0; i < count; ++i) add_pod(ready_pod("p" + std::to_string(i)), cpu_milli);
  }
  // One more pod (and replica), with a cpu sample unless `cpu_milli` is nullopt.
  void add_pod(HpaPod pod, std::optional<std::int64_t> cpu_milli) {
    if (cpu_milli) metrics.resource["cpu"][pod.name] = sample(*cpu_milli);
    target.pods.push_back(std::move(pod));
    ++target.spec_replicas;
  }
  // Every pod reports `milli` for the Pods metric `name`.
  void pod_values(const std::string& name, std::int64_t milli) {
    for (const HpaPod& pod : target.pods) metrics.pods[name][pod.name] = sample(milli);
  }
  HpaScalingRules& scale_up() {
    if (!hpa.behavior) hpa.behavior.emplace();
    if (!hpa.behavior->scale_up) hpa.behavior->scale_up.emplace();
    return *hpa.behavior->scale_up;
  }
  HpaScalingRules& scale_down() {
    if (!hpa.behavior) hpa.behavior.emplace();
    if (!hpa.behavior->scale_down) hpa.behavior->scale_down.emplace();
    return *hpa.behavior->scale_down;
  }
  HpaDecision sync(Instant now = kNow) { return reconcile_hpa(hpa, state, target, metrics, now, config); }
};

inline const HpaCondition* condition(const HpaState& state, const std::string& type) {
  for (const HpaCondition& c : state.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

inline bool has_event(const HpaDecision& decision, const std::string& reason) {
  for (const HpaEvent& event : decision.events) {
    if (event.reason == reason) return true;
  }
  return false;
}

struct HpaCase {
  std::string name;
  std::function<void(Scenario&)> setup;
  std::int32_t expected_replicas;
  std::string expected_reason = "";  // the rescale reason, checked when not empty
};

inline constexpr auto kValue = MetricTarget::Type::Value;
inline constexpr auto kAverage = MetricTarget::Type::AverageValue;
using Policy = HpaScalingPolicy;

// The table HpaTable.DesiredReplicas runs (in hpa_metrics_test.cpp), in this order: the cases of each metric type
// (hpa_metrics_test.cpp), then those of min/max, the scale-up limit and behavior (hpa_behavior_test.cpp).
const std::vector<HpaCase>& metric_cases();
const std::vector<HpaCase>& scaling_cases();

}  // namespace scalewright::workloads::hpa_test
