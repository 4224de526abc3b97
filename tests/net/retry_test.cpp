// The retry loop over a scripted sequence of answers: what it sends again, what it returns at once, how many
// attempts it makes and which waits it takes (millisecond back-off without jitter, so every wait is known).
#include "net/retry.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <stop_token>
#include <utility>
#include <vector>

namespace scalewright::net {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

struct ScriptedError {
  int status = 0;
};
using ScriptedResult = Result<int, ScriptedError>;

// Answers from a script, one per attempt, counting the attempts.
struct Script {
  std::vector<ScriptedResult> answers;
  int attempts = 0;
  std::function<ScriptedResult()> attempt() {
    return [this] { return answers[static_cast<std::size_t>(attempts++)]; };
  }
};

// Retries 5xx, on a 1 ms doubling back-off without jitter, noting every wait as (failures so far, wait).
struct NotedRules {
  std::vector<std::pair<int, milliseconds>> waits;
  RetryRules<ScriptedError> rules(int max_attempts = 0) {
    RetryRules<ScriptedError> out;
    out.retryable = [](const ScriptedError& error) { return error.status >= 500; };
    out.backoff = Backoff{milliseconds(1), milliseconds(100), 2.0, Backoff::Jitter::Added, 0.0};
    out.max_attempts = max_attempts;
    out.before_wait = [this](int failures, const ScriptedError&, milliseconds wait) {
      waits.emplace_back(failures, wait);
    };
    return out;
  }
};

TEST(Retry, ARetryableFailureIsSentAgainUntilItPasses) {
  Script script{{ScriptedError{503}, ScriptedError{500}, 7}};
  NotedRules noted;
  ScriptedResult answer = retry<int, ScriptedError>(script.attempt(), noted.rules(), {});
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(*answer, 7);
  EXPECT_EQ(script.attempts, 3);
  EXPECT_EQ(noted.waits, (std::vector<std::pair<int, milliseconds>>{{1, milliseconds(1)}, {2, milliseconds(2)}}));
}

TEST(Retry, AFailureThatWillNotPassIsReturnedAtOnce) {
  Script script{{ScriptedError{404}, 7}};
  NotedRules noted;
  ScriptedResult answer = retry<int, ScriptedError>(script.attempt(), noted.rules(), {});
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().status, 404);
  EXPECT_EQ(script.attempts, 1);
  EXPECT_TRUE(noted.waits.empty());
}

TEST(Retry, TheLastFailureIsReturnedAfterTheMostAttemptsAllowed) {
  Script script{{ScriptedError{503}, ScriptedError{502}, ScriptedError{500}, 7}};
  NotedRules noted;
  ScriptedResult answer = retry<int, ScriptedError>(script.attempt(), noted.rules(/*max_attempts=*/3), {});
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().status, 500);
  EXPECT_EQ(script.attempts, 3);
  EXPECT_EQ(noted.waits.size(), 2u);  // between the three attempts, none after the last
}

TEST(Retry, AStopEndsTheTriesWithoutWaiting) {
  std::stop_source stop;
  int attempts = 0;
  NotedRules noted;
  ScriptedResult answer = retry<int, ScriptedError>(
      [&]() -> ScriptedResult {
        ++attempts;
        stop.request_stop();  // asked to stop while the attempt is under way
        return ScriptedError{503};
      },
      noted.rules(), stop.get_token());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().status, 503);
  EXPECT_EQ(attempts, 1);
  EXPECT_TRUE(noted.waits.empty());
}

TEST(Retry, TheServersRetryAfterLengthensTheWaitButNeverShortensIt) {
  const Backoff backoff{milliseconds(800), milliseconds(30'000), 2.0, Backoff::Jitter::Added, 1.0};
  EXPECT_EQ(retry_wait(backoff, 1, seconds(3), 0.0), milliseconds(3000));     // 800 ms back-off, 3 s asked
  EXPECT_EQ(retry_wait(backoff, 4, seconds(3), 0.0), milliseconds(6400));     // 6.4 s back-off is longer
  EXPECT_EQ(retry_wait(backoff, 2, std::nullopt, 0.5), milliseconds(2400));   // 1.6 s, jittered by half
}

}  // namespace
}  // namespace scalewright::net
