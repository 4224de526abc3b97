#include "net/retry.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <random>

namespace scalewright::net {

using std::chrono::milliseconds;

void sleep_unless_stopped(milliseconds duration, const std::stop_token& stop) {
  std::mutex mutex;
  std::condition_variable_any wakeup;
  std::unique_lock lock(mutex);
  wakeup.wait_for(lock, stop, duration, [] { return false; });
}

double jitter_random() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  return std::uniform_real_distribution<double>(0.0, 1.0)(random);
}

milliseconds retry_wait(const Backoff& backoff, int failures, std::optional<std::chrono::seconds> retry_after,
                        double random) {
  milliseconds wait = backoff.delay(failures, random);
  if (retry_after) wait = std::max<milliseconds>(wait, *retry_after);
  return wait;
}

}  // namespace scalewright::net
