#include "api/time_zone.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>

namespace scalewright {
namespace {

using std::chrono::seconds;
using std::chrono::sys_days;
using std::chrono::sys_seconds;

// Where Go's time package looks for the database on Unix (zoneinfo_unix.go's platformZoneSources).
constexpr const char* kZoneSources[] = {"/usr/share/zoneinfo/", "/usr/share/lib/zoneinfo/", "/usr/lib/locale/TZ/",
                                        "/etc/zoneinfo/"};
// Zone files are a few KiB; anything much larger is not one.
constexpr std::size_t kMaxZoneFileBytes = 1 << 20;

// Big-endian fields of a TZif file, in order; `ok` turns false at the first read past the end.
struct Bytes {
  std::string_view data;
  std::size_t pos = 0;
  bool ok = true;

  std::string_view take(std::size_t n) {
    if (!ok || data.size() - pos < n) {
      ok = false;
      return {};
    }
    std::string_view out = data.substr(pos, n);
    pos += n;
    return out;
  }
  std::int64_t big_endian(std::size_t n) {
    std::uint64_t value = 0;
    for (unsigned char c : take(n)) value = value << 8 | c;
    if (n == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
    return static_cast<std::int64_t>(value);
  }
};

struct Counts {
  std::int64_t isutcnt = 0, isstdcnt = 0, leapcnt = 0, timecnt = 0, typecnt = 0, charcnt = 0;
};

// A TZif header: "TZif", the version, 15 reserved bytes, six counts.
std::optional<std::pair<char, Counts>> read_header(Bytes& in) {
  if (in.take(4) != "TZif") return std::nullopt;
  std::string_view version = in.take(1);
  in.take(15);
  Counts c;
  for (std::int64_t* count : {&c.isutcnt, &c.isstdcnt, &c.leapcnt, &c.timecnt, &c.typecnt, &c.charcnt}) {
    *count = in.big_endian(4);
    if (*count < 0) return std::nullopt;
  }
  if (!in.ok) return std::nullopt;
  return std::pair{version.empty() ? '\0' : version[0], c};
}

// [+-]hh[:mm[:ss]] in seconds; `max_hours`: 24 for an offset, 167 for a rule's time (RFC 8536's extension).
std::optional<std::int32_t> clock_value(std::string_view& text, int max_hours) {
  int sign = 1;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    sign = text[0] == '-' ? -1 : 1;
    text.remove_prefix(1);
  }
  std::int32_t total = 0;
  for (int part = 0; part < 3; ++part) {
    if (part > 0) {
      if (text.empty() || text[0] != ':') break;
      text.remove_prefix(1);
    }
    std::size_t digits = 0;
    int value = 0;
    while (digits < text.size() && digits < 3 && text[digits] >= '0' && text[digits] <= '9') {
      value = value * 10 + (text[digits] - '0');
      ++digits;
    }
    if (digits == 0 || (part == 0 ? value > max_hours : value > 59)) return std::nullopt;
    text.remove_prefix(digits);
    total += value * (part == 0 ? 3600 : part == 1 ? 60 : 1);
  }
  return sign * total;
}

// A zone abbreviation: letters ("EST"), or anything between < and > ("<+0530>").
bool abbreviation(std::string_view& text) {
  std::size_t n = 0;
  if (!text.empty() && text[0] == '<') {
    n = text.find('>');
    if (n == std::string_view::npos) return false;
    text.remove_prefix(n + 1);
    return true;
  }
  while (n < text.size() && ((text[n] >= 'A' && text[n] <= 'Z') || (text[n] >= 'a' && text[n] <= 'z'))) ++n;
  if (n < 3) return false;
  text.remove_prefix(n);
  return true;
}

std::optional<int> number(std::string_view& text) {
  std::size_t n = 0;
  int value = 0;
  while (n < text.size() && n < 4 && text[n] >= '0' && text[n] <= '9') value = value * 10 + (text[n++] - '0');
  if (n == 0) return std::nullopt;
  text.remove_prefix(n);
  return value;
}

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

}  // namespace

bool TimeZone::parse_rule(std::string_view text, Rule& rule) {
  if (!abbreviation(text)) return false;
  std::optional<std::int32_t> standard = clock_value(text, 24);
  if (!standard) return false;
  rule.standard = -*standard;  // POSIX counts west of UTC
  rule.valid = true;
  if (text.empty()) return true;
  if (!abbreviation(text)) return false;
  rule.has_daylight = true;
  rule.daylight = rule.standard + 3600;
  if (!text.empty() && text[0] != ',') {
    std::optional<std::int32_t> daylight = clock_value(text, 24);
    if (!daylight) return false;
    rule.daylight = -*daylight;
  }
  if (text.empty()) {  // no dates: POSIX leaves them to the implementation; the US rule, as glibc
    rule.start = {'M', 0, 2, 3, 7200};
    rule.end = {'M', 0, 1, 11, 7200};
    return true;
  }
  for (Rule::Date* date : {&rule.start, &rule.end}) {
    if (text.empty() || text[0] != ',') return false;
    text.remove_prefix(1);
    if (!text.empty() && text[0] == 'M') {
      text.remove_prefix(1);
      std::optional<int> month = number(text);
      if (!month || text.empty() || text[0] != '.') return false;
      text.remove_prefix(1);
      std::optional<int> week = number(text);
      if (!week || text.empty() || text[0] != '.') return false;
      text.remove_prefix(1);
      std::optional<int> day = number(text);
      if (!day || *month < 1 || *month > 12 || *week < 1 || *week > 5 || *day > 6) return false;
      *date = {'M', *day, *week, *month, 7200};
    } else {
      const char kind = !text.empty() && text[0] == 'J' ? 'J' : 'D';
      if (kind == 'J') text.remove_prefix(1);
      std::optional<int> day = number(text);
      if (!day || (kind == 'J' ? (*day < 1 || *day > 365) : *day > 365)) return false;
      *date = {kind, *day, 0, 0, 7200};
    }
    if (!text.empty() && text[0] == '/') {
      text.remove_prefix(1);
      std::optional<std::int32_t> time = clock_value(text, 167);
      if (!time) return false;
      date->time = *time;
    }
  }
  return text.empty();
}

seconds TimeZone::Rule::offset_at(sys_seconds utc) const {
  if (!has_daylight) return seconds(standard);
  const int year = static_cast<int>(
      std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(utc + seconds(standard))).year());
  // Local midnight of the rule's date in `year`, read as UTC.
  auto midnight = [&](const Date& date) {
    const sys_days january_first{std::chrono::year(year) / std::chrono::January / 1};
    switch (date.kind) {
      case 'J': return january_first + std::chrono::days(date.day - 1 + (is_leap(year) && date.day >= 60 ? 1 : 0));
      case 'D': return january_first + std::chrono::days(date.day);
      default: {
        const std::chrono::year_month month{std::chrono::year(year), std::chrono::month(date.month)};
        const sys_days first{month / 1};
        const int first_weekday = static_cast<int>(std::chrono::weekday(first).c_encoding());
        int day = 1 + (date.day - first_weekday + 7) % 7 + (date.week - 1) * 7;
        const int last = static_cast<int>(static_cast<unsigned>((month / std::chrono::last).day()));
        while (day > last) day -= 7;
        return first + std::chrono::days(day - 1);
      }
    }
  };
  // Daylight time starts at a standard-time wall clock and ends at a daylight-time one.
  const sys_seconds start = sys_seconds(midnight(this->start)) + seconds(this->start.time) - seconds(standard);
  const sys_seconds end = sys_seconds(midnight(this->end)) + seconds(this->end.time) - seconds(daylight);
  const bool in_daylight = start < end ? (start <= utc && utc < end) : !(end <= utc && utc < start);
  return seconds(in_daylight ? daylight : standard);
}

Result<TimeZone> TimeZone::from_tzif(std::string_view data, std::string name) {
  const Error malformed{"malformed time zone information for " + name};
  Bytes in{data};
  std::optional<std::pair<char, Counts>> header = read_header(in);
  if (!header) return malformed;
  std::size_t time_size = 4;
  std::size_t leap_size = 8;
  Counts c = header->second;
  if (header->first >= '2') {  // skip the 32-bit block: the 64-bit one follows with its own header
    in.take(static_cast<std::size_t>(c.timecnt * 5 + c.typecnt * 6 + c.charcnt + c.leapcnt * 8 + c.isstdcnt +
                                     c.isutcnt));
    header = read_header(in);
    if (!header) return malformed;
    c = header->second;
    time_size = 8;
    leap_size = 12;
  }
  if (c.typecnt < 1) return malformed;
  TimeZone zone;
  zone.name_ = std::move(name);
  std::vector<std::int64_t> times;
  for (std::int64_t i = 0; i < c.timecnt; ++i) times.push_back(in.big_endian(time_size));
  std::vector<std::size_t> types;
  for (std::int64_t i = 0; i < c.timecnt; ++i) types.push_back(static_cast<std::size_t>(in.big_endian(1)));
  std::vector<std::int32_t> utoffs;
  for (std::int64_t i = 0; i < c.typecnt; ++i) {
    utoffs.push_back(static_cast<std::int32_t>(in.big_endian(4)));
    in.take(2);  // isdst, the abbreviation's index
  }
  in.take(static_cast<std::size_t>(c.charcnt + c.leapcnt * static_cast<std::int64_t>(leap_size) + c.isstdcnt +
                                   c.isutcnt));
  if (!in.ok || !std::is_sorted(times.begin(), times.end())) return malformed;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (types[i] >= utoffs.size()) return malformed;
    zone.transitions_.push_back(times[i]);
    zone.offsets_.push_back(utoffs[types[i]]);
  }
  zone.initial_ = utoffs[0];  // RFC 8536: before the first transition, time type 0
  if (header->first >= '2') {  // the footer: "\n" rule "\n", the rule possibly empty
    std::string_view footer = data.substr(in.pos);
    if (footer.size() >= 2 && footer[0] == '\n') {
      const std::size_t close = footer.find('\n', 1);
      const std::string_view text = footer.substr(1, close == std::string_view::npos ? 0 : close - 1);
      if (!text.empty() && !parse_rule(text, zone.rule_)) return malformed;
    }
  }
  return zone;
}

TimeZone TimeZone::fixed(seconds offset, std::string name) {
  TimeZone zone;
  zone.name_ = std::move(name);
  zone.initial_ = static_cast<std::int32_t>(offset.count());
  return zone;
}

Result<std::shared_ptr<const TimeZone>> TimeZone::locate(std::string_view name) {
  if (name.empty() || name == "UTC" || name == "Local") {
    static const auto utc = std::make_shared<const TimeZone>(fixed(seconds(0), "UTC"));
    return utc;
  }
  // Go refuses a name that would leave the database (zoneinfo.go's LoadLocation).
  if (name.find("..") != std::string_view::npos || name[0] == '/' || name[0] == '\\') {
    return Error{"invalid location name \"" + std::string(name) + "\""};
  }
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const TimeZone>, std::less<>> read;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto found = read.find(name); found != read.end()) return found->second;
  for (const char* source : kZoneSources) {
    std::ifstream in(std::string(source) + std::string(name), std::ios::binary);
    if (!in) continue;
    std::string data(kMaxZoneFileBytes + 1, '\0');
    in.read(data.data(), static_cast<std::streamsize>(data.size()));
    if (in.bad()) continue;  // a directory ("America") opens but does not read
    data.resize(static_cast<std::size_t>(in.gcount()));
    if (data.empty() || data.size() > kMaxZoneFileBytes) continue;
    Result<TimeZone> zone = from_tzif(data, std::string(name));
    if (!zone) return zone.error();
    auto shared = std::make_shared<const TimeZone>(std::move(*zone));
    read.emplace(std::string(name), shared);
    return shared;
  }
  return Error{"unknown time zone " + std::string(name)};
}

seconds TimeZone::offset_at(sys_seconds utc) const {
  const std::int64_t t = utc.time_since_epoch().count();
  auto after = std::upper_bound(transitions_.begin(), transitions_.end(), t);
  if (after == transitions_.end() && rule_.valid) return rule_.offset_at(utc);
  if (after == transitions_.begin()) return seconds(initial_);
  return seconds(offsets_[static_cast<std::size_t>(after - transitions_.begin()) - 1]);
}

sys_seconds TimeZone::to_utc(sys_seconds wall) const {
  const seconds guess = offset_at(wall);
  const sys_seconds utc = wall - guess;
  const seconds actual = offset_at(utc);
  return actual == guess ? utc : wall - actual;
}

}  // namespace scalewright
