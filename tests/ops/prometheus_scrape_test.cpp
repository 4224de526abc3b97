// A real Prometheus (Debian's 2.42) scrapes our /metrics every second: its parser accepting the page and its query
// API returning the values we wrote is the proof that the exposition format is right, escaping included.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <string>

#include "ops/metrics.h"
#include "ops/ops_server.h"
#include "ops/process_metrics.h"
#include "prometheus_fixture.h"

namespace scalewright::ops {
namespace {

using scalewright::testing::PrometheusFixture;
using scalewright::testing::PrometheusFixtureOptions;

// The metadata Prometheus keeps from the scrape's # HELP and # TYPE lines for `metric`, as JSON.
nlohmann::json metadata(const PrometheusFixture& prometheus, const std::string& metric) {
  httplib::Client client(prometheus.address());
  client.set_read_timeout(std::chrono::seconds(5));
  auto response = client.Get("/api/v1/metadata", httplib::Params{{"metric", metric}}, httplib::Headers{});
  if (!response || response->status != 200) return nullptr;
  auto body = nlohmann::json::parse(response->body, nullptr, false);
  if (body.is_discarded() || !body.contains("data") || !body["data"].contains(metric)) return nullptr;
  return body["data"][metric];
}

// Why Prometheus' last scrape of `job` failed (its parser's message), for the failure output.
std::string last_scrape_error(const PrometheusFixture& prometheus, const std::string& job) {
  httplib::Client client(prometheus.address());
  client.set_read_timeout(std::chrono::seconds(5));
  auto response = client.Get("/api/v1/targets");
  if (!response) return "no answer from /api/v1/targets";
  auto body = nlohmann::json::parse(response->body, nullptr, false);
  if (body.is_discarded()) return response->body;
  for (const auto& target : body["data"]["activeTargets"]) {
    if (target["labels"]["job"] == job) return target.value("lastError", "");
  }
  return "no target for job " + job;
}

// Buckets 1, 2, 4 and eight observations: 0.5 x2 (le=1), 1.5 x4 (le=2), 3 x2 (le=4): cumulative 2, 6, 8, 8,
// sum 13. The median's rank is 4 of 8, inside the le=2 bucket (2 below it, 4 in it): 1 + (2 - 1) * (4 - 2) / 4 = 1.5.
TEST(OpsServerAgainstPrometheus, PrometheusReadsBackTheExactCounterAndHistogramValues) {
  MetricsRegistry registry;
  auto& created = registry.counter("karpenter_nodeclaims_created_total",
                                   "Number of nodeclaims created in total by Karpenter.\nHelp with \\ and a newline.",
                                   {"nodepool", "reason"});
  created.with({"default", "provisioning"}).inc(1234567);
  created.with({"quote\"back\\slash\nnewline", "drift"}).inc(2);
  auto& duration = registry.histogram("scalewright_reconcile_duration_seconds", "Reconcile duration.",
                                      {"controller"}, {1, 2, 4});
  for (double v : {0.5, 0.5, 1.5, 1.5, 1.5, 1.5, 3.0, 3.0}) duration.with({"provisioning"}).observe(v);
  registry.gauge("scalewright_pending_pods", "Pods waiting.").with().set(0.1);
  register_process_metrics(registry);

  OpsServer server(registry, nullptr, nullptr);
  auto port = server.start("127.0.0.1:0");
  ASSERT_TRUE(port.ok()) << port.error().message;

  PrometheusFixtureOptions options;
  options.extra_targets.push_back({"scalewright", "127.0.0.1:" + std::to_string(*port)});
  auto started = PrometheusFixture::start(options);
  ASSERT_TRUE(started.ok()) << started.error().message;
  const PrometheusFixture& prometheus = **started;

  // up is 1 only once a scrape parsed without error: a format mistake would leave it at 0.
  ASSERT_TRUE(prometheus.wait_for(R"(up{job="scalewright"})", [](double v) { return v == 1; }))
      << "last scrape error: " << last_scrape_error(prometheus, "scalewright");
  auto equals = [](double expected) { return [expected](double v) { return v == expected; }; };
  EXPECT_TRUE(prometheus.wait_for(
      R"(karpenter_nodeclaims_created_total{job="scalewright",nodepool="default",reason="provisioning"})",
      equals(1234567)));
  // PromQL string escapes are Go's: the label value must arrive exactly as written, quote, backslash and newline.
  EXPECT_TRUE(prometheus.wait_for(
      R"(karpenter_nodeclaims_created_total{job="scalewright",nodepool="quote\"back\\slash\nnewline"})",
      equals(2)));
  EXPECT_TRUE(prometheus.wait_for(R"(scalewright_pending_pods{job="scalewright"})", equals(0.1)));
  EXPECT_TRUE(prometheus.wait_for(R"(scalewright_reconcile_duration_seconds_count{job="scalewright"})", equals(8)));
  EXPECT_TRUE(prometheus.wait_for(R"(scalewright_reconcile_duration_seconds_sum{job="scalewright"})", equals(13)));
  EXPECT_TRUE(prometheus.wait_for(R"(scalewright_reconcile_duration_seconds_bucket{job="scalewright",le="2"})",
                                  equals(6)));
  EXPECT_TRUE(prometheus.wait_for(R"(scalewright_reconcile_duration_seconds_bucket{job="scalewright",le="+Inf"})",
                                  equals(8)));
  EXPECT_TRUE(prometheus.wait_for(
      R"(histogram_quantile(0.5, scalewright_reconcile_duration_seconds_bucket{job="scalewright"}))", equals(1.5)));
  EXPECT_TRUE(prometheus.wait_for(R"(process_resident_memory_bytes{job="scalewright"})",
                                  [](double v) { return v > 0; }));

  // The HELP text, unescaped by Prometheus' parser, and the TYPE, as it keeps them per metric.
  nlohmann::json help;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while ((help = metadata(prometheus, "karpenter_nodeclaims_created_total")).is_null() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_FALSE(help.is_null()) << "no metadata for karpenter_nodeclaims_created_total";
  ASSERT_EQ(help.size(), 1u) << help.dump();
  EXPECT_EQ(help[0]["type"], "counter");
  EXPECT_EQ(help[0]["help"], "Number of nodeclaims created in total by Karpenter.\nHelp with \\ and a newline.");
  auto histogram = metadata(prometheus, "scalewright_reconcile_duration_seconds");
  ASSERT_FALSE(histogram.is_null());
  EXPECT_EQ(histogram[0]["type"], "histogram");
}

}  // namespace
}  // namespace scalewright::ops
