#include "api/duration.h"

#include <cctype>
#include <cmath>
#include <optional>

namespace scalewright {
namespace {

std::optional<double> unit_in_milliseconds(std::string_view unit) {
  if (unit == "ns") return 1e-6;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1e-3;  // us, µs (micro sign), μs (mu)
  if (unit == "ms") return 1.0;
  if (unit == "s") return 1e3;
  if (unit == "m") return 60e3;
  if (unit == "h") return 3600e3;
  return std::nullopt;
}

}  // namespace

Result<Duration> parse_duration(std::string_view text) {
  const Error invalid{"invalid duration \"" + std::string(text) + "\""};
  std::string_view s = text;
  double sign = 1;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    sign = s[0] == '-' ? -1 : 1;
    s.remove_prefix(1);
  }
  if (s == "0") return Duration(0);
  if (s.empty()) return invalid;
  double total = 0;
  while (!s.empty()) {
    std::size_t i = 0;
    std::size_t digits = 0;
    double number = 0;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, ++digits) number = number * 10 + (s[i] - '0');
    if (i < s.size() && s[i] == '.') {
      double scale = 0.1;
      for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i, scale /= 10) {
        number += (s[i] - '0') * scale;
        ++digits;
      }
    }
    if (digits == 0) return invalid;
    std::size_t unit_end = i;
    while (unit_end < s.size() && !std::isdigit(static_cast<unsigned char>(s[unit_end])) && s[unit_end] != '.') ++unit_end;
    auto unit = unit_in_milliseconds(s.substr(i, unit_end - i));
    if (!unit) return invalid;
    total += number * *unit;
    s.remove_prefix(unit_end);
  }
  if (total > 9.2e15) return invalid;  // beyond what an int64 of milliseconds holds with room to add
  return Duration(static_cast<Duration::rep>(std::llround(sign * total)));
}

std::string format_duration(Duration d) {
  std::int64_t ms = d.count();
  std::string sign = ms < 0 ? "-" : "";
  if (ms < 0) ms = -ms;
  const std::int64_t hours = ms / 3'600'000;
  const std::int64_t minutes = ms / 60'000 % 60;
  const std::int64_t millis = ms % 60'000;
  std::string seconds = std::to_string(millis / 1000);
  if (millis % 1000 != 0) {
    std::string fraction = std::to_string(1000 + millis % 1000).substr(1);
    while (fraction.back() == '0') fraction.pop_back();
    seconds += "." + fraction;
  }
  if (hours > 0) return sign + std::to_string(hours) + "h" + std::to_string(minutes) + "m" + seconds + "s";
  if (minutes > 0) return sign + std::to_string(minutes) + "m" + seconds + "s";
  return sign + seconds + "s";
}

}  // namespace scalewright
