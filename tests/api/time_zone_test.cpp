// Zones of the system's tz database (Debian's tzdata), as KEDA's cron scaler reads them with Go's time.LoadLocation.
// Offsets are east of UTC; the dates of the changes are the United States' rule (second Sunday of March, first of
// November, at 02:00 local), which a reader can check on a calendar: 2024-03-10 and 2024-11-03 are those Sundays.
#include "api/time_zone.h"

#include <gtest/gtest.h>

#include <string>

namespace scalewright {
namespace {

using namespace std::chrono;

sys_seconds utc(year_month_day day, int h, int m, int s = 0) {
  return sys_seconds(sys_days(day)) + hours(h) + minutes(m) + seconds(s);
}

seconds offset(std::string_view zone, sys_seconds at) { return TimeZone::locate(zone).value()->offset_at(at); }

TEST(TimeZone, NamedZonesOfTheDatabase) {
  EXPECT_EQ(offset("UTC", utc(2024y / March / 4, 0, 0)), seconds(0));
  EXPECT_EQ(offset("Asia/Kolkata", utc(2024y / March / 4, 0, 0)), hours(5) + minutes(30));
  EXPECT_EQ(offset("Etc/GMT-2", utc(2024y / March / 4, 0, 0)), hours(2));   // POSIX sign: GMT-2 is UTC+2
  EXPECT_EQ(offset("Etc/GMT+5", utc(2024y / March / 4, 0, 0)), hours(-5));
  // Daylight time in New York from 07:00 UTC (02:00 EST) on 2024-03-10 to 06:00 UTC (02:00 EDT) on 2024-11-03.
  EXPECT_EQ(offset("America/New_York", utc(2024y / March / 10, 6, 59, 59)), hours(-5));
  EXPECT_EQ(offset("America/New_York", utc(2024y / March / 10, 7, 0)), hours(-4));
  EXPECT_EQ(offset("America/New_York", utc(2024y / November / 3, 5, 59, 59)), hours(-4));
  EXPECT_EQ(offset("America/New_York", utc(2024y / November / 3, 6, 0)), hours(-5));
  // Past the file's last transition (2037), its footer's rule EST5EDT,M3.2.0,M11.1.0: July is daylight time.
  EXPECT_EQ(offset("America/New_York", utc(2100y / July / 1, 12, 0)), hours(-4));
  EXPECT_EQ(offset("America/New_York", utc(2100y / January / 15, 12, 0)), hours(-5));
}

TEST(TimeZone, UnknownAndEscapingNamesAreRefusedInGosWords) {
  Result<std::shared_ptr<const TimeZone>> mars = TimeZone::locate("Mars/Olympus");
  ASSERT_FALSE(mars.ok());
  EXPECT_EQ(mars.error().message, "unknown time zone Mars/Olympus");
  EXPECT_EQ(TimeZone::locate("America").error().message, "unknown time zone America");  // a folder of zones
  EXPECT_EQ(TimeZone::locate("../../etc/passwd").error().message, "invalid location name \"../../etc/passwd\"");
  EXPECT_EQ(TimeZone::from_tzif("not a zone", "x").error().message, "malformed time zone information for x");
}

// A TZif file of version 2 with no transition, one type and only the footer's rule, as the "slim" files that
// recent tzdata builds make: its times all come from the rule.
TEST(TimeZone, AFileOfOnlyARuleIsReadFromItsFooter) {
  auto header = [] {
    std::string h = "TZif2" + std::string(15, '\0');
    for (int count : {0, 0, 0, 0, 1, 4}) h += std::string{'\0', '\0', '\0', static_cast<char>(count)};
    return h;
  };
  // One type: -18000 s (0xFFFFB9B0), not daylight, abbreviation at 0; then "EST\0".
  const std::string type = std::string("\xFF\xFF\xB9\xB0", 4) + std::string("\0\0", 2) + std::string("EST\0", 4);
  const std::string data = header() + type + header() + type + "\nEST5EDT,M3.2.0,M11.1.0\n";
  Result<TimeZone> zone = TimeZone::from_tzif(data, "slim");
  ASSERT_TRUE(zone.ok()) << zone.error().message;
  EXPECT_EQ(zone->offset_at(utc(2024y / March / 10, 6, 59)), hours(-5));
  EXPECT_EQ(zone->offset_at(utc(2024y / March / 10, 7, 0)), hours(-4));
}

TEST(TimeZone, AWallClockTimeIsResolvedAsGoResolvesIt) {
  const std::shared_ptr<const TimeZone> new_york = TimeZone::locate("America/New_York").value();
  // 08:00 on 2024-03-10 is EDT: 12:00 UTC.
  EXPECT_EQ(new_york->to_utc(utc(2024y / March / 10, 8, 0)), utc(2024y / March / 10, 12, 0));
  // 02:30 that day does not exist: read with the EST offset it falls after the change, so Go takes EDT's, 06:30 UTC.
  EXPECT_EQ(new_york->to_utc(utc(2024y / March / 10, 2, 30)), utc(2024y / March / 10, 6, 30));
}

}  // namespace
}  // namespace scalewright
