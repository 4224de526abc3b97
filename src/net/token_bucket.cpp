#include "net/token_bucket.h"

#include <algorithm>
#include <cmath>

namespace scalewright::net {

using std::chrono::duration;
using std::chrono::milliseconds;

TokenBucket::TokenBucket(double capacity, double tokens_per_second, Instant now)
    : capacity_(capacity), tokens_per_second_(tokens_per_second), tokens_(capacity), refilled_at_(now) {}

void TokenBucket::refill(Instant now) {
  tokens_ = available(now);
  refilled_at_ = std::max(refilled_at_, now);
}

bool TokenBucket::try_take(double tokens, Instant now) {
  refill(now);
  if (tokens_ < tokens) return false;
  tokens_ -= tokens;
  return true;
}

void TokenBucket::give_back(double tokens, Instant now) {
  refill(now);
  tokens_ = std::min(capacity_, tokens_ + tokens);
}

double TokenBucket::available(Instant now) const {
  const double elapsed = now > refilled_at_ ? duration<double>(now - refilled_at_).count() : 0.0;
  return std::min(capacity_, tokens_ + elapsed * tokens_per_second_);
}

std::optional<milliseconds> TokenBucket::wait_for(double tokens, Instant now) const {
  const double missing = tokens - available(now);
  if (missing <= 0) return milliseconds(0);
  if (tokens > capacity_ || tokens_per_second_ <= 0) return std::nullopt;
  return milliseconds(static_cast<long long>(std::ceil(missing / tokens_per_second_ * 1000.0)));
}

RetryQuota::RetryQuota() : RetryQuota(Costs{}) {}

RetryQuota::RetryQuota(Costs costs) : costs_(costs), bucket_(costs.capacity, 0.0, TokenBucket::Instant{}) {}

std::optional<double> RetryQuota::try_acquire_retry(bool after_timeout) {
  const double cost = after_timeout ? costs_.timeout_retry : costs_.retry;
  if (!bucket_.try_take(cost, TokenBucket::Instant{})) return std::nullopt;
  return cost;
}

void RetryQuota::succeeded(std::optional<double> retry_cost) {
  bucket_.give_back(retry_cost.value_or(costs_.first_attempt_success), TokenBucket::Instant{});
}

double RetryQuota::available() const { return bucket_.available(TokenBucket::Instant{}); }

}  // namespace scalewright::net
