#pragma once
// The SQS calls Karpenter's AWS provider makes to read its interruption queue (pkg/providers/sqs), typed over
// AwsClient in SQS's JSON 1.0 protocol: the queue's URL from its name, once; a long poll for up to ten messages that
// stay hidden from other readers while they are handled; a message deleted by its receipt handle once handled.
#include <cstdint>
#include <map>
#include <stop_token>
#include <string>
#include <vector>

#include "cloud/aws/aws_client.h"

namespace scalewright::cloud::aws {

// How ReceiveMessage asks, Karpenter's numbers by default.
struct ReceiveOptions {
  std::int32_t max_messages = 10;        // SQS's maximum
  std::int32_t visibility_timeout = 20;  // seconds a received message stays hidden: a message not deleted comes back
  std::int32_t wait_seconds = 20;        // the long poll: an empty answer only after this (SQS's maximum)
};

struct SqsMessage {
  std::string id;
  std::string receipt_handle;  // what deletes this receipt of it
  std::string body;
  std::map<std::string, std::string> attributes;  // system attributes asked for: "SentTimestamp" -> "1767614400000"
};

// The URL of the queue named `queue_name`; QueueDoesNotExist when there is none.
AwsResult<std::string> get_queue_url(const AwsClient& sqs, const std::string& queue_name, std::stop_token stop = {});
// Up to options.max_messages messages, waiting up to options.wait_seconds for the first; none is not an error.
AwsResult<std::vector<SqsMessage>> receive_messages(const AwsClient& sqs, const std::string& queue_url,
                                                    const ReceiveOptions& options = {}, std::stop_token stop = {});
AwsResult<bool> delete_message(const AwsClient& sqs, const std::string& queue_url, const std::string& receipt_handle,
                               std::stop_token stop = {});

}  // namespace scalewright::cloud::aws
