#pragma once
// The AWS services Scalewright calls, each described once: how the SDKs name it (for AWS_ENDPOINT_URL_<ID>), where
// its default endpoint is, the name its requests are signed for, and how its requests and answers are shaped
// (botocore's metadata: protocol, apiVersion, targetPrefix).
#include <string_view>

namespace scalewright::cloud::aws {

// How a service's requests and answers are shaped (botocore's metadata.protocol).
enum class Protocol {
  Ec2,     // form-encoded Action & Version, lists as Name.N; XML answers, errors as <Response><Errors>
  Query,   // form-encoded, lists as Name.member.N; XML answers inside <ActionResult>, errors as <ErrorResponse>
  Json10,  // JSON body, X-Amz-Target: Prefix.Action, application/x-amz-json-1.0 (SQS)
  Json11,  // the same with application/x-amz-json-1.1 (SSM, the Price List API)
  // The operation in the method and path (GET /clusters/NAME), JSON answers; errors named by the x-amzn-ErrorType
  // header or the body's __type or code (EKS)
  RestJson,
};

struct AwsService {
  std::string_view service_id;       // the SDKs' serviceId upper-cased, spaces as '_': "EC2", "AUTO_SCALING", ...
  std::string_view endpoint_prefix;  // the default endpoint's host prefix: "ec2", "autoscaling", "api.pricing"
  std::string_view signing_name;     // the SigV4 scope's service: "ec2", "autoscaling", "pricing"
  Protocol protocol = Protocol::Ec2;
  std::string_view api_version;    // form protocols' Version: "2016-11-15"
  std::string_view target_prefix;  // JSON 1.0/1.1's X-Amz-Target prefix: "AmazonSSM"
};

inline constexpr AwsService kEc2{"EC2", "ec2", "ec2", Protocol::Ec2, "2016-11-15", ""};
inline constexpr AwsService kAutoScaling{"AUTO_SCALING",  "autoscaling", "autoscaling",
                                         Protocol::Query, "2011-01-01",  ""};
inline constexpr AwsService kSqs{"SQS", "sqs", "sqs", Protocol::Json10, "", "AmazonSQS"};
inline constexpr AwsService kSsm{"SSM", "ssm", "ssm", Protocol::Json11, "", "AmazonSSM"};
inline constexpr AwsService kSts{"STS", "sts", "sts", Protocol::Query, "2011-06-15", ""};
inline constexpr AwsService kPricing{"PRICING", "api.pricing", "pricing", Protocol::Json11, "", "AWSPriceListService"};
inline constexpr AwsService kIam{"IAM", "iam", "iam", Protocol::Query, "2010-05-08", ""};  // global: iam.amazonaws.com
inline constexpr AwsService kEks{"EKS", "eks", "eks", Protocol::RestJson, "", ""};

// The names the wire client's callers use for the same descriptions.
using ApiProtocol = AwsService;
inline constexpr const AwsService& kEc2Protocol = kEc2;
inline constexpr const AwsService& kAutoScalingProtocol = kAutoScaling;
inline constexpr const AwsService& kSqsProtocol = kSqs;
inline constexpr const AwsService& kSsmProtocol = kSsm;
inline constexpr const AwsService& kStsProtocol = kSts;
inline constexpr const AwsService& kPricingProtocol = kPricing;

}  // namespace scalewright::cloud::aws
