#include "ops/ops_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>

namespace scalewright::ops {
namespace {

TEST(ParseBindAddress, ReadsHostAndPortAsGoDoes) {
  auto any = parse_bind_address(":8080");
  ASSERT_TRUE(any.ok()) << any.error().message;
  EXPECT_EQ(any->host, "0.0.0.0");
  EXPECT_EQ(any->port, 8080);
  auto loopback = parse_bind_address("127.0.0.1:0");
  ASSERT_TRUE(loopback.ok());
  EXPECT_EQ(loopback->host, "127.0.0.1");
  EXPECT_EQ(loopback->port, 0);
  auto v6 = parse_bind_address("[::1]:9090");
  ASSERT_TRUE(v6.ok());
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->port, 9090);
  auto named = parse_bind_address("localhost:65535");
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->host, "localhost");
  EXPECT_EQ(named->port, 65535);
}

TEST(ParseBindAddress, NamesTheAddressAndWhatIsWrong) {
  const std::string expected = " (expected host:port, e.g. :8080 or 127.0.0.1:8080)";
  EXPECT_EQ(parse_bind_address("8080").error().message, "ops server address \"8080\": no port" + expected);
  EXPECT_EQ(parse_bind_address(":http").error().message,
            "ops server address \":http\": port \"http\" is not a number" + expected);
  EXPECT_EQ(parse_bind_address("127.0.0.1:").error().message,
            "ops server address \"127.0.0.1:\": port \"\" is not a number" + expected);
  EXPECT_EQ(parse_bind_address(":65536").error().message,
            "ops server address \":65536\": port 65536 is past 65535" + expected);
  EXPECT_EQ(parse_bind_address("::1:8080").error().message,
            "ops server address \"::1:8080\": an IPv6 host goes in brackets, as [::1]:8080" + expected);
}

// A registry with one counter, and probes the test flips.
class OpsServerTest : public ::testing::Test {
 protected:
  OpsServerTest()
      : server_(
            registry_,
            [this] {
              return alive_ ? ProbeResult::healthy() : ProbeResult::failing("control loop stalled for 120s");
            },
            [this] {
              std::lock_guard lock(mutex_);
              return not_ready_.empty() ? ProbeResult::healthy() : ProbeResult::failing(not_ready_);
            }) {
    registry_.counter("scalewright_decisions_total", "Decisions made.", {"kind"}).with({"launch"}).inc(3);
  }

  httplib::Client client() {
    httplib::Client c("127.0.0.1", server_.port());
    c.set_connection_timeout(std::chrono::seconds(5));
    c.set_read_timeout(std::chrono::seconds(5));
    return c;
  }

  MetricsRegistry registry_;
  std::atomic<bool> alive_{true};
  std::mutex mutex_;
  std::string not_ready_ = "informers not synced: pods, nodes";
  OpsServer server_;
};

TEST_F(OpsServerTest, ServesMetricsInTheTextFormatOnAPortItPicked) {
  auto port = server_.start("127.0.0.1:0");
  ASSERT_TRUE(port.ok()) << port.error().message;
  EXPECT_GT(*port, 0);
  EXPECT_EQ(server_.port(), *port);
  EXPECT_TRUE(server_.running());
  auto response = client().Get("/metrics");
  ASSERT_TRUE(response) << httplib::to_string(response.error());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(response->body,
            "# HELP scalewright_decisions_total Decisions made.\n"
            "# TYPE scalewright_decisions_total counter\n"
            "scalewright_decisions_total{kind=\"launch\"} 3\n");
  // Each scrape renders anew.
  registry_.counter("scalewright_decisions_total", "Decisions made.", {"kind"}).with({"launch"}).inc();
  response = client().Get("/metrics");
  ASSERT_TRUE(response);
  EXPECT_NE(response->body.find("scalewright_decisions_total{kind=\"launch\"} 4\n"), std::string::npos);
}

TEST_F(OpsServerTest, HealthzFollowsTheLivenessProbe) {
  ASSERT_TRUE(server_.start("127.0.0.1:0").ok());
  auto response = client().Get("/healthz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "ok");
  alive_ = false;
  response = client().Get("/healthz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->body, "control loop stalled for 120s");
}

TEST_F(OpsServerTest, ReadyzIs503WithTheReasonUntilReady) {
  ASSERT_TRUE(server_.start("127.0.0.1:0").ok());
  auto response = client().Get("/readyz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->body, "informers not synced: pods, nodes");
  {
    std::lock_guard lock(mutex_);
    not_ready_.clear();
  }
  response = client().Get("/readyz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "ok");
  response = client().Get("/nothing-here");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 404);
}

TEST_F(OpsServerTest, AProbeThatThrowsAnswers503WithTheException) {
  MetricsRegistry registry;
  OpsServer server(registry, [] { return ProbeResult::healthy(); },
                   []() -> ProbeResult { throw std::runtime_error("cache closed"); });
  auto port = server.start("127.0.0.1:0");
  ASSERT_TRUE(port.ok());
  httplib::Client c("127.0.0.1", *port);
  auto response = c.Get("/readyz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(response->body, "probe failed: cache closed");
}

TEST_F(OpsServerTest, ABindFailureNamesTheAddress) {
  // A plain listening socket on 127.0.0.1 (no SO_REUSEPORT) holds the port.
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(::listen(fd, 1), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  std::string address = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  auto port = server_.start(address);
  ::close(fd);
  ASSERT_FALSE(port.ok());
  EXPECT_EQ(port.error().message, "ops server: cannot listen on " + address + ": Address already in use");
  EXPECT_FALSE(server_.running());
  EXPECT_EQ(parse_bind_address("nowhere").error().message, server_.start("nowhere").error().message);
}

TEST_F(OpsServerTest, ASecondServerCannotShareTheFirstOnesPort) {
  auto port = server_.start("127.0.0.1:0");
  ASSERT_TRUE(port.ok());
  MetricsRegistry other_registry;
  OpsServer other(other_registry, nullptr, nullptr);
  std::string address = "127.0.0.1:" + std::to_string(*port);
  auto second = other.start(address);
  ASSERT_FALSE(second.ok()) << "a second server bound " << address << " too";
  EXPECT_EQ(second.error().message, "ops server: cannot listen on " + address + ": Address already in use");
}

TEST_F(OpsServerTest, StartsOnceStopsIdempotentlyAndStartsAgain) {
  auto port = server_.start("127.0.0.1:0");
  ASSERT_TRUE(port.ok());
  auto again = server_.start("127.0.0.1:0");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message,
            "ops server: cannot start on 127.0.0.1:0: already serving on port " + std::to_string(*port));
  // A client that asks for keep-alive does not hold stop() up: the server answers one request per connection.
  httplib::Client keep_alive("127.0.0.1", *port);
  keep_alive.set_keep_alive(true);
  auto response = keep_alive.Get("/healthz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->get_header_value("Connection"), "close");
  server_.stop();
  EXPECT_FALSE(server_.running());
  EXPECT_EQ(server_.port(), 0);
  server_.stop();
  auto restarted = server_.start("127.0.0.1:0");
  ASSERT_TRUE(restarted.ok()) << restarted.error().message;
  response = client().Get("/healthz");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
}

TEST_F(OpsServerTest, StopRightAfterStartEndsTheServer) {
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(server_.start("127.0.0.1:0").ok());
    server_.stop();
  }
  EXPECT_FALSE(server_.running());
}

}  // namespace
}  // namespace scalewright::ops
