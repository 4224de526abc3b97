#pragma once
// Karpenter's interruption queue (karpenter-provider-aws's interruption controller): EventBridge delivers to one SQS
// queue the EC2 and AWS Health events that warn of an instance going away, and the controller long-polls it and acts
// on each. Here: one message's body read into the cloud's instance notices, and the poller that reads the queue and
// hands them on. Which node an instance is, and what is done about it, is the loop's (cluster/instance_notices.h).
#include <chrono>
#include <memory>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "cloud/aws/aws_client.h"
#include "cloud/aws/sqs_api.h"
#include "cloud/provider_registry.h"
#include "net/backoff.h"

namespace scalewright::cloud::aws {

// What one message says, by its (version "0", source, detail-type) as Karpenter's parsers dispatch:
//   EC2 Spot Instance Interruption Warning                  SpotInterruption of detail.instance-id at time + 2 min
//   AWS Health Event, service EC2, category scheduledChange ScheduledChange of each affectedEntities[].entityValue
//   EC2 Instance State-change Notification, state stopping or stopped
//                                                           Stopping of detail.instance-id
//   EC2 Instance State-change Notification, state shutting-down or terminated
//                                                           Terminating of detail.instance-id (other states: ignored)
//   EC2 Capacity Reservation Instance Interruption Warning  CapacityReservationInterruption of detail.instance-id
//   EC2 Instance Rebalance Recommendation                   RebalanceRecommendation of detail.instance-id
// Notices other than a spot interruption are at the event's time. Anything else is ignored; a body that is not such
// an event (not JSON, a field missing or of the wrong type) is malformed. Both are deleted from the queue.
struct InterruptionMessage {
  enum class Verdict { Notices, Ignored, Malformed };
  Verdict verdict = Verdict::Ignored;
  std::vector<InstanceNotice> notices;  // Notices: one or more
  std::string reason;                   // Ignored, Malformed: why, for the log
};

// EC2's spot interruption warning comes two minutes before the instance is taken back.
inline constexpr std::chrono::seconds kSpotInterruptionWarning{120};

InterruptionMessage parse_interruption_message(std::string_view body);

struct InterruptionPollerOptions {
  ReceiveOptions receive = {};
  // The waits between failed receives in a row (SQS unreachable, throttled, the queue deleted): the poller never
  // gives up while it runs.
  net::Backoff backoff{std::chrono::milliseconds(1'000), std::chrono::milliseconds(60'000), 2.0,
                       net::Backoff::Jitter::Full};
};

// Reads the interruption queue on a thread of its own until stopped: each message's notices are handed to `notices`
// (which must not block), then the message is deleted; an ignored or malformed message is deleted with a log line;
// a message whose notices could not be handed on (the callback threw) is left, and SQS gives it again once its
// visibility timeout passes. Failed receives are logged and retried after a back-off.
class SqsInterruptionPoller {
 public:
  // Resolves the queue's URL (GetQueueUrl), then starts polling. The error names the queue: "interruption queue
  // NAME: sqs GetQueueUrl: QueueDoesNotExist: ...". `sqs` (kSqsProtocol) must outlive the poller.
  static Result<std::unique_ptr<SqsInterruptionPoller>> start(const AwsClient& sqs, const std::string& queue_name,
                                                              InstanceNotices notices,
                                                              InterruptionPollerOptions options = {});
  // Stops and joins: a long poll under way is cut short.
  ~SqsInterruptionPoller();
  SqsInterruptionPoller(const SqsInterruptionPoller&) = delete;
  SqsInterruptionPoller& operator=(const SqsInterruptionPoller&) = delete;

  const std::string& queue_url() const { return queue_url_; }

 private:
  SqsInterruptionPoller(const AwsClient& sqs, std::string queue_name, std::string queue_url, InstanceNotices notices,
                        InterruptionPollerOptions options);
  void run(const std::stop_token& stop);
  void handle(const SqsMessage& message, const std::stop_token& stop);

  const AwsClient& sqs_;
  std::string queue_name_;
  std::string queue_url_;
  InstanceNotices notices_;
  InterruptionPollerOptions options_;
  std::jthread thread_;  // last: started once the rest is set, stopped and joined first
};

}  // namespace scalewright::cloud::aws
