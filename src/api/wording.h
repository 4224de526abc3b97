#pragma once
// Counts as the timeline and events word them: "1 pod", "3 pods".
#include <cstddef>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace scalewright {

inline std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

}  // namespace scalewright
