// ASCII text helpers (api/ascii.h): what the protocols' readers (AWS's config files, kubeconfig tokens, IMDS answers)
// rely on.
#include "api/ascii.h"

#include <gtest/gtest.h>

namespace scalewright {
namespace {

TEST(AsciiTrim, TakesWhiteSpaceOffBothEndsOnly) {
  EXPECT_EQ(ascii_trim("  token\r\n"), "token");
  EXPECT_EQ(ascii_trim("\t\f\va b\v"), "a b");  // inner space kept
  EXPECT_EQ(ascii_trim("plain"), "plain");
  EXPECT_EQ(ascii_trim(" \t\r\n"), "");
  EXPECT_EQ(ascii_trim(""), "");
  // Only ASCII white space: a non-breaking space (UTF-8 C2 A0) is text.
  EXPECT_EQ(ascii_trim("\xc2\xa0x "), "\xc2\xa0x");
}

TEST(AsciiSplit, KeepsEmptyParts) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string_view>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string_view>{""}));
  EXPECT_EQ(ascii_lower("Content-TYPE"), "content-type");
}

}  // namespace
}  // namespace scalewright
