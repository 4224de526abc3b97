#include "cloud/aws/sqs_api.h"

#include <nlohmann/json.hpp>

namespace scalewright::cloud::aws {

using nlohmann::json;

namespace {

// An answer that lacks what every answer of `action` carries: an error of the call, not a crash.
AwsError malformed(const AwsClient& sqs, std::string_view action, std::string message) {
  AwsError error;
  error.service = std::string(sqs.api().signing_name);
  error.action = std::string(action);
  error.status = 200;
  error.message = std::move(message);
  return error;
}

std::string text(const json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : "";
}

}  // namespace

AwsResult<std::string> get_queue_url(const AwsClient& sqs, const std::string& queue_name, std::stop_token stop) {
  AwsResult<json> answer = sqs.json("GetQueueUrl", json{{"QueueName", queue_name}}, stop);
  if (!answer) return answer.error();
  std::string url = answer->is_object() ? text(*answer, "QueueUrl") : "";
  if (url.empty()) return malformed(sqs, "GetQueueUrl", "the answer has no QueueUrl: " + answer->dump());
  return url;
}

AwsResult<std::vector<SqsMessage>> receive_messages(const AwsClient& sqs, const std::string& queue_url,
                                                    const ReceiveOptions& options, std::stop_token stop) {
  // SentTimestamp is a message system attribute: MessageSystemAttributeNames is its parameter in SQS's current model
  // (AttributeNames, which Karpenter still sends, is deprecated and lists queue attributes).
  const json request = {{"QueueUrl", queue_url},
                        {"MaxNumberOfMessages", options.max_messages},
                        {"VisibilityTimeout", options.visibility_timeout},
                        {"WaitTimeSeconds", options.wait_seconds},
                        {"MessageSystemAttributeNames", {"SentTimestamp"}},
                        {"MessageAttributeNames", {"All"}}};
  AwsResult<json> answer = sqs.json("ReceiveMessage", request, stop);
  if (!answer) return answer.error();
  std::vector<SqsMessage> messages;
  if (!answer->is_object()) return malformed(sqs, "ReceiveMessage", "the answer is not an object: " + answer->dump());
  auto listed = answer->find("Messages");
  if (listed == answer->end() || listed->is_null()) return messages;  // an empty poll omits the list
  if (!listed->is_array()) return malformed(sqs, "ReceiveMessage", "Messages is not a list: " + listed->dump());
  for (const json& item : *listed) {
    if (!item.is_object()) continue;
    SqsMessage message{text(item, "MessageId"), text(item, "ReceiptHandle"), text(item, "Body"), {}};
    if (auto attributes = item.find("Attributes"); attributes != item.end() && attributes->is_object()) {
      for (const auto& [name, value] : attributes->items()) {
        if (value.is_string()) message.attributes[name] = value.get<std::string>();
      }
    }
    messages.push_back(std::move(message));
  }
  return messages;
}

AwsResult<bool> delete_message(const AwsClient& sqs, const std::string& queue_url, const std::string& receipt_handle,
                               std::stop_token stop) {
  AwsResult<json> answer =
      sqs.json("DeleteMessage", json{{"QueueUrl", queue_url}, {"ReceiptHandle", receipt_handle}}, stop);
  // Nothing of the answer is read: a 2xx is the deletion, whatever its body (SQS's JSON protocol may answer an
  // operation without output with an empty body, which AwsClient::json takes for a malformed answer).
  if (!answer && answer.error().status / 100 != 2) return answer.error();
  return true;
}

}  // namespace scalewright::cloud::aws
