#pragma once
// ASCII text of protocols and formats (HTTP header names, cron's month and day names, AWS's enums, YAML's words,
// flags' lists): case, locale-independent, bytes outside A-Z untouched; and a list split on its separator.
#include <string>
#include <string_view>
#include <vector>

namespace scalewright {

inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// `text` without the ASCII white space (space, tab, line breaks, form feed) at either end.
inline std::string_view ascii_trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  const std::size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(kSpace) - first + 1);
}

// The parts of `text` between each `separator`, empty ones kept ("a,,b" is "a", "", "b"; "" is one empty part).
inline std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace scalewright
