#pragma once
// The operations endpoints of `scalewright run`, on their own thread:
//   GET /metrics  the registry in the Prometheus text format 0.0.4
//   GET /healthz  200 "ok" while the liveness probe holds (the control loop is alive), else 503 and its reason
//   GET /readyz   200 "ok" while the readiness probe holds (e.g. informers synced), else 503 and its reason
//
//   OpsServer server(registry, [&] { return loop_alive(); }, [&] { return informers_synced(); });
//   auto port = server.start(":8080");
//   if (!port) { log(port.error().message); return 1; }
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "api/result.h"
#include "ops/metrics.h"

namespace httplib {
class Server;
}

namespace scalewright::ops {

// A probe's answer: ok, or the reason it is not, which the 503 response carries for whoever reads the probe.
struct ProbeResult {
  bool ok = true;
  std::string reason;

  static ProbeResult healthy() { return {}; }
  static ProbeResult failing(std::string reason) { return {false, std::move(reason)}; }
};
// Called on the server's threads, once per request: must be thread-safe and quick. An empty probe always holds.
using Probe = std::function<ProbeResult()>;

// "host:port" as Go's net.Listen takes it: ":8080" is every IPv4 interface (0.0.0.0), "[::1]:8080" an IPv6 host,
// port 0 any free port.
struct BindAddress {
  std::string host;
  int port = 0;
};
Result<BindAddress> parse_bind_address(std::string_view text);

class OpsServer {
 public:
  // The registry must outlive the server.
  OpsServer(const MetricsRegistry& registry, Probe liveness, Probe readiness);
  ~OpsServer();  // stops
  OpsServer(const OpsServer&) = delete;
  OpsServer& operator=(const OpsServer&) = delete;

  // Binds bind_address (see BindAddress) and serves from a thread of its own; returns the bound port (the one the
  // kernel picked for port 0). Fails, naming the address, when it does not parse, cannot be bound, or the server
  // is already running. Once start() returns, connections are accepted.
  Result<int> start(std::string_view bind_address);
  // Stops accepting, lets requests in progress finish, and joins the thread. Idempotent.
  void stop();

  bool running() const;
  int port() const { return port_.load(); }  // 0 unless running

 private:
  const MetricsRegistry& registry_;
  Probe liveness_;
  Probe readiness_;

  std::mutex mutex_;  // start() and stop() against each other
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  std::atomic<int> port_{0};
};

}  // namespace scalewright::ops
