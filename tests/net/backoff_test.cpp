// Back-off schedules with both kinds of jitter, at chosen random numbers so that every wait is checkable by hand.
#include "net/backoff.h"

#include <gtest/gtest.h>

#include <chrono>

namespace scalewright::net {
namespace {

using std::chrono::milliseconds;

TEST(Backoff, AddedJitterLengthensAnExponentialCappedSchedule) {
  const Backoff backoff{milliseconds(800), milliseconds(30'000), 2.0, Backoff::Jitter::Added, 1.0};
  EXPECT_EQ(backoff.delay(1, 0.0), milliseconds(800));
  EXPECT_EQ(backoff.delay(2, 0.0), milliseconds(1600));
  EXPECT_EQ(backoff.delay(6, 0.0), milliseconds(25'600));   // 800 * 2^5
  EXPECT_EQ(backoff.delay(7, 0.0), milliseconds(30'000));   // 51.2 s capped
  EXPECT_EQ(backoff.delay(1, 0.25), milliseconds(1000));    // 800 * 1.25
  EXPECT_EQ(backoff.delay(7, 0.5), milliseconds(45'000));   // jitter applies after the cap
  EXPECT_EQ(backoff.delay(0, 0.0), milliseconds(800));      // no failure yet counts as the first
  const Backoff half{milliseconds(800), milliseconds(30'000), 2.0, Backoff::Jitter::Added, 0.5};
  EXPECT_EQ(half.delay(2, 0.5), milliseconds(2000));        // 1600 * (1 + 0.5 * 0.5)
}

TEST(Backoff, FullJitterWaitsAnywhereBelowTheSchedule) {
  // The AWS SDKs' standard mode: up to 1 s, doubling, capped at 20 s.
  const Backoff backoff{milliseconds(1000), milliseconds(20'000), 2.0, Backoff::Jitter::Full, 1.0};
  EXPECT_EQ(backoff.delay(1, 0.0), milliseconds(0));
  EXPECT_EQ(backoff.delay(1, 0.5), milliseconds(500));
  EXPECT_EQ(backoff.delay(3, 0.75), milliseconds(3000));    // 4 s * 0.75
  EXPECT_EQ(backoff.delay(6, 0.5), milliseconds(10'000));   // 32 s capped to 20 s, then halved
}

TEST(Backoff, AGentlerFactorGrowsMoreSlowly) {
  const Backoff backoff{milliseconds(100), milliseconds(1000), 1.5, Backoff::Jitter::Added, 0.0};
  EXPECT_EQ(backoff.delay(2, 0.9), milliseconds(150));
  EXPECT_EQ(backoff.delay(3, 0.9), milliseconds(225));
  EXPECT_EQ(backoff.delay(7, 0.9), milliseconds(1000));     // 1139.06 capped
}

}  // namespace
}  // namespace scalewright::net
