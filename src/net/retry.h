#pragma once
// Sending a request again while its failure may pass: after each failure in a row, a wait as a Backoff has it (or
// as long as the server asked, when that is longer), until the request succeeds, fails in a way that will not pass,
// runs out of attempts, or is stopped. Each client says which of its errors may pass (kube: no answer, 429, 5xx;
// AWS: throttling and transient error codes).
#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>

#include "api/result.h"
#include "net/backoff.h"

namespace scalewright::net {

// Sleeps up to duration; returns at once when stop is requested.
void sleep_unless_stopped(std::chrono::milliseconds duration, const std::stop_token& stop);

// A number in [0, 1) from this thread's own generator: jitter that no test needs to predict.
double jitter_random();

// The wait after `failures` failures in a row (1 for the first), for random in [0, 1): the back-off's, or the
// server's Retry-After when that is longer.
std::chrono::milliseconds retry_wait(const Backoff& backoff, int failures,
                                     std::optional<std::chrono::seconds> retry_after, double random);

template <typename E>
struct RetryRules {
  std::function<bool(const E&)> retryable;  // whether the same request may pass later
  Backoff backoff;
  int max_attempts = 0;  // 0: no limit, only a stop ends the tries
  // The wait the server asked for (Retry-After), when it named one.
  std::function<std::optional<std::chrono::seconds>(const E&)> retry_after = {};
  // Told before each wait, for a log line: the failures in a row so far, the last error, and the wait.
  std::function<void(int failures, const E& error, std::chrono::milliseconds wait)> before_wait = {};
};

// Calls attempt until it succeeds or fails with an error rules.retryable refuses, and returns that answer. A
// retryable failure is waited out (RetryRules) and tried again; once stop is requested, or after
// rules.max_attempts attempts, the last failure is returned.
template <typename T, typename E>
Result<T, E> retry(const std::function<Result<T, E>()>& attempt, const RetryRules<E>& rules,
                   const std::stop_token& stop) {
  for (int failures = 1;; ++failures) {
    Result<T, E> answer = attempt();
    if (answer || !rules.retryable(answer.error())) return answer;
    if (stop.stop_requested() || (rules.max_attempts > 0 && failures >= rules.max_attempts)) return answer;
    const std::optional<std::chrono::seconds> asked =
        rules.retry_after ? rules.retry_after(answer.error()) : std::nullopt;
    const std::chrono::milliseconds wait = retry_wait(rules.backoff, failures, asked, jitter_random());
    if (rules.before_wait) rules.before_wait(failures, answer.error(), wait);
    sleep_unless_stopped(wait, stop);
    if (stop.stop_requested()) return answer;
  }
}

}  // namespace scalewright::net
