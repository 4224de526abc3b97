#pragma once
// Instants as the APIs write them: RFC 3339 in UTC. Kubernetes objects carry them (creationTimestamp, eventTime,
// a Lease's renewTime, a condition's lastTransitionTime), and so do the logs; the clients of the clouds will add
// their own forms here. Pure text to time and back: the caller reads the clock.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace scalewright {

// RFC 3339 with microseconds in UTC, as metav1.MicroTime: "2026-11-22T10:31:41.123456Z".
std::string format_micro_time(std::chrono::system_clock::time_point time);
// Accepts what the API server writes: "Z" or a "+hh:mm"/"-hh:mm" offset, with 0 to 9 fractional digits.
std::optional<std::chrono::system_clock::time_point> parse_micro_time(std::string_view text);

}  // namespace scalewright
