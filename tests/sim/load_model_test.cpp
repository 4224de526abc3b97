#include "sim/load_model.h"

#include <gtest/gtest.h>

namespace scalewright::sim {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

LoadShape shape(LoadShape::Kind kind) {
  LoadShape s;
  s.kind = kind;
  return s;
}

TEST(LoadShape, EachShapeGivesTheRateAtTheTimeSinceItsStep) {
  LoadShape ramp = shape(LoadShape::Kind::Ramp);
  ramp.from = 10;
  ramp.to = 70;
  ramp.over = minutes(2);
  EXPECT_DOUBLE_EQ(ramp.at(seconds(0)), 10);
  EXPECT_DOUBLE_EQ(ramp.at(seconds(30)), 25);  // a quarter of the way: 10 + 60 / 4
  EXPECT_DOUBLE_EQ(ramp.at(minutes(5)), 70);
  LoadShape step = shape(LoadShape::Kind::Step);
  step.from = 5;
  step.to = 50;
  step.over = minutes(1);
  EXPECT_DOUBLE_EQ(step.at(seconds(59)), 5);
  EXPECT_DOUBLE_EQ(step.at(seconds(60)), 50);
  LoadShape sine = shape(LoadShape::Kind::Sine);
  sine.mean = 50;
  sine.amplitude = 80;
  sine.period = minutes(4);
  EXPECT_NEAR(sine.at(minutes(1)), 130, 1e-9);  // a quarter period: the crest
  EXPECT_DOUBLE_EQ(sine.at(minutes(3)), 0);      // the trough, -30, is no load rather than negative load
  LoadShape points = shape(LoadShape::Kind::Points);
  points.points = {{seconds(10), 0}, {seconds(20), 100}};
  EXPECT_DOUBLE_EQ(points.at(seconds(0)), 0);
  EXPECT_DOUBLE_EQ(points.at(seconds(15)), 50);
  EXPECT_DOUBLE_EQ(points.at(minutes(9)), 100);
}

TEST(LoadModel, LoadIsSpreadOverRunningPodsCappedAtTheirLimitAndCounted) {
  LoadModel model;
  LoadShape constant = shape(LoadShape::Kind::Constant);
  constant.requests_per_second = 90;
  model.set_load("Deployment/default/web", {{"namespace", "default"}, {"app", "web"}}, constant,
                 LoadCost{.cpu_per_request_milli = 10, .idle_cpu_milli = 5, .memory_bytes = 1 << 20}, Instant{});
  // Three pods: 30 requests/s each would take 5 + 300 = 305m; "b" is limited to 200m, so it serves
  // (200 - 5) / 10 = 19.5 requests/s. "c" started 10 s ago: it serves, but has no sample before the next scrape.
  std::map<std::string, std::vector<RunningPod>> pods{
      {"Deployment/default/web",
       {{"default/a", Instant(seconds(0)), 0},
        {"default/b", Instant(seconds(0)), 200},
        {"default/c", Instant(seconds(5)), 0}}},
      {"Deployment/default/idle", {{"default/i", Instant(seconds(0)), 0}}}};
  model.scrape(Instant(seconds(15)), pods);
  ASSERT_NE(model.usage("default/a"), nullptr);
  EXPECT_EQ(model.usage("default/a")->cpu_milli, 305);
  EXPECT_EQ(model.usage("default/a")->memory_bytes, 1 << 20);
  EXPECT_EQ(model.usage("default/b")->cpu_milli, 200);
  EXPECT_EQ(model.usage("default/c"), nullptr);
  EXPECT_EQ(model.usage("default/i")->cpu_milli, 0);  // a workload without load idles
  // Served: 30 + 19.5 + 30 = 79.5 requests/s for 15 s; 10.5/s dropped.
  EXPECT_DOUBLE_EQ(model.dropped_requests(), 10.5 * 15);
  std::vector<Series> series = model.request_series();
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].samples->back(), (std::pair<Instant, double>{Instant(seconds(15)), 79.5 * 15}));
}

}  // namespace
}  // namespace scalewright::sim
