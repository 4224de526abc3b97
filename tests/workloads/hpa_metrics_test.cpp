// The HPA controller's sync, metric by metric: the tolerance, missing and unready pods, and what Resource,
// ContainerResource, Pods, Object and External metrics propose, alone and together. This file also runs the whole
// table (HpaTable), these cases followed by hpa_behavior_test.cpp's. Defaults: hpa_fixtures.h.
#include <gtest/gtest.h>

#include "hpa_fixtures.h"

namespace scalewright::workloads::hpa_test {

const std::vector<HpaCase>& metric_cases() {
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
  };
  return table;
}

namespace {

// The whole table: the metric cases above, then the scaling cases of hpa_behavior_test.cpp.
const std::vector<HpaCase>& cases() {
  static const std::vector<HpaCase> table = [] {
    std::vector<HpaCase> all = metric_cases();
    all.insert(all.end(), scaling_cases().begin(), scaling_cases().end());
    return all;
  }();
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

}  // namespace
}  // namespace scalewright::workloads::hpa_test
