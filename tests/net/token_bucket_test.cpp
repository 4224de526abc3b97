// Token buckets stepped through time by hand: what a refilling bucket holds at each instant, and the AWS SDKs'
// retry quota (500 tokens, 5 a retry, 10 after a timeout, paid back on success).
#include "net/token_bucket.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

namespace scalewright::net {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const TokenBucket::Instant t0 = TokenBucket::Instant{} + seconds(1000);

TEST(TokenBucket, StartsFullAndRefillsAtItsRateUpToItsCapacity) {
  TokenBucket bucket(10, 2, t0);  // 10 tokens, 2 a second
  EXPECT_EQ(bucket.available(t0), 10);
  EXPECT_TRUE(bucket.try_take(10, t0));
  EXPECT_EQ(bucket.available(t0), 0);
  EXPECT_FALSE(bucket.try_take(1, t0));
  EXPECT_EQ(bucket.available(t0 + milliseconds(250)), 0.5);
  EXPECT_FALSE(bucket.try_take(1, t0 + milliseconds(250)));  // refused: nothing taken
  EXPECT_EQ(bucket.available(t0 + milliseconds(250)), 0.5);
  EXPECT_TRUE(bucket.try_take(1, t0 + milliseconds(500)));
  EXPECT_EQ(bucket.available(t0 + milliseconds(500)), 0);
  EXPECT_EQ(bucket.available(t0 + seconds(3)), 5);            // 2.5 s at 2 a second
  EXPECT_EQ(bucket.available(t0 + seconds(60)), 10);          // never above the capacity
}

TEST(TokenBucket, SaysHowLongUntilTokensAreThere) {
  TokenBucket bucket(10, 2, t0);
  ASSERT_TRUE(bucket.try_take(10, t0));
  EXPECT_EQ(bucket.wait_for(3, t0), milliseconds(1500));
  EXPECT_EQ(bucket.wait_for(3, t0 + milliseconds(500)), milliseconds(1000));
  EXPECT_EQ(bucket.wait_for(0.5, t0 + milliseconds(250)), milliseconds(0));
  EXPECT_EQ(bucket.wait_for(2, t0 + milliseconds(250)), milliseconds(750));  // 1.5 tokens missing at 2 a second
  EXPECT_EQ(bucket.wait_for(11, t0), std::nullopt);                         // more than it can ever hold
  TokenBucket thirds(1, 3, t0);
  ASSERT_TRUE(thirds.try_take(1, t0));
  EXPECT_EQ(thirds.wait_for(1, t0), milliseconds(334));  // 333.3 ms, rounded up so that the token is there
  TokenBucket no_refill(10, 0, t0);
  ASSERT_TRUE(no_refill.try_take(10, t0));
  EXPECT_EQ(no_refill.wait_for(1, t0), std::nullopt);
}

TEST(TokenBucket, TokensGivenBackStopAtTheCapacity) {
  TokenBucket bucket(10, 0, t0);
  ASSERT_TRUE(bucket.try_take(3, t0));
  bucket.give_back(2, t0);
  EXPECT_EQ(bucket.available(t0), 9);
  bucket.give_back(5, t0);
  EXPECT_EQ(bucket.available(t0), 10);
}

TEST(TokenBucket, AnEarlierInstantAddsNothing) {
  TokenBucket bucket(10, 2, t0);
  ASSERT_TRUE(bucket.try_take(10, t0 + seconds(5)));
  EXPECT_EQ(bucket.available(t0), 0);  // before the last take: no time has passed since
  EXPECT_FALSE(bucket.try_take(1, t0 + seconds(1)));
  EXPECT_EQ(bucket.available(t0 + seconds(6)), 2);
}

TEST(RetryQuota, AHundredRetriesSpendTheQuotaAndTheNextIsRefused) {
  RetryQuota quota;
  EXPECT_EQ(quota.available(), 500);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(quota.try_acquire_retry(/*after_timeout=*/false), 5) << i;
  EXPECT_EQ(quota.available(), 0);
  EXPECT_EQ(quota.try_acquire_retry(false), std::nullopt);
  // A retry that then succeeded pays back its 5: one more retry may be made.
  quota.succeeded(5);
  EXPECT_EQ(quota.available(), 5);
  EXPECT_EQ(quota.try_acquire_retry(false), 5);
  EXPECT_EQ(quota.try_acquire_retry(false), std::nullopt);
}

TEST(RetryQuota, ARetryAfterATimeoutCostsTen) {
  RetryQuota quota;
  for (int i = 0; i < 50; ++i) ASSERT_EQ(quota.try_acquire_retry(/*after_timeout=*/true), 10) << i;
  EXPECT_EQ(quota.available(), 0);
  EXPECT_EQ(quota.try_acquire_retry(true), std::nullopt);
}

TEST(RetryQuota, AFirstAttemptThatSucceedsAddsOneUpToTheCapacity) {
  RetryQuota quota;
  quota.succeeded(std::nullopt);
  EXPECT_EQ(quota.available(), 500);  // full stays full
  ASSERT_EQ(quota.try_acquire_retry(false), 5);
  ASSERT_EQ(quota.try_acquire_retry(true), 10);
  EXPECT_EQ(quota.available(), 485);
  quota.succeeded(std::nullopt);
  quota.succeeded(std::nullopt);
  EXPECT_EQ(quota.available(), 487);
  quota.succeeded(10);  // the timeout's retry succeeded
  EXPECT_EQ(quota.available(), 497);
}

}  // namespace
}  // namespace scalewright::net
