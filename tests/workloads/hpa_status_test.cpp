// What the HPA controller's sync reports: its events, the AbleToScale / ScalingActive / ScalingLimited conditions,
// the metric readings as kubectl shows them, and the defaults (cpu at 80 %, min 1). Defaults: hpa_fixtures.h.
#include <gtest/gtest.h>

#include "hpa_fixtures.h"

namespace scalewright::workloads::hpa_test {
namespace {

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

}  // namespace
}  // namespace scalewright::workloads::hpa_test
