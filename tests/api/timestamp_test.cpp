// RFC 3339 instants as the API server writes them (metav1.MicroTime), to the microsecond and back.
#include "api/timestamp.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

namespace scalewright {
namespace {

using std::chrono::system_clock;

TEST(MicroTime, FormatParseRoundTrip) {
  auto parsed = parse_micro_time("2026-11-22T10:31:41.123456Z");
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(format_micro_time(*parsed), "2026-11-22T10:31:41.123456Z");
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::microseconds>(parsed->time_since_epoch()).count(),
            1795343501123456LL);  // date -u -d 2026-11-22T10:31:41Z +%s: 1795343501
  // Any time truncated to microseconds survives the round trip.
  auto now = std::chrono::time_point_cast<std::chrono::microseconds>(system_clock::now());
  EXPECT_EQ(parse_micro_time(format_micro_time(now)), system_clock::time_point(now));
  // What else RFC 3339 allows; what it does not.
  EXPECT_EQ(parse_micro_time("2026-11-22T10:31:41Z"), parse_micro_time("2026-11-22T10:31:41.000000Z"));
  EXPECT_EQ(parse_micro_time("2026-11-22T11:31:41.5+01:00"), parse_micro_time("2026-11-22T10:31:41.500000Z"));
  EXPECT_EQ(parse_micro_time("2026-11-22T10:31:41.123456789Z"), parse_micro_time("2026-11-22T10:31:41.123456Z"));
  EXPECT_EQ(parse_micro_time("2026-11-22T10:31:41"), std::nullopt);
  EXPECT_EQ(parse_micro_time("2026-11-22 10:31:41Z"), std::nullopt);
  EXPECT_EQ(parse_micro_time("2026-13-22T10:31:41Z"), std::nullopt);
  EXPECT_EQ(parse_micro_time("2026-11-22T10:31:41.Z"), std::nullopt);
  EXPECT_EQ(parse_micro_time(""), std::nullopt);
}

}  // namespace
}  // namespace scalewright
