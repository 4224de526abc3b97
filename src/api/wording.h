#pragma once
// Counts as the timeline and events word them: "1 pod", "3 pods".
#include <algorithm>
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

// The first items of a list of `total`, only those kept: "a, b, c and 7 more" (a long list need not be kept whole
// to be said).
inline std::string first_of(const std::vector<std::string>& kept, std::size_t total, std::size_t shown = kItemsNamed) {
  std::string out;
  for (std::size_t i = 0; i < kept.size() && i < shown; ++i) out += (i == 0 ? "" : ", ") + kept[i];
  const std::size_t named = std::min(kept.size(), shown);
  if (total > named) out += fmt::format(" and {} more", total - named);
  return out;
}

// A list too long for one line, cut after `shown` items: "a, b, c and 7 more".
inline std::string first_few(const std::vector<std::string>& items, std::size_t shown = kItemsNamed) {
  return first_of(items, items.size(), shown);
}

}  // namespace scalewright
