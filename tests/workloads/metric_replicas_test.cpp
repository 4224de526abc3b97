// Hand-computed cases for the Object and External metric calculations (metric_replicas.h). Tolerance 0.1 both ways
// unless a test says otherwise.
#include "workloads/metric_replicas.h"

#include <gtest/gtest.h>

#include <limits>

namespace scalewright::workloads {
namespace {

HpaPod pod(const std::string& name, bool ready, PodPhase phase = PodPhase::Running) {
  HpaPod p;
  p.name = name;
  p.ready = ready;
  p.phase = phase;
  p.start_time = Instant{};
  return p;
}

const Tolerances kDefault{0.1, 0.1};

TEST(MetricReplicas, ReadyPodsAreRunningAndReady) {
  // Running+Ready, Running+unready, Pending+Ready, Running without a Ready condition: 1 ready.
  HpaPod no_condition = pod("d", true);
  no_condition.ready.reset();
  auto count = ready_pod_count({pod("a", true), pod("b", false), pod("c", true, PodPhase::Pending), no_condition});
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 1);
}

TEST(MetricReplicas, ReadyPodsWithoutPodsIsAnError) {
  auto count = ready_pod_count({});
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.error().message, "no pods returned by selector while calculating replica count");
}

TEST(MetricReplicas, ValueScalesReadyPods) {
  // 250 / 100 = 2.5; 2 ready pods of 3; ceil(2.5 * 2) = 5.
  auto r = calculate_value_replicas(3, 250'000, 100'000, {pod("a", true), pod("b", true), pod("c", false)}, kDefault);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->desired_replicas, 5);
  EXPECT_EQ(r->usage_milli, 250'000);
}

TEST(MetricReplicas, ValueWithinToleranceKeepsCurrent) {
  // 108 / 100 = 1.08 within 0.1; no pods are needed to say so.
  auto r = calculate_value_replicas(3, 108'000, 100'000, {}, kDefault);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->desired_replicas, 3);
}

TEST(MetricReplicas, ValueWithNoPodsIsAnError) {
  auto r = calculate_value_replicas(3, 300'000, 100'000, {}, kDefault);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "unable to calculate ready pods: no pods returned by selector while calculating replica count");
}

TEST(MetricReplicas, ValueFromZeroIgnoresToleranceAndPods) {
  // 1.05 would be within tolerance, but from zero the answer is ceil(1.05) = 2.
  auto r = calculate_value_replicas(0, 105'000, 100'000, {}, kDefault);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->desired_replicas, 2);
}

TEST(MetricReplicas, ValuePerDirectionTolerance) {
  // 0.85 is within a scale-down tolerance of 0.2, so 4 stays 4 even with a scale-up tolerance of 0.
  auto r = calculate_value_replicas(4, 85'000, 100'000, {pod("a", true)}, Tolerances{0.2, 0.0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->desired_replicas, 4);
  // 1.01 is outside a scale-up tolerance of 0: ceil(1.01 * 1 ready pod) = 2.
  r = calculate_value_replicas(4, 101'000, 100'000, {pod("a", true)}, Tolerances{0.2, 0.0});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->desired_replicas, 2);
}

TEST(MetricReplicas, PerPodScalesTotal) {
  // 1000 / (100 * 4) = 2.5, outside; ceil(1000 / 100) = 10. Per-pod usage ceil(1000 / 4) = 250.
  const ValueReplicas r = calculate_per_pod_replicas(4, 1'000'000, 100'000, kDefault);
  EXPECT_EQ(r.desired_replicas, 10);
  EXPECT_EQ(r.usage_milli, 250'000);
}

TEST(MetricReplicas, PerPodWithinToleranceKeepsStatusReplicas) {
  // 430 / (100 * 4) = 1.075, within: 4. Per-pod ceil(430000 / 4) = 107500m.
  const ValueReplicas r = calculate_per_pod_replicas(4, 430'000, 100'000, kDefault);
  EXPECT_EQ(r.desired_replicas, 4);
  EXPECT_EQ(r.usage_milli, 107'500);
}

TEST(MetricReplicas, PerPodRoundsUsageUp) {
  // 1001m over 3 replicas: ceil(333.67) = 334m; 1001 / (500 * 3) = 0.667, outside; ceil(1001 / 500) = 3 -> 3.
  const ValueReplicas r = calculate_per_pod_replicas(3, 1001, 500, kDefault);
  EXPECT_EQ(r.desired_replicas, 3);
  EXPECT_EQ(r.usage_milli, 334);
}

TEST(MetricReplicas, SeriesSumSaturates) {
  EXPECT_EQ(sum_series({1, 2, 3}), 6);
  EXPECT_EQ(sum_series({std::numeric_limits<std::int64_t>::max(), 1}), std::numeric_limits<std::int64_t>::max());
}

}  // namespace
}  // namespace scalewright::workloads
