#pragma once
// ASCII case for the names of protocols and formats (HTTP header names, cron's month and day names, AWS's enums,
// YAML's words): locale-independent, bytes outside A-Z untouched.
#include <string>
#include <string_view>

namespace scalewright {

inline std::string ascii_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace scalewright
