#pragma once
// A real HTTP server on 127.0.0.1 that answers recorded kube-apiserver exchanges in order and notes every way
// the client's request differs from the recorded one.
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace scalewright::kube::testing {

// Exchanges recorded from a real kube-apiserver 1.26 (../shared/fixtures), one file each.
inline const std::filesystem::path kFixtures = SCALEWRIGHT_SOURCE_DIR "/../shared/fixtures/kube-apiserver-1.26";

inline nlohmann::json load_fixture(const std::string& name) {
  std::ifstream in(kFixtures / name);
  return nlohmann::json::parse(in);
}

class ReplayServer {
 public:
  ReplayServer();
  ~ReplayServer();
  ReplayServer(const ReplayServer&) = delete;
  ReplayServer& operator=(const ReplayServer&) = delete;

  // How a watch stream ends once its recorded lines are sent: the server closes it (as at timeoutSeconds), or
  // holds it open without another byte until the server is destroyed (a quiet cluster).
  enum class StreamEnd { Close, HoldOpen };
  static constexpr const char* kAnyBody = "<any body>";

  // Queues one exchange ({"request": ..., "response": ...} as in the fixture files). extra_headers are added to
  // the response (the fixtures keep only Content-Type). A request body of kAnyBody takes whatever is sent.
  void expect(nlohmann::json exchange, httplib::Headers extra_headers = {}, StreamEnd end = StreamEnd::Close);
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Every mismatch seen so far, plus one for each queued exchange not requested.
  std::vector<std::string> problems() const;
  int served() const;
  // Waits until count requests have arrived (expected or not); false if they have not within the timeout.
  bool wait_until_served(int count, std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;
  // When each request arrived, in order.
  std::vector<std::chrono::steady_clock::time_point> arrivals() const;

 private:
  struct Expected {
    nlohmann::json exchange;
    httplib::Headers extra_headers;
    StreamEnd end;
  };
  void handle(const httplib::Request& req, httplib::Response& res);

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;  // a request arrived, or the server is closing
  std::deque<Expected> queue_;
  std::vector<std::string> problems_;
  std::vector<std::chrono::steady_clock::time_point> arrivals_;
  int served_ = 0;
  bool closing_ = false;  // held-open streams end
};

}  // namespace scalewright::kube::testing
