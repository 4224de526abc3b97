#pragma once
// Time zones of the system's tz database (Debian's tzdata, /usr/share/zoneinfo), read as Go's time.LoadLocation reads
// them for KEDA's cron scaler: one reading for every command, so "Asia/Kolkata" is a zone wherever a cron trigger is
// read and "Mars/Olympus" is none. libstdc++ 12 has no std::chrono::tzdb, so the zone files (TZif, RFC 8536) are
// read here: their transitions, then the POSIX TZ rule of their footer for times after the last one.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"

namespace scalewright {

class TimeZone {
 public:
  // The zone named `name`: "UTC" (and "", "Local": KEDA's image has no local zone, so Go's Local is UTC there) without
  // a file, anything else from the database. Errors as Go gives them: "unknown time zone Mars/Olympus". Each zone is
  // read once per process and shared.
  static Result<std::shared_ptr<const TimeZone>> locate(std::string_view name);
  // A zone `offset` east of UTC all year (the fixed offsets of tests and of Karpenter's UTC budget schedules).
  static TimeZone fixed(std::chrono::seconds offset, std::string name = "UTC");
  // A zone from the bytes of a TZif file (`name` for messages); exposed for tests of the format.
  static Result<TimeZone> from_tzif(std::string_view data, std::string name);

  const std::string& name() const { return name_; }
  // The offset east of UTC in force at `utc`.
  std::chrono::seconds offset_at(std::chrono::sys_seconds utc) const;
  // The instant a wall-clock time (written as if it were UTC) stands for, as Go's time.Date resolves it: the offset
  // in force at the wall time read as UTC, corrected once if the instant found has another offset. A wall time that
  // a change skips comes out shifted by the change; one that occurs twice resolves to one of the two.
  std::chrono::sys_seconds to_utc(std::chrono::sys_seconds wall) const;

 private:
  // A POSIX TZ rule ("EST5EDT,M3.2.0,M11.1.0"): for times after the last transition.
  struct Rule {
    bool valid = false;
    std::int32_t standard = 0;  // seconds east of UTC
    std::int32_t daylight = 0;
    bool has_daylight = false;
    struct Date {
      char kind = 'M';  // 'J': Julian day 1-365 without Feb 29; 'D': day 0-365; 'M': month, week, weekday
      int day = 0, week = 0, month = 0;
      std::int32_t time = 7200;  // seconds after local midnight (may be negative or past a day)
    };
    Date start, end;
    std::chrono::seconds offset_at(std::chrono::sys_seconds utc) const;
  };
  static bool parse_rule(std::string_view text, Rule& rule);

  std::string name_;
  std::vector<std::int64_t> transitions_;   // seconds since the epoch, ascending
  std::vector<std::int32_t> offsets_;       // the offset from each transition on
  std::int32_t initial_ = 0;                // before the first transition
  Rule rule_;                               // after the last one, when the file has one
};

}  // namespace scalewright
