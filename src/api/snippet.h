#pragma once
// Bodies can be large (HTML error pages, whole objects); an error message needs only their start, on one line.
#include <cstddef>
#include <string>
#include <string_view>

namespace scalewright {

inline std::string snippet(std::string_view body) {
  constexpr std::size_t kMax = 200;
  std::string s(body.substr(0, kMax));
  for (char& c : s) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (body.size() > kMax) s += "...";
  return s;
}

}  // namespace scalewright
