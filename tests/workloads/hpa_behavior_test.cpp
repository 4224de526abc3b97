// The HPA controller's sync between the metrics and the new scale: min and max, the scale-up limit without behavior,
// behavior's policies and selectPolicy, and (across syncs) stabilization windows and policy periods. Defaults:
// hpa_fixtures.h.
#include <gtest/gtest.h>

#include "hpa_fixtures.h"

namespace scalewright::workloads::hpa_test {

const std::vector<HpaCase>& scaling_cases() {
  static const std::vector<HpaCase> table = {
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

namespace {

// --- sequences: the same HpaState across syncs ------------------------------------------------------------------

TEST(HpaSequence, DownscaleWaitsForFiveMinutesWithoutBehavior) {
  // 4 replicas at 20 % want 2. t=0: the first sync remembers 4 -> max(4, 2) = 4. t=60 s: still 4. t=300 s: the
  // cutoff is 0 and a recommendation at 0 is not before it -> 4. t=301 s: both entries at 0 expired -> 2.
  Scenario s;
  s.state = {};
  s.pods(4, 100);
  const Instant start = kNow;
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
}  // namespace scalewright::workloads::hpa_test
