#pragma once
// Cron schedules as robfig/cron's standard parser reads them (minute hour day-of-month month day-of-week, plus the
// @daily-style descriptors): KEDA's cron scaler and Karpenter's disruption budget schedules both use that parser,
// so both subsystems share this one. Time zones are api/time_zone.h's.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/result.h"
#include "api/time_zone.h"

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
  // The same on the wall clock of `zone`, whose offset may change (daylight saving time): each matching wall time is
  // the instant TimeZone::to_utc makes of it, the first one strictly after `after`.
  std::optional<std::chrono::sys_seconds> next(std::chrono::sys_seconds after, const TimeZone& zone) const;

  const std::string& spec() const { return spec_; }

 private:
  bool day_matches(std::chrono::year_month_day ymd, std::chrono::weekday wd) const;
  // The first whole minute of the wall clock strictly after `wall_after` (wall times written as if UTC).
  std::optional<std::chrono::sys_seconds> next_wall(std::chrono::sys_seconds wall_after) const;

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

}  // namespace scalewright
