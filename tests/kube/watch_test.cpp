// ApiClient's watches over the transport: a stop ends a blocked watch at once, and a watch's own timeout outlasts
// the transport's read timeout. The transport itself is tested in tests/net/http_transport_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

#include "kube/api_client.h"
#include "net/http_transport.h"
#include "net/quiet_watch_server.h"

namespace scalewright::kube {
namespace {

using net::testing::QuietWatchServer;
using nlohmann::json;

TEST(KubeWatch, StopEndsABlockedWatchPromptly) {
  QuietWatchServer server;
  ClusterConfig config;
  config.server = server.address();
  auto api = ApiClient::create(config);
  ASSERT_TRUE(api.ok());
  std::stop_source stop;
  std::mutex mutex;
  std::condition_variable seen;
  int events = 0;
  std::optional<KubeResult<std::string>> outcome;
  std::thread watcher([&] {
    WatchOptions options;
    options.resource_version = "5";
    auto result = api->watch("/api/v1/pods", options, [&](std::string_view, json&) {
      std::lock_guard lock(mutex);
      ++events;
      seen.notify_all();
      return true;
    }, stop.get_token());
    std::lock_guard lock(mutex);
    outcome = std::move(result);
    seen.notify_all();
  });
  {
    std::unique_lock lock(mutex);
    ASSERT_TRUE(seen.wait_for(lock, std::chrono::seconds(10), [&] { return events == 1; }));
  }
  // The watch would otherwise last until the server's timeout, minutes from now.
  stop.request_stop();
  {
    std::unique_lock lock(mutex);
    EXPECT_TRUE(seen.wait_for(lock, std::chrono::seconds(5), [&] { return outcome.has_value(); }));
  }
  watcher.join();
  ASSERT_TRUE(outcome.has_value());
  ASSERT_TRUE(outcome->ok()) << outcome->error().describe();
  EXPECT_EQ(**outcome, "7");  // a stopped watch answers the last resourceVersion it saw
}

TEST(KubeWatch, AWatchWithATimeoutWaitsLongerThanTheTransportsReadTimeout) {
  QuietWatchServer server(std::chrono::milliseconds(600));
  ClusterConfig config;
  config.server = server.address();
  net::TransportOptions options;
  options.read_timeout = std::chrono::milliseconds(200);
  auto api = ApiClient::create(config, options);
  ASSERT_TRUE(api.ok());
  WatchOptions watch;
  watch.timeout_seconds = 5;  // the stream may stay silent for 35 s
  int events = 0;
  auto last = api->watch("/api/v1/pods", watch, [&](std::string_view, json&) { return ++events, false; });
  ASSERT_TRUE(last.ok()) << last.error().describe();
  EXPECT_EQ(*last, "7");
  EXPECT_EQ(events, 1);
  // Requests keep the transport's read timeout.
  EXPECT_TRUE(api->get("/version").ok());
}

}  // namespace
}  // namespace scalewright::kube
