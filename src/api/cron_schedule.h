#pragma once
// Cron schedules as robfig/cron's standard parser reads them (minute hour day-of-month month day-of-week, plus the
// @daily-style descriptors): KEDA's cron scaler and Karpenter's disruption budget schedules both use that parser,
// so both subsystems share this one. Also the fixed-offset time zones we can honour without a tz database.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/result.h"

namespace scalewright {

class CronSchedule {
 public:
  // Fields accept `*`, `?`, numbers, names (JAN-DEC, SUN-SAT, any case), ranges `a-b`, steps `*/n`, `a-b/n`, `a/n`
  // (a to the field's max), and comma lists. Day of week is 0-6, Sunday 0. Also @yearly/@annually, @monthly,
  // @weekly, @daily/@midnight and @hourly. Anything else is an error that quotes the spec and names the field.
  static Result<CronSchedule> parse(std::string_view spec);

  // The first whole minute strictly after `after` that the schedule matches, read on a wall clock `utc_offset`
  // east of UTC; nullopt when none comes within five years (robfig/cron gives up there too, e.g. "0 0 30 2 *").
  std::optional<std::chrono::sys_seconds> next(std::chrono::sys_seconds after, std::chrono::seconds utc_offset) const;

  const std::string& spec() const { return spec_; }

 private:
  bool day_matches(std::chrono::year_month_day ymd, std::chrono::weekday wd) const;

  std::string spec_;
  std::uint64_t minutes_ = 0;  // bit n: minute n
  std::uint32_t hours_ = 0;
  std::uint32_t days_of_month_ = 0;  // bits 1..31
  std::uint32_t months_ = 0;         // bits 1..12
  std::uint32_t days_of_week_ = 0;   // bits 0..6
  // robfig/cron: when both day fields are restricted (neither is `*`/`?`), a day matching either one is enough.
  bool dom_star_ = false;
  bool dow_star_ = false;
};

// A cron trigger's `timezone`. Without std::chrono's tz database (GCC 12) only zones with a fixed offset are known:
// "UTC", "Etc/UTC", "Etc/UCT", "Etc/Universal", "Etc/Zulu", "GMT", "Etc/GMT", "Etc/GMT0", and
// "Etc/GMT+N" / "Etc/GMT-N", whose sign is POSIX's (Etc/GMT+5 is five hours *behind* UTC). Anything else is an
// error that says so. Returns the offset east of UTC.
Result<std::chrono::seconds> parse_cron_timezone(std::string_view zone);

}  // namespace scalewright
