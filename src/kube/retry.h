#pragma once
// Requests made once, not by a reflector, that must still survive the API server being away for a moment (a
// restart, an overload): they are sent again, with the reflector's backoff, until the server answers.
#include <chrono>
#include <functional>
#include <stop_token>
#include <string_view>

#include "kube/api_client.h"
#include "kube/reflector.h"

namespace scalewright::kube {

// Sleeps up to duration; returns at once when stop is requested.
void sleep_unless_stopped(std::chrono::milliseconds duration, const std::stop_token& stop);

// After `failures` unavailable answers in a row (1 for the first): logs a warning naming `what` and the error,
// and waits as a reflector would (at least the server's Retry-After). False when stop is requested: give up.
bool wait_to_retry(std::string_view what, int failures, const KubeError& error, const std::stop_token& stop,
                   const ReflectorOptions& backoff);

// Sends request until the server answers it: an error the server may not give next time
// (KubeError::is_unavailable: no answer, 429, 5xx) is waited out; any other answer, a value or an error such as
// 403 or 404, is returned at once. Once stop is requested, the last unavailable error is returned.
template <typename T>
KubeResult<T> retry_while_unavailable(std::string_view what, const std::function<KubeResult<T>()>& request,
                                      const std::stop_token& stop, const ReflectorOptions& backoff = {}) {
  for (int failures = 1;; ++failures) {
    KubeResult<T> answer = request();
    if (answer || !answer.error().is_unavailable()) return answer;
    if (!wait_to_retry(what, failures, answer.error(), stop, backoff)) return answer;
  }
}

}  // namespace scalewright::kube
