#pragma once
// A local AWS for the AWS provider's tests and benchmarks: moto on 127.0.0.1 behind our fault-injecting proxy
// (tests/cloud/aws/emulator/aws_emulator.py), which judges every request with botocore (SigV4 recomputed, parameters
// against the operation's model; ../shared/aws/oracle), records it, and answers from the rules a test adds or from
// moto. No test framework here, so benchmarks can use it too.
//
//   if (auto why = AwsEmulator::unavailable()) GTEST_SKIP() << *why;
//   auto emulator = AwsEmulator::start();
//   ASSERT_TRUE(emulator.ok()) << emulator.error().message;
//   // point the client at (*emulator)->endpoint(), credentials AKIDEXAMPLE / kAwsEmulatorSecret, any region
//   (*emulator)->add_rule({{"kind", "error"}, {"service", "ec2"}, {"action", "CreateFleet"}, {"times", 1},
//                          {"status", 503}, {"code", "RequestLimitExceeded"}, {"message", "Request limit exceeded."}});
//   EXPECT_EQ((*emulator)->count("ec2", "CreateFleet"), 2);
//   EXPECT_TRUE((*emulator)->problems().empty());
//
// The rules' shapes are described at the top of the script. The emulator stops when this object goes, and on its own
// when the process that started it dies.
#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "api/result.h"

namespace scalewright::cloud::aws::testing {

// The pair the emulator accepts from the start (AWS's documentation example).
inline constexpr const char* kAwsEmulatorAccessKey = "AKIDEXAMPLE";
inline constexpr const char* kAwsEmulatorSecret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

// One request as the emulator received it.
struct EmulatedCall {
  std::string service;     // the credential scope's service ("ec2", "autoscaling", "sqs", "ssm", "sts", "eks", ...)
  std::string action;      // the form's Action, X-Amz-Target's operation, or the one a rest-json method and path name
  // The form as a flat object {"Filter.1.Name": "..."}, the JSON body, or a rest-json request's input as botocore
  // reads it from the path, query and body ({"name": "demo"}).
  nlohmann::json params;
  std::string access_key;  // the access key id it was signed with ("" when unsigned): whose call it is
  double at = 0;           // when it arrived: seconds since the epoch, on this machine's clock
};

class AwsEmulator {
 public:
  // Why the emulator cannot run here (no python3, no moto or botocore in it, ../shared/aws/oracle missing), or
  // nullopt. Tests skip with this reason.
  static std::optional<std::string> unavailable();
  // Starts the emulator (and moto behind it) and waits until it listens; its log is kept in a temporary directory.
  static Result<std::unique_ptr<AwsEmulator>> start();
  ~AwsEmulator();
  AwsEmulator(const AwsEmulator&) = delete;
  AwsEmulator& operator=(const AwsEmulator&) = delete;

  std::string endpoint() const;  // "http://127.0.0.1:PORT", for every service
  int port() const { return port_; }

  // Each returns what failed, or "".
  // moto's state (every service and region), the rules, the calls and the problems cleared; credentials kept.
  std::string reset();
  // A fault rule, after those already added; the first that matches a request answers it.
  std::string add_rule(const nlohmann::json& rule);
  // Credentials the emulator verifies signatures with, besides those registered before (and the temporary keys
  // STS handed out through it, which it learns on the way).
  std::string register_credentials(const std::string& access_key_id, const std::string& secret,
                                   const std::string& session_token = "");

  // Every AWS request since the last reset, in order of arrival (rejected ones too).
  std::vector<EmulatedCall> calls() const;
  int count(const std::string& service, const std::string& action) const;
  // What the judges found wrong since the last reset, one string each: "ec2 DescribeSubnets: SigV4: signature
  // mismatch" followed by the canonical request botocore computed, when there is one.
  std::vector<std::string> problems() const;
  // The emulator's and moto's output so far.
  std::string log() const;

 private:
  AwsEmulator() = default;
  Result<nlohmann::json> control(const std::string& method, const std::string& what,
                                 const std::string& body = "") const;

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace scalewright::cloud::aws::testing
