// An instant of the engine's clock is a type of its own: its arithmetic with durations, and how it prints.
#include "api/instant.h"

#include <gtest/gtest.h>

#include <concepts>

namespace scalewright {
namespace {

template <typename A, typename B>
concept Addable = requires(A a, B b) {
  a + b;
};

// Two instants do not add up to anything; their difference is a length of time, and an instant moved by one is an
// instant.
static_assert(!Addable<Instant, Instant>);
static_assert(Addable<Instant, Duration> && Addable<Duration, Instant>);
static_assert(std::same_as<decltype(Instant{} - Instant{}), Duration>);
static_assert(std::same_as<decltype(Instant{} + Duration{}), Instant>);
static_assert(std::same_as<decltype(Instant{} - Duration{}), Instant>);

TEST(Instant, DifferenceIsADurationAndADurationMovesAnInstant) {
  const Instant launched{Duration(45'000)};  // 45 s into the run
  const Instant ready = launched + Duration(27'500);
  EXPECT_EQ(ready - launched, Duration(27'500));
  EXPECT_EQ(since_start(ready), Duration(72'500));
  EXPECT_EQ(ready - Duration(72'500), Instant{});
  EXPECT_LT(launched, ready);
}

TEST(Instant, PrintsAsTheTimeSinceTheStartOfTheRun) {
  EXPECT_EQ(format_time(Instant{}), "t=0s");
  EXPECT_EQ(format_time(Instant{Duration(72'500)}), "t=1m12.5s");
  EXPECT_EQ(format_time(Instant{Duration(2 * 3'600'000)}), "t=2h0m0s");
}

}  // namespace
}  // namespace scalewright
