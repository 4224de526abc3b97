#include "cli/timeline_printer.h"

#include <fmt/format.h>

namespace scalewright::cli {

std::string format_progress(const sim::RunProgress& p) {
  return fmt::format("{} of {}  pods {} bound, {} pending  nodes {}", format_time(p.at), format_duration(p.duration),
                     p.pods_bound, p.pods_pending, p.nodes);
}

TimelinePrinter::TimelinePrinter(std::ostream* timeline, std::ostream* progress, Clock clock)
    : timeline_(timeline), progress_(progress), clock_(std::move(clock)), last_redraw_(clock_()) {}

void TimelinePrinter::print_header() {
  if (timeline_ == nullptr || header_.empty()) return;
  *timeline_ << header_;
  header_.clear();
}

void TimelinePrinter::erase_progress() {
  if (shown_ == 0) return;
  *progress_ << '\r' << std::string(shown_, ' ') << '\r' << std::flush;
  shown_ = 0;
}

void TimelinePrinter::on_entry(const sim::TimelineEntry& entry) {
  if (timeline_ == nullptr) return;
  // On one terminal, the timeline line would otherwise be written over the end of the progress line.
  erase_progress();
  print_header();
  sim::print_timeline_entry(entry, *timeline_);
}

void TimelinePrinter::on_progress(const sim::RunProgress& progress) {
  const auto now = clock_();
  if (now - last_redraw_ < kRedrawInterval) return;
  last_redraw_ = now;
  // A pipe holds the timeline in its buffer: let a reader (`| tee`) see it at the same pace as the progress.
  if (timeline_ != nullptr) timeline_->flush();
  if (progress_ == nullptr) return;
  const std::string line = label_ + format_progress(progress);
  // Spaces over what is left of a longer previous line; \r to its start, so the next redraw replaces it.
  *progress_ << '\r' << line << std::string(shown_ > line.size() ? shown_ - line.size() : 0, ' ') << std::flush;
  shown_ = line.size();
}

void TimelinePrinter::finish() {
  if (progress_ != nullptr) erase_progress();
  print_header();
}

}  // namespace scalewright::cli
