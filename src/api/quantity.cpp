#include "api/quantity.h"

#include <cctype>
#include <limits>
#include <optional>

namespace scalewright {
namespace {

__extension__ typedef __int128 int128;

// Exponents are clamped here to keep the arithmetic bounded. Upstream's inf.Dec has no limit, but any exponent
// this large saturates (or rounds to the smallest unit) whatever fraction digits it is balanced against.
constexpr int kMaxExponent = 100'000;
// More significant digits than an int128 holds cannot be exact; upstream accepts them, but no resource amount
// a user writes comes near (the largest, 8Ei, has 19 digits).
constexpr int kMaxDigits = 36;

struct Suffix {
  int exponent10 = 0;
  int exponent2 = 0;
};

// The suffixes resource.ParseQuantity accepts: binary SI, decimal SI, and decimal exponents (e3, E-3).
std::optional<Suffix> parse_suffix(std::string_view s) {
  if (s.empty()) return Suffix{};
  if (s.size() == 2 && s[1] == 'i') {
    switch (s[0]) {
      case 'K': return Suffix{0, 10};
      case 'M': return Suffix{0, 20};
      case 'G': return Suffix{0, 30};
      case 'T': return Suffix{0, 40};
      case 'P': return Suffix{0, 50};
      case 'E': return Suffix{0, 60};
      default: return std::nullopt;
    }
  }
  if (s.size() == 1) {
    switch (s[0]) {
      case 'n': return Suffix{-9, 0};
      case 'u': return Suffix{-6, 0};
      case 'm': return Suffix{-3, 0};
      case 'k': return Suffix{3, 0};
      case 'M': return Suffix{6, 0};
      case 'G': return Suffix{9, 0};
      case 'T': return Suffix{12, 0};
      case 'P': return Suffix{15, 0};
      case 'E': return Suffix{18, 0};  // "1E" is one exa; "1E3" below is an exponent
      default: return std::nullopt;
    }
  }
  if (s[0] != 'e' && s[0] != 'E') return std::nullopt;
  std::size_t i = 1;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i == s.size()) return std::nullopt;
  int exponent = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    exponent = std::min(exponent * 10 + (s[i] - '0'), kMaxExponent);
  }
  return Suffix{negative ? -exponent : exponent, 0};
}

std::optional<std::int64_t> narrow(int128 v) {
  if (v > std::numeric_limits<std::int64_t>::max() || v < std::numeric_limits<std::int64_t>::min()) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(v);
}

// ceil(mantissa × 10^e10 × 2^e2) computed exactly in 128 bits; nullopt when it does not fit in an int64. A
// negative e10 divides by 10^k = 2^k × 5^k: the factors of two cancel against e2 first, so
// "1.000000000000000000000Ei" stays exact.
std::optional<std::int64_t> scaled_ceil(int128 mantissa, int e10, int e2) {
  if (mantissa == 0) return 0;
  const bool negative = mantissa < 0;
  while (e10 < 0 && mantissa % 10 == 0) {
    mantissa /= 10;
    ++e10;
  }
  int twos_in_divisor = 0;
  int fives_in_divisor = 0;
  if (e10 < 0) {
    const int cancelled = std::min(e2, -e10);
    e2 -= cancelled;
    twos_in_divisor = -e10 - cancelled;
    fives_in_divisor = -e10;
    e10 = 0;
  }
  int128 value = mantissa;
  for (int i = 0; i < e2; ++i) {
    if (__builtin_mul_overflow(value, 2, &value)) return std::nullopt;
  }
  for (int i = 0; i < e10; ++i) {
    if (__builtin_mul_overflow(value, 10, &value)) return std::nullopt;
  }
  int128 divisor = 1;
  for (int i = 0; i < twos_in_divisor; ++i) {
    if (__builtin_mul_overflow(divisor, 2, &divisor)) return std::int64_t{negative ? 0 : 1};  // magnitude below one
  }
  for (int i = 0; i < fives_in_divisor; ++i) {
    if (__builtin_mul_overflow(divisor, 5, &divisor)) return std::int64_t{negative ? 0 : 1};
  }
  int128 quotient = value / divisor;  // truncates toward zero
  if (!negative && value % divisor != 0) ++quotient;
  return narrow(quotient);
}

std::int64_t saturated(std::optional<std::int64_t> exact, bool negative) {
  if (exact) return *exact;
  return negative ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

Error invalid(std::string_view text) { return Error{"invalid quantity \"" + std::string(text) + "\""}; }

}  // namespace

Result<Quantity> Quantity::parse(std::string_view text) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';

  int128 mantissa = 0;
  int digits = 0;             // significant digits kept in the mantissa
  int seen_digits = 0;        // every digit, leading zeros included
  int fraction_digits = 0;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '.') {
      if (seen_point) return invalid(text);
      seen_point = true;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    ++seen_digits;
    if (seen_point) ++fraction_digits;
    if (mantissa == 0 && c == '0') continue;  // leading zeros carry no precision
    if (++digits > kMaxDigits) return Error{invalid(text).message + ": too many digits"};
    mantissa = mantissa * 10 + (c - '0');
  }
  if (seen_digits == 0) return invalid(text);

  std::optional<Suffix> suffix = parse_suffix(text.substr(i));
  if (!suffix) return invalid(text);

  Quantity q;
  q.mantissa_ = negative ? -mantissa : mantissa;
  q.exponent10_ = suffix->exponent10 - fraction_digits;
  q.exponent2_ = suffix->exponent2;
  q.text_ = std::string(text);
  return q;
}

Quantity Quantity::from_int(std::int64_t value) {
  Quantity q;
  q.mantissa_ = value;
  q.text_ = std::to_string(value);
  return q;
}

Quantity Quantity::from_milli(std::int64_t milli) {
  Quantity q;
  q.mantissa_ = milli;
  q.exponent10_ = -3;
  q.text_ = milli % 1000 == 0 ? std::to_string(milli / 1000) : std::to_string(milli) + "m";
  return q;
}

std::int64_t Quantity::value() const { return saturated(exact_value(), negative()); }
std::int64_t Quantity::milli_value() const { return saturated(exact_milli_value(), negative()); }
std::optional<std::int64_t> Quantity::exact_value() const { return scaled_ceil(mantissa_, exponent10_, exponent2_); }
std::optional<std::int64_t> Quantity::exact_milli_value() const {
  return scaled_ceil(mantissa_, exponent10_ + 3, exponent2_);
}
bool Quantity::negative() const { return mantissa_ < 0; }
bool Quantity::is_zero() const { return mantissa_ == 0; }

}  // namespace scalewright
