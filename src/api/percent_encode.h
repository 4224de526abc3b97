#pragma once
// Percent-encoding for URL query values: RFC 3986 unreserved characters stay; everything else (PromQL's braces,
// quotes and spaces, a label selector's '=' and '/') becomes %XX.
#include <string>
#include <string_view>

namespace scalewright {

inline std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() * 3);
  for (unsigned char c : text) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                      c == '_' || c == '.' || c == '~';
    if (unreserved) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  return out;
}

}  // namespace scalewright
