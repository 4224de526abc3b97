#pragma once
// Dates a reader can check on a calendar, for the tests of cron schedules (KEDA's cron trigger, NodePool budget
// windows): 2024-03-04 is a Monday, 2024-03-05 a Tuesday, 2024-03-08 a Friday, 2024-03-09 a Saturday. UTC.
#include <chrono>
#include <string_view>

#include <gtest/gtest.h>

#include "api/cron_schedule.h"

namespace scalewright::calendar {

using namespace std::chrono;

inline sys_seconds at(year_month_day day, int h, int m, int s = 0) {
  return sys_seconds(sys_days(day)) + hours(h) + minutes(m) + seconds(s);
}
inline constexpr year_month_day kMonday = 2024y / March / 4;
inline constexpr year_month_day kTuesday = 2024y / March / 5;
inline constexpr year_month_day kFriday = 2024y / March / 8;
inline constexpr year_month_day kSaturday = 2024y / March / 9;

// The schedule, which the test expects to parse.
inline CronSchedule schedule(std::string_view spec) {
  Result<CronSchedule> s = CronSchedule::parse(spec);
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
  return s.ok() ? *s : CronSchedule();
}

}  // namespace scalewright::calendar
