#pragma once
// A real HTTP server on 127.0.0.1 that answers recorded kube-apiserver exchanges in order and notes every way
// the client's request differs from the recorded one.
#include <httplib.h>

#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace scalewright::kube::testing {

class ReplayServer {
 public:
  ReplayServer();
  ~ReplayServer();
  ReplayServer(const ReplayServer&) = delete;
  ReplayServer& operator=(const ReplayServer&) = delete;

  // Queues one exchange ({"request": ..., "response": ...} as in the fixture files). extra_headers are added to
  // the response (the fixtures keep only Content-Type).
  void expect(nlohmann::json exchange, httplib::Headers extra_headers = {});
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Every mismatch seen so far, plus one for each queued exchange not requested.
  std::vector<std::string> problems() const;
  int served() const;

 private:
  void handle(const httplib::Request& req, httplib::Response& res);

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::deque<std::pair<nlohmann::json, httplib::Headers>> queue_;
  std::vector<std::string> problems_;
  int served_ = 0;
};

}  // namespace scalewright::kube::testing
