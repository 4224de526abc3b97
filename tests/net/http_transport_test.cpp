// HttpTransport's kept-alive connections (reuse, the idle limit, a connection the server closed, resending) and
// stopping a request or a stream from another thread, against servers on 127.0.0.1 that count the connections they
// see.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "net/http_transport.h"
#include "net/quiet_watch_server.h"

namespace scalewright::net {
namespace {

using nlohmann::json;
using testing::QuietWatchServer;

// An httplib::Server on 127.0.0.1 that notes the client port of every request: one port is one connection.
class CountingServer {
 public:
  CountingServer() {
    server_.set_keep_alive_max_count(1000);  // httplib closes a connection after 5 requests by default
    server_.set_tcp_nodelay(true);
    server_.Get("/hold", [this](const httplib::Request& req, httplib::Response& res) {
      note(req);
      std::unique_lock lock(mutex_);
      ++holding_;
      changed_.notify_all();
      changed_.wait_for(lock, std::chrono::seconds(10), [&] { return holding_ >= hold_until_; });
      res.set_content("{}", "application/json");
    });
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      note(req);
      res.set_content("{}", "application/json");
    });
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      note(req);
      res.set_content(req.body, "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~CountingServer() {
    hold_until(0);  // lets held requests go
    server_.stop();
    thread_.join();
  }

  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // GET /hold answers only once this many of them are waiting at the same time.
  void hold_until(int requests) {
    {
      std::lock_guard lock(mutex_);
      hold_until_ = requests;
    }
    changed_.notify_all();
  }
  bool wait_until_holding(int requests) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(10), [&] { return holding_ >= requests; });
  }
  std::set<int> ports() const {
    std::lock_guard lock(mutex_);
    return ports_;
  }
  std::vector<int> ports_in_order() const {
    std::lock_guard lock(mutex_);
    return order_;
  }

 private:
  void note(const httplib::Request& req) {
    std::lock_guard lock(mutex_);
    ports_.insert(req.remote_port);
    order_.push_back(req.remote_port);
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::set<int> ports_;
  std::vector<int> order_;
  int holding_ = 0;
  int hold_until_ = 0;
};

std::shared_ptr<HttpTransport> transport_for(const std::string& address, TransportOptions options = {}) {
  HttpEndpoint endpoint;
  endpoint.base_url = address;
  auto transport = HttpTransport::create(endpoint, options);
  EXPECT_TRUE(transport.ok()) << transport.error().message;
  return std::move(transport).value();
}

TEST(HttpTransport, SequentialRequestsShareOneConnection) {
  CountingServer server;
  {
    auto transport = transport_for(server.address());
    for (int i = 0; i < 20; ++i) {
      auto response = transport->request({"GET", "/api/v1/nodes/n" + std::to_string(i), "", ""});
      ASSERT_TRUE(response.ok()) << response.error().message;
      EXPECT_EQ(response->status, 200);
    }
    auto posted = transport->request({"POST", "/api/v1/nodes", "application/json", R"({"kind":"Node"})"});
    ASSERT_TRUE(posted.ok()) << posted.error().message;
    EXPECT_EQ(posted->body, R"({"kind":"Node"})");
  }
  EXPECT_EQ(server.ports_in_order().size(), 21u);
  EXPECT_EQ(server.ports().size(), 1u);
}

TEST(HttpTransport, ThreadsShareThePoolWithoutOpeningMoreConnectionsThanRequestsInFlight) {
  CountingServer server;
  constexpr int kThreads = 4;
  constexpr int kRequestsPerThread = 25;
  std::atomic<int> failures{0};
  {
    auto transport = transport_for(server.address());
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kRequestsPerThread; ++i) {
          bool post = i % 5 == 0;
          std::string body = json{{"thread", t}, {"i", i}}.dump();
          auto response = post ? transport->request({"POST", "/echo", "application/json", body})
                               : transport->request({"GET", "/api/v1/pods", "", ""});
          if (!response.ok() || response->status != 200 || (post && response->body != body)) ++failures;
        }
      });
    }
    for (std::thread& thread : threads) thread.join();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(server.ports_in_order().size(), static_cast<std::size_t>(kThreads * kRequestsPerThread));
  // A connection is opened only when none is idle, so never more than the requests in flight at once.
  EXPECT_GE(server.ports().size(), 1u);
  EXPECT_LE(server.ports().size(), static_cast<std::size_t>(kThreads));
}

TEST(HttpTransport, IdleConnectionsBeyondTheLimitAreClosed) {
  CountingServer server;
  server.hold_until(3);
  TransportOptions options;
  options.max_idle_connections = 1;
  {
    auto transport = transport_for(server.address(), options);
    std::vector<std::thread> threads;
    for (int t = 0; t < 3; ++t) {
      threads.emplace_back([&] { EXPECT_TRUE(transport->request({"GET", "/hold", "", ""}).ok()); });
    }
    for (std::thread& thread : threads) thread.join();
    ASSERT_EQ(server.ports().size(), 3u);  // the three were in flight together
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(transport->request({"GET", "/after", "", ""}).ok());
  }
  std::vector<int> order = server.ports_in_order();
  ASSERT_EQ(order.size(), 8u);
  std::set<int> after(order.begin() + 3, order.end());
  EXPECT_EQ(after.size(), 1u) << "the one connection kept idle serves every later request";
  EXPECT_EQ(server.ports().size(), 3u) << "no new connection was needed";
}

TEST(HttpTransport, StopEndsARequestWaitingForItsAnswer) {
  CountingServer server;
  server.hold_until(2);  // the one request is held until the server goes
  auto transport = transport_for(server.address());
  std::stop_source stop;
  std::optional<HttpResult> outcome;
  std::thread caller([&] { outcome = transport->request({"GET", "/hold", "", ""}, stop.get_token()); });
  ASSERT_TRUE(server.wait_until_holding(1));
  // The server holds the request for as long as it lives: the caller returns only if the stop ends it.
  stop.request_stop();
  caller.join();
  ASSERT_TRUE(outcome.has_value());
  ASSERT_FALSE(outcome->ok());
  EXPECT_EQ(outcome->error().message, "GET " + server.address() + "/hold: stopped");
  // The stopped request's connection is not reused.
  ASSERT_TRUE(transport->request({"GET", "/version", "", ""}).ok());
  EXPECT_EQ(server.ports().size(), 2u);
}

// A bare TCP server for what httplib::Server cannot be made to do: close a kept-alive connection on cue. Its first
// connection answers `answered` requests and then either closes while idle, or reads one more request and closes
// without answering it; later connections answer everything.
class ClosingServer {
 public:
  enum class Close { WhileIdle, InsteadOfAnswering };

  ClosingServer(int answered, Close how) : answered_(answered), how_(how) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (::bind(listener_, reinterpret_cast<sockaddr*>(&address), length) != 0 || ::listen(listener_, 8) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "cannot listen on 127.0.0.1";
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~ClosingServer() {
    stopping_ = true;
    thread_.join();
    ::close(listener_);
  }

  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int connections() const { return connections_; }
  int requests() const { return requests_; }
  // Waits until the first connection has been closed by this server.
  bool wait_first_closed() {
    std::unique_lock lock(mutex_);
    return closed_.wait_for(lock, std::chrono::seconds(10), [&] { return first_closed_; });
  }

 private:
  // Reads one whole request (headers and Content-Length body); false on EOF or stop.
  bool read_request(int fd) {
    std::string data;
    std::size_t header_end = std::string::npos;
    std::size_t wanted = 0;
    while (header_end == std::string::npos || data.size() < header_end + 4 + wanted) {
      pollfd ready{fd, POLLIN, 0};
      if (::poll(&ready, 1, 50) == 0) {
        if (stopping_) return false;
        continue;
      }
      char buffer[4096];
      ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
      if (n <= 0) return false;
      data.append(buffer, static_cast<std::size_t>(n));
      if (header_end == std::string::npos && (header_end = data.find("\r\n\r\n")) != std::string::npos) {
        std::size_t length = data.find("Content-Length: ");
        if (length != std::string::npos && length < header_end) wanted = std::stoul(data.substr(length + 16));
      }
    }
    ++requests_;
    return true;
  }

  static void answer(int fd) {
    static const std::string kAnswer =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    (void)::send(fd, kAnswer.data(), kAnswer.size(), MSG_NOSIGNAL);
  }

  void serve() {
    while (!stopping_) {
      pollfd ready{listener_, POLLIN, 0};
      if (::poll(&ready, 1, 50) <= 0) continue;
      int fd = ::accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      bool first = connections_++ == 0;
      for (int served = 0; read_request(fd); ++served) {
        if (first && served == answered_ && how_ == Close::InsteadOfAnswering) break;
        answer(fd);
        if (first && served + 1 == answered_ && how_ == Close::WhileIdle) break;
      }
      ::close(fd);
      std::lock_guard lock(mutex_);
      if (first) first_closed_ = true;
      closed_.notify_all();
    }
  }

  int answered_;
  Close how_;
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::condition_variable closed_;
  bool first_closed_ = false;
};

TEST(HttpTransport, AnIdleConnectionTheServerClosedIsNotReused) {
  ClosingServer server(1, ClosingServer::Close::WhileIdle);
  auto transport = transport_for(server.address());
  ASSERT_TRUE(transport->request({"GET", "/version", "", ""}).ok());
  ASSERT_TRUE(server.wait_first_closed());
  // A POST is never resent, so its success shows it went straight to a new connection.
  auto posted = transport->request({"POST", "/api/v1/namespaces/default/configmaps", "application/json", "{}"});
  ASSERT_TRUE(posted.ok()) << posted.error().message;
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(server.requests(), 2);
}

TEST(HttpTransport, GetIsResentOnceWhenAReusedConnectionClosesBeforeAnswering) {
  ClosingServer server(1, ClosingServer::Close::InsteadOfAnswering);
  auto transport = transport_for(server.address());
  ASSERT_TRUE(transport->request({"GET", "/version", "", ""}).ok());
  auto again = transport->request({"GET", "/api/v1/nodes", "", ""});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->status, 200);
  EXPECT_EQ(server.connections(), 2);
  EXPECT_EQ(server.requests(), 3);  // the GET reached the first connection, then the second
}

TEST(HttpTransport, PostIsNotResentWhenAReusedConnectionClosesBeforeAnswering) {
  ClosingServer server(1, ClosingServer::Close::InsteadOfAnswering);
  auto transport = transport_for(server.address());
  ASSERT_TRUE(transport->request({"GET", "/version", "", ""}).ok());
  // The server read the whole POST: it may have acted on it, so only the caller can decide to send it again.
  auto posted = transport->request({"POST", "/api/v1/namespaces/default/pods", "application/json", "{}"});
  ASSERT_FALSE(posted.ok());
  EXPECT_EQ(posted.error().message,
            "POST " + server.address() + "/api/v1/namespaces/default/pods: reading the answer failed or timed out");
  EXPECT_EQ(server.requests(), 2);
  EXPECT_EQ(server.connections(), 1);
  // The broken connection was dropped: the next request opens a new one.
  EXPECT_TRUE(transport->request({"GET", "/version", "", ""}).ok());
  EXPECT_EQ(server.connections(), 2);
}

// An httplib::Server on 127.0.0.1 that keeps the headers of the last request it saw.
class HeaderServer {
 public:
  HeaderServer() {
    server_.Get(".*", [this](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard lock(mutex_);
      ++requests_;
      headers_ = req.headers;
      res.set_content("{}\n", "application/json");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~HeaderServer() {
    server_.stop();
    thread_.join();
  }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string header(const std::string& name) const {
    std::lock_guard lock(mutex_);
    auto found = headers_.find(name);
    return found == headers_.end() ? std::string("(none)") : found->second;
  }
  int requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  httplib::Headers headers_;
  int requests_ = 0;
};

TEST(HttpTransport, TheEndpointsHeadersAndItsAuthorizationGoWithEveryRequestAndStream) {
  HeaderServer server;
  {
    HttpEndpoint endpoint;
    endpoint.base_url = server.address();
    endpoint.headers = {{"Accept", "application/json"}};
    int signed_requests = 0;
    // A signer sees each request it signs, as SigV4 must.
    endpoint.authorize = [&](const HttpRequest& request, std::vector<HttpHeader>& headers) -> std::optional<Error> {
      headers.push_back({"X-Signed", request.method + " " + request.path + " #" + std::to_string(++signed_requests)});
      return std::nullopt;
    };
    auto transport = HttpTransport::create(endpoint);
    ASSERT_TRUE(transport.ok()) << transport.error().message;
    HttpRequest request{"GET", "/version", "", ""};
    request.headers = {{"X-Request", "own"}};
    ASSERT_TRUE((*transport)->request(request).ok());
    EXPECT_EQ(server.header("Accept"), "application/json");
    EXPECT_EQ(server.header("X-Request"), "own");
    EXPECT_EQ(server.header("X-Signed"), "GET /version #1");
    EXPECT_EQ(server.header("User-Agent"), user_agent());
    auto streamed = (*transport)->stream_lines("/lines", [](std::string_view) { return true; });
    ASSERT_TRUE(streamed.ok()) << streamed.error().message;
    EXPECT_EQ(server.header("X-Signed"), "GET /lines #2");
    EXPECT_EQ(server.header("X-Request"), "(none)");
  }
  EXPECT_EQ(server.requests(), 2);
}

TEST(HttpTransport, ARefusedAuthorizationFailsTheRequestWithoutSendingIt) {
  HeaderServer server;
  {
    HttpEndpoint endpoint;
    endpoint.base_url = server.address();
    endpoint.authorize = [](const HttpRequest&, std::vector<HttpHeader>&) -> std::optional<Error> {
      return Error{"bearer token file /var/run/token is empty"};
    };
    auto transport = HttpTransport::create(endpoint);
    ASSERT_TRUE(transport.ok()) << transport.error().message;
    HttpResult answer = (*transport)->request({"GET", "/version", "", ""});
    ASSERT_FALSE(answer.ok());
    EXPECT_EQ(answer.error().status, 0);
    EXPECT_EQ(answer.error().message, "GET /version: bearer token file /var/run/token is empty");
    HttpResult streamed = (*transport)->stream_lines("/lines", [](std::string_view) { return true; });
    ASSERT_FALSE(streamed.ok());
    EXPECT_EQ(streamed.error().message, "GET /lines: bearer token file /var/run/token is empty");
  }
  EXPECT_EQ(server.requests(), 0);
}

TEST(HttpTransport, AStreamStoppedBeforeItStartsSendsNothing) {
  QuietWatchServer server;
  auto transport = transport_for(server.address());
  std::stop_source stop;
  stop.request_stop();
  int lines = 0;
  auto response = transport->stream_lines("/api/v1/pods?watch=1", [&](std::string_view) { return ++lines, true; },
                                          StreamOptions{stop.get_token(), {}});
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status, 0);
  EXPECT_EQ(lines, 0);
  EXPECT_EQ(server.requests(), 0);
}

}  // namespace
}  // namespace scalewright::net
