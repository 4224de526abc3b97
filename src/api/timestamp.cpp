#include "api/timestamp.h"

#include <cctype>
#include <cstdio>
#include <ctime>

namespace scalewright {

using std::chrono::duration_cast;
using std::chrono::microseconds;
using std::chrono::system_clock;

std::string format_micro_time(system_clock::time_point time) {
  auto since_epoch = duration_cast<microseconds>(time.time_since_epoch());
  auto seconds = std::chrono::floor<std::chrono::seconds>(since_epoch);
  long long micros = (since_epoch - seconds).count();
  std::time_t t = static_cast<std::time_t>(seconds.count());
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, micros);
  return text;
}

namespace {

// Reads exactly n digits at text[pos], advancing pos.
bool read_digits(std::string_view text, size_t& pos, int n, int& out) {
  if (pos + static_cast<size_t>(n) > text.size()) return false;
  out = 0;
  for (int i = 0; i < n; ++i, ++pos) {
    if (!std::isdigit(static_cast<unsigned char>(text[pos]))) return false;
    out = out * 10 + (text[pos] - '0');
  }
  return true;
}

bool expect(std::string_view text, size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

std::optional<system_clock::time_point> parse_micro_time(std::string_view text) {
  size_t pos = 0;
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!read_digits(text, pos, 4, year) || !expect(text, pos, '-') || !read_digits(text, pos, 2, month) ||
      !expect(text, pos, '-') || !read_digits(text, pos, 2, day) ||
      !(expect(text, pos, 'T') || expect(text, pos, 't')) || !read_digits(text, pos, 2, hour) ||
      !expect(text, pos, ':') || !read_digits(text, pos, 2, minute) || !expect(text, pos, ':') ||
      !read_digits(text, pos, 2, second))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  long long micros = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    int digits = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (digits < 6) micros = micros * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0 || digits > 9) return std::nullopt;
    for (int i = digits; i < 6; ++i) micros *= 10;
  }
  long long offset_seconds = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh = 0, om = 0;
    if (!read_digits(text, pos, 2, oh) || !expect(text, pos, ':') || !read_digits(text, pos, 2, om) || oh > 23 ||
        om > 59)
      return std::nullopt;
    offset_seconds = sign * (oh * 3600LL + om * 60LL);
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) return std::nullopt;
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  std::time_t t = ::timegm(&tm);
  return system_clock::time_point(duration_cast<system_clock::duration>(
      std::chrono::seconds(static_cast<long long>(t) - offset_seconds) + microseconds(micros)));
}

}  // namespace scalewright
