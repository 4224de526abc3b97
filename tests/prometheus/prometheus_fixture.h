#pragma once
// A real Prometheus for tests: starts /usr/bin/prometheus on 127.0.0.1 (free port, temp storage, 1 s scrape
// interval) scraping a tiny exporter this fixture serves itself, whose series the test sets. Everything stays on
// 127.0.0.1 and is stopped and removed when the fixture is destroyed.
//
//   auto prom = PrometheusFixture::start();
//   ASSERT_TRUE(prom.ok()) << prom.error().message;
//   (*prom)->set_value("http_requests_total", {{"app", "podinfo"}}, 42);
//   ASSERT_TRUE((*prom)->wait_for(R"(http_requests_total{app="podinfo"})", [](double v) { return v == 42; }));
//   PrometheusClient client((*prom)->address(), std::chrono::seconds(5));
//
// Create it on the thread that will destroy it (gtest's main thread): Prometheus is started with PDEATHSIG bound
// to that thread, so a crashed test still takes Prometheus down with it.
#include <gtest/gtest.h>
#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "api/result.h"

namespace httplib {
class Server;
}

namespace scalewright::testing {

// Another endpoint for Prometheus to scrape (GET /metrics, every second), e.g. an exporter under test.
struct ScrapeTarget {
  std::string job;      // the job label its series get
  std::string address;  // "127.0.0.1:PORT"
};

struct PrometheusFixtureOptions {
  std::string binary = "/usr/bin/prometheus";
  std::chrono::seconds ready_timeout{30};  // until /-/ready answers and the first scrape is queryable
  std::vector<ScrapeTarget> extra_targets;  // scraped besides the fixture's own exporter (job "exporter")
};

class PrometheusFixture {
 public:
  using Labels = std::map<std::string, std::string>;

  // Fails (never skips) when the binary is missing, naming scripts/install-deps.sh.
  static Result<std::unique_ptr<PrometheusFixture>> start(PrometheusFixtureOptions options = {});
  ~PrometheusFixture();
  PrometheusFixture(const PrometheusFixture&) = delete;
  PrometheusFixture& operator=(const PrometheusFixture&) = delete;

  std::string address() const;  // "http://127.0.0.1:PORT" of Prometheus
  int exporter_port() const { return exporter_port_; }

  // The exporter serves `name{labels} value` from the next scrape on (untyped; Prometheus treats it as a gauge).
  void set_value(std::string_view name, const Labels& labels, double value);
  // A counter that grows by `delta` each time Prometheus scrapes the exporter, starting from its current value.
  void add_per_scrape(std::string_view name, const Labels& labels, double delta);
  // Stops serving the series; Prometheus marks it stale at the next scrape.
  void remove(std::string_view name, const Labels& labels);
  std::uint64_t scrapes() const { return scrapes_.load(); }

  // The raw /api/v1/query response (status, body), fetched without the client under test: an independent oracle.
  std::pair<int, std::string> query_raw(std::string_view promql) const;
  // The single value of `promql` (one vector element or a scalar), read independently of the client under test.
  Result<double> query_value(std::string_view promql) const;
  // Polls `promql` until `predicate` holds for its single value, for up to `timeout`.
  ::testing::AssertionResult wait_for(std::string_view promql, const std::function<bool(double)>& predicate,
                                      std::chrono::milliseconds timeout = std::chrono::seconds(30)) const;

  // The last lines of Prometheus' own log, for failure messages.
  std::string log_tail() const;

 private:
  PrometheusFixture() = default;
  std::optional<Error> start_exporter();
  std::optional<Error> start_prometheus(const PrometheusFixtureOptions& options);
  std::string exposition();
  void stop();

  struct Series {
    double value = 0;
    double per_scrape = 0;
  };
  mutable std::mutex mutex_;
  std::map<std::pair<std::string, Labels>, Series> series_;
  std::atomic<std::uint64_t> scrapes_{0};

  std::unique_ptr<httplib::Server> exporter_;
  std::thread exporter_thread_;
  int exporter_port_ = 0;

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace scalewright::testing
