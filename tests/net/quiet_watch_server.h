#pragma once
// A watch server for stream tests: one event, then silence until the test ends, as a quiet cluster sends.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace scalewright::net::testing {

// A watch that sends one event (after first_event_after), then nothing until the test ends: a quiet cluster.
class QuietWatchServer {
 public:
  explicit QuietWatchServer(std::chrono::milliseconds first_event_after = {}) {
    server_.Get(".*", [this, first_event_after](const httplib::Request& req, httplib::Response& res) {
      ++requests_;
      if (req.target.find("watch=1") == std::string::npos) {
        res.set_content("{}", "application/json");
        return;
      }
      res.set_chunked_content_provider("application/json", [this, first_event_after](size_t offset,
                                                                                      httplib::DataSink& sink) {
        if (offset == 0) {
          std::unique_lock lock(mutex_);
          ended_.wait_for(lock, first_event_after, [&] { return ending_; });
          std::string line = R"({"type":"ADDED","object":{"metadata":{"name":"a","resourceVersion":"7"}}})" "\n";
          return sink.write(line.data(), line.size());
        }
        std::unique_lock lock(mutex_);
        ended_.wait_for(lock, std::chrono::milliseconds(50), [&] { return ending_; });
        return !ending_;
      });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~QuietWatchServer() {
    {
      std::lock_guard lock(mutex_);
      ending_ = true;
    }
    ended_.notify_all();
    server_.stop();
    thread_.join();
  }
  std::string address() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int requests() const { return requests_; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<int> requests_{0};
  std::mutex mutex_;
  std::condition_variable ended_;
  bool ending_ = false;
};

}  // namespace scalewright::net::testing
