#pragma once
// Watching a run as it happens: the simulator hands each timeline entry, and where the run stands, to a sink while
// it runs, so a long run can print its timeline as it goes instead of all at the end. The report is unchanged: its
// timeline holds the same entries, in the same order.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "sim/report.h"

namespace scalewright::sim {

// Where a run stands after an instant of simulated time has settled.
struct RunProgress {
  Instant at{};
  Duration duration{0};         // the scenario's spec.duration
  std::size_t pods_bound = 0;   // pods on a node (DaemonSet pods included)
  std::size_t pods_pending = 0;  // pods waiting for a node
  std::int32_t nodes = 0;       // launching, Ready or draining
};

class TimelineSink {
 public:
  virtual ~TimelineSink() = default;
  // Every timeline entry, once, in the report's order, as soon as the instant it belongs to has settled (the
  // controllers at one instant see one state, so the entries of an instant are complete only then).
  virtual void on_entry(const TimelineEntry& entry) = 0;
  // After every settled instant, after its entries.
  virtual void on_progress(const RunProgress& /*progress*/) {}
};

// Hands the entries a run has added since the last call to the sink; kept out of the simulator's loop so that the
// loop only says when.
class TimelineStream {
 public:
  explicit TimelineStream(TimelineSink* sink) : sink_(sink) {}
  void flush(const std::vector<TimelineEntry>& timeline, const RunProgress& progress) {
    if (sink_ == nullptr) return;
    for (; delivered_ < timeline.size(); ++delivered_) sink_->on_entry(timeline[delivered_]);
    sink_->on_progress(progress);
  }

 private:
  TimelineSink* sink_;
  std::size_t delivered_ = 0;
};

}  // namespace scalewright::sim
