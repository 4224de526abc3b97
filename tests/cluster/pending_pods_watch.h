#pragma once
// When each pod of a label selector was first seen unschedulable (PodScheduled=False, reason Unschedulable), by this
// process's wall clock, from a watch of its own: what a controller watching the same API server sees at about the
// same moment. The end-to-end tests take it from a cloud call's stamp (the AWS emulator's) to tell the controller's
// part of a launch from kube-controller-manager's and kube-scheduler's. Printed for BENCHMARKS.md, never asserted.
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "kube/api_client.h"

namespace scalewright::cluster::testing {

class PendingPodsWatch {
 public:
  // Watches the pods of `ns` matching `label_selector` from now until it goes.
  PendingPodsWatch(const kube::ApiClient& api, const std::string& ns, const std::string& label_selector)
      : watcher_([this, &api, path = "/api/v1/namespaces/" + ns + "/pods", label_selector](std::stop_token stop) {
          kube::WatchOptions options;
          options.label_selector = label_selector;
          while (!stop.stop_requested()) {
            api.watch(path, options,
                      [this](std::string_view, nlohmann::json& pod) {
                        seen(pod);
                        return true;
                      },
                      stop);
            // Ended by the server, or failed: watched again, a little later if it failed at once.
            if (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
        }) {}
  ~PendingPodsWatch() {
    watcher_.request_stop();
    watcher_.join();
  }

  // When the last of the pods seen unschedulable was first seen so (seconds since the epoch); nullopt: none was.
  std::optional<double> last_unschedulable() const {
    std::lock_guard lock(mutex_);
    std::optional<double> last;
    for (const auto& [name, at] : unschedulable_) last = std::max(last.value_or(at), at);
    return last;
  }
  std::size_t unschedulable() const {
    std::lock_guard lock(mutex_);
    return unschedulable_.size();
  }

 private:
  void seen(const nlohmann::json& pod) {
    const nlohmann::json conditions = pod.value("status", nlohmann::json::object()).value("conditions",
                                                                                         nlohmann::json::array());
    for (const nlohmann::json& c : conditions) {
      if (c.value("type", "") != "PodScheduled" || c.value("status", "") != "False" ||
          c.value("reason", "") != "Unschedulable") {
        continue;
      }
      const double now =
          std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
      std::lock_guard lock(mutex_);
      unschedulable_.emplace(pod["metadata"].value("name", ""), now);  // the first time only
    }
  }

  mutable std::mutex mutex_;
  std::map<std::string, double> unschedulable_;  // pod name -> when first seen unschedulable
  std::jthread watcher_;                        // last: it stops and joins before the rest goes
};

}  // namespace scalewright::cluster::testing
