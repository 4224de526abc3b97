#pragma once
// Text from the input on its way to a terminal or a message: control characters (C0, DEL, and C1 as UTF-8 encodes
// them) written as escapes, so that a name holding "\x1b[2J" or a newline can neither drive the terminal nor fake a
// line of output. The one escaping function: quote() in error messages and the output of every command use it.
#include <string>
#include <string_view>

namespace scalewright {

// `text` with \n, \r, \t as such, other C0 controls and DEL as \xNN, and C1 controls (U+0080-U+009F) as \uNNNN;
// everything else, other UTF-8 included, as it is.
std::string escape_control(std::string_view text);

}  // namespace scalewright
