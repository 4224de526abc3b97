// Cron schedules, with dates a reader can check on a calendar: 2024-03-04 is a Monday, 2024-03-08 a Friday.
#include "api/cron_schedule.h"

#include <gtest/gtest.h>

#include "calendar.h"

namespace scalewright {
namespace {

using namespace std::chrono;
using namespace calendar;



TEST(CronSchedule, RejectsMalformedSpecsWithTheField) {
  EXPECT_NE(CronSchedule::parse("0 8 * *").error().message.find("expected 5 fields"), std::string::npos);
  EXPECT_NE(CronSchedule::parse("60 * * * *").error().message.find("minute field \"60\": out of range 0-59"),
            std::string::npos);
  EXPECT_NE(CronSchedule::parse("0 8 * * MON-FOO").error().message.find("day-of-week"), std::string::npos);
  EXPECT_NE(CronSchedule::parse("*/0 * * * *").error().message.find("step must be a positive number"),
            std::string::npos);
  EXPECT_NE(CronSchedule::parse("5-1 * * * *").error().message.find("range start is after its end"),
            std::string::npos);
  EXPECT_NE(CronSchedule::parse("0 8 * * 7").error().message.find("out of range 0-6"), std::string::npos);
  EXPECT_NE(CronSchedule::parse("@fortnightly").error().message.find("unknown descriptor"), std::string::npos);
}

TEST(CronSchedule, NextIsStrictlyAfterTheGivenTime) {
  CronSchedule eight = schedule("0 8 * * *");
  EXPECT_EQ(eight.next(at(kMonday, 7, 59, 59), seconds(0)), at(kMonday, 8, 0));
  // At 08:00:00 itself the next firing is tomorrow's.
  EXPECT_EQ(eight.next(at(kMonday, 8, 0), seconds(0)), at(2024y / March / 5, 8, 0));
}

TEST(CronSchedule, StepsRangesListsAndNames) {
  EXPECT_EQ(schedule("*/15 * * * *").next(at(kMonday, 10, 7), seconds(0)), at(kMonday, 10, 15));
  EXPECT_EQ(schedule("10-40/10 * * * *").next(at(kMonday, 10, 31), seconds(0)), at(kMonday, 10, 40));
  EXPECT_EQ(schedule("5,50 9 * * *").next(at(kMonday, 9, 6), seconds(0)), at(kMonday, 9, 50));
  // "30/10" is 30 to 59 every 10, as robfig/cron reads it.
  EXPECT_EQ(schedule("30/10 * * * *").next(at(kMonday, 9, 51), seconds(0)), at(kMonday, 10, 30));
  // Weekdays by name: from Friday 10:00 the next 09:30 on MON-FRI is Monday's.
  EXPECT_EQ(schedule("30 9 * * mon-FRI").next(at(kFriday, 10, 0), seconds(0)), at(2024y / March / 11, 9, 30));
  EXPECT_EQ(schedule("0 12 1 JAN *").next(at(kMonday, 0, 0), seconds(0)), at(2025y / January / 1, 12, 0));
  EXPECT_EQ(schedule("@daily").next(at(kMonday, 0, 0), seconds(0)), at(2024y / March / 5, 0, 0));
  EXPECT_EQ(schedule("@weekly").next(at(kMonday, 0, 0), seconds(0)), at(2024y / March / 10, 0, 0));  // Sunday
}

TEST(CronSchedule, RestrictedDayOfMonthAndDayOfWeekMatchEither) {
  // Both fields restricted: the 13th or any Friday (robfig/cron, like Vixie cron).
  CronSchedule s = schedule("0 0 13 * FRI");
  EXPECT_EQ(s.next(at(2024y / March / 1, 0, 0), seconds(0)), at(kFriday, 0, 0));
  EXPECT_EQ(s.next(at(kFriday, 0, 0), seconds(0)), at(2024y / March / 13, 0, 0));  // a Wednesday
  // With day-of-month `*`, only Fridays.
  EXPECT_EQ(schedule("0 0 * * FRI").next(at(kFriday, 0, 0), seconds(0)), at(2024y / March / 15, 0, 0));
}

TEST(CronSchedule, ImpossibleDateNeverFires) {
  EXPECT_FALSE(schedule("0 0 30 2 *").next(at(kMonday, 0, 0), seconds(0)).has_value());
}

TEST(CronTimezone, ScheduleReadsTheLocalWallClock) {
  // 08:00 at UTC+2 is 06:00 UTC.
  EXPECT_EQ(schedule("0 8 * * *").next(at(kMonday, 5, 0), hours(2)), at(kMonday, 6, 0));
  // 08:00 at UTC-5 is 13:00 UTC.
  EXPECT_EQ(schedule("0 8 * * *").next(at(kMonday, 5, 0), hours(-5)), at(kMonday, 13, 0));
}

TEST(CronTimezone, ScheduleFollowsAZoneThroughItsChangeToDaylightTime) {
  const std::shared_ptr<const TimeZone> new_york = TimeZone::locate("America/New_York").value();
  // 2024-03-10 is the second Sunday of March: 08:00 is EST (13:00 UTC) on the Saturday, EDT (12:00 UTC) on Sunday.
  EXPECT_EQ(schedule("0 8 * * *").next(at(kSaturday, 14, 0), *new_york), at(2024y / March / 10, 12, 0));
  EXPECT_EQ(schedule("0 8 * * *").next(at(kFriday, 14, 0), *new_york), at(kSaturday, 13, 0));
  // KEDA's own cron example, in Asia/Kolkata (UTC+5:30): minute 30 of every hour there is minute 0 in UTC.
  const std::shared_ptr<const TimeZone> kolkata = TimeZone::locate("Asia/Kolkata").value();
  EXPECT_EQ(schedule("30 * * * *").next(at(kMonday, 9, 59), *kolkata), at(kMonday, 10, 0));
}

}  // namespace
}  // namespace scalewright
