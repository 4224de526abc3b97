// Hand-computed cases for the HPA replica calculation. Unless a test says otherwise: now = 10 min, every pod
// started at 0 and has been Ready since 0 (well past the 5 min cpu initialization period), one container
// requesting 500m, samples taken at `now` over a 60 s window, tolerance 0.1.
#include "workloads/replica_calculator.h"

#include <gtest/gtest.h>

namespace scalewright::workloads {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

constexpr Instant kNow{minutes(10)};

HpaPod pod(const std::string& name, std::int64_t request = 500) {
  HpaPod p;
  p.name = name;
  p.ready = true;
  p.start_time = Instant{};
  p.containers.push_back({"app", {{"cpu", request}, {"memory", request}}});
  return p;
}

PodMetricSample sample(std::int64_t milli) { return {milli, kNow, seconds(60)}; }

ResourceReplicasInput utilization_input(std::int32_t current, std::int32_t target_percent) {
  ResourceReplicasInput in;
  in.current_replicas = current;
  in.target.type = ResourceTarget::Type::Utilization;
  in.target.average_utilization = target_percent;
  in.now = kNow;
  return in;
}

// Adds a ready pod with a sample.
void add(ResourceReplicasInput& in, const std::string& name, std::int64_t usage, std::int64_t request = 500) {
  in.pods.push_back(pod(name, request));
  in.metrics[name] = sample(usage);
}

ResourceReplicas run(const ResourceReplicasInput& in, const ReplicaCalculatorConfig& config = {}) {
  auto r = calculate_resource_replicas(in, config);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? *r : ResourceReplicas{};
}

TEST(ReplicaCalculator, ScalesUp) {
  // 3 x 200m of 500m = 600/1500 = 40 %; target 20 % -> ratio 2.0; ceil(2.0 * 3) = 6.
  auto in = utilization_input(3, 20);
  for (const char* n : {"a", "b", "c"}) add(in, n, 200);
  const auto r = run(in);
  EXPECT_EQ(r.desired_replicas, 6);
  EXPECT_EQ(r.utilization_percent, 40);
  EXPECT_EQ(r.raw_average_milli, 200);
}

TEST(ReplicaCalculator, ScalesDown) {
  // 4 x 100m of 500m = 20 %; target 50 % -> ratio 0.4; ceil(0.4 * 4) = ceil(1.6) = 2.
  auto in = utilization_input(4, 50);
  for (const char* n : {"a", "b", "c", "d"}) add(in, n, 100);
  const auto r = run(in);
  EXPECT_EQ(r.desired_replicas, 2);
  EXPECT_EQ(r.utilization_percent, 20);
}

TEST(ReplicaCalculator, AUtilizationBeyondInt32SaturatesAndStillScalesUp) {
  // 1 pod requesting 10m uses 10^9 m (10^6 requests/s at 1 cpu each): 10^9 x 100 / 10 = 10^10 %, beyond int32.
  // Narrowed as upstream does it wraps to 1410065408 %, and 4 x that to a negative number that scaled down; here
  // the status saturates at 2147483647 % and the ratio keeps the whole 10^10 / 1: ceil(10^10 x 1) saturates the
  // replicas at 2147483647 (the HPA's maxReplicas and scale-up limit apply after).
  auto in = utilization_input(1, 1);
  add(in, "a", 1'000'000'000, 10);
  const auto r = run(in);
  EXPECT_EQ(r.utilization_percent, 2147483647);
  EXPECT_EQ(r.desired_replicas, 2147483647);
}

TEST(ReplicaCalculator, UsageSummedBeyondInt64Saturates) {
  // Two pods each at 2^62 m (the largest a quantity holds is 2^63 - 1): the sum and the x 100 saturate at int64's
  // maximum rather than wrapping negative, and the HPA still scales up.
  auto in = utilization_input(2, 50);
  add(in, "a", std::int64_t{1} << 62, 500);
  add(in, "b", std::int64_t{1} << 62, 500);
  const auto r = run(in);
  EXPECT_EQ(r.utilization_percent, 2147483647);
  EXPECT_EQ(r.desired_replicas, 2147483647);
}

TEST(ReplicaCalculator, WithinToleranceKeepsCurrent) {
  // 3 x 270m of 500m = 54 %; target 50 % -> ratio 1.08; |1 - 1.08| <= 0.1 -> stay at 3.
  auto in = utilization_input(3, 50);
  for (const char* n : {"a", "b", "c"}) add(in, n, 270);
  const auto r = run(in);
  EXPECT_EQ(r.desired_replicas, 3);
  EXPECT_EQ(r.utilization_percent, 54);
}

TEST(ReplicaCalculator, CustomTolerance) {
  // Same 54 % against 50 %: ratio 1.08 > 1 + 0.05 -> ceil(1.08 * 3) = ceil(3.24) = 4.
  auto in = utilization_input(3, 50);
  for (const char* n : {"a", "b", "c"}) add(in, n, 270);
  ReplicaCalculatorConfig config;
  config.tolerance = 0.05;
  EXPECT_EQ(run(in, config).desired_replicas, 4);
}

TEST(ReplicaCalculator, UtilizationTruncatesToWholePercent) {
  // (100m + 101m) / (100m + 100m) = 100.5 % -> int 100 %; target 50 % -> ratio 2.0 -> ceil(2.0 * 2) = 4.
  // (Untruncated, 2.01 * 2 = 4.02 would give 5.) Raw average = 201 / 2 = 100 (integer division).
  auto in = utilization_input(2, 50);
  add(in, "a", 100, 100);
  add(in, "b", 101, 100);
  const auto r = run(in);
  EXPECT_EQ(r.utilization_percent, 100);
  EXPECT_EQ(r.raw_average_milli, 100);
  EXPECT_EQ(r.desired_replicas, 4);
}

TEST(ReplicaCalculator, UnreadyPodsCountAsZeroOnScaleUp) {
  // Ready: 2 x 500m of 500m = 100 %; target 50 % -> ratio 2.0 (alone: ceil(2.0 * 2) = 4).
  // Unready pod (started 1 min ago, not Ready) requests 1000m and counts as 0m: 1000 / 2000 = 50 % -> ratio
  // 1.0, within tolerance -> stay at 3.
  auto in = utilization_input(3, 50);
  add(in, "a", 500);
  add(in, "b", 500);
  HpaPod fresh = pod("fresh", 1000);
  fresh.start_time = kNow - minutes(1);
  fresh.ready = false;
  fresh.ready_last_transition = kNow - minutes(1);
  in.pods.push_back(fresh);
  in.metrics["fresh"] = sample(900);
  const auto r = run(in);
  EXPECT_EQ(r.desired_replicas, 3);
  EXPECT_EQ(r.utilization_percent, 100);
}

TEST(ReplicaCalculator, UnreadySampleDroppedOnScaleDown) {
  // Ready: 100m of 500m = 20 %; target 50 % -> ratio 0.4 -> ceil(0.4 * 1) = 1. The fresh pod (Ready only 50 s,
  // less than its 60 s window) has a 500m sample that is dropped: counted, it would make 600/1000 = 60 %.
  auto in = utilization_input(2, 50);
  add(in, "old", 100);
  HpaPod fresh = pod("fresh");
  fresh.start_time = kNow - minutes(1);
  fresh.ready_last_transition = kNow - seconds(50);
  in.pods.push_back(fresh);
  in.metrics["fresh"] = sample(500);
  EXPECT_EQ(run(in).desired_replicas, 1);
}

TEST(ReplicaCalculator, FreshPodReadyForAWholeWindowCounts) {
  // Started 4 min ago (inside 5 min), Ready for 2 min >= 60 s window: trusted. (100 + 500) / 1000 = 60 %;
  // target 50 % -> ratio 1.2 -> ceil(1.2 * 2) = ceil(2.4) = 3.
  auto in = utilization_input(2, 50);
  add(in, "old", 100);
  HpaPod fresh = pod("fresh");
  fresh.start_time = kNow - minutes(4);
  fresh.ready_last_transition = kNow - minutes(2);
  in.pods.push_back(fresh);
  in.metrics["fresh"] = sample(500);
  EXPECT_EQ(run(in).desired_replicas, 3);
}

TEST(ReplicaCalculator, NeverReadyAfterInitializationIsUnready) {
  // Both pods started at 0 and are not Ready now. "never": last transition at 10 s < 30 s readiness delay, so
  // it never became ready -> dropped. "lost": became unready at 60 s, after having been ready -> counted.
  // Counted: (100 + 100) / 1000 = 20 %; target 50 % -> 0.4 -> ceil(0.4 * 2) = 1.
  auto in = utilization_input(3, 50);
  HpaPod never = pod("never");
  never.ready = false;
  never.ready_last_transition = Instant(seconds(10));
  in.pods.push_back(never);
  in.metrics["never"] = sample(500);
  HpaPod lost = pod("lost");
  lost.ready = false;
  lost.ready_last_transition = Instant(seconds(60));
  in.pods.push_back(lost);
  in.metrics["lost"] = sample(100);
  add(in, "ok", 100);
  EXPECT_EQ(run(in).desired_replicas, 1);
}

TEST(ReplicaCalculator, ReadinessRulesOnlyForCpu) {
  // For memory the "never ready" pod's 500 counts: (500 + 100) / 1000 = 60 % -> 1.2 -> ceil(2.4) = 3.
  auto in = utilization_input(2, 50);
  in.resource = "memory";
  HpaPod never = pod("never");
  never.ready = false;
  never.ready_last_transition = Instant(seconds(10));
  in.pods.push_back(never);
  in.metrics["never"] = sample(500);
  add(in, "ok", 100);
  EXPECT_EQ(run(in).desired_replicas, 3);
}

TEST(ReplicaCalculator, MissingMetricsFullOnScaleDown) {
  // Measured: 4 x 100m of 500m = 20 %; target 50 % -> 0.4 (alone: ceil(1.6) = 2). The missing pod counts as
  // 500m: 900 / 2500 = 36 % -> 0.72 -> ceil(0.72 * 5) = ceil(3.6) = 4.
  auto in = utilization_input(5, 50);
  for (const char* n : {"a", "b", "c", "d"}) add(in, n, 100);
  in.pods.push_back(pod("missing"));
  const auto r = run(in);
  EXPECT_EQ(r.desired_replicas, 4);
  EXPECT_EQ(r.utilization_percent, 20);
}

TEST(ReplicaCalculator, MissingMetricsAtTargetAbove100OnScaleDown) {
  // Target 150 %: 100m of 500m = 20 % -> 0.1333. The missing pod counts as 150 % of 500m = 750m:
  // 850 / 1000 = 85 % -> 0.5667 -> ceil(1.133) = 2 (at 100 % it would be 60 % -> 0.4 -> 1).
  auto in = utilization_input(3, 150);
  add(in, "a", 100);
  in.pods.push_back(pod("missing"));
  EXPECT_EQ(run(in).desired_replicas, 2);
}

TEST(ReplicaCalculator, MissingMetricsZeroOnScaleUp) {
  // Measured: 3 x 500m of 500m = 100 %; target 50 % -> 2.0 (alone: 6). The missing pod requests 1000m and counts
  // as 0: 1500 / 2500 = 60 % -> 1.2 -> ceil(1.2 * 4) = ceil(4.8) = 5.
  auto in = utilization_input(4, 50);
  for (const char* n : {"a", "b", "c"}) add(in, n, 500);
  in.pods.push_back(pod("missing", 1000));
  EXPECT_EQ(run(in).desired_replicas, 5);
}

TEST(ReplicaCalculator, DirectionFlipKeepsCurrent) {
  // Measured: 2 x 300m of 500m = 60 %; target 50 % -> 1.2, a scale-up. The missing pod as 0: 600 / 1500 = 40 %
  // -> 0.8, a scale-down -> no change, stay at 3.
  auto in = utilization_input(3, 50);
  add(in, "a", 300);
  add(in, "b", 300);
  in.pods.push_back(pod("missing"));
  EXPECT_EQ(run(in).desired_replicas, 3);
}

TEST(ReplicaCalculator, FailedAndDeletingPodsIgnored) {
  // Only a and b count: 2 x 200m of 500m = 40 %; target 50 % -> 0.8 -> ceil(0.8 * 2) = ceil(1.6) = 2. Had the
  // deleting pod (no sample) been "missing", it would be filled with 500m: 900 / 1500 = 60 % -> 1.2, a direction
  // flip, and the answer would stay 4. The failed pod's 0m sample is dropped too.
  auto in = utilization_input(4, 50);
  add(in, "a", 200);
  add(in, "b", 200);
  HpaPod failed = pod("failed");
  failed.phase = PodPhase::Failed;
  in.pods.push_back(failed);
  in.metrics["failed"] = sample(0);
  HpaPod deleting = pod("deleting");
  deleting.deleting = true;
  in.pods.push_back(deleting);  // no sample: would otherwise be "missing"
  const auto r = run(in);
  EXPECT_EQ(r.desired_replicas, 2);
  EXPECT_EQ(r.utilization_percent, 40);
}

TEST(ReplicaCalculator, MissingRequestIsAnError) {
  auto in = utilization_input(1, 50);
  add(in, "a", 100);
  in.pods[0].containers.push_back({"sidecar", {}});
  const auto r = calculate_resource_replicas(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "missing request for cpu in container sidecar of Pod a");
}

TEST(ReplicaCalculator, NoMetricsIsAnError) {
  auto in = utilization_input(1, 50);
  in.pods.push_back(pod("a"));
  const auto r = calculate_resource_replicas(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "unable to get metrics for resource cpu: no metrics returned from resource metrics API");
}

TEST(ReplicaCalculator, OnlyUnreadySamplesIsAnError) {
  auto in = utilization_input(1, 50);
  HpaPod p = pod("a");
  p.phase = PodPhase::Pending;
  in.pods.push_back(p);
  in.metrics["a"] = sample(100);
  const auto r = calculate_resource_replicas(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "did not receive metrics for targeted pods (pods might be unready)");
}

TEST(ReplicaCalculator, AverageValueScalesUp) {
  // (300 + 500 + 700) / 3 = 500m per pod; target 200m -> ratio 2.5 -> ceil(2.5 * 3) = ceil(7.5) = 8.
  // Requests do not matter: the container without one is fine.
  ResourceReplicasInput in;
  in.current_replicas = 3;
  in.target.type = ResourceTarget::Type::AverageValue;
  in.target.average_value_milli = 200;
  in.now = kNow;
  add(in, "a", 300);
  add(in, "b", 500);
  add(in, "c", 700);
  in.pods[0].containers.push_back({"sidecar", {}});
  const auto r = run(in);
  EXPECT_EQ(r.desired_replicas, 8);
  EXPECT_EQ(r.raw_average_milli, 500);
}

TEST(ReplicaCalculator, AverageValueMissingAtTargetOnScaleDown) {
  // (100 + 100) / 2 = 100m; target 200m -> 0.5. Missing pod counts as 200m: 400 / 3 = 133 -> 0.665 ->
  // ceil(0.665 * 3) = ceil(1.995) = 2.
  ResourceReplicasInput in;
  in.current_replicas = 3;
  in.target.type = ResourceTarget::Type::AverageValue;
  in.target.average_value_milli = 200;
  in.now = kNow;
  add(in, "a", 100);
  add(in, "b", 100);
  in.pods.push_back(pod("missing"));
  const auto r = run(in);
  EXPECT_EQ(r.desired_replicas, 2);
  EXPECT_EQ(r.raw_average_milli, 100);
}

TEST(ReplicaCalculator, ToleranceIsAnInterval) {
  // 4 x 275m = 55 %; 55 / 50 = 1.1 <= 1 + 0.1 (the same double), so within: stay at 4. (|1 - 1.1| is
  // 0.10000000000000009 in doubles, which an absolute-value test would call outside and scale to 5.)
  auto in = utilization_input(4, 50);
  for (const char* n : {"a", "b", "c", "d"}) add(in, n, 275);
  EXPECT_EQ(run(in).desired_replicas, 4);
}

TEST(ReplicaCalculator, PerDirectionTolerances) {
  // 10 x 220m = 44 % -> 0.88. Scale-down tolerance 0.2 keeps 10; scale-up tolerance 0 does not matter here.
  auto in = utilization_input(10, 50);
  for (int i = 0; i < 10; ++i) add(in, "p" + std::to_string(i), 220);
  in.tolerances = Tolerances{0.2, 0.0};
  EXPECT_EQ(run(in).desired_replicas, 10);
  // With the default 0.1: ceil(0.88 * 10) = 9.
  in.tolerances.reset();
  EXPECT_EQ(run(in).desired_replicas, 9);
}

TEST(ReplicaCalculator, AverageValueAtTargetWithMissingPodHolds) {
  // 3 pods at exactly the 200m target, one missing: ratio 1.0, so the missing pod is not filled in (upstream fills
  // only below or above 1) and the ratio stays 1: stay at 4. Filling it with 0 would give 0.75 -> 3.
  ResourceReplicasInput in;
  in.current_replicas = 4;
  in.target.type = ResourceTarget::Type::AverageValue;
  in.target.average_value_milli = 200;
  in.now = kNow;
  add(in, "a", 200);
  add(in, "b", 200);
  add(in, "c", 200);
  in.pods.push_back(pod("missing"));
  EXPECT_EQ(run(in).desired_replicas, 4);
}

TEST(ReplicaCalculator, ContainerRequestOnly) {
  // Container "app" requests 500m of the pod's 1000m; its 400m is 80 % -> 1.6 -> ceil(1.6 * 2) = 4.
  auto in = utilization_input(2, 50);
  add(in, "a", 400);
  add(in, "b", 400);
  for (HpaPod& p : in.pods) p.containers.push_back({"sidecar", {{"cpu", 500}, {"memory", 500}}});
  in.container = "app";
  const auto r = run(in);
  EXPECT_EQ(r.utilization_percent, 80);
  EXPECT_EQ(r.desired_replicas, 4);
}

TEST(ReplicaCalculator, ContainerNotFoundIsAnError) {
  auto in = utilization_input(1, 50);
  add(in, "a", 100);
  in.container = "web";
  const auto r = calculate_resource_replicas(in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "container web not found in Pod a");
}

}  // namespace
}  // namespace scalewright::workloads
