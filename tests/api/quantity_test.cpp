// Quantity::parse against apimachinery's resource.ParseQuantity, and Value()/MilliValue() rounding.
#include "api/quantity.h"

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace scalewright {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

Quantity parsed(const std::string& text) {
  Result<Quantity> q = Quantity::parse(text);
  EXPECT_TRUE(q.ok()) << text << ": " << (q.ok() ? "" : q.error().message);
  return q.ok() ? q.value() : Quantity{};
}

TEST(QuantityParse, MilliSuffixIsThousandths) {
  EXPECT_EQ(parsed("100m").milli_value(), 100);
  EXPECT_EQ(parsed("2500m").milli_value(), 2500);
}

TEST(QuantityParse, PlainIntegerIsWholeUnits) {
  EXPECT_EQ(parsed("1").milli_value(), 1000);
  EXPECT_EQ(parsed("1").value(), 1);
  EXPECT_EQ(parsed("42").value(), 42);
}

TEST(QuantityParse, DecimalFractionWithAndWithoutLeadingDigit) {
  EXPECT_EQ(parsed("0.5").milli_value(), 500);
  EXPECT_EQ(parsed(".5").milli_value(), 500);
  EXPECT_EQ(parsed("0.05").milli_value(), 50);
}

TEST(QuantityParse, BinarySuffixes) {
  EXPECT_EQ(parsed("1Ki").value(), 1024);
  EXPECT_EQ(parsed("1Mi").value(), 1048576);          // 2^20
  EXPECT_EQ(parsed("2Gi").value(), 2147483648LL);      // 2 * 2^30
  EXPECT_EQ(parsed("1.5Gi").value(), 1610612736LL);    // 1.5 * 1073741824
  EXPECT_EQ(parsed("1Ti").value(), 1099511627776LL);   // 2^40
  EXPECT_EQ(parsed("1Pi").value(), 1125899906842624LL);  // 2^50
  EXPECT_EQ(parsed("1Ei").value(), 1152921504606846976LL);  // 2^60
}

TEST(QuantityParse, DecimalSiSuffixes) {
  EXPECT_EQ(parsed("1k").value(), 1000);
  EXPECT_EQ(parsed("1M").value(), 1000000);
  EXPECT_EQ(parsed("1G").value(), 1000000000LL);
  EXPECT_EQ(parsed("1T").value(), 1000000000000LL);
  EXPECT_EQ(parsed("1P").value(), 1000000000000000LL);
  EXPECT_EQ(parsed("1E").value(), 1000000000000000000LL);  // "E" alone is exa, 10^18
  EXPECT_EQ(parsed("1u").milli_value(), 1);                // 0.000001 -> 0.001 milli, rounded up to 1
  EXPECT_EQ(parsed("1500u").milli_value(), 2);             // 1.5 milli rounded up
  EXPECT_EQ(parsed("5000000n").milli_value(), 5);          // 5e6 * 1e-9 = 0.005 = 5m
}

TEST(QuantityParse, DecimalExponents) {
  EXPECT_EQ(parsed("1e3").value(), 1000);
  EXPECT_EQ(parsed("1E3").value(), 1000);
  EXPECT_EQ(parsed("1e+3").value(), 1000);
  EXPECT_EQ(parsed("1E-3").milli_value(), 1);
  EXPECT_EQ(parsed("25e-1").milli_value(), 2500);  // 25 * 10^-1 = 2.5
}

TEST(QuantityParse, SignAndTrailingPointAreValid) {
  EXPECT_EQ(parsed("+2").value(), 2);
  EXPECT_EQ(parsed("2.").value(), 2);
  EXPECT_EQ(parsed("2.").milli_value(), 2000);
  EXPECT_FALSE(parsed("+2").negative());
}

TEST(QuantityParse, MinusSignMakesNegative) {
  Quantity q = parsed("-1");
  EXPECT_TRUE(q.negative());
  EXPECT_EQ(q.value(), -1);
  EXPECT_EQ(q.milli_value(), -1000);
  EXPECT_EQ(parsed("-500m").milli_value(), -500);
  EXPECT_FALSE(parsed("1").negative());
}

TEST(QuantityParse, KeepsOriginalText) {
  EXPECT_EQ(parsed("1.5Gi").text(), "1.5Gi");
  EXPECT_EQ(parsed("100m").text(), "100m");
}

TEST(QuantityRounding, MilliValueRoundsUpSubMilli) {
  EXPECT_EQ(parsed("0.1m").milli_value(), 1);  // 0.0001 -> 0.1 milli -> 1
  EXPECT_EQ(parsed("1n").milli_value(), 1);    // 10^-9 -> 10^-6 milli -> 1
  EXPECT_EQ(parsed("1001u").milli_value(), 2);  // 1.001 milli -> 2
}

TEST(QuantityRounding, ValueRoundsUpFractions) {
  EXPECT_EQ(parsed("1.1").value(), 2);
  EXPECT_EQ(parsed("100m").value(), 1);
  EXPECT_EQ(parsed("1001m").value(), 2);
  EXPECT_EQ(parsed("1000m").value(), 1);  // exact: no rounding
  EXPECT_EQ(parsed("0.5Ki").value(), 512);
  EXPECT_EQ(parsed("0.3Ki").value(), 308);  // 0.3 * 1024 = 307.2 -> 308
}

TEST(QuantityZero, ZeroInAnyUnitIsZero) {
  for (const char* text : {"0", "0Gi", "0m", "0.0", "0e3", "-0", "000"}) {
    Quantity q = parsed(text);
    EXPECT_TRUE(q.is_zero()) << text;
    EXPECT_EQ(q.value(), 0) << text;
    EXPECT_EQ(q.milli_value(), 0) << text;
    EXPECT_FALSE(q.negative()) << text;
  }
  EXPECT_FALSE(parsed("1n").is_zero());
  EXPECT_TRUE(Quantity{}.is_zero());
}

TEST(QuantitySaturation, HugeValuesSaturateAtInt64Limits) {
  EXPECT_EQ(parsed("1e100").value(), kMax);
  EXPECT_EQ(parsed("1e100").milli_value(), kMax);
  EXPECT_EQ(parsed("-1e100").value(), kMin);
  EXPECT_EQ(parsed("16Ei").value(), kMax);  // 2^64 > INT64_MAX
  // 1Ei = 2^60 fits, but in thousandths it is 1.15e21 > 9.2e18.
  EXPECT_EQ(parsed("1Ei").milli_value(), kMax);
}

TEST(QuantitySaturation, ExactValuesAreEmptyWhereTheSaturatedOnesClamp) {
  // Decoders refuse what does not fit instead of reading it as the int64 limit.
  EXPECT_EQ(parsed("1e100").exact_value(), std::nullopt);
  EXPECT_EQ(parsed("9223372036854775807").exact_value(), kMax);
  EXPECT_EQ(parsed("9223372036854775808").exact_value(), std::nullopt);
  EXPECT_EQ(parsed("-9223372036854775808").exact_value(), kMin);
  EXPECT_EQ(parsed("1Ei").exact_value(), std::int64_t{1} << 60);
  EXPECT_EQ(parsed("1Ei").exact_milli_value(), std::nullopt);  // 1.15e21 thousandths
  EXPECT_EQ(parsed("9223372036854775807m").exact_milli_value(), kMax);
  EXPECT_EQ(parsed("1e-100").exact_milli_value(), 1);
}

TEST(QuantitySaturation, TinyPositiveValuesRoundUpToOne) {
  EXPECT_EQ(parsed("1e-100").value(), 1);
  EXPECT_EQ(parsed("1e-100").milli_value(), 1);
}

class QuantityInvalid : public ::testing::TestWithParam<const char*> {};

TEST_P(QuantityInvalid, RejectedWithMessageQuotingInput) {
  const std::string text = GetParam();
  Result<Quantity> q = Quantity::parse(text);
  ASSERT_FALSE(q.ok()) << text;
  EXPECT_EQ(q.error().message, "invalid quantity \"" + text + "\"");
}

INSTANTIATE_TEST_SUITE_P(Malformed, QuantityInvalid,
                         ::testing::Values("1.5.3", "10XB", "", "Gi", "1K", "1e", "1Gb", " 1", "1 ", "abc",
                                           "1..5", "--1", "1mi", "1i", "1ki", "1E+", "1e3.5", "1Gi3", "m"));

TEST(QuantityFactories, FromIntIsWholeUnits) {
  Quantity q = Quantity::from_int(3);
  EXPECT_EQ(q.value(), 3);
  EXPECT_EQ(q.milli_value(), 3000);
  EXPECT_EQ(q.text(), "3");
  EXPECT_TRUE(Quantity::from_int(0).is_zero());
  EXPECT_TRUE(Quantity::from_int(-4).negative());
  EXPECT_EQ(Quantity::from_int(-4).value(), -4);
}

TEST(QuantityFactories, FromMilliIsThousandths) {
  Quantity q = Quantity::from_milli(1500);
  EXPECT_EQ(q.milli_value(), 1500);
  EXPECT_EQ(q.value(), 2);  // 1.5 rounded up
  EXPECT_EQ(q.text(), "1500m");
  EXPECT_EQ(Quantity::from_milli(2000).text(), "2");
  EXPECT_EQ(Quantity::from_milli(2000).value(), 2);
  EXPECT_TRUE(Quantity::from_milli(0).is_zero());
}

// The header promises the value is exact for every quantity upstream accepts; upstream's inf.Dec reads
// "1.000000000000000000000Ei" (21 zeros after the point) as exactly 2^60.
TEST(QuantityExactness, LongFractionWithBinarySuffixIsExact) {
  EXPECT_EQ(parsed("1.000000000000000000000Ei").value(), 1152921504606846976LL);  // 2^60
  EXPECT_EQ(parsed("1.000000000000000000000000000000Gi").value(), 1073741824LL);    // 2^30
}

// Exponents are clamped to 400 while being read, before the fraction digits are subtracted: "0.<399 zeros>1e401"
// is 10^-400 * 10^401 = 10, but a clamp to e400 first makes it 10^-400 * 10^400 = 1.
TEST(QuantityExactness, LargeExponentBalancedByLongFraction) {
  const std::string text = "0." + std::string(399, '0') + "1e401";
  EXPECT_EQ(parsed(text).value(), 10);
  EXPECT_EQ(parsed(text).milli_value(), 10000);
}

}  // namespace
}  // namespace scalewright
