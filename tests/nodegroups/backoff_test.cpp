#include "nodegroups/backoff.h"

#include <gtest/gtest.h>

#include "units.h"

namespace scalewright::nodegroups {
namespace {

NodeGroupBackoff defaults() { return NodeGroupBackoff(AutoscalerOptions{}); }

TEST(NodeGroupBackoff, FirstFailureBacksOffFiveMinutes) {
  NodeGroupBackoff backoff = defaults();
  EXPECT_FALSE(backoff.is_backed_off("ng-a", kStart));
  EXPECT_EQ(backoff.record_failure("ng-a", kStart, "timeout"), kStart + 5 * kMinute);
  EXPECT_TRUE(backoff.is_backed_off("ng-a", kStart + 5 * kMinute - Duration{1}));
  // Backed off while now < until: at exactly 5 min the group may scale again.
  EXPECT_FALSE(backoff.is_backed_off("ng-a", kStart + 5 * kMinute));
  EXPECT_FALSE(backoff.is_backed_off("ng-b", kStart));
  EXPECT_EQ(backoff.entry("ng-a")->error_code, "timeout");
}

TEST(NodeGroupBackoff, DoublesAfterEachLaterFailureUpToThirtyMinutes) {
  NodeGroupBackoff backoff = defaults();
  backoff.record_failure("ng-a", kStart);                                                   // 5 min, until 5
  EXPECT_EQ(backoff.record_failure("ng-a", kStart + 6 * kMinute), kStart + 16 * kMinute);   // 10 min, until 16
  EXPECT_EQ(backoff.record_failure("ng-a", kStart + 20 * kMinute), kStart + 40 * kMinute);  // 20 min, until 40
  EXPECT_EQ(backoff.record_failure("ng-a", kStart + 41 * kMinute), kStart + 71 * kMinute);  // 40 capped at 30, until 71
  EXPECT_EQ(backoff.entry("ng-a")->duration, 30 * kMinute);
  EXPECT_EQ(backoff.record_failure("ng-a", kStart + 72 * kMinute), kStart + 102 * kMinute);  // stays at 30
}

TEST(NodeGroupBackoff, FailureDuringBackoffKeepsTheDuration) {
  NodeGroupBackoff backoff = defaults();
  backoff.record_failure("ng-a", kStart);
  backoff.record_failure("ng-a", kStart + 6 * kMinute);  // 10 min, until 16
  // Two scale-ups failing together must not double twice: 10 min again, from the new failure.
  EXPECT_EQ(backoff.record_failure("ng-a", kStart + 10 * kMinute), kStart + 20 * kMinute);
  EXPECT_EQ(backoff.entry("ng-a")->duration, 10 * kMinute);
}

TEST(NodeGroupBackoff, ResetsAfterThreeHoursWithoutFailure) {
  NodeGroupBackoff backoff = defaults();
  backoff.record_failure("ng-a", kStart);
  backoff.record_failure("ng-a", kStart + 6 * kMinute);  // 10 min
  // Exactly 3 h after the last failure the history still counts (upstream compares strictly): 20 min.
  EXPECT_EQ(backoff.record_failure("ng-a", kStart + 6 * kMinute + 3 * kHour) - (kStart + 6 * kMinute + 3 * kHour),
            20 * kMinute);
  // 3 h and 1 ms later it is forgotten: back to 5 min.
  const Instant later = kStart + 6 * kMinute + 6 * kHour + Duration{1};
  EXPECT_EQ(backoff.record_failure("ng-a", later) - later, 5 * kMinute);
}

TEST(NodeGroupBackoff, RemoveStaleAndSuccessForget) {
  NodeGroupBackoff backoff = defaults();
  backoff.record_failure("ng-a", kStart);
  backoff.record_failure("ng-b", kStart + 2 * kHour);
  backoff.remove_stale(kStart + 3 * kHour + Duration{1});
  EXPECT_FALSE(backoff.entry("ng-a").has_value());
  EXPECT_TRUE(backoff.entry("ng-b").has_value());
  backoff.record_success("ng-b");
  EXPECT_FALSE(backoff.entry("ng-b").has_value());
  EXPECT_FALSE(backoff.is_backed_off("ng-b", kStart + 2 * kHour));
}

}  // namespace
}  // namespace scalewright::nodegroups
