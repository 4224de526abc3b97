#pragma once
// Durations as Kubernetes objects write them: Go's time.ParseDuration syntax ("30s", "1m30s", "720h", "1.5h").
// The engine keeps time as a value in milliseconds (an instant of it: api/instant.h); nothing in it reads a clock.
#include <chrono>
#include <string>
#include <string_view>

#include "api/result.h"

namespace scalewright {

using Duration = std::chrono::milliseconds;

// Accepts what time.ParseDuration accepts ("0", "300ms", "1h15m", "-2s", units ns us µs ms s m h); rounds to the
// millisecond. Rejects anything else with `invalid duration "<text>"`.
Result<Duration> parse_duration(std::string_view text);
// "45s", "1m30s", "2h0m0s" style as Go prints it, with milliseconds when present ("1.5s").
std::string format_duration(Duration d);

}  // namespace scalewright
