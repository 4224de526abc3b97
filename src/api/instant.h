#pragma once
// An instant of the engine's clock, a type of its own beside Duration: instant - instant is a Duration, instant ±
// Duration an instant, and instant + instant does not compile.
#include <chrono>
#include <string>

#include "api/duration.h"

namespace scalewright {

// The clock instants are measured on, in milliseconds. Its epoch is the start of a run (the simulator) or of the
// controller's process (`scalewright run`, which maps the wall clock onto it at one place, cluster::TimeBase). It has
// what std::chrono::time_point needs and no now(): the engine never reads a clock, time comes to it as a value.
struct VirtualTime {
  using duration = Duration;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<VirtualTime, duration>;
  static constexpr bool is_steady = true;
};

using Instant = VirtualTime::time_point;

// How long after the epoch `at` is: what reports, timelines and snapshots write for an instant.
constexpr Duration since_start(Instant at) { return at.time_since_epoch(); }

// An instant of a run, as timelines print it: "t=1m12.5s".
inline std::string format_time(Instant at) { return "t=" + format_duration(since_start(at)); }

}  // namespace scalewright
