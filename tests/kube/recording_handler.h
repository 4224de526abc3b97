#pragma once
// A ReflectorHandler for tests that records every call as text ("relist_started", "listed a", "relist_done 100",
// "ADDED a") and keeps the objects the calls say exist, keyed by name, as an informer's store would; and a
// reflector running on a thread of its own.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kube/reflector.h"
#include "replay_server.h"

namespace scalewright::kube::testing {

using Calls = std::vector<std::string>;

// relist_done drops what the list did not name since relist_started. server, when given, is asked how many
// requests it has served at each listed object.
class RecordingHandler : public ReflectorHandler {
 public:
  explicit RecordingHandler(const ReplayServer* server = nullptr) : server_(server) {}

  void relist_started() override {
    std::lock_guard lock(mutex_);
    listed_since_start_.clear();
    record("relist_started");
  }
  void listed(nlohmann::json object) override {
    std::lock_guard lock(mutex_);
    std::string name = object["metadata"]["name"];
    if (server_ != nullptr) requests_served_when_listed_.push_back(server_->served());
    listed_since_start_.insert(name);
    store_[name] = std::move(object);
    record("listed " + name);
  }
  void relist_done(const std::string& resource_version) override {
    std::lock_guard lock(mutex_);
    std::erase_if(store_, [&](const auto& entry) { return !listed_since_start_.contains(entry.first); });
    record("relist_done " + resource_version);
  }
  void watched(std::string_view type, nlohmann::json object) override {
    std::lock_guard lock(mutex_);
    std::string name = object["metadata"]["name"];
    if (type == "DELETED") {
      store_.erase(name);
    } else {
      store_[name] = std::move(object);
    }
    record(std::string(type) + " " + name);
  }

  bool wait_for_calls(std::size_t count, std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    return wait_until([&](const Calls& calls) { return calls.size() >= count; }, timeout);
  }
  // Waits until the calls so far satisfy done; false if they do not within the timeout.
  bool wait_until(const std::function<bool(const Calls&)>& done,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return done(calls_); });
  }
  Calls calls() const {
    std::lock_guard lock(mutex_);
    return calls_;
  }
  std::set<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::set<std::string> out;
    for (const auto& [name, object] : store_) out.insert(name);
    return out;
  }
  std::vector<int> requests_served_when_listed() const {
    std::lock_guard lock(mutex_);
    return requests_served_when_listed_;
  }

 private:
  void record(std::string call) {
    calls_.push_back(std::move(call));
    changed_.notify_all();
  }

  const ReplayServer* server_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  Calls calls_;
  std::map<std::string, nlohmann::json> store_;
  std::set<std::string> listed_since_start_;
  std::vector<int> requests_served_when_listed_;
};

// Runs a reflector on its own thread; stop() asks it to stop and answers how long run() took to return.
class RunningReflector {
 public:
  explicit RunningReflector(Reflector& reflector)
      : thread_([&reflector](std::stop_token stop) { reflector.run(stop); }) {}
  std::chrono::steady_clock::duration stop() {
    auto asked = std::chrono::steady_clock::now();
    thread_.request_stop();
    thread_.join();
    return std::chrono::steady_clock::now() - asked;
  }

 private:
  std::jthread thread_;
};

}  // namespace scalewright::kube::testing
