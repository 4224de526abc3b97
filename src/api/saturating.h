#pragma once
// Arithmetic that cannot overflow: a metric, a load or a replica count may be as large as the API server accepts
// (quantities up to 2^63-1 milli, replicas up to 2^31-1), and a sum or product of such values must stop at the
// limit of its type rather than wrap around into a negative number (or be undefined, as a double cast out of range
// is). The results saturate: a utilization too large to write is the largest one, which still says "scale up".
#include <cmath>
#include <concepts>
#include <cstdint>
#include <limits>
#include <utility>

namespace scalewright {

// a + b, clamped to [min, max] of int64.
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (!__builtin_add_overflow(a, b, &sum)) return sum;
  return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

// a - b, clamped to [min, max] of int64.
constexpr std::int64_t saturating_sub(std::int64_t a, std::int64_t b) {
  std::int64_t difference = 0;
  if (!__builtin_sub_overflow(a, b, &difference)) return difference;
  return b < 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

// a * b, clamped to [min, max] of int64.
constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (!__builtin_mul_overflow(a, b, &product)) return product;
  return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

// `value` as the integer type To, clamped to its range; NaN becomes 0. The fraction is truncated, as a cast does.
template <std::integral To>
constexpr To saturate_cast(double value) {
  if (std::isnan(value)) return 0;
  // max() as a double may round up to 2^63 (int64), which is already out of range: compare with >=.
  if (value >= static_cast<double>(std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
  if (value <= static_cast<double>(std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
  return static_cast<To>(value);
}

// An integer of a wider type as To, clamped to its range.
template <std::integral To, std::integral From>
constexpr To saturate_cast(From value) {
  if (std::cmp_greater(value, std::numeric_limits<To>::max())) return std::numeric_limits<To>::max();
  if (std::cmp_less(value, std::numeric_limits<To>::min())) return std::numeric_limits<To>::min();
  return static_cast<To>(value);
}

}  // namespace scalewright
