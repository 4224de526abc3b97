#include "cloud/aws/interruption.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>

#include "api/ascii.h"
#include "api/timestamp.h"
#include "net/retry.h"

namespace scalewright::cloud::aws {

using nlohmann::json;

namespace {

constexpr std::string_view kSpotWarning = "EC2 Spot Instance Interruption Warning";
constexpr std::string_view kHealthEvent = "AWS Health Event";
constexpr std::string_view kStateChange = "EC2 Instance State-change Notification";
constexpr std::string_view kRebalance = "EC2 Instance Rebalance Recommendation";
constexpr std::string_view kCapacityReservationWarning = "EC2 Capacity Reservation Instance Interruption Warning";

InterruptionMessage ignored(std::string reason) {
  return {InterruptionMessage::Verdict::Ignored, {}, std::move(reason)};
}

InterruptionMessage malformed(std::string reason) {
  return {InterruptionMessage::Verdict::Malformed, {}, std::move(reason)};
}

// The string at `object`.key, or nullptr when it is missing or not a string.
const std::string* string_at(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get_ptr<const std::string*>() : nullptr;
}

// One notice of detail.instance-id.
InterruptionMessage notice_of_instance(const json& event, InstanceNotice::Kind kind,
                                       std::chrono::system_clock::time_point at, std::string_view detail_type) {
  const std::string* instance = string_at(event["detail"], "instance-id");
  if (instance == nullptr || instance->empty())
    return malformed(fmt::format("{} without detail.instance-id", detail_type));
  return {InterruptionMessage::Verdict::Notices, {{kind, *instance, at, std::string(detail_type)}}, ""};
}

// EC2's states in which the instance is going away, stopped or gone for good (Karpenter's state-change parser, whose
// Event tells the two apart; EC2 writes them in lower case, Karpenter compares without case); nullopt for the others.
std::optional<InstanceNotice::Kind> going_away(const std::string& state) {
  const std::string s = ascii_lower(state);
  if (s == "stopping" || s == "stopped") return InstanceNotice::Kind::Stopping;
  if (s == "shutting-down" || s == "terminated") return InstanceNotice::Kind::Terminating;
  return std::nullopt;
}

}  // namespace

InterruptionMessage parse_interruption_message(std::string_view body) {
  const json event = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (event.is_discarded()) return malformed("the body is not JSON");
  if (!event.is_object()) return malformed("the body is not a JSON object");
  const std::string* version = string_at(event, "version");
  const std::string* source = string_at(event, "source");
  const std::string* detail_type = string_at(event, "detail-type");
  if (version == nullptr || source == nullptr || detail_type == nullptr) {
    return malformed("the body is not an EventBridge event (version, source and detail-type are strings)");
  }
  const std::string kind = fmt::format("version {}, source {}, detail-type \"{}\"", *version, *source, *detail_type);
  const bool ec2 = *source == "aws.ec2";
  const bool known =
      *version == "0" && ((ec2 && (*detail_type == kSpotWarning || *detail_type == kStateChange ||
                                   *detail_type == kRebalance || *detail_type == kCapacityReservationWarning)) ||
                          (*source == "aws.health" && *detail_type == kHealthEvent));
  if (!known) return ignored("not an event Karpenter handles: " + kind);
  const std::string* time = string_at(event, "time");
  const std::optional<std::chrono::system_clock::time_point> at = time ? parse_micro_time(*time) : std::nullopt;
  if (!at) return malformed(fmt::format("{} without a time in RFC 3339", *detail_type));
  if (!event.contains("detail") || !event["detail"].is_object()) {
    return malformed(fmt::format("{} without a detail object", *detail_type));
  }
  const json& detail = event["detail"];

  if (*detail_type == kSpotWarning) {
    return notice_of_instance(event, InstanceNotice::Kind::SpotInterruption, *at + kSpotInterruptionWarning,
                              *detail_type);
  }
  if (*detail_type == kRebalance) {
    return notice_of_instance(event, InstanceNotice::Kind::RebalanceRecommendation, *at, *detail_type);
  }
  if (*detail_type == kCapacityReservationWarning) {
    return notice_of_instance(event, InstanceNotice::Kind::CapacityReservationInterruption, *at, *detail_type);
  }
  if (*detail_type == kStateChange) {
    const std::string* state = string_at(detail, "state");
    if (state == nullptr) return malformed(fmt::format("{} without detail.state", *detail_type));
    const std::optional<InstanceNotice::Kind> kind = going_away(*state);
    if (!kind) return ignored(fmt::format("{}: state {} is not acted on", *detail_type, *state));
    return notice_of_instance(event, *kind, *at, *detail_type);
  }
  // An AWS Health event: only EC2's scheduled changes, each affected instance its own notice.
  const std::string* service = string_at(detail, "service");
  const std::string* category = string_at(detail, "eventTypeCategory");
  if (service == nullptr || category == nullptr) {
    return malformed(fmt::format("{} without detail.service and detail.eventTypeCategory", *detail_type));
  }
  if (*service != "EC2" || *category != "scheduledChange") {
    return ignored(fmt::format("{} of service {}, category {}: only EC2's scheduledChange is acted on", *detail_type,
                               *service, *category));
  }
  auto entities = detail.find("affectedEntities");
  if (entities == detail.end() || !entities->is_array()) {
    return malformed(fmt::format("{} without a detail.affectedEntities list", *detail_type));
  }
  InterruptionMessage message{InterruptionMessage::Verdict::Notices, {}, ""};
  for (const json& entity : *entities) {
    const std::string* instance = string_at(entity, "entityValue");
    if (instance == nullptr || instance->empty()) {
      return malformed(fmt::format("{}: an affected entity without an entityValue", *detail_type));
    }
    message.notices.push_back({InstanceNotice::Kind::ScheduledChange, *instance, *at, std::string(*detail_type)});
  }
  if (message.notices.empty()) return ignored(fmt::format("{} with no affected entity", *detail_type));
  return message;
}

// --- SqsInterruptionPoller ---

Result<std::unique_ptr<SqsInterruptionPoller>> SqsInterruptionPoller::start(const AwsClient& sqs,
                                                                            const std::string& queue_name,
                                                                            InstanceNotices notices,
                                                                            InterruptionPollerOptions options) {
  AwsResult<std::string> url = get_queue_url(sqs, queue_name);
  if (!url) return Error{fmt::format("interruption queue {}: {}", queue_name, url.error().describe())};
  spdlog::info("aws: watching interruption queue {} ({})", queue_name, *url);
  return std::unique_ptr<SqsInterruptionPoller>(
      new SqsInterruptionPoller(sqs, queue_name, std::move(*url), std::move(notices), std::move(options)));
}

SqsInterruptionPoller::SqsInterruptionPoller(const AwsClient& sqs, std::string queue_name, std::string queue_url,
                                             InstanceNotices notices, InterruptionPollerOptions options)
    : sqs_(sqs),
      queue_name_(std::move(queue_name)),
      queue_url_(std::move(queue_url)),
      notices_(std::move(notices)),
      options_(std::move(options)),
      thread_([this](std::stop_token stop) { run(stop); }) {}

SqsInterruptionPoller::~SqsInterruptionPoller() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void SqsInterruptionPoller::run(const std::stop_token& stop) {
  int failures = 0;  // receives failed in a row
  while (!stop.stop_requested()) {
    AwsResult<std::vector<SqsMessage>> received = receive_messages(sqs_, queue_url_, options_.receive, stop);
    if (stop.stop_requested()) return;
    if (!received) {
      ++failures;
      const std::chrono::milliseconds wait = options_.backoff.delay(failures, net::jitter_random());
      spdlog::warn("aws: interruption queue {}: {}; trying again in {} ms", queue_name_, received.error().describe(),
                   wait.count());
      net::sleep_unless_stopped(wait, stop);
      continue;
    }
    failures = 0;
    for (const SqsMessage& message : *received) {
      if (stop.stop_requested()) return;  // left undeleted: SQS gives it again
      handle(message, stop);
    }
  }
}

void SqsInterruptionPoller::handle(const SqsMessage& message, const std::stop_token& stop) {
  InterruptionMessage parsed = parse_interruption_message(message.body);
  switch (parsed.verdict) {
    case InterruptionMessage::Verdict::Malformed:
      // Karpenter deletes what it cannot parse: it would come back unreadable for as long as the queue keeps it.
      spdlog::warn("aws: interruption queue {}: message {} deleted unread: {}", queue_name_, message.id, parsed.reason);
      break;
    case InterruptionMessage::Verdict::Ignored:
      spdlog::debug("aws: interruption queue {}: message {} ignored: {}", queue_name_, message.id, parsed.reason);
      break;
    case InterruptionMessage::Verdict::Notices:
      try {
        for (InstanceNotice& notice : parsed.notices) {
          spdlog::debug("aws: interruption queue {}: message {}: {} for instance {}", queue_name_, message.id,
                        notice.source, notice.instance_id);
          if (notices_) notices_(std::move(notice));
        }
      } catch (const std::exception& e) {
        spdlog::warn("aws: interruption queue {}: message {} left for another try: {}", queue_name_, message.id,
                     e.what());
        return;
      }
      break;
  }
  AwsResult<bool> deleted = delete_message(sqs_, queue_url_, message.receipt_handle, stop);
  if (!deleted && !stop.stop_requested()) {
    // It comes back after its visibility timeout and is handled again: acting on a notice twice does nothing more.
    spdlog::warn("aws: interruption queue {}: deleting message {}: {}", queue_name_, message.id,
                 deleted.error().describe());
  }
}

}  // namespace scalewright::cloud::aws
