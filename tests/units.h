#pragma once
// The units tests write amounts in: binary multiples of bytes for memory and storage, as Kubernetes quantities
// name them (Ki, Mi, Gi), and spans and instants of the virtual clock.
#include <cstdint>
#include <limits>

#include "api/duration.h"
#include "api/instant.h"

namespace scalewright {

inline constexpr std::int64_t kKi = 1024;
inline constexpr std::int64_t kMi = 1024 * kKi;
inline constexpr std::int64_t kGi = 1024 * kMi;
inline constexpr std::int64_t kEi = 1024 * 1024 * 1024 * kGi;  // 2^60
// The largest amount an int64 holds (8Ei - 1 bytes, or 2^63 - 1 millicores): where sums of amounts saturate.
inline constexpr std::int64_t kLargestAmount = std::numeric_limits<std::int64_t>::max();

inline constexpr Duration kSecond{1'000};
inline constexpr Duration kMinute{60 * kSecond};
inline constexpr Duration kHour{60 * kMinute};
// The clock's epoch, the start of a run: tests write an instant as kStart + 90 * kSecond.
inline constexpr Instant kStart{};

}  // namespace scalewright
