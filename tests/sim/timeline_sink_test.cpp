// The timeline reaches a TimelineSink while the run goes, not only in the report at the end.
#include "sim/timeline_sink.h"

#include <gtest/gtest.h>

#include "run_scenario.h"

namespace scalewright::sim {
namespace {

// Records what the simulator hands over, and how many entries it had handed over at each progress report.
struct RecordingSink : TimelineSink {
  std::vector<TimelineEntry> entries;
  std::vector<RunProgress> progress;
  std::vector<std::size_t> entries_before;  // entries.size() when progress[i] came

  void on_entry(const TimelineEntry& entry) override { entries.push_back(entry); }
  void on_progress(const RunProgress& p) override {
    progress.push_back(p);
    entries_before.push_back(entries.size());
  }
  // The last progress report of the instant `at`.
  const RunProgress* at(Instant at) const {
    const RunProgress* found = nullptr;
    for (const RunProgress& p : progress) {
      if (p.at == at) found = &p;
    }
    return found;
  }
};

// The inflate demo in small: 5 pods of 1 cpu at 10 s, one node launched at 11 s (batch idle 1 s) and Ready at 71 s,
// the Deployment back to 0 at 5m, the empty node removed 30 s later.
const std::string kInflate = testing::nodepool() + testing::deployment("inflate", 0, "1") + R"(
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: test}
spec:
  duration: 10m
  cloud:
    launchLatency: {min: 60s, max: 60s}
  timeline:
  - {at: 10s, scale: {kind: Deployment, name: inflate, replicas: 5}}
  - {at: 5m, scale: {kind: Deployment, name: inflate, replicas: 0}}
)";

TEST(TimelineSink, ReceivesEveryEntryOfTheReportInOrder) {
  RecordingSink sink;
  SimulationReport report = testing::run(kInflate, 2, {}, &sink);
  ASSERT_EQ(sink.entries.size(), report.timeline.size());
  ASSERT_GE(report.timeline.size(), 5u);  // scale, pending, launch, ready, bound, scale, removed at least
  for (std::size_t i = 0; i < report.timeline.size(); ++i) {
    EXPECT_EQ(sink.entries[i].at, report.timeline[i].at) << i;
    EXPECT_EQ(sink.entries[i].kind, report.timeline[i].kind) << i;
    EXPECT_EQ(sink.entries[i].message, report.timeline[i].message) << i;
  }
}

TEST(TimelineSink, EntriesArriveAsTheirInstantSettlesNotAtTheEnd) {
  RecordingSink sink;
  SimulationReport report = testing::run(kInflate, 2, {}, &sink);
  ASSERT_FALSE(sink.progress.empty());
  // At each progress report, the entries handed over so far are exactly those up to that instant.
  for (std::size_t k = 0; k < sink.progress.size(); ++k) {
    const Instant now = sink.progress[k].at;
    for (std::size_t i = 0; i < sink.entries_before[k]; ++i) EXPECT_LE(sink.entries[i].at, now) << i;
    for (std::size_t i = sink.entries_before[k]; i < report.timeline.size(); ++i) {
      EXPECT_GT(report.timeline[i].at, now) << i;
    }
  }
  // When the launch at 11 s was reported, the removal at 5m30s was still to come.
  const RunProgress* launch = sink.at(Instant(Duration(11'000)));
  ASSERT_NE(launch, nullptr);
  const std::size_t k = static_cast<std::size_t>(launch - sink.progress.data());
  EXPECT_GT(sink.entries_before[k], 0u);
  EXPECT_LT(sink.entries_before[k], report.timeline.size());
  EXPECT_EQ(sink.progress.back().at, Instant(Duration(10 * 60'000)));  // the last report is the end of the run
}

TEST(TimelineSink, ProgressCountsPodsAndNodesAtEachInstant) {
  RecordingSink sink;
  testing::run(kInflate, 2, {}, &sink);
  struct Expected {
    Instant at;
    std::size_t bound, pending;
    std::int32_t nodes;
  };
  for (const Expected& e : {Expected{Instant(Duration(10'000)), 0, 5, 0},   // scaled to 5, nothing launched yet
                            Expected{Instant(Duration(11'000)), 0, 5, 1},   // launched, not Ready
                            Expected{Instant(Duration(71'000)), 5, 0, 1},   // Ready, all bound
                            Expected{Instant(Duration(330'000)), 0, 0, 0},  // pods gone at 5m, the node 30 s later
                            Expected{Instant(Duration(600'000)), 0, 0, 0}}) {
    const RunProgress* p = sink.at(e.at);
    ASSERT_NE(p, nullptr) << format_time(e.at);
    EXPECT_EQ(p->pods_bound, e.bound) << format_time(e.at);
    EXPECT_EQ(p->pods_pending, e.pending) << format_time(e.at);
    EXPECT_EQ(p->nodes, e.nodes) << format_time(e.at);
    EXPECT_EQ(p->duration, Duration(600'000));
  }
}

}  // namespace
}  // namespace scalewright::sim
