#pragma once
// What `scalewright simulate` shows while a run goes: the timeline on stdout as it happens (the same lines
// print_timeline prints), and, when stderr is a terminal, one progress line there, rewritten in place.
#include <chrono>
#include <functional>
#include <ostream>
#include <string>

#include "api/escape.h"
#include "sim/timeline_sink.h"

namespace scalewright::cli {

class TimelinePrinter : public sim::TimelineSink {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // The progress line is redrawn at most this often: often enough to look alive, rarely enough to cost nothing.
  static constexpr std::chrono::milliseconds kRedrawInterval{200};

  // `timeline`: where the timeline goes (null: --quiet). `progress`: the terminal for the progress line (null: none).
  // `clock`: wall time, for the redraw interval (a test passes its own).
  TimelinePrinter(std::ostream* timeline, std::ostream* progress, Clock clock = std::chrono::steady_clock::now);

  // Printed once before this run's first timeline line, or by finish() if it has none ("== nodepools.yaml").
  void set_header(std::string header) { header_ = std::move(header); }
  // Put before the progress figures ("nodepools.yaml: "), to tell the runs of a comparison apart; its control
  // characters escaped, since the progress line is written to the terminal as it is.
  void set_progress_label(std::string label) { label_ = escape_control(label); }

  void on_entry(const sim::TimelineEntry& entry) override;
  void on_progress(const sim::RunProgress& progress) override;
  // After the run: erases the progress line, so that what follows starts on a clean line.
  void finish();

 private:
  void print_header();
  void erase_progress();

  std::ostream* timeline_;
  std::ostream* progress_;
  Clock clock_;
  std::chrono::steady_clock::time_point last_redraw_;
  std::string header_;
  std::string label_;
  std::size_t shown_ = 0;  // length of the progress line on the terminal; 0: none
};

// "t=5m0s of 30m0s  pods 45 bound, 5 pending  nodes 3"
std::string format_progress(const sim::RunProgress& progress);

}  // namespace scalewright::cli
