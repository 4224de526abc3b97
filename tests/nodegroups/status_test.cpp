#include "nodegroups/status.h"

#include <gtest/gtest.h>

#include <sstream>

namespace scalewright::nodegroups {
namespace {

// A Monday, 00:00 UTC: where the simulator's wall clock starts.
const WallClock kBase{std::chrono::sys_days{std::chrono::year{2024} / 1 / 1}};

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void expect_lines(const std::string& actual, const std::vector<std::string>& expected) {
  std::vector<std::string> got = lines(actual);
  for (std::size_t i = 0; i < std::max(got.size(), expected.size()); ++i) {
    EXPECT_EQ(i < got.size() ? got[i] : "<missing>", i < expected.size() ? expected[i] : "<extra>")
        << "line " << i + 1;
  }
  EXPECT_EQ(actual.back(), '\n');
}

ConditionTimes at(Duration probe, Duration transition) { return {Instant(probe), Instant(transition)}; }

TEST(AutoscalerStatus, TimesAsRfc3339AndAsCaLastUpdated) {
  EXPECT_EQ(format_rfc3339(kBase, Instant{}), "2024-01-01T00:00:00Z");
  EXPECT_EQ(format_rfc3339(kBase, Instant(Duration(3'723'250))), "2024-01-01T01:02:03.25Z");  // 1h 2m 3.25s
  EXPECT_EQ(format_rfc3339(kBase, Instant(Duration(86'400'000 * 31LL + 1))), "2024-02-01T00:00:00.001Z");
  EXPECT_EQ(format_last_updated(kBase, Instant(Duration(600'000))), "2024-01-01 00:10:00 +0000 UTC");
  EXPECT_EQ(format_last_updated(kBase, Instant(Duration(600'500))), "2024-01-01 00:10:00.5 +0000 UTC");
}

TEST(AutoscalerStatus, ReportLineByLine) {
  ClusterAutoscalerStatus s;
  s.time = Instant(Duration(600'000));  // 00:10:00
  s.health.status = HealthConditionStatus::Healthy;
  s.health.counts = {.registered = 5, .ready = 4, .not_started = 1, .unregistered = 2};
  s.health.times = at(Duration(600'000), Duration(0));
  s.scale_up.status = ScaleUpConditionStatus::InProgress;
  s.scale_up.times = at(Duration(600'000), Duration(540'000));
  s.scale_down.status = ScaleDownConditionStatus::CandidatesPresent;
  s.scale_down.candidates = 1;
  s.scale_down.times = at(Duration(600'000), Duration(570'500));

  NodeGroupStatus a;
  a.name = "ng-a";
  a.health.counts = {.registered = 3, .ready = 3};
  a.health.times = at(Duration(600'000), Duration(0));
  a.cloud_provider_target = 5;
  a.min_size = 1;
  a.max_size = 10;
  a.scale_up.status = ScaleUpConditionStatus::InProgress;
  a.scale_up.times = at(Duration(600'000), Duration(540'000));
  a.scale_down.status = ScaleDownConditionStatus::CandidatesPresent;
  a.scale_down.candidates = 1;
  a.scale_down.times = at(Duration(600'000), Duration(570'500));

  NodeGroupStatus b;
  b.name = "ng-b";
  b.health.status = HealthConditionStatus::Unhealthy;
  b.health.counts = {.registered = 2, .ready = 1, .not_started = 1, .being_deleted = 1, .unready = 1,
                     .resource_unready = 1, .long_unregistered = 1, .unregistered = 2};
  b.health.times = at(Duration(600'000), Duration(300'000));
  b.cloud_provider_target = 4;
  b.min_size = 0;
  b.max_size = 4;
  b.scale_up.status = ScaleUpConditionStatus::Backoff;
  b.scale_up.backoff_error_code = "OutOfResource";
  b.scale_up.backoff_error_message = "InsufficientInstanceCapacity: no m5.large capacity in us-east-1a";
  b.scale_up.times = at(Duration(600'000), Duration(480'000));
  b.scale_down.times = at(Duration(600'000), Duration(0));
  s.node_groups = {a, b};

  expect_lines(render_status(s, kBase), {
                                            "time: 2024-01-01 00:10:00 +0000 UTC",
                                            "autoscalerStatus: Running",
                                            "clusterWide:",
                                            "  health:",
                                            "    status: Healthy",
                                            "    nodeCounts:",
                                            "      registered:",
                                            "        total: 5",
                                            "        ready: 4",
                                            "        notStarted: 1",
                                            "      longUnregistered: 0",
                                            "      unregistered: 2",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:00:00Z\"",
                                            "  scaleUp:",
                                            "    status: InProgress",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:09:00Z\"",
                                            "  scaleDown:",
                                            "    status: CandidatesPresent",
                                            "    candidates: 1",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:09:30.5Z\"",
                                            "nodeGroups:",
                                            "- name: ng-a",
                                            "  health:",
                                            "    status: Healthy",
                                            "    nodeCounts:",
                                            "      registered:",
                                            "        total: 3",
                                            "        ready: 3",
                                            "        notStarted: 0",
                                            "      longUnregistered: 0",
                                            "      unregistered: 0",
                                            "    cloudProviderTarget: 5",
                                            "    minSize: 1",
                                            "    maxSize: 10",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:00:00Z\"",
                                            "  scaleUp:",
                                            "    status: InProgress",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:09:00Z\"",
                                            "  scaleDown:",
                                            "    status: CandidatesPresent",
                                            "    candidates: 1",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:09:30.5Z\"",
                                            "- name: ng-b",
                                            "  health:",
                                            "    status: Unhealthy",
                                            "    nodeCounts:",
                                            "      registered:",
                                            "        total: 2",
                                            "        ready: 1",
                                            "        notStarted: 1",
                                            "        beingDeleted: 1",
                                            "        unready:",
                                            "          total: 1",
                                            "          resourceUnready: 1",
                                            "      longUnregistered: 1",
                                            "      unregistered: 2",
                                            "    cloudProviderTarget: 4",
                                            "    minSize: 0",
                                            "    maxSize: 4",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:05:00Z\"",
                                            "  scaleUp:",
                                            "    status: Backoff",
                                            "    backoffInfo:",
                                            "      errorCode: OutOfResource",
                                            "      errorMessage: \"InsufficientInstanceCapacity: no m5.large "
                                            "capacity in us-east-1a\"",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:08:00Z\"",
                                            "  scaleDown:",
                                            "    status: NoCandidates",
                                            "    lastProbeTime: \"2024-01-01T00:10:00Z\"",
                                            "    lastTransitionTime: \"2024-01-01T00:00:00Z\"",
                                        });
}

TEST(AutoscalerStatus, EmptyCountsAndUnsetTimesAreLeftOutAsOmitemptyDoes) {
  ClusterAutoscalerStatus s;
  s.state = AutoscalerState::Initializing;
  s.message = "waiting for caches: yes";
  expect_lines(render_status(s, kBase), {
                                            "time: 2024-01-01 00:00:00 +0000 UTC",
                                            "autoscalerStatus: Initializing",
                                            "message: \"waiting for caches: yes\"",
                                            "clusterWide:",
                                            "  health:",
                                            "    status: Healthy",
                                            "  scaleUp:",
                                            "    status: NoActivity",
                                            "  scaleDown:",
                                            "    status: NoCandidates",
                                        });
}

TEST(AutoscalerStatus, NamesThatWouldReadAsOtherTypesAreQuoted) {
  ClusterAutoscalerStatus s;
  NodeGroupStatus g;
  g.name = "true";
  s.node_groups = {g};
  g.name = "2024";
  s.node_groups.push_back(g);
  std::string text = render_status(s, kBase);
  EXPECT_NE(text.find("- name: \"true\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("- name: \"2024\"\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace scalewright::nodegroups
