#pragma once
// Requests made once, not by a reflector, that must still survive the API server being away for a moment (a
// restart, an overload): they are sent again, with the reflector's backoff, until the server answers.
#include <chrono>
#include <functional>
#include <optional>
#include <stop_token>
#include <string_view>

#include "kube/api_client.h"
#include "kube/reflector.h"
#include "net/backoff.h"
#include "net/retry.h"

namespace scalewright::kube {

// The Retry-After the server sent with error (its header, else its Status' details.retryAfterSeconds).
std::optional<std::chrono::seconds> retry_after(const KubeError& error);

// The wait after `failures` failures in a row (1 for the first), for random in [0, 1): the backoff's, and at least
// the Retry-After of `error`, the last failure's answer (null when there was none to read).
std::chrono::milliseconds retry_delay(const net::Backoff& backoff, int failures, const KubeError* error,
                                      double random);

// Errors the server may not give next time (KubeError::is_unavailable: no answer, 429, 5xx) waited out as `backoff`
// and the server's Retry-After say, each wait logged as a warning naming `what` and the error.
net::RetryRules<KubeError> while_unavailable(std::string_view what, const net::Backoff& backoff);

// Sends request until the server answers it: an error the server may not give next time is waited out; any other
// answer, a value or an error such as 403 or 404, is returned at once. Once stop is requested, the last unavailable
// error is returned.
template <typename T>
KubeResult<T> retry_while_unavailable(std::string_view what, const std::function<KubeResult<T>()>& request,
                                      const std::stop_token& stop, const net::Backoff& backoff = kReflectorBackoff) {
  return net::retry<T, KubeError>(request, while_unavailable(what, backoff), stop);
}

}  // namespace scalewright::kube
