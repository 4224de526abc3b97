// Karpenter's interruption queue read over the wire from the AWS emulator (moto's SQS, in SQS's JSON 1.0 protocol):
// the EventBridge events Karpenter handles become the instance notices it acts on, every message is deleted once
// read (those we ignore and those we cannot read too), a message whose notice could not be handed on comes back, a
// failing SQS is waited out, and a queue that does not exist is an error naming it.
#include "cloud/aws/interruption.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "api/timestamp.h"
#include "emulator_fixture.h"

namespace scalewright::cloud::aws {
namespace {

using nlohmann::json;
using Kind = InstanceNotice::Kind;

constexpr const char* kRegion = "us-west-2";

std::chrono::system_clock::time_point wall(std::string_view rfc3339) { return *parse_micro_time(rfc3339); }

// An EventBridge event as EventBridge writes it into the queue (research: aws-provider.md §1.7).
json event(const std::string& detail_type, const std::string& source, const std::string& time, json detail) {
  return {{"version", "0"},
          {"id", "1e5527d7-bb36-4607-3370-4164db56a40e"},
          {"detail-type", detail_type},
          {"source", source},
          {"account", "123456789012"},
          {"time", time},
          {"region", kRegion},
          {"resources", json::array()},
          {"detail", std::move(detail)}};
}

json health_event(const std::string& service, const std::string& category, std::vector<std::string> instances) {
  json entities = json::array();
  for (const std::string& id : instances) entities.push_back({{"entityValue", id}});
  return event("AWS Health Event", "aws.health", "2026-01-05T10:00:00Z",
               {{"eventArn", "arn:aws:health:us-west-2::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/ABC"},
                {"service", service},
                {"eventTypeCode", "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED"},
                {"eventTypeCategory", category},
                {"startTime", "Sat, 10 Jan 2026 10:00:00 GMT"},
                {"endTime", "Sat, 10 Jan 2026 12:00:00 GMT"},
                {"affectedEntities", entities}});
}

// The notices a poller handed on, from its thread.
class Notices {
 public:
  InstanceNotices sink() {
    return [this](InstanceNotice notice) {
      std::lock_guard lock(mutex_);
      if (fail_first_ > 0) {
        --fail_first_;
        throw std::runtime_error("the loop is not taking notices");
      }
      got_.push_back(std::move(notice));
    };
  }
  // The next `count` notices handed on throw instead.
  void fail_first(int count) {
    std::lock_guard lock(mutex_);
    fail_first_ = count;
  }
  // (kind, instance, at, source), sorted: SQS does not promise an order.
  std::vector<std::tuple<Kind, std::string, std::chrono::system_clock::time_point, std::string>> sorted() {
    std::lock_guard lock(mutex_);
    std::vector<std::tuple<Kind, std::string, std::chrono::system_clock::time_point, std::string>> out;
    for (const InstanceNotice& n : got_) out.emplace_back(n.kind, n.instance_id, n.at, n.source);
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::mutex mutex_;
  std::vector<InstanceNotice> got_;
  int fail_first_ = 0;
};

class InterruptionQueue : public EmulatorTest {
 protected:
  void SetUp() override {
    EmulatorTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    sqs_ = client(kSqsProtocol, kRegion);
    ASSERT_NE(sqs_, nullptr);
  }

  std::string create_queue(const std::string& name) {
    AwsResult<json> created = sqs_->json("CreateQueue", {{"QueueName", name}});
    EXPECT_TRUE(created.ok()) << (created ? "" : created.error().describe());
    return created ? created->value("QueueUrl", "") : "";
  }
  void send(const std::string& url, const std::string& body) {
    AwsResult<json> sent = sqs_->json("SendMessage", {{"QueueUrl", url}, {"MessageBody", body}});
    EXPECT_TRUE(sent.ok()) << (sent ? "" : sent.error().describe());
  }
  // Messages in the queue, visible or received and not deleted.
  int messages_left(const std::string& url) {
    AwsResult<json> got =
        sqs_->json("GetQueueAttributes",
                   {{"QueueUrl", url},
                    {"AttributeNames", {"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"}}});
    EXPECT_TRUE(got.ok()) << (got ? "" : got.error().describe());
    if (!got) return -1;
    const json& attributes = (*got)["Attributes"];
    return std::stoi(attributes.value("ApproximateNumberOfMessages", "0")) +
           std::stoi(attributes.value("ApproximateNumberOfMessagesNotVisible", "0"));
  }

  static InterruptionPollerOptions quick() {
    InterruptionPollerOptions options;
    options.receive.wait_seconds = 1;
    options.receive.visibility_timeout = 1;
    options.backoff =
        net::Backoff{std::chrono::milliseconds(10), std::chrono::milliseconds(10), 2.0, net::Backoff::Jitter::Full};
    return options;
  }

  // Waits up to 60 s for `done`.
  static bool eventually(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!done()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return true;
  }

  std::unique_ptr<AwsClient> sqs_;
};

TEST_F(InterruptionQueue, EachEventKarpenterHandlesBecomesItsNoticesAndEveryMessageIsDeleted) {
  const std::string url = create_queue("demo");
  const std::vector<json> bodies = {
      event("EC2 Spot Instance Interruption Warning", "aws.ec2", "2026-01-05T12:00:00Z",
            {{"instance-id", "i-0spot"}, {"instance-action", "terminate"}}),
      event("EC2 Instance Rebalance Recommendation", "aws.ec2", "2026-01-05T11:58:00Z", {{"instance-id", "i-0rebal"}}),
      health_event("EC2", "scheduledChange", {"i-0retire1", "i-0retire2"}),
      event("EC2 Instance State-change Notification", "aws.ec2", "2026-01-05T12:02:00Z",
            {{"instance-id", "i-0shutting"}, {"state", "shutting-down"}}),
      event("EC2 Instance State-change Notification", "aws.ec2", "2026-01-05T12:03:00Z",
            {{"instance-id", "i-0stopped"}, {"state", "stopped"}}),
      event("EC2 Capacity Reservation Instance Interruption Warning", "aws.ec2", "2026-01-05T12:05:00Z",
            {{"instance-id", "i-0reserved"}, {"instance-action", "terminate"}}),
      // Not acted on: a state an instance keeps running in, another service's health event, an event of a kind
      // Karpenter does not read, a spot warning without its instance.
      event("EC2 Instance State-change Notification", "aws.ec2", "2026-01-05T12:02:00Z",
            {{"instance-id", "i-0running"}, {"state", "running"}}),
      health_event("RDS", "scheduledChange", {"i-0rds"}),
      event("EC2 AMI State Change", "aws.ec2", "2026-01-05T12:00:00Z", {{"ImageId", "ami-0abc"}}),
      event("EC2 Spot Instance Interruption Warning", "aws.ec2", "2026-01-05T12:00:00Z", json::object()),
  };
  for (const json& body : bodies) send(url, body.dump());
  send(url, "{\"version\": \"0\", \"detail-type\": ");  // cut short: not JSON
  const int sent = static_cast<int>(bodies.size()) + 1;

  Notices notices;
  auto poller = SqsInterruptionPoller::start(*sqs_, "demo", notices.sink(), quick());
  ASSERT_TRUE(poller.ok()) << poller.error().message;
  EXPECT_EQ((*poller)->queue_url(), url);
  ASSERT_TRUE(eventually([&] { return answers("DeleteMessage") >= sent; }));
  poller->reset();

  using Notice = std::tuple<Kind, std::string, std::chrono::system_clock::time_point, std::string>;
  EXPECT_EQ(
      notices.sorted(),
      (std::vector<Notice>{
          // two minutes after the warning
          {Kind::SpotInterruption, "i-0spot", wall("2026-01-05T12:02:00Z"), "EC2 Spot Instance Interruption Warning"},
          // one notice per affected instance, at the event's time
          {Kind::ScheduledChange, "i-0retire1", wall("2026-01-05T10:00:00Z"), "AWS Health Event"},
          {Kind::ScheduledChange, "i-0retire2", wall("2026-01-05T10:00:00Z"), "AWS Health Event"},
          // a state change: stopping or stopped, shutting down or terminated, as Karpenter's Events tell them apart
          {Kind::Stopping, "i-0stopped", wall("2026-01-05T12:03:00Z"), "EC2 Instance State-change Notification"},
          {Kind::Terminating, "i-0shutting", wall("2026-01-05T12:02:00Z"), "EC2 Instance State-change Notification"},
          {Kind::CapacityReservationInterruption, "i-0reserved", wall("2026-01-05T12:05:00Z"),
           "EC2 Capacity Reservation Instance Interruption Warning"},
          {Kind::RebalanceRecommendation, "i-0rebal", wall("2026-01-05T11:58:00Z"),
           "EC2 Instance Rebalance Recommendation"},
      }));
  EXPECT_EQ(answers("DeleteMessage"), sent);  // each once, the ignored and the unreadable too
  EXPECT_EQ(messages_left(url), 0);
}

TEST_F(InterruptionQueue, AMessageWhoseNoticeCouldNotBeHandedOnComesBackAndIsDeletedOnceHandled) {
  const std::string url = create_queue("demo");
  send(url, event("EC2 Spot Instance Interruption Warning", "aws.ec2", "2026-01-05T12:00:00Z",
                  {{"instance-id", "i-0spot"}, {"instance-action", "terminate"}})
                .dump());
  Notices notices;
  notices.fail_first(1);
  auto poller = SqsInterruptionPoller::start(*sqs_, "demo", notices.sink(), quick());
  ASSERT_TRUE(poller.ok()) << poller.error().message;
  // Left after the first receive; given again once its visibility timeout (1 s) passed.
  ASSERT_TRUE(eventually([&] { return answers("DeleteMessage") >= 1; }));
  poller->reset();
  EXPECT_GE(answers("ReceiveMessage"), 2);
  EXPECT_EQ(answers("DeleteMessage"), 1);
  EXPECT_EQ(notices.sorted().size(), 1u);
  EXPECT_EQ(messages_left(url), 0);
}

TEST_F(InterruptionQueue, AFailingQueueIsWaitedOutAndReadOnceItAnswers) {
  const std::string url = create_queue("demo");
  send(url,
       event("EC2 Instance Rebalance Recommendation", "aws.ec2", "2026-01-05T11:58:00Z", {{"instance-id", "i-0rebal"}})
           .dump());
  // Two receives refused (a code the client does not retry), then SQS answers again.
  ASSERT_EQ(emulator_->add_rule({{"kind", "error"},
                                 {"service", "sqs"},
                                 {"action", "ReceiveMessage"},
                                 {"times", 2},
                                 {"status", 400},
                                 {"code", "KmsAccessDenied"},
                                 {"message", "The key is disabled."}}),
            "");
  Notices notices;
  auto poller = SqsInterruptionPoller::start(*sqs_, "demo", notices.sink(), quick());
  ASSERT_TRUE(poller.ok()) << poller.error().message;
  ASSERT_TRUE(eventually([&] { return answers("DeleteMessage") >= 1; }));
  poller->reset();
  EXPECT_GE(answers("ReceiveMessage"), 3);
  ASSERT_EQ(notices.sorted().size(), 1u);
  EXPECT_EQ(std::get<1>(notices.sorted()[0]), "i-0rebal");
}

TEST_F(InterruptionQueue, AQueueThatDoesNotExistIsAnErrorNamingIt) {
  Notices notices;
  auto poller = SqsInterruptionPoller::start(*sqs_, "no-such-queue", notices.sink(), quick());
  ASSERT_FALSE(poller.ok());
  EXPECT_TRUE(
      poller.error().message.starts_with("interruption queue no-such-queue: sqs GetQueueUrl: QueueDoesNotExist"))
      << poller.error().message;
}

}  // namespace
}  // namespace scalewright::cloud::aws
