#pragma once
// Token buckets: a budget of requests that refills over time (Envoy's TokenBucketImpl), and the AWS SDKs' retry
// quota built on one. Time comes in as a value: nothing here reads a clock, so a test steps time by hand.
#include <chrono>
#include <optional>

namespace scalewright::net {

// Up to `capacity` tokens, refilled at a steady rate; a request takes tokens, or is refused when they are not there.
class TokenBucket {
 public:
  using Instant = std::chrono::steady_clock::time_point;

  // Full at `now`. With 0 tokens per second it refills only by give_back.
  TokenBucket(double capacity, double tokens_per_second, Instant now);

  // Takes `tokens` if that many are there at `now`, and says whether it did; nothing is taken otherwise.
  bool try_take(double tokens, Instant now);
  // Puts tokens back, never above the capacity.
  void give_back(double tokens, Instant now);
  // The tokens there at `now`.
  double available(Instant now) const;
  // How long from `now` until `tokens` are there, rounded up to the millisecond (0 when they are); nullopt when
  // they never will be: more than the capacity, or no refill.
  std::optional<std::chrono::milliseconds> wait_for(double tokens, Instant now) const;

 private:
  void refill(Instant now);

  double capacity_;
  double tokens_per_second_;
  double tokens_;
  Instant refilled_at_;  // an earlier instant given later adds nothing: time never runs back
};

// The AWS SDKs' retry quota (standard retry mode): a bucket of 500 tokens per client; a retry takes 5 (10 after a
// timeout) and is not made when they are not there, so that a client does not multiply an outage with its retries.
// An attempt that succeeds pays back what its retry took, or 1 when it was the first attempt.
class RetryQuota {
 public:
  struct Costs {
    double capacity = 500;
    double retry = 5;
    double timeout_retry = 10;
    double first_attempt_success = 1;
  };

  RetryQuota();  // the SDKs' costs
  explicit RetryQuota(Costs costs);

  // Takes the cost of one retry after a failure (a timeout or another); nullopt when the quota cannot pay for it:
  // do not retry, return the failure.
  std::optional<double> try_acquire_retry(bool after_timeout);
  // An attempt succeeded: `retry_cost` is what try_acquire_retry took for it, nullopt for a first attempt.
  void succeeded(std::optional<double> retry_cost);
  double available() const;

 private:
  Costs costs_;
  TokenBucket bucket_;  // refilled only by successes, so the instants it is given never matter
};

}  // namespace scalewright::net
