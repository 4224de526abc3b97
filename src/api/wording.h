#pragma once
// Counts as the timeline and events word them: "1 pod", "3 pods".
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace scalewright {

inline std::string plural(std::size_t n, std::string_view word) {
  return fmt::format("{} {}{}", n, word, n == 1 ? "" : "s");
}

// How many items a line of an explanation names before it only counts the rest.
inline constexpr std::size_t kItemsNamed = 5;

// A list too long for one line, cut after `shown` items: "a, b, c and 7 more".
inline std::string first_few(const std::vector<std::string>& items, std::size_t shown = kItemsNamed) {
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < shown; ++i) out += (i == 0 ? "" : ", ") + items[i];
  if (items.size() > shown) out += fmt::format(" and {} more", items.size() - shown);
  return out;
}

}  // namespace scalewright
