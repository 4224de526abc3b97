#include "api/cron_schedule.h"

#include <array>
#include <cctype>
#include <charconv>
#include <vector>

#include "api/ascii.h"

namespace scalewright {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using std::chrono::sys_days;
using std::chrono::sys_seconds;

struct FieldRange {
  const char* name;
  int min;
  int max;
  const char* const* names;  // nullptr, or max-min+1 lower-case names for min..max
};

constexpr std::array<const char*, 12> kMonthNames = {"jan", "feb", "mar", "apr", "may", "jun",
                                                     "jul", "aug", "sep", "oct", "nov", "dec"};
constexpr std::array<const char*, 7> kDayNames = {"sun", "mon", "tue", "wed", "thu", "fri", "sat"};

constexpr FieldRange kMinute{"minute", 0, 59, nullptr};
constexpr FieldRange kHour{"hour", 0, 23, nullptr};
constexpr FieldRange kDayOfMonth{"day-of-month", 1, 31, nullptr};
constexpr FieldRange kMonth{"month", 1, 12, kMonthNames.data()};
constexpr FieldRange kDayOfWeek{"day-of-week", 0, 6, kDayNames.data()};

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t pos = text.find(sep, start);
    parts.push_back(text.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
    if (pos == std::string_view::npos) return parts;
    start = pos + 1;
  }
}

Error field_error(std::string_view spec, const FieldRange& field, std::string_view part, std::string_view why) {
  return Error{"invalid cron schedule \"" + std::string(spec) + "\": " + field.name + " field \"" +
               std::string(part) + "\": " + std::string(why)};
}

// One number or (for month and day of week) a name.
Result<int> parse_value(std::string_view spec, const FieldRange& field, std::string_view text) {
  if (field.names != nullptr) {
    std::string name = ascii_lower(text);
    for (int i = 0; i <= field.max - field.min; ++i) {
      if (name == field.names[i]) return field.min + i;
    }
  }
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    return field_error(spec, field, text, "not a number");
  }
  if (value < field.min || value > field.max) {
    return field_error(spec, field, text,
                       "out of range " + std::to_string(field.min) + "-" + std::to_string(field.max));
  }
  return value;
}

struct FieldBits {
  std::uint64_t bits = 0;
  bool star = false;
};

// robfig/cron's getField/getRange: comma-separated ranges, each `*`|`?`|a|a-b, optionally /step.
Result<FieldBits> parse_field(std::string_view spec, const FieldRange& field, std::string_view text) {
  FieldBits out;
  for (std::string_view part : split(text, ',')) {
    std::vector<std::string_view> range_and_step = split(part, '/');
    if (range_and_step.size() > 2) return field_error(spec, field, part, "too many slashes");
    std::vector<std::string_view> low_high = split(range_and_step[0], '-');
    if (low_high.size() > 2) return field_error(spec, field, part, "too many hyphens");
    int start = 0;
    int end = 0;
    bool star = false;
    if (low_high[0] == "*" || low_high[0] == "?") {
      if (low_high.size() != 1) return field_error(spec, field, part, "`*` cannot start a range");
      start = field.min;
      end = field.max;
      star = true;
    } else {
      Result<int> low = parse_value(spec, field, low_high[0]);
      if (!low) return low.error();
      start = end = *low;
      if (low_high.size() == 2) {
        Result<int> high = parse_value(spec, field, low_high[1]);
        if (!high) return high.error();
        end = *high;
      }
    }
    int step = 1;
    if (range_and_step.size() == 2) {
      std::string_view step_text = range_and_step[1];
      auto [ptr, ec] = std::from_chars(step_text.data(), step_text.data() + step_text.size(), step);
      if (step_text.empty() || ec != std::errc() || ptr != step_text.data() + step_text.size() || step <= 0) {
        return field_error(spec, field, part, "step must be a positive number");
      }
      // "a/n" means a to the field's max every n, as robfig/cron reads it.
      if (!star && low_high.size() == 1) end = field.max;
      if (step > 1) star = false;
    }
    if (start > end) return field_error(spec, field, part, "range start is after its end");
    for (int v = start; v <= end; v += step) out.bits |= std::uint64_t{1} << v;
    out.star = out.star || star;
  }
  return out;
}

}  // namespace

Result<CronSchedule> CronSchedule::parse(std::string_view spec) {
  std::string_view trimmed = spec;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front()))) trimmed.remove_prefix(1);
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back()))) trimmed.remove_suffix(1);

  std::string expanded;
  if (!trimmed.empty() && trimmed.front() == '@') {
    std::string descriptor = ascii_lower(trimmed);
    if (descriptor == "@yearly" || descriptor == "@annually") {
      expanded = "0 0 1 1 *";
    } else if (descriptor == "@monthly") {
      expanded = "0 0 1 * *";
    } else if (descriptor == "@weekly") {
      expanded = "0 0 * * 0";
    } else if (descriptor == "@daily" || descriptor == "@midnight") {
      expanded = "0 0 * * *";
    } else if (descriptor == "@hourly") {
      expanded = "0 * * * *";
    } else {
      return Error{"invalid cron schedule \"" + std::string(spec) +
                   "\": unknown descriptor (known: @yearly @annually @monthly @weekly @daily @midnight @hourly)"};
    }
    trimmed = expanded;
  }

  std::vector<std::string_view> fields;
  std::size_t i = 0;
  while (i < trimmed.size()) {
    while (i < trimmed.size() && std::isspace(static_cast<unsigned char>(trimmed[i]))) ++i;
    std::size_t start = i;
    while (i < trimmed.size() && !std::isspace(static_cast<unsigned char>(trimmed[i]))) ++i;
    if (i > start) fields.push_back(trimmed.substr(start, i - start));
  }
  if (fields.size() != 5) {
    return Error{"invalid cron schedule \"" + std::string(spec) + "\": expected 5 fields (minute hour day-of-month " +
                 "month day-of-week), found " + std::to_string(fields.size())};
  }

  CronSchedule schedule;
  schedule.spec_ = std::string(spec);
  Result<FieldBits> minute = parse_field(spec, kMinute, fields[0]);
  if (!minute) return minute.error();
  Result<FieldBits> hour = parse_field(spec, kHour, fields[1]);
  if (!hour) return hour.error();
  Result<FieldBits> dom = parse_field(spec, kDayOfMonth, fields[2]);
  if (!dom) return dom.error();
  Result<FieldBits> month = parse_field(spec, kMonth, fields[3]);
  if (!month) return month.error();
  Result<FieldBits> dow = parse_field(spec, kDayOfWeek, fields[4]);
  if (!dow) return dow.error();
  schedule.minutes_ = minute->bits;
  schedule.hours_ = static_cast<std::uint32_t>(hour->bits);
  schedule.days_of_month_ = static_cast<std::uint32_t>(dom->bits);
  schedule.months_ = static_cast<std::uint32_t>(month->bits);
  schedule.days_of_week_ = static_cast<std::uint32_t>(dow->bits);
  schedule.dom_star_ = dom->star;
  schedule.dow_star_ = dow->star;
  return schedule;
}

bool CronSchedule::day_matches(std::chrono::year_month_day ymd, std::chrono::weekday wd) const {
  bool dom = (days_of_month_ >> static_cast<unsigned>(ymd.day())) & 1U;
  bool dow = (days_of_week_ >> wd.c_encoding()) & 1U;
  if (dom_star_ || dow_star_) return dom && dow;
  return dom || dow;
}

std::optional<sys_seconds> CronSchedule::next_wall(sys_seconds wall_after) const {
  auto candidate = std::chrono::floor<minutes>(wall_after) + minutes(1);
  sys_days day = std::chrono::floor<days>(candidate);
  auto minute_of_day = std::chrono::duration_cast<minutes>(candidate - day).count();
  int first_hour = static_cast<int>(minute_of_day / 60);
  int first_minute = static_cast<int>(minute_of_day % 60);
  constexpr int kSearchDays = 5 * 366;
  for (int k = 0; k < kSearchDays; ++k, day += days(1), first_hour = 0, first_minute = 0) {
    std::chrono::year_month_day ymd(day);
    if (!((months_ >> static_cast<unsigned>(ymd.month())) & 1U)) continue;
    if (!day_matches(ymd, std::chrono::weekday(day))) continue;
    for (int h = first_hour; h < 24; ++h) {
      if (!((hours_ >> h) & 1U)) continue;
      for (int m = (h == first_hour ? first_minute : 0); m < 60; ++m) {
        if ((minutes_ >> m) & 1U) return sys_seconds(day) + hours(h) + minutes(m);
      }
    }
  }
  return std::nullopt;
}

std::optional<sys_seconds> CronSchedule::next(sys_seconds after, seconds utc_offset) const {
  // Wall-clock minutes as if they were UTC; converted back at the end.
  std::optional<sys_seconds> wall = next_wall(after + utc_offset);
  if (!wall) return std::nullopt;
  return *wall - utc_offset;
}

std::optional<sys_seconds> CronSchedule::next(sys_seconds after, const TimeZone& zone) const {
  // The wall clock's next matching minute, as an instant; a wall time that resolves to `after` or before (an hour a
  // change to standard time repeats) is passed over for the next one.
  sys_seconds wall_after = after + zone.offset_at(after);
  for (int tries = 0; tries < 4; ++tries) {
    std::optional<sys_seconds> wall = next_wall(wall_after);
    if (!wall) return std::nullopt;
    const sys_seconds utc = zone.to_utc(*wall);
    if (utc > after) return utc;
    wall_after = *wall;
  }
  return std::nullopt;
}

}  // namespace scalewright
