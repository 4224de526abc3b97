// The one escaping function for text on its way to a terminal or a message.
#include "api/escape.h"

#include <gtest/gtest.h>

namespace scalewright {
namespace {

TEST(EscapeControl, ControlCharactersBecomeEscapesAndTheRestStays) {
  EXPECT_EQ(escape_control("web-1"), "web-1");
  EXPECT_EQ(escape_control("a\nb\rc\td"), "a\\nb\\rc\\td");
  EXPECT_EQ(escape_control("\x1b[2Jgone"), "\\x1b[2Jgone");  // ESC: would clear the screen
  EXPECT_EQ(escape_control(std::string("nul\0", 4)), "nul\\x00");
  EXPECT_EQ(escape_control("del\x7f"), "del\\x7f");
  // C1 controls as UTF-8 encodes them: U+009B is a one-byte CSI to terminals that read C1.
  EXPECT_EQ(escape_control("\xc2\x9b" "31m"), "\\u009b31m");
  EXPECT_EQ(escape_control("caf\xc3\xa9 \xc2\xa0"), "caf\xc3\xa9 \xc2\xa0");  // é and a no-break space stay
}

}  // namespace
}  // namespace scalewright
