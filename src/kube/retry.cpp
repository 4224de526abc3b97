#include "kube/retry.h"

#include <spdlog/spdlog.h>

#include <string>

namespace scalewright::kube {

std::optional<std::chrono::seconds> retry_after(const KubeError& error) {
  if (!error.retry_after_seconds) return std::nullopt;
  return std::chrono::seconds(*error.retry_after_seconds);
}

std::chrono::milliseconds retry_delay(const net::Backoff& backoff, int failures, const KubeError* error,
                                      double random) {
  return net::retry_wait(backoff, failures, error != nullptr ? retry_after(*error) : std::nullopt, random);
}

net::RetryRules<KubeError> while_unavailable(std::string_view what, const net::Backoff& backoff) {
  net::RetryRules<KubeError> rules;
  rules.retryable = [](const KubeError& error) { return error.is_unavailable(); };
  rules.backoff = backoff;
  rules.retry_after = retry_after;
  rules.before_wait = [what = std::string(what)](int, const KubeError& error, std::chrono::milliseconds wait) {
    spdlog::warn("{}: the API server did not answer ({}); trying again in {:.1f} s", what, error.describe(),
                 static_cast<double>(wait.count()) / 1000.0);
  };
  return rules;
}

}  // namespace scalewright::kube
