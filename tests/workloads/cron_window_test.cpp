// KEDA's cron window rule, with dates a reader can check on a calendar: 2024-03-04 is a Monday, 2024-03-08 a Friday,
// 2024-03-09 a Saturday.
#include "workloads/cron_window.h"

#include <gtest/gtest.h>

#include "../api/calendar.h"

namespace scalewright::workloads {
namespace {

using namespace std::chrono;
using namespace calendar;



bool active(std::string_view start, std::string_view end, sys_seconds now, seconds offset = seconds(0)) {
  Result<CronWindow> w = cron_window(schedule(start), schedule(end), TimeZone::fixed(offset), now);
  EXPECT_TRUE(w.ok()) << (w.ok() ? "" : w.error().message);
  return w.ok() && w->active;
}

TEST(CronWindow, StartThatNeverFiresIsAnError) {
  Result<CronWindow> w =
      cron_window(schedule("0 0 30 2 *"), schedule("0 1 * * *"), TimeZone::fixed(seconds(0)), at(kMonday, 0, 0));
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.error().message.find("never fires"), std::string::npos);
}

TEST(CronWindow, ActiveFromStartUntilEndExclusive) {
  EXPECT_FALSE(active("0 8 * * *", "0 18 * * *", at(kMonday, 7, 59, 59)));
  EXPECT_TRUE(active("0 8 * * *", "0 18 * * *", at(kMonday, 8, 0)));
  EXPECT_TRUE(active("0 8 * * *", "0 18 * * *", at(kMonday, 17, 59, 59)));
  EXPECT_FALSE(active("0 8 * * *", "0 18 * * *", at(kMonday, 18, 0)));
  EXPECT_FALSE(active("0 8 * * *", "0 18 * * *", at(kMonday, 23, 0)));
}

TEST(CronWindow, AcrossMidnight) {
  EXPECT_FALSE(active("0 22 * * *", "0 6 * * *", at(kMonday, 21, 59)));
  EXPECT_TRUE(active("0 22 * * *", "0 6 * * *", at(kMonday, 22, 0)));
  EXPECT_TRUE(active("0 22 * * *", "0 6 * * *", at(kMonday, 23, 30)));
  EXPECT_TRUE(active("0 22 * * *", "0 6 * * *", at(2024y / March / 5, 3, 0)));
  EXPECT_FALSE(active("0 22 * * *", "0 6 * * *", at(2024y / March / 5, 6, 0)));
}

TEST(CronWindow, WeekdaysOnly) {
  EXPECT_TRUE(active("0 9 * * 1-5", "0 17 * * 1-5", at(kMonday, 10, 0)));
  EXPECT_FALSE(active("0 9 * * 1-5", "0 17 * * 1-5", at(kFriday, 17, 30)));
  // Saturday: the next start (Monday 09:00) comes before the next end (Monday 17:00).
  EXPECT_FALSE(active("0 9 * * 1-5", "0 17 * * 1-5", at(kSaturday, 10, 0)));
  // A Friday-night window that ends on Saturday.
  EXPECT_TRUE(active("0 22 * * FRI", "0 2 * * SAT", at(kFriday, 23, 0)));
  EXPECT_TRUE(active("0 22 * * FRI", "0 2 * * SAT", at(kSaturday, 1, 59)));
  EXPECT_FALSE(active("0 22 * * FRI", "0 2 * * SAT", at(kSaturday, 3, 0)));
}

TEST(CronWindow, InAFixedOffsetZone) {
  // 08:00-18:00 at UTC+2 is 06:00-16:00 UTC.
  EXPECT_FALSE(active("0 8 * * *", "0 18 * * *", at(kMonday, 5, 59), hours(2)));
  EXPECT_TRUE(active("0 8 * * *", "0 18 * * *", at(kMonday, 6, 30), hours(2)));
  EXPECT_FALSE(active("0 8 * * *", "0 18 * * *", at(kMonday, 16, 30), hours(2)));
}

}  // namespace
}  // namespace scalewright::workloads
