// Hand-computed cases for the HPA controller's sync (reconcile_hpa). Unless a case says otherwise: now = 1 h; the
// target has 4 Running pods, Ready since 0 (well past the cpu initialization period), each with one container "app"
// requesting 500m cpu; samples are taken at `now` over 60 s; the HPA has min 1, max 20, one metric cpu at 50 % of
// requests and no behavior; tolerance 0.1. The controller has been running for an hour, so the one recommendation
// it remembers has expired and a single sync is not held back by stabilization (sequences start from scratch).
#include "workloads/hpa.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>

namespace scalewright::workloads {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr Duration kNow = hours(1);

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

PodMetricSample sample(std::int64_t milli) { return {milli, kNow, seconds(60)}; }

HpaPod ready_pod(const std::string& name) {
  HpaPod pod;
  pod.name = name;
  pod.ready = true;
  pod.start_time = Duration(0);
  pod.containers.push_back({"app", {{"cpu", 500}, {"memory", 500}}});
  return pod;
}

MetricSpec cpu_utilization(std::int32_t percent) {
  MetricSpec spec;
  spec.type = MetricSpec::Type::Resource;
  spec.resource = "cpu";
  spec.target.type = MetricTarget::Type::Utilization;
  spec.target.average_utilization = percent;
  return spec;
}

Quantity q(const char* text) { return *Quantity::parse(text); }

MetricSpec resource_average(const std::string& resource, const char* average, const std::string& container = "") {
  MetricSpec spec;
  spec.type = container.empty() ? MetricSpec::Type::Resource : MetricSpec::Type::ContainerResource;
  spec.resource = resource;
  spec.container = container;
  spec.target.type = MetricTarget::Type::AverageValue;
  spec.target.average_value = q(average);
  return spec;
}

MetricSpec pods_metric(const std::string& name, const char* average) {
  MetricSpec spec;
  spec.type = MetricSpec::Type::Pods;
  spec.metric.name = name;
  spec.target.type = MetricTarget::Type::AverageValue;
  spec.target.average_value = q(average);
  return spec;
}

MetricSpec object_metric(const std::string& name, MetricTarget::Type type, const char* target) {
  MetricSpec spec;
  spec.type = MetricSpec::Type::Object;
  spec.metric.name = name;
  spec.described_object = {"Ingress", "main-route", "networking.k8s.io/v1"};
  spec.target.type = type;
  (type == MetricTarget::Type::Value ? spec.target.value : spec.target.average_value) = q(target);
  return spec;
}

MetricSpec external_metric(const std::string& name, MetricTarget::Type type, const char* target) {
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
  HpaDecision sync(Duration now = kNow) { return reconcile_hpa(hpa, state, target, metrics, now, config); }
};

const HpaCondition* condition(const HpaState& state, const std::string& type) {
  for (const HpaCondition& c : state.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool has_event(const HpaDecision& decision, const std::string& reason) {
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

constexpr auto kValue = MetricTarget::Type::Value;
constexpr auto kAverage = MetricTarget::Type::AverageValue;
using Policy = HpaScalingPolicy;

const std::vector<HpaCase>& cases() {
  static const std::vector<HpaCase> table = {
      // --- Resource Utilization and the tolerance ---------------------------------------------------------------
      // 4 x 400m / 4 x 500m = 80 %; 80 / 50 = 1.6; ceil(1.6 * 4) = ceil(6.4) = 7.
      {"CpuAboveTargetScalesUp", [](Scenario& s) { s.pods(4, 400); }, 7,
       "cpu resource utilization (percentage of request) above target"},
      // 4 x 100m = 20 %; 0.4; ceil(0.4 * 4) = ceil(1.6) = 2.
      {"CpuBelowTargetScalesDown", [](Scenario& s) { s.pods(4, 100); }, 2, "All metrics below target"},
      // 4 x 275m = 55 %; 55 / 50 = 1.1 <= 1 + 0.1 (the same double): within, stay at 4. (|1 - 1.1| > 0.1 in
      // doubles, so the older absolute-value test would have scaled to 5.)
      {"ToleranceUpperEdgeIsWithin", [](Scenario& s) { s.pods(4, 275); }, 4},
      // 4 x 280m = 56 %; 1.12 > 1.1; ceil(1.12 * 4) = ceil(4.48) = 5.
      {"JustAboveToleranceScalesUp", [](Scenario& s) { s.pods(4, 280); }, 5},
      // 4 x 225m = 45 %; 0.9 >= 1 - 0.1: within, stay at 4.
      {"ToleranceLowerEdgeIsWithin", [](Scenario& s) { s.pods(4, 225); }, 4},
      // 10 x 220m = 44 %; 0.88 < 0.9; ceil(0.88 * 10) = ceil(8.8) = 9.
      {"JustBelowToleranceScalesDown", [](Scenario& s) { s.pods(10, 220); }, 9},
      // behavior.scaleUp.tolerance 0.05: 4 x 270m = 54 %; 1.08 > 1.05; ceil(4.32) = 5 (the flag's 0.1 keeps 4).
      // Default scale-up policies allow max(4 + 4, 4 * 2) = 8.
      {"ScaleUpToleranceOverridesFlag",
       [](Scenario& s) {
         s.pods(4, 270);
         s.scale_up().tolerance = 0.05;
       },
       5},
      // behavior.scaleDown.tolerance 0.2 (window 0): 10 x 220m = 44 %; 0.88 >= 0.8: within, stay at 10.
      {"ScaleDownToleranceOverridesFlag",
       [](Scenario& s) {
         s.pods(10, 220);
         s.scale_down().tolerance = 0.2;
         s.scale_down().stabilization_window_seconds = 0;
       },
       10},
      // The scale-down tolerance leaves scale-up alone: 10 x 280m = 56 %; 1.12 > 1 + 0.1; ceil(11.2) = 12.
      {"ScaleDownToleranceDoesNotWidenScaleUp",
       [](Scenario& s) {
         s.pods(10, 280);
         s.scale_down().tolerance = 0.2;
       },
       12},
      // behavior.scaleDown.tolerance 0.05 (window 0), max 20: 20 x 235m = 47 %; 0.94 < 0.95; ceil(18.8) = 19.
      {"NarrowScaleDownToleranceScalesDown",
       [](Scenario& s) {
         s.pods(20, 235);
         s.scale_down().tolerance = 0.05;
         s.scale_down().stabilization_window_seconds = 0;
       },
       19},

      // --- missing metrics and unready pods ----------------------------------------------------------------------
      // 3 x 500m = 100 % -> 2.0; the missing pod counts as 0: 1500 / 2000 = 75 % -> 1.5; ceil(1.5 * 4) = 6.
      {"MissingPodCountsAsIdleOnScaleUp",
       [](Scenario& s) {
         s.pods(3, 500);
         s.add_pod(ready_pod("quiet"), std::nullopt);
       },
       6},
      // 3 x 50m = 10 % -> 0.2; the missing pod counts as its full request 500m: 650 / 2000 = 32 % -> 0.64;
      // ceil(0.64 * 4) = ceil(2.56) = 3.
      {"MissingPodCountsAsFullOnScaleDown",
       [](Scenario& s) {
         s.pods(3, 50);
         s.add_pod(ready_pod("quiet"), std::nullopt);
       },
       3},
      // 3 ready x 500m = 100 % -> 2.0; the never-ready pod's sample is dropped, then it counts as 0:
      // 1500 / 2000 = 75 % -> 1.5; ceil(6) = 6.
      {"UnreadyPodCountsAsIdleOnScaleUp",
       [](Scenario& s) {
         s.pods(3, 500);
         HpaPod starting = ready_pod("starting");
         starting.ready = false;
         s.add_pod(starting, 500);
       },
       6},
      // 3 ready x 100m = 20 % -> 0.4 (the unready pod's 500m dropped); no scale-up, so it is not re-added:
      // ceil(0.4 * 3) = ceil(1.2) = 2.
      {"UnreadyPodIgnoredOnScaleDown",
       [](Scenario& s) {
         s.pods(3, 100);
         HpaPod starting = ready_pod("starting");
         starting.ready = false;
         s.add_pod(starting, 500);
       },
       2},
      // A Pending pod is treated like an unready one: 100 % -> 2.0, then 1500 / 2000 = 75 % -> 1.5 -> 6.
      {"PendingPodCountsAsIdleOnScaleUp",
       [](Scenario& s) {
         s.pods(3, 500);
         HpaPod pending = ready_pod("pending");
         pending.phase = PodPhase::Pending;
         s.add_pod(pending, std::nullopt);
       },
       6},

      // --- ContainerResource and Resource AverageValue ------------------------------------------------------------
      // Only container "app" counts: 4 x 400m of 4 x 500m = 80 % -> 1.6 -> 7. (The whole pod, with its 500m
      // sidecar, would be 40 % -> 0.8 -> 4.)
      {"ContainerUtilizationUsesOneContainer",
       [](Scenario& s) {
         for (HpaPod& pod : s.target.pods) {
           pod.containers.push_back({"sidecar", {{"cpu", 500}, {"memory", 500}}});
           s.metrics.resource["cpu/app"][pod.name] = sample(400);
         }
         s.hpa.metrics = {cpu_utilization(50)};
         s.hpa.metrics[0].type = MetricSpec::Type::ContainerResource;
         s.hpa.metrics[0].container = "app";
       },
       7, "cpu container resource utilization (percentage of request) above target"},
      // Container "app" uses 300 memory units per pod against an average of 200: 1.5; ceil(1.5 * 4) = 6.
      {"ContainerAverageValue",
       [](Scenario& s) {
         for (HpaPod& pod : s.target.pods) s.metrics.resource["memory/app"][pod.name] = sample(300'000);
         s.hpa.metrics = {resource_average("memory", "200", "app")};
       },
       6, "memory resource above target"},
      // 4 x 50m against an average of 200m: 0.25; ceil(0.25 * 4) = 1.
      {"ResourceAverageValueScalesDown",
       [](Scenario& s) {
         s.pods(4, 50);
         s.hpa.metrics = {resource_average("cpu", "200m")};
       },
       1, "All metrics below target"},

      // --- Pods metrics --------------------------------------------------------------------------------------------
      // (15 + 20 + 25) / 3 = 20 per pod against 10: 2.0; ceil(2.0 * 3) = 6.
      {"PodsMetricScalesUp",
       [](Scenario& s) {
         s.pods(3, 250);
         s.metrics.pods["qps"] = {{"p0", sample(15'000)}, {"p1", sample(20'000)}, {"p2", sample(25'000)}};
         s.hpa.metrics = {pods_metric("qps", "10")};
       },
       6, "pods metric qps above target"},
      // 3 pods at 2 against 10: 0.2; the missing pod counts as the target 10: 16 / 4 = 4 -> 0.4; ceil(1.6) = 2.
      {"PodsMetricMissingPodAtTargetOnScaleDown",
       [](Scenario& s) {
         s.pod_values("qps", 2'000);
         s.metrics.pods["qps"].erase("p3");
         s.hpa.metrics = {pods_metric("qps", "10")};
       },
       2},
      // No cpu readiness rules for Pods metrics: the unready pod's 20 counts; 20 / 10 = 2.0; ceil(2.0 * 4) = 8.
      // (As cpu it would be dropped and re-added as 0: 60 / 4 = 15 -> 1.5 -> 6.)
      {"PodsMetricHasNoReadinessRules",
       [](Scenario& s) {
         s.target.pods[3].ready = false;
         s.pod_values("qps", 20'000);
         s.hpa.metrics = {pods_metric("qps", "10")};
       },
       8},
      // 3 pods at exactly the target 10, one missing: ratio exactly 1, so the missing pod is not filled and the
      // ratio stays 1: within tolerance, stay at 4. (Filling it with 0 would give 0.75 -> 3, a scale-down.)
      {"PodsMetricAtTargetWithMissingPodHolds",
       [](Scenario& s) {
         s.pod_values("qps", 10'000);
         s.metrics.pods["qps"].erase("p3");
         s.hpa.metrics = {pods_metric("qps", "10")};
       },
       4},

      // --- Object metrics ------------------------------------------------------------------------------------------
      // 150 against a Value of 100: 1.5; 3 ready pods; ceil(1.5 * 3) = ceil(4.5) = 5.
      {"ObjectValueScalesUp",
       [](Scenario& s) {
         s.pods(3, 250);
         s.metrics.objects["requests-per-second"] = 150'000;
         s.hpa.metrics = {object_metric("requests-per-second", kValue, "100")};
       },
       5, "Ingress metric requests-per-second above target"},
      // spec.replicas 4 but only 2 pods Running and Ready: 300 / 100 = 3.0; ceil(3.0 * 2) = 6.
      {"ObjectValueScalesReadyPods",
       [](Scenario& s) {
         s.target.pods[2].ready = false;
         s.target.pods[3].phase = PodPhase::Pending;
         s.metrics.objects["requests-per-second"] = 300'000;
         s.hpa.metrics = {object_metric("requests-per-second", kValue, "100")};
       },
       6},
      // 105 against 100: 1.05 within tolerance, stay at 4.
      {"ObjectValueWithinTolerance",
       [](Scenario& s) {
         s.metrics.objects["requests-per-second"] = 105'000;
         s.hpa.metrics = {object_metric("requests-per-second", kValue, "100")};
       },
       4},
      // AverageValue 100 over status.replicas 4: 700 / (100 * 4) = 1.75, outside; ceil(700 / 100) = 7. Upstream
      // names this proposal "external metric ...(nil)".
      {"ObjectAverageValueScalesUp",
       [](Scenario& s) {
         s.metrics.objects["requests-per-second"] = 700'000;
         s.hpa.metrics = {object_metric("requests-per-second", kAverage, "100")};
       },
       7, "external metric requests-per-second(nil) above target"},
      // 420 / (100 * 4) = 1.05: within, stay at 4.
      {"ObjectAverageValueWithinTolerance",
       [](Scenario& s) {
         s.metrics.objects["requests-per-second"] = 420'000;
         s.hpa.metrics = {object_metric("requests-per-second", kAverage, "100")};
       },
       4},

      // --- External metrics ----------------------------------------------------------------------------------------
      // Series 20 + 10 = 30 against a Value of 20: 1.5; 4 ready pods; ceil(1.5 * 4) = 6.
      {"ExternalValueSumsSeries",
       [](Scenario& s) {
         s.metrics.external["queue_length"] = {20'000, 10'000};
         s.hpa.metrics = {external_metric("queue_length", kValue, "20")};
       },
       6, "external metric queue_length(nil) above target"},
      // min 0, scaled to zero: no pods to count, ceil(25 / 10) = ceil(2.5) = 3 (within the scale-up limit of 4).
      {"ExternalValueScalesFromZero",
       [](Scenario& s) {
         s.hpa.min_replicas = 0;
         s.pods(0, 0);
         s.metrics.external["queue_length"] = {25'000};
         s.hpa.metrics = {external_metric("queue_length", kValue, "10")};
       },
       3},
      // min 0, scaled to zero, empty queue: ceil(0 / 10) = 0, no change.
      {"ExternalValueStaysAtZero",
       [](Scenario& s) {
         s.hpa.min_replicas = 0;
         s.pods(0, 0);
         s.metrics.external["queue_length"] = {0};
         s.hpa.metrics = {external_metric("queue_length", kValue, "10")};
       },
       0},
      // AverageValue 5 over status.replicas 3: 25 / (5 * 3) = 1.67, outside; ceil(25 / 5) = 5.
      {"ExternalAverageValueScalesUp",
       [](Scenario& s) {
         s.pods(3, 250);
         s.metrics.external["queue_length"] = {25'000};
         s.hpa.metrics = {external_metric("queue_length", kAverage, "5")};
       },
       5},
      // The metric's selector appears in the reason as Go prints a *LabelSelector. 30 / (5 * 4) = 1.5 -> 30 / 5
      // = 6.
      {"ExternalReasonPrintsSelector",
       [](Scenario& s) {
         s.metrics.external["queue_length"] = {30'000};
         s.hpa.metrics = {external_metric("queue_length", kAverage, "5")};
         s.hpa.metrics[0].metric.selector = LabelSelector{{{Symbol("queue"), SelectorOperator::In, {"orders"}}}};
       },
       6,
       "external metric queue_length(&LabelSelector{MatchLabels:map[string]string{queue: orders,},"
       "MatchExpressions:[]LabelSelectorRequirement{},}) above target"},

      // --- several metrics -----------------------------------------------------------------------------------------
      // cpu 4 x 300m = 60 % -> 1.2 -> ceil(4.8) = 5; qps 15 / 10 -> 1.5 -> ceil(6) = 6; the larger wins: 6.
      {"LargestProposalWins",
       [](Scenario& s) {
         s.pods(4, 300);
         s.pod_values("qps", 15'000);
         s.hpa.metrics = {cpu_utilization(50), pods_metric("qps", "10")};
       },
       6, "pods metric qps above target"},
      // cpu 80 % -> 7, qps unavailable: a scale-up on the valid metrics goes ahead.
      {"FailedMetricDoesNotBlockScaleUp",
       [](Scenario& s) {
         s.pods(4, 400);
         s.metrics.failing.insert("qps");
         s.hpa.metrics = {cpu_utilization(50), pods_metric("qps", "10")};
       },
       7},
      // cpu 20 % -> 2, qps unavailable: a scale-down without every metric is refused, stay at 4.
      {"FailedMetricBlocksScaleDown",
       [](Scenario& s) {
         s.pods(4, 100);
         s.metrics.failing.insert("qps");
         s.hpa.metrics = {cpu_utilization(50), pods_metric("qps", "10")};
       },
       4},
      // No cpu samples at all: every metric failed, stay at 4.
      {"AllMetricsFailedKeepsScale", [](Scenario& s) { s.metrics.resource.clear(); }, 4},

      // --- min / max / disabled and the scale-up limit without behavior ----------------------------------------
      // 80 % -> 7, max 5: 5.
      {"ClampedToMax",
       [](Scenario& s) {
         s.pods(4, 400);
         s.hpa.max_replicas = 5;
       },
       5},
      // 20 % -> 2, min 3: 3.
      {"ClampedToMin",
       [](Scenario& s) {
         s.pods(4, 100);
         s.hpa.min_replicas = 3;
       },
       3},
      // 25 replicas, max 20: straight to 20, metrics unread.
      {"CurrentAboveMax", [](Scenario& s) { s.pods(25, 0); }, 20,
       "Current number of replicas above Spec.MaxReplicas"},
      // 2 replicas, min 5: straight to 5.
      {"CurrentBelowMin",
       [](Scenario& s) {
         s.pods(2, 500);
         s.hpa.min_replicas = 5;
       },
       5, "Current number of replicas below Spec.MinReplicas"},
      // spec.replicas 0 with min 1: autoscaling is disabled, stay at 0.
      {"ZeroReplicasDisablesScaling", [](Scenario& s) { s.pods(0, 0); }, 0},
      // 2 x 2500m = 500 % -> 10.0 -> 20; limit max(2 * 2, 4) = 4.
      {"ScaleUpLimitFourFromSmall", [](Scenario& s) { s.pods(2, 2500); }, 4},
      // 5 x 2000m = 400 % -> 8.0 -> 40; max 50; limit max(2 * 5, 4) = 10.
      {"ScaleUpLimitDoubles",
       [](Scenario& s) {
         s.pods(5, 2000);
         s.hpa.max_replicas = 50;
       },
       10},
      // A recommendation of 3 two minutes ago is within the 5-minute window: 20 % -> 2 is stabilized to 3.
      {"RecentHigherRecommendationHoldsScaleDown",
       [](Scenario& s) {
         s.pods(4, 100);
         s.state.recommendations.push_back({3, kNow - minutes(2)});
       },
       3},

      // --- behavior: policies and selectPolicy (max 100; 10 x 2000m = 400 % -> 8.0 -> 80 wanted)
      // ---------------------
      // Defaults: max(10 + 4 pods, ceil(10 * 2.0) = 20) = 20.
      {"BehaviorDefaultScaleUp",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.hpa.behavior.emplace();
       },
       20},
      // Pods 2 per 60 s: 10 + 2 = 12.
      {"PodsPolicyLimitsScaleUp",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().policies = {{Policy::Type::Pods, 2, 60}};
       },
       12},
      // 3 x 2000m -> 24 wanted; Percent 50 per 60 s rounds up: ceil(3 * 1.5) = ceil(4.5) = 5.
      {"PercentPolicyRoundsUpOnScaleUp",
       [](Scenario& s) {
         s.pods(3, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().policies = {{Policy::Type::Percent, 50, 60}};
       },
       5},
      // 10 x 50m = 10 % -> 0.2 -> 2 wanted; Percent 25 per 60 s rounds down: floor(10 * 0.75) = floor(7.5) = 7.
      {"PercentPolicyRoundsDownOnScaleDown",
       [](Scenario& s) {
         s.pods(10, 50);
         s.scale_down().stabilization_window_seconds = 0;
         s.scale_down().policies = {{Policy::Type::Percent, 25, 60}};
       },
       7},
      // Pods 4 per 60 s on a scale-down: 10 - 4 = 6.
      {"PodsPolicyLimitsScaleDown",
       [](Scenario& s) {
         s.pods(10, 50);
         s.scale_down().stabilization_window_seconds = 0;
         s.scale_down().policies = {{Policy::Type::Pods, 4, 60}};
       },
       6},
      // selectPolicy Min on scale-up: min(10 + 4, ceil(10 * 2.0) = 20) = 14.
      {"SelectMinOnScaleUp",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().select_policy = ScalingPolicySelect::Min;
         s.scale_up().policies = {{Policy::Type::Pods, 4, 60}, {Policy::Type::Percent, 100, 60}};
       },
       14},
      // selectPolicy Max on scale-down allows the bigger drop: min(10 - 2, floor(10 * 0.5)) = 5.
      {"SelectMaxOnScaleDown",
       [](Scenario& s) {
         s.pods(10, 50);
         s.scale_down().stabilization_window_seconds = 0;
         s.scale_down().policies = {{Policy::Type::Pods, 2, 60}, {Policy::Type::Percent, 50, 60}};
       },
       5},
      // selectPolicy Min on scale-down allows the smaller drop: max(8, 5) = 8.
      {"SelectMinOnScaleDown",
       [](Scenario& s) {
         s.pods(10, 50);
         s.scale_down().stabilization_window_seconds = 0;
         s.scale_down().select_policy = ScalingPolicySelect::Min;
         s.scale_down().policies = {{Policy::Type::Pods, 2, 60}, {Policy::Type::Percent, 50, 60}};
       },
       8},
      // selectPolicy Disabled: no scale-up at all, stay at 10.
      {"DisabledScaleUp",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().select_policy = ScalingPolicySelect::Disabled;
       },
       10},
      // selectPolicy Disabled on scale-down: stay at 10.
      {"DisabledScaleDown",
       [](Scenario& s) {
         s.pods(10, 50);
         s.scale_down().stabilization_window_seconds = 0;
         s.scale_down().select_policy = ScalingPolicySelect::Disabled;
       },
       10},
      // Pods 4 per 60 s with +3 thirty seconds ago: the period started at 10 - 3 = 7, so 7 + 4 = 11.
      {"PeriodCountsEarlierScaleUp",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().policies = {{Policy::Type::Pods, 4, 60}};
         s.state.scale_up_events = {{3, kNow - seconds(30)}};
       },
       11},
      // The same +3 ninety seconds ago is outside the 60 s period: 10 + 4 = 14.
      {"PeriodIgnoresOlderScaleUp",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().policies = {{Policy::Type::Pods, 4, 60}};
         s.state.scale_up_events = {{3, kNow - seconds(90)}};
       },
       14},
      // +6 thirty seconds ago: period start 4, 4 + 4 = 8 < 10, so the limit is the current 10: no change.
      {"PeriodAlreadySpentHolds",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().policies = {{Policy::Type::Pods, 4, 60}};
         s.state.scale_up_events = {{6, kNow - seconds(30)}};
       },
       10},
      // A scale-down of 2 thirty seconds ago raises the period start: 10 + 2 = 12, 12 + 4 = 16.
      {"PeriodCountsScaleDownForScaleUp",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().policies = {{Policy::Type::Pods, 4, 60}};
         s.state.scale_down_events = {{2, kNow - seconds(30)}};
       },
       16},
      // A Pods policy of 2^31 - 1 (the most the API server takes): 10 + (2^31 - 1) passes int32 and wrapped to a
      // negative limit that kept the HPA at 10; it saturates instead, so 80 wanted, max 100: 80.
      {"HugePodsPolicySaturates",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 100;
         s.scale_up().policies = {{Policy::Type::Pods, 2147483647, 60}};
       },
       80},
      // Behavior with max 12: 80 wanted, the policies allow 20, max wins: 12.
      {"BehaviorClampedToMax",
       [](Scenario& s) {
         s.pods(10, 2000);
         s.hpa.max_replicas = 12;
         s.hpa.behavior.emplace();
       },
       12},
  };
  return table;
}

class HpaTable : public ::testing::TestWithParam<std::size_t> {};

TEST_P(HpaTable, DesiredReplicas) {
  const HpaCase& c = cases()[GetParam()];
  Scenario s;
  c.setup(s);
  const HpaDecision decision = s.sync();
  EXPECT_EQ(decision.desired_replicas, c.expected_replicas);
  EXPECT_EQ(decision.rescale, c.expected_replicas != s.target.spec_replicas);
  EXPECT_EQ(s.state.current_replicas, s.target.spec_replicas);
  // When no replica count could be computed upstream leaves status.desiredReplicas as it was.
  if (!has_event(decision, "FailedComputeMetricsReplicas")) {
    EXPECT_EQ(s.state.desired_replicas, c.expected_replicas);
  }
  if (!c.expected_reason.empty()) {
    EXPECT_EQ(decision.reason, c.expected_reason);
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, HpaTable, ::testing::Range<std::size_t>(0, cases().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) { return cases()[info.param].name; });

TEST(HpaTableSize, AtLeastFortyCases) { EXPECT_GE(cases().size(), 40u); }

// --- events, conditions and readings ---------------------------------------------------------------------------

TEST(Hpa, RescaleEventAndConditions) {
  Scenario s;
  s.pods(4, 400);  // 80 % -> 7
  const HpaDecision decision = s.sync();
  ASSERT_EQ(decision.events.size(), 1u);
  EXPECT_FALSE(decision.events[0].warning);
  EXPECT_EQ(decision.events[0].reason, "SuccessfulRescale");
  EXPECT_EQ(decision.events[0].message,
            "New size: 7; reason: cpu resource utilization (percentage of request) above target");
  EXPECT_EQ(condition(s.state, "AbleToScale")->reason, "SucceededRescale");
  EXPECT_EQ(condition(s.state, "ScalingActive")->reason, "ValidMetricFound");
  EXPECT_EQ(condition(s.state, "ScalingLimited")->reason, "DesiredWithinRange");
  EXPECT_FALSE(condition(s.state, "ScalingLimited")->status);
  EXPECT_EQ(s.state.last_scale_time, kNow);
  ASSERT_EQ(decision.metrics.size(), 1u);
  EXPECT_EQ(decision.metrics[0].name, "cpu");
  EXPECT_EQ(decision.metrics[0].current, "80%");
  EXPECT_EQ(decision.metrics[0].target, "50%");
  EXPECT_EQ(decision.metrics[0].proposal, 7);
  EXPECT_EQ(decision.deciding_metric, 0u);
}

TEST(Hpa, ReadingsUseKubectlQuantities) {
  // qps 12.5 per pod against 10: 1.25 -> ceil(5) = 5; external 1500 + 500 = 2000 (-> "2k") against 1000: 2.0
  // -> 8. The external metric decides.
  Scenario s;
  s.pod_values("qps", 12'500);
  s.metrics.external["bytes"] = {1'500'000, 500'000};
  s.hpa.metrics = {pods_metric("qps", "10"), external_metric("bytes", kValue, "1k")};
  const HpaDecision decision = s.sync();
  ASSERT_EQ(decision.metrics.size(), 2u);
  EXPECT_EQ(decision.metrics[0].current, "12500m");
  EXPECT_EQ(decision.metrics[0].target, "10");
  EXPECT_EQ(decision.metrics[0].proposal, 5);
  EXPECT_EQ(decision.metrics[1].current, "2k");
  EXPECT_EQ(decision.metrics[1].target, "1k");
  EXPECT_EQ(decision.deciding_metric, 1u);
  EXPECT_EQ(decision.desired_replicas, 8);
}

TEST(Hpa, LimitedConditions) {
  Scenario s;
  s.pods(4, 400);  // 7 wanted, max 5
  s.hpa.max_replicas = 5;
  s.sync();
  EXPECT_TRUE(condition(s.state, "ScalingLimited")->status);
  EXPECT_EQ(condition(s.state, "ScalingLimited")->reason, "TooManyReplicas");

  Scenario up;
  up.pods(2, 2500);  // 20 wanted, limit 4
  up.sync();
  EXPECT_EQ(condition(up.state, "ScalingLimited")->reason, "ScaleUpLimit");

  Scenario down;
  down.pods(10, 50);  // 2 wanted, Pods 4 per 60 s -> 6
  down.scale_down().stabilization_window_seconds = 0;
  down.scale_down().policies = {{Policy::Type::Pods, 4, 60}};
  down.sync();
  EXPECT_EQ(condition(down.state, "ScalingLimited")->reason, "ScaleDownLimit");
}

TEST(Hpa, PartialFailureWarnsAndStillScalesUp) {
  Scenario s;
  s.pods(4, 400);
  s.metrics.failing.insert("qps");
  s.hpa.metrics = {cpu_utilization(50), pods_metric("qps", "10")};
  const HpaDecision decision = s.sync();
  EXPECT_TRUE(has_event(decision, "FailedGetPodsMetric"));
  EXPECT_FALSE(has_event(decision, "FailedComputeMetricsReplicas"));
  EXPECT_EQ(decision.metrics[1].current, "<unknown>");
  EXPECT_EQ(decision.metrics[1].error,
            "failed to get pods metric value: unable to get metric qps: metrics API unavailable");
  EXPECT_EQ(condition(s.state, "ScalingActive")->reason, "ValidMetricFound");
}

TEST(Hpa, PartialFailureOnScaleDownReportsFirstError) {
  Scenario s;
  s.pods(4, 100);
  s.metrics.failing.insert("cpu");
  s.pod_values("qps", 2'000);
  s.hpa.metrics = {cpu_utilization(50), pods_metric("qps", "10")};
  const HpaDecision decision = s.sync();
  EXPECT_FALSE(decision.rescale);
  ASSERT_EQ(decision.events.size(), 2u);
  EXPECT_EQ(decision.events[0].reason, "FailedGetResourceMetric");
  EXPECT_EQ(decision.events[0].message,
            "failed to get cpu utilization: unable to get metrics for resource cpu: metrics API unavailable");
  EXPECT_EQ(decision.events[1].reason, "FailedComputeMetricsReplicas");
  EXPECT_EQ(
      decision.events[1].message,
      "invalid metrics (1 invalid out of 2), first error is: failed to get cpu resource metric value: failed to "
      "get cpu utilization: unable to get metrics for resource cpu: metrics API unavailable");
  const HpaCondition* active = condition(s.state, "ScalingActive");
  EXPECT_FALSE(active->status);
  EXPECT_EQ(active->reason, "FailedGetResourceMetric");
}

TEST(Hpa, DisabledAtZeroSaysWhy) {
  Scenario s;
  s.pods(0, 0);
  const HpaDecision decision = s.sync();
  EXPECT_FALSE(decision.rescale);
  EXPECT_TRUE(decision.events.empty());
  EXPECT_EQ(condition(s.state, "ScalingActive")->reason, "ScalingDisabled");
  EXPECT_FALSE(condition(s.state, "ScalingActive")->status);
}

TEST(Hpa, DefaultMetricIsCpuAt80Percent) {
  // No metrics: cpu at 80 %. 4 x 480m = 96 % -> 1.2 -> ceil(4.8) = 5. (At the 50 % of the other cases, 1.92 -> 8.)
  Scenario s;
  s.pods(4, 480);
  s.hpa.metrics.clear();
  s.hpa.min_replicas.reset();
  EXPECT_EQ(s.sync().desired_replicas, 5);
  EXPECT_EQ(s.state.current_metrics[0].target, "80%");
}

TEST(Hpa, MinReplicasDefaultsToOne) {
  // 4 x 10m = 2 % -> 0.04 -> ceil(0.16) = 1; min unset means 1.
  Scenario s;
  s.pods(4, 10);
  s.hpa.min_replicas.reset();
  EXPECT_EQ(s.sync().desired_replicas, 1);
}

// --- sequences: the same HpaState across syncs ------------------------------------------------------------------

TEST(HpaSequence, DownscaleWaitsForFiveMinutesWithoutBehavior) {
  // 4 replicas at 20 % want 2. t=0: the first sync remembers 4 -> max(4, 2) = 4. t=60 s: still 4. t=300 s: the
  // cutoff is 0 and a recommendation at 0 is not before it -> 4. t=301 s: both entries at 0 expired -> 2.
  Scenario s;
  s.state = {};
  s.pods(4, 100);
  const Duration start = kNow;
  EXPECT_EQ(s.sync(start).desired_replicas, 4);
  EXPECT_EQ(condition(s.state, "AbleToScale")->reason, "ScaleDownStabilized");
  EXPECT_EQ(s.sync(start + seconds(60)).desired_replicas, 4);
  EXPECT_EQ(s.sync(start + seconds(300)).desired_replicas, 4);
  const HpaDecision last = s.sync(start + seconds(301));
  EXPECT_EQ(last.desired_replicas, 2);
  EXPECT_EQ(last.reason, "All metrics below target");
}

TEST(HpaSequence, ScaleUpIsNotStabilizedButLimited) {
  // 1 pod at 5000m = 1000 % -> 20.0 -> 20; limit max(2, 4) = 4. Then 4 pods at the same load -> 80; limit 8.
  Scenario s;
  s.state = {};
  s.hpa.max_replicas = 100;
  s.pods(1, 5000);
  EXPECT_EQ(s.sync(kNow).desired_replicas, 4);
  s.pods(4, 5000);
  EXPECT_EQ(s.sync(kNow + seconds(15)).desired_replicas, 8);
}

TEST(HpaSequence, BehaviorScaleDownWindow) {
  // scaleDown window 60 s, 10 replicas at 25 % want 5. t=0: the initial 10 is in the window -> 10. t=30 s: 10
  // (from 0) still in the window -> 10. t=61 s: only 5 (at 30 s) is after the cutoff of 1 s -> 5; the default
  // 100 % per 15 s policy allows it.
  Scenario s;
  s.state = {};
  s.pods(10, 125);
  s.scale_down().stabilization_window_seconds = 60;
  EXPECT_EQ(s.sync(kNow).desired_replicas, 10);
  EXPECT_EQ(condition(s.state, "AbleToScale")->reason, "ScaleDownStabilized");
  EXPECT_EQ(s.sync(kNow + seconds(30)).desired_replicas, 10);
  EXPECT_EQ(s.sync(kNow + seconds(61)).desired_replicas, 5);
  ASSERT_EQ(s.state.scale_down_events.size(), 1u);
  EXPECT_EQ(s.state.scale_down_events[0].change, 5);
}

TEST(HpaSequence, BehaviorScaleUpWindow) {
  // scaleUp window 60 s, target 100 %, 2 replicas at 400 % want 8. t=0 and t=30 s: the lowest recommendation in
  // the window is the initial 2 -> 2. t=61 s: only 8 (at 30 s) remains -> 8, limited by the default policies to
  // max(2 + 4, 2 * 2) = 6.
  Scenario s;
  s.state = {};
  s.pods(2, 2000);
  s.hpa.metrics = {cpu_utilization(100)};
  s.scale_up().stabilization_window_seconds = 60;
  EXPECT_EQ(s.sync(kNow).desired_replicas, 2);
  EXPECT_EQ(condition(s.state, "AbleToScale")->reason, "ScaleUpStabilized");
  EXPECT_EQ(s.sync(kNow + seconds(30)).desired_replicas, 2);
  EXPECT_EQ(s.sync(kNow + seconds(61)).desired_replicas, 6);
  EXPECT_EQ(condition(s.state, "ScalingLimited")->reason, "ScaleUpLimit");
}

TEST(HpaSequence, PolicyPeriodSpansSyncs) {
  // Pods 2 per 60 s, 2 replicas far over target. t=0: 2 + 2 = 4. t=15 s (4 pods): the period began at 4 - 2 = 2,
  // so 2 + 2 = 4 again: no change. t=61 s: the event at 0 is out of the period: 4 + 2 = 6, and the outdated event
  // is recycled.
  Scenario s;
  s.state = {};
  s.hpa.max_replicas = 100;
  s.pods(2, 2000);
  s.scale_up().policies = {{Policy::Type::Pods, 2, 60}};
  EXPECT_EQ(s.sync(kNow).desired_replicas, 4);
  s.pods(4, 2000);
  EXPECT_FALSE(s.sync(kNow + seconds(15)).rescale);
  EXPECT_EQ(s.sync(kNow + seconds(61)).desired_replicas, 6);
  ASSERT_EQ(s.state.scale_up_events.size(), 1u);
  EXPECT_EQ(s.state.scale_up_events[0].change, 2);
  EXPECT_EQ(s.state.scale_up_events[0].at, kNow + seconds(61));
}

TEST(HpaSequence, NoScaleEventsWithoutBehavior) {
  Scenario s;
  s.pods(4, 400);
  EXPECT_TRUE(s.sync().rescale);
  EXPECT_TRUE(s.state.scale_up_events.empty());
}

}  // namespace
}  // namespace scalewright::workloads
