#include "kube/retry.h"

#include <spdlog/spdlog.h>

#include <condition_variable>
#include <mutex>
#include <random>

namespace scalewright::kube {

using std::chrono::milliseconds;

void sleep_unless_stopped(milliseconds duration, const std::stop_token& stop) {
  std::mutex mutex;
  std::condition_variable_any wakeup;
  std::unique_lock lock(mutex);
  wakeup.wait_for(lock, stop, duration, [] { return false; });
}

bool wait_to_retry(std::string_view what, int failures, const KubeError& error, const std::stop_token& stop,
                   const ReflectorOptions& backoff) {
  if (stop.stop_requested()) return false;
  thread_local std::mt19937_64 random{std::random_device{}()};
  const milliseconds wait =
      retry_delay(backoff, failures, &error, std::uniform_real_distribution<double>(0.0, 1.0)(random));
  spdlog::warn("{}: the API server did not answer ({}); trying again in {:.1f} s", what, error.describe(),
               static_cast<double>(wait.count()) / 1000.0);
  sleep_unless_stopped(wait, stop);
  return !stop.stop_requested();
}

}  // namespace scalewright::kube
