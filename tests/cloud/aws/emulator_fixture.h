#pragma once
// What the tests against the AWS emulator share: one emulator for the whole test binary (moto takes about 2 s to
// start), reset before each test; clients pointed at it that count the answers they get per action; and a failure
// for anything the emulator's judges (botocore's signature and parameter checks) found wrong in a test's requests.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "aws_emulator.h"
#include "cloud/aws/aws_client.h"

namespace scalewright::cloud::aws {

class EmulatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Shared& shared = emulator_once();
    if (shared.failed) FAIL() << shared.why;
    if (!shared.emulator) GTEST_SKIP() << shared.why;
    emulator_ = shared.emulator.get();
    ASSERT_EQ(emulator_->reset(), "");
  }

  // Every request the test sent passed the emulator's judges.
  void TearDown() override {
    if (emulator_ == nullptr) return;
    for (const std::string& problem : emulator_->problems()) ADD_FAILURE() << problem;
  }

  // A client of `api` in `region` with the emulator's credentials, retrying at once (no back-off waits).
  std::unique_ptr<AwsClient> client(ApiProtocol api, const std::string& region) {
    AwsClientOptions options;
    options.backoff =
        net::Backoff{std::chrono::milliseconds(0), std::chrono::milliseconds(0), 2.0, net::Backoff::Jitter::Full};
    options.on_answer = [this](std::string_view action, int) {
      std::lock_guard lock(mutex_);
      ++answers_[std::string(action)];
    };
    auto made = AwsClient::create(
        api, region, emulator_->endpoint(),
        [] {
          return Result<Credentials>(Credentials{testing::kAwsEmulatorAccessKey, testing::kAwsEmulatorSecret, ""});
        },
        std::move(options));
    EXPECT_TRUE(made.ok()) << (made ? "" : made.error().message);
    return made ? std::move(*made) : nullptr;
  }

  // How many answers the clients got for `action` since the test began (each attempt of a retried call counts).
  int answers(const std::string& action) {
    std::lock_guard lock(mutex_);
    return answers_[action];
  }

  testing::AwsEmulator* emulator_ = nullptr;

 private:
  struct Shared {
    std::unique_ptr<testing::AwsEmulator> emulator;
    std::string why;      // why there is none
    bool failed = false;  // it should have started and did not
  };
  static Shared& emulator_once() {
    static Shared shared = [] {
      Shared s;
      if (auto why = testing::AwsEmulator::unavailable()) {
        s.why = *why;
        return s;
      }
      auto started = testing::AwsEmulator::start();
      if (!started) {
        s.why = started.error().message;
        s.failed = true;
        return s;
      }
      s.emulator = std::move(*started);
      return s;
    }();
    return shared;
  }

  std::mutex mutex_;
  std::map<std::string, int> answers_;
};

}  // namespace scalewright::cloud::aws
