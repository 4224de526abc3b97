#pragma once
// Kubernetes resource quantities ("100m", "1.5Gi", "1e3"), parsed as apimachinery's resource.ParseQuantity does.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/result.h"

namespace scalewright {

class Quantity {
 public:
  Quantity() = default;

  // Accepts <sign><digits>[.<digits>]<suffix> where suffix is a binary SI suffix (Ki Mi Gi Ti Pi Ei), a decimal
  // SI suffix (n u m "" k M G T P E) or a decimal exponent (e3, E-3). Rejects anything else with a message that
  // quotes the input, e.g. `invalid quantity "1.5.3"`.
  static Result<Quantity> parse(std::string_view text);
  static Quantity from_int(std::int64_t value);
  static Quantity from_milli(std::int64_t milli);

  // The value rounded up to a whole unit, as resource.Quantity.Value() does (used for memory, storage, pods and
  // extended resources). Saturates at the int64 limits.
  std::int64_t value() const;
  // The value in thousandths rounded up, as resource.Quantity.MilliValue() does (used for cpu).
  std::int64_t milli_value() const;
  // value() and milli_value() when they fit in an int64, nullopt when they would saturate: a decoder refuses such
  // a quantity rather than silently reading 1e308 cpu as 9223372036854775807m.
  std::optional<std::int64_t> exact_value() const;
  std::optional<std::int64_t> exact_milli_value() const;

  bool negative() const;
  bool is_zero() const;
  const std::string& text() const { return text_; }

 private:
  // value = mantissa_ * 10^exponent10_ * 2^exponent2_ ("1.5Gi" is 15 * 10^-1 * 2^30).
  __extension__ __int128 mantissa_ = 0;  // exact for every quantity upstream accepts
  int exponent10_ = 0;
  int exponent2_ = 0;
  std::string text_ = "0";
};

}  // namespace scalewright
