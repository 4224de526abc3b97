// What `simulate` shows while a run goes: timeline lines as they come, and a progress line redrawn at most every
// 200 ms of wall time. The wall clock is the test's own, so no test waits or measures time.
#include "cli/timeline_printer.h"

#include <gtest/gtest.h>

#include <sstream>

namespace scalewright::cli {
namespace {

using namespace std::chrono_literals;

struct FakeClock {
  std::chrono::steady_clock::time_point now{};
  TimelinePrinter::Clock clock() {
    return [this] { return now; };
  }
};

const sim::TimelineEntry kScale{Instant(Duration(10'000)), "scale", "scale Deployment default/inflate 0 -> 5"};
const sim::TimelineEntry kPending{Instant(Duration(10'000)), "pending", "5 pods pending: no node fits them"};

TEST(TimelinePrinter, PrintsEachEntryAsPrintTimelineDoes) {
  std::ostringstream out;
  TimelinePrinter printer(&out, nullptr);
  printer.on_entry(kScale);
  printer.on_entry(kPending);
  printer.finish();
  EXPECT_EQ(out.str(),
            "t=10s        scale Deployment default/inflate 0 -> 5\n"
            "t=10s        5 pods pending: no node fits them\n");
}

TEST(TimelinePrinter, ProgressLineIsRedrawnAtMostEvery200MsAndErasedBeforeATimelineLine) {
  FakeClock wall;
  std::ostringstream out, err;
  TimelinePrinter printer(&out, &err, wall.clock());
  const sim::RunProgress at_10s{Instant(Duration(10'000)), Duration(1'200'000), 0, 5, 0};
  const sim::RunProgress at_71s{Instant(Duration(71'000)), Duration(1'200'000), 5, 0, 1};

  wall.now += 150ms;  // too soon after the start: nothing drawn
  printer.on_progress(at_10s);
  EXPECT_EQ(err.str(), "");
  wall.now += 50ms;  // 200 ms since the start
  printer.on_progress(at_10s);
  const std::string line = "t=10s of 20m0s  pods 0 bound, 5 pending  nodes 0";
  EXPECT_EQ(err.str(), "\r" + line);
  wall.now += 100ms;  // 100 ms since the last redraw: skipped
  printer.on_progress(at_71s);
  EXPECT_EQ(err.str(), "\r" + line);

  // A timeline line first blanks the progress line, which is then drawn again at the next redraw.
  printer.on_entry(kScale);
  const std::string blank = "\r" + std::string(line.size(), ' ') + "\r";
  EXPECT_EQ(err.str(), "\r" + line + blank);
  EXPECT_EQ(out.str(), "t=10s        scale Deployment default/inflate 0 -> 5\n");
  wall.now += 100ms;
  printer.on_progress(at_71s);
  const std::string line_71s = "t=1m11s of 20m0s  pods 5 bound, 0 pending  nodes 1";
  EXPECT_EQ(err.str(), "\r" + line + blank + "\r" + line_71s);

  // The end of the run leaves a clean line for the summary.
  printer.finish();
  EXPECT_EQ(err.str(), "\r" + line + blank + "\r" + line_71s + "\r" + std::string(line_71s.size(), ' ') + "\r");
}

TEST(TimelinePrinter, ShorterProgressLineCoversTheRestOfTheLongerOne) {
  FakeClock wall;
  std::ostringstream err;
  TimelinePrinter printer(nullptr, &err, wall.clock());
  printer.set_progress_label("nodepools.yaml: ");
  wall.now += 200ms;
  printer.on_progress({Instant(Duration(5'000)), Duration(600'000), 123, 45, 6});
  wall.now += 200ms;
  printer.on_progress({Instant(Duration(6'000)), Duration(600'000), 1, 0, 1});
  const std::string first = "nodepools.yaml: t=5s of 10m0s  pods 123 bound, 45 pending  nodes 6";
  const std::string second = "nodepools.yaml: t=6s of 10m0s  pods 1 bound, 0 pending  nodes 1";
  EXPECT_EQ(err.str(), "\r" + first + "\r" + second + std::string(first.size() - second.size(), ' '));
}

TEST(TimelinePrinter, HeaderComesBeforeTheFirstLineOrAtTheEndOfARunWithoutAny) {
  std::ostringstream out;
  TimelinePrinter with_lines(&out, nullptr);
  with_lines.set_header("== a.yaml\n");
  with_lines.on_entry(kScale);
  with_lines.finish();
  TimelinePrinter without(&out, nullptr);
  without.set_header("== b.yaml\n");
  without.finish();
  EXPECT_EQ(out.str(), "== a.yaml\nt=10s        scale Deployment default/inflate 0 -> 5\n== b.yaml\n");
}

}  // namespace
}  // namespace scalewright::cli
