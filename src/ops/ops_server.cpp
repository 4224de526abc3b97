#include "ops/ops_server.h"

#include <fmt/format.h>
#include <httplib.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <exception>
#include <system_error>

namespace scalewright::ops {
namespace {

constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char* kTextContentType = "text/plain; charset=utf-8";

void answer_probe(const Probe& probe, httplib::Response& response) {
  ProbeResult result;
  try {
    result = probe ? probe() : ProbeResult::healthy();
  } catch (const std::exception& e) {
    result = ProbeResult::failing(fmt::format("probe failed: {}", e.what()));
  }
  response.status = result.ok ? 200 : 503;
  response.set_content(result.ok ? "ok" : result.reason, kTextContentType);
}

void configure(httplib::Server& server, const MetricsRegistry& registry, const Probe& liveness,
               const Probe& readiness) {
  // cpp-httplib 0.11 sets SO_REUSEPORT on its listening socket, which would let a second process bind the same port
  // and silently take half the scrapes; SO_REUSEADDR alone (as Go's net.Listen) still allows a quick restart.
  server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  // A worker serves one connection until it closes: an idle kept-alive connection (Prometheus keeps them) would
  // hold stop() until its keep-alive timeout. One request per connection costs a connect per scrape, which at
  // scrape intervals is nothing; the timeouts bound what a silent or slow client can hold.
  server.set_keep_alive_max_count(1);
  server.set_keep_alive_timeout(1);
  server.set_read_timeout(std::chrono::seconds(2));
  server.set_write_timeout(std::chrono::seconds(5));
  // Probes and scrapes are few; a small pool is plenty and keeps the process' thread count honest.
  server.new_task_queue = [] { return new httplib::ThreadPool(4); };

  server.Get("/metrics", [&registry](const httplib::Request&, httplib::Response& response) {
    try {
      response.set_content(registry.render(), kMetricsContentType);
    } catch (const std::exception& e) {
      response.status = 500;
      response.set_content(fmt::format("rendering metrics failed: {}", e.what()), kTextContentType);
    }
  });
  server.Get("/healthz", [&liveness](const httplib::Request&, httplib::Response& response) {
    answer_probe(liveness, response);
  });
  server.Get("/readyz", [&readiness](const httplib::Request&, httplib::Response& response) {
    answer_probe(readiness, response);
  });
}

}  // namespace

Result<BindAddress> parse_bind_address(std::string_view text) {
  auto fail = [&](std::string_view why) {
    return Error{fmt::format("ops server address \"{}\": {} (expected host:port, e.g. :8080 or 127.0.0.1:8080)",
                             text, why)};
  };
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos) return fail("no port");
  std::string_view host = text.substr(0, colon);
  std::string_view port = text.substr(colon + 1);
  if (host.starts_with('[')) {
    if (!host.ends_with(']') || host.size() < 3) return fail("an IPv6 host is [address]");
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return fail("an IPv6 host goes in brackets, as [::1]:8080");
  }
  if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) {
        return c >= '0' && c <= '9';
      })) {
    return fail(fmt::format("port \"{}\" is not a number", port));
  }
  int number = std::stoi(std::string(port));
  if (number > 65535) return fail(fmt::format("port {} is past 65535", number));
  return BindAddress{host.empty() ? "0.0.0.0" : std::string(host), number};
}

OpsServer::OpsServer(const MetricsRegistry& registry, Probe liveness, Probe readiness)
    : registry_(registry), liveness_(std::move(liveness)), readiness_(std::move(readiness)) {}

OpsServer::~OpsServer() { stop(); }

Result<int> OpsServer::start(std::string_view bind_address) {
  std::lock_guard lock(mutex_);
  if (server_) {
    return Error{
        fmt::format("ops server: cannot start on {}: already serving on port {}", bind_address, port_.load())};
  }
  auto address = parse_bind_address(bind_address);
  if (!address) return address.error();

  auto server = std::make_unique<httplib::Server>();
  configure(*server, registry_, liveness_, readiness_);
  // cpp-httplib reports a failed bind as false alone; errno still holds why (its cleanup is close(), which succeeds).
  errno = 0;
  int port = address->port == 0 ? server->bind_to_any_port(address->host)
                                : (server->bind_to_port(address->host, address->port) ? address->port : -1);
  if (port <= 0) {
    int error = errno;
    return Error{fmt::format("ops server: cannot listen on {}: {}", bind_address,
                             error != 0 ? std::generic_category().message(error) : "bind failed")};
  }

  // httplib's stop() does nothing until the accept loop has begun, so start() waits for it: a stop() right after
  // start() then always ends the loop. The socket already listens, so nothing waits on this but this thread.
  auto finished = std::make_shared<std::atomic<bool>>(false);
  thread_ = std::thread([raw = server.get(), finished] {
    raw->listen_after_bind();
    finished->store(true);
  });
  while (!server->is_running() && !finished->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (finished->load() && !server->is_running()) {
    thread_.join();
    return Error{fmt::format("ops server: the accept loop on {} ended as it started", bind_address)};
  }
  server_ = std::move(server);
  port_ = port;
  return port;
}

void OpsServer::stop() {
  std::lock_guard lock(mutex_);
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
  port_ = 0;
}

bool OpsServer::running() const { return port_.load() != 0; }

}  // namespace scalewright::ops
