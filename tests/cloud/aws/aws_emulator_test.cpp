// The AWS emulator the provider's tests run against (aws_emulator.h): requests signed by our own signer and sent over
// HTTP prove that it passes good requests to moto, rejects and reports what botocore finds wrong, and answers its
// fault rules in AWS's own wire formats. One emulator (one moto) for the suite, reset before each test.
#include "aws_emulator.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <regex>
#include <string>
#include <thread>

#include "cloud/aws/sigv4.h"

namespace scalewright::cloud::aws::testing {
namespace {

using namespace std::chrono_literals;

struct Sent {
  int status = 0;
  std::string body;
  httplib::Headers headers;
};

struct SendOptions {
  std::string access_key = kAwsEmulatorAccessKey;
  std::string secret = kAwsEmulatorSecret;
  std::string session_token;
  std::string target;  // X-Amz-Target: the JSON protocol (ssm, pricing); the form otherwise
  bool sign = true;
  std::chrono::seconds clock_offset{0};  // the signing time, from now
};

SendOptions secret(const std::string& value) {
  SendOptions options;
  options.secret = value;
  return options;
}
SendOptions session(const std::string& token) {
  SendOptions options;
  options.access_key = "ASIAEMULATORSESSION";
  options.secret = "session-secret";
  options.session_token = token;
  return options;
}
SendOptions signed_at(std::chrono::seconds offset) {
  SendOptions options;
  options.clock_offset = offset;
  return options;
}
SendOptions unsigned_request() {
  SendOptions options;
  options.sign = false;
  return options;
}
SendOptions json_target(const std::string& target) {
  SendOptions options;
  options.target = target;
  return options;
}

// The request id, which is new in every answer, replaced by "ID".
std::string without_request_id(const std::string& body) {
  static const std::regex id("<Request(ID|Id)>[^<]*</Request(ID|Id)>");
  return std::regex_replace(body, id, "<Request$1>ID</Request$2>");
}

int occurrences(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class AwsEmulatorTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (auto why = AwsEmulator::unavailable()) {
      skip_ = *why;
      return;
    }
    auto started = AwsEmulator::start();
    if (started)
      emulator_ = std::move(*started);
    else
      start_error_ = started.error().message;
  }
  static void TearDownTestSuite() { emulator_.reset(); }

  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(emulator_) << start_error_;
    ASSERT_EQ(emulator_->reset(), "");
  }

  // `body` sent to the emulator as the provider's client sends it: POST /, signed for `service` in us-west-2 over
  // Host, Content-Type and X-Amz-Target (JSON protocol).
  static Sent send(const std::string& service, const std::string& body, const SendOptions& options = {}) {
    const std::string host = "127.0.0.1:" + std::to_string(emulator_->port());
    const std::string content_type =
        options.target.empty() ? "application/x-www-form-urlencoded; charset=utf-8" : "application/x-amz-json-1.1";
    SigningRequest request{"POST", "/", "", {{"Host", host}, {"Content-Type", content_type}}, body};
    if (!options.target.empty()) request.headers.emplace_back("X-Amz-Target", options.target);
    httplib::Headers headers;
    for (const auto& [name, value] : request.headers) {
      if (name != "Content-Type") headers.emplace(name, value);  // httplib sets it from its argument
    }
    if (options.sign) {
      const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
      Signature signature = sign(request, {options.access_key, options.secret, options.session_token},
                                 {"us-west-2", service}, now + options.clock_offset);
      for (const auto& [name, value] : signature.headers) headers.emplace(name, value);
    }
    httplib::Client client("127.0.0.1", emulator_->port());
    client.set_read_timeout(30s);
    auto answer = client.Post("/", headers, body, content_type);
    if (!answer) return {0, "no answer: " + httplib::to_string(answer.error()), {}};
    return {answer->status, answer->body, answer->headers};
  }

  // The id of moto's default subnet in `zone` (moto's default VPC has one per zone of us-west-2, new at each reset).
  static std::string subnet_in(const std::string& zone) {
    Sent sent = send(
        "ec2", "Action=DescribeSubnets&Version=2016-11-15&Filter.1.Name=availability-zone&Filter.1.Value.1=" + zone);
    std::smatch match;
    return std::regex_search(sent.body, match, std::regex("<subnetId>(subnet-[0-9a-f]+)</subnetId>")) ? match[1].str()
                                                                                                      : "";
  }

  static std::unique_ptr<AwsEmulator> emulator_;
  static std::string skip_;
  static std::string start_error_;
};

std::unique_ptr<AwsEmulator> AwsEmulatorTest::emulator_;
std::string AwsEmulatorTest::skip_;
std::string AwsEmulatorTest::start_error_;

TEST_F(AwsEmulatorTest, AWellSignedRequestIsForwardedToMotoAndRecorded) {
  Sent sent = send("ec2", "Action=DescribeSubnets&Version=2016-11-15");

  ASSERT_EQ(sent.status, 200) << sent.body;
  // moto's default VPC: one default subnet in each of us-west-2's four zones.
  EXPECT_EQ(occurrences(sent.body, "<subnetId>subnet-"), 4) << sent.body;
  for (const char* zone : {"us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"}) {
    EXPECT_EQ(occurrences(sent.body, std::string("<availabilityZone>") + zone + "</availabilityZone>"), 1) << zone;
  }
  std::vector<EmulatedCall> calls = emulator_->calls();
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].service, "ec2");
  EXPECT_EQ(calls[0].action, "DescribeSubnets");
  EXPECT_EQ(calls[0].params, nlohmann::json({{"Action", "DescribeSubnets"}, {"Version", "2016-11-15"}}));
  EXPECT_EQ(calls[0].access_key, "AKIDEXAMPLE");
  EXPECT_EQ(emulator_->problems(), std::vector<std::string>{});
}

TEST_F(AwsEmulatorTest, WhatBotocoreFindsWrongIsAnsweredEmulatorRejectedAndReported) {
  const std::string describe = "Action=DescribeSubnets&Version=2016-11-15";
  struct Case {
    std::string name;
    std::string service;
    std::string body;
    SendOptions options;
    std::string problem;  // the start of one reported problem
  };
  const std::vector<Case> cases = {
      {"a wrong secret", "ec2", describe, secret("not-the-secret"),
       "ec2 DescribeSubnets: SigV4: signature mismatch\ncanonical request (botocore's):\nPOST\n/\n\n"
       "content-type:application/x-www-form-urlencoded; charset=utf-8\nhost:127.0.0.1:"},
      {"a misspelt parameter", "ec2", describe + "&Filter.1.Nme=availability-zone&Filter.1.Value.1=us-west-2a",
       SendOptions(), "ec2 DescribeSubnets: unknown parameter Filter.1.Nme"},
      {"a date 10 minutes ago", "ec2", describe, signed_at(-10min), "ec2 DescribeSubnets: X-Amz-Date "},
      {"no signature", "ec2", describe, unsigned_request(),
       "unsigned DescribeSubnets: unsigned request (only sts AssumeRoleWithWebIdentity may be)"},
      {"a JSON parameter misspelt", "ssm", R"({"Nme": "/aws/service/x"})", json_target("AmazonSSM.GetParameter"),
       "ssm GetParameter: Missing required parameter in input: \"Name\"\nUnknown parameter in input: \"Nme\""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_EQ(emulator_->reset(), "");
    Sent sent = send(c.service, c.body, c.options);
    EXPECT_EQ(sent.status, 400);
    EXPECT_NE(sent.body.find("EmulatorRejected"), std::string::npos) << sent.body;
    std::vector<std::string> problems = emulator_->problems();
    EXPECT_TRUE(std::any_of(problems.begin(), problems.end(), [&](const std::string& p) {
      return p.find(c.problem) != std::string::npos;
    })) << ::testing::PrintToString(problems);
    EXPECT_EQ(emulator_->calls().size(), 1u);  // recorded even when rejected
  }
}

TEST_F(AwsEmulatorTest, RegisteredSessionCredentialsPassOnlyWithTheirToken) {
  ASSERT_EQ(emulator_->register_credentials("ASIAEMULATORSESSION", "session-secret", "the-token"), "");
  const std::string describe = "Action=DescribeSubnets&Version=2016-11-15";

  EXPECT_EQ(send("ec2", describe, session("the-token")).status, 200);
  EXPECT_EQ(emulator_->problems(), std::vector<std::string>{});

  EXPECT_EQ(send("ec2", describe, session("another-token")).status, 400);
  EXPECT_EQ(emulator_->problems(),
            std::vector<std::string>{
                "ec2 DescribeSubnets: X-Amz-Security-Token missing or not the session token of this access key"});
}

TEST_F(AwsEmulatorTest, AnErrorRuleAnswersInTheProtocolsWireFormatItsTimesThenForwards) {
  struct Case {
    std::string service;
    std::string action;
    std::string version;
    int times;
    int status;
    std::string code;
    std::string message;
    std::string error_body;  // the request id replaced by "ID"
    std::string forwarded;   // an element of moto's answer once the rule is spent
  };
  const std::vector<Case> cases = {
      {"ec2", "DescribeInstances", "2016-11-15", 2, 503, "RequestLimitExceeded", "Request limit exceeded.",
       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Response><Errors><Error><Code>RequestLimitExceeded</Code>"
       "<Message>Request limit exceeded.</Message></Error></Errors><RequestID>ID</RequestID></Response>",
       "<DescribeInstancesResponse"},
      {"autoscaling", "DescribeAutoScalingGroups", "2011-01-01", 1, 400, "Throttling", "Rate exceeded",
       "<ErrorResponse><Error><Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message></Error>"
       "<RequestId>ID</RequestId></ErrorResponse>",
       "<DescribeAutoScalingGroupsResponse"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.service);
    const std::string form = "Action=" + c.action + "&Version=" + c.version;
    ASSERT_EQ(emulator_->add_rule({{"kind", "error"},
                                   {"service", c.service},
                                   {"action", c.action},
                                   {"times", c.times},
                                   {"status", c.status},
                                   {"code", c.code},
                                   {"message", c.message}}),
              "");
    for (int attempt = 1; attempt <= c.times; ++attempt) {
      Sent sent = send(c.service, form);
      EXPECT_EQ(sent.status, c.status);
      EXPECT_EQ(without_request_id(sent.body), c.error_body);
    }
    Sent forwarded = send(c.service, form);
    EXPECT_EQ(forwarded.status, 200);
    EXPECT_NE(forwarded.body.find(c.forwarded), std::string::npos) << forwarded.body;
    EXPECT_EQ(emulator_->count(c.service, c.action), c.times + 1);
  }

  ASSERT_EQ(emulator_->add_rule({{"kind", "error"},
                                 {"service", "ssm"},
                                 {"action", "GetParameter"},
                                 {"times", 1},
                                 {"status", 400},
                                 {"code", "ThrottlingException"},
                                 {"message", "Rate exceeded"}}),
            "");
  const std::string parameter = R"({"Name": "/aws/service/ami-amazon-linux-latest/amzn2-ami-hvm-x86_64-gp2"})";
  Sent json = send("ssm", parameter, json_target("AmazonSSM.GetParameter"));
  EXPECT_EQ(json.status, 400);
  EXPECT_EQ(nlohmann::json::parse(json.body),
            nlohmann::json({{"__type", "ThrottlingException"}, {"message", "Rate exceeded"}}));
  EXPECT_NE(json.headers.find("x-amzn-RequestId"), json.headers.end());
  EXPECT_EQ(send("ssm", parameter, json_target("AmazonSSM.GetParameter")).status, 200);

  EXPECT_EQ(emulator_->problems(), std::vector<std::string>{});  // its own answers parse as botocore parses them
}

TEST_F(AwsEmulatorTest, AnInsufficientCapacityRuleTakesTheMarkedOverridesOutOfCreateFleetIntoItsErrorSet) {
  ASSERT_EQ(send("ec2",
                 "Action=CreateLaunchTemplate&Version=2016-11-15&LaunchTemplateName=scalewright-test"
                 "&LaunchTemplateData.ImageId=ami-12c6146b")
                .status,
            200);
  const std::string subnet_a = subnet_in("us-west-2a"), subnet_b = subnet_in("us-west-2b"),
                    subnet_c = subnet_in("us-west-2c");
  ASSERT_FALSE(subnet_a.empty() || subnet_b.empty() || subnet_c.empty());
  ASSERT_EQ(
      emulator_->add_rule({{"kind", "insufficient_capacity"},
                           {"offerings",
                            {{{"instance_type", "m5.large"}, {"zone", "us-west-2a"}, {"capacity_type", "spot"}},
                             {{"instance_type", "m5.xlarge"}, {"zone", "us-west-2b"}, {"capacity_type", "spot"}}}}}),
      "");
  // Two overrides: the first names only its subnet (the emulator finds the zone), the second its zone as well, as
  // Karpenter writes them.
  auto create_fleet = [&](const std::string& capacity_type, const std::string& second_subnet,
                          const std::string& second_zone) {
    return send("ec2",
                "Action=CreateFleet&Version=2016-11-15&Type=instant"
                "&TargetCapacitySpecification.TotalTargetCapacity=1"
                "&TargetCapacitySpecification.DefaultTargetCapacityType=" +
                    capacity_type +
                    "&LaunchTemplateConfigs.1.LaunchTemplateSpecification.LaunchTemplateName=scalewright-test"
                    "&LaunchTemplateConfigs.1.LaunchTemplateSpecification.Version=%24Latest"
                    "&LaunchTemplateConfigs.1.Overrides.1.InstanceType=m5.large"
                    "&LaunchTemplateConfigs.1.Overrides.1.SubnetId=" +
                    subnet_a +
                    "&LaunchTemplateConfigs.1.Overrides.2.InstanceType=m5.xlarge"
                    "&LaunchTemplateConfigs.1.Overrides.2.SubnetId=" +
                    second_subnet + "&LaunchTemplateConfigs.1.Overrides.2.AvailabilityZone=" + second_zone);
  };
  const std::string large_in_a_failed =
      "<item><launchTemplateAndOverrides><launchTemplateSpecification><launchTemplateName>scalewright-test"
      "</launchTemplateName><version>$Latest</version></launchTemplateSpecification><overrides><instanceType>m5.large"
      "</instanceType><subnetId>" +
      subnet_a +
      "</subnetId></overrides></launchTemplateAndOverrides><lifecycle>spot"
      "</lifecycle><errorCode>InsufficientInstanceCapacity</errorCode><errorMessage>We currently do not have "
      "sufficient m5.large capacity in the Availability Zone you requested (us-west-2a). Our system will be working "
      "on provisioning additional capacity.</errorMessage></item>";

  // m5.large in us-west-2a is out, m5.xlarge in us-west-2c is not: moto launches the m5.xlarge (it would launch the
  // first override had the request reached it whole).
  Sent one_out = create_fleet("spot", subnet_c, "us-west-2c");
  ASSERT_EQ(one_out.status, 200) << one_out.body;
  EXPECT_NE(one_out.body.find("<errorSet>" + large_in_a_failed + "</errorSet>"), std::string::npos) << one_out.body;
  const std::string launched = one_out.body.substr(one_out.body.find("<fleetInstanceSet>"));
  EXPECT_EQ(occurrences(launched, "<instanceType>m5.xlarge</instanceType>"), 2) << launched;  // override and instance
  EXPECT_EQ(occurrences(launched, "m5.large"), 0) << launched;

  // Both out: no instance, an errorSet item each.
  Sent all_out = create_fleet("spot", subnet_b, "us-west-2b");
  ASSERT_EQ(all_out.status, 200) << all_out.body;
  EXPECT_NE(all_out.body.find("<errorSet>" + large_in_a_failed + "<item>"), std::string::npos) << all_out.body;
  EXPECT_EQ(occurrences(all_out.body, "<errorCode>InsufficientInstanceCapacity</errorCode>"), 2);
  EXPECT_NE(all_out.body.find("<fleetInstanceSet/>"), std::string::npos) << all_out.body;

  // On-demand capacity is not marked: the request reaches moto whole and moto launches its first override.
  Sent on_demand = create_fleet("on-demand", subnet_b, "us-west-2b");
  ASSERT_EQ(on_demand.status, 200) << on_demand.body;
  EXPECT_EQ(on_demand.body.find("<errorSet>"), std::string::npos) << on_demand.body;
  EXPECT_NE(on_demand.body.find("<instanceType>m5.large</instanceType>"), std::string::npos) << on_demand.body;

  EXPECT_EQ(emulator_->count("ec2", "CreateFleet"), 3);
  // Recorded as the client sent it, before the rewrite.
  EXPECT_EQ(emulator_->calls().back().params.value("LaunchTemplateConfigs.1.Overrides.1.InstanceType", ""), "m5.large");
  EXPECT_EQ(emulator_->problems(), std::vector<std::string>{});  // the merged answers parse as botocore parses them
}

// A delay rule holds the answer (a slow CreateFleet a test kills its caller during), the request recorded at once;
// once spent, the next request is answered at once.
TEST_F(AwsEmulatorTest, ADelayRuleHoldsTheAnswerWithTheCallAlreadyRecorded) {
  ASSERT_EQ(emulator_->add_rule(
                {{"kind", "delay"}, {"service", "ec2"}, {"action", "DescribeSubnets"}, {"seconds", 5}, {"times", 1}}),
            "");
  std::atomic<int> status{0};
  std::thread slow([&] { status = send("ec2", "Action=DescribeSubnets&Version=2016-11-15").status; });
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (emulator_->count("ec2", "DescribeSubnets") == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(emulator_->count("ec2", "DescribeSubnets"), 1);
  EXPECT_EQ(status.load(), 0) << "answered within the delay";
  slow.join();
  EXPECT_EQ(status.load(), 200);
  EXPECT_EQ(send("ec2", "Action=DescribeSubnets&Version=2016-11-15").status, 200);
  EXPECT_EQ(emulator_->problems(), std::vector<std::string>{});
}

TEST_F(AwsEmulatorTest, StubsAnswerWhatMotoLacksAndOtherCallsReachMoto) {
  const std::string eks_ami =
      "/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/recommended/image_id";
  const nlohmann::json products = {
      {"FormatVersion", "aws_v1"},
      {"PriceList", {R"({"product":{"attributes":{"instanceType":"m5.large"}},"terms":{"OnDemand":{}}})"}}};
  ASSERT_EQ(
      emulator_->add_rule({{"kind", "stub"}, {"service", "pricing"}, {"action", "GetProducts"}, {"body", products}}),
      "");
  ASSERT_EQ(emulator_->add_rule({{"kind", "ssm_parameter"}, {"name", eks_ami}, {"value", "ami-0123456789abcdef0"}}),
            "");

  Sent prices = send("pricing", R"({"ServiceCode": "AmazonEC2", "FormatVersion": "aws_v1"})",
                     json_target("AWSPriceListService.GetProducts"));
  ASSERT_EQ(prices.status, 200) << prices.body;
  EXPECT_EQ(nlohmann::json::parse(prices.body), products);

  Sent eks = send("ssm", nlohmann::json{{"Name", eks_ami}}.dump(), json_target("AmazonSSM.GetParameter"));
  ASSERT_EQ(eks.status, 200) << eks.body;
  EXPECT_EQ(nlohmann::json::parse(eks.body)["Parameter"].value("Value", ""), "ami-0123456789abcdef0");

  // A parameter moto serves itself.
  Sent amazon_linux = send("ssm", R"({"Name": "/aws/service/ami-amazon-linux-latest/amzn2-ami-hvm-x86_64-gp2"})",
                           json_target("AmazonSSM.GetParameter"));
  ASSERT_EQ(amazon_linux.status, 200) << amazon_linux.body;
  EXPECT_EQ(nlohmann::json::parse(amazon_linux.body)["Parameter"].value("Value", "").rfind("ami-", 0), 0u);

  EXPECT_EQ(emulator_->count("ssm", "GetParameter"), 2);
  EXPECT_EQ(emulator_->problems(), std::vector<std::string>{});
}

}  // namespace
}  // namespace scalewright::cloud::aws::testing
