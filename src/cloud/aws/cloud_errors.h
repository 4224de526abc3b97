#pragma once
// What an AWS error means to the controllers (cloud::ErrorClass), one reading for every AWS call the providers make:
// throttled (the same call later), unauthorized (a person must act), not found, an account limit, or no capacity for
// an offering (Karpenter's unavailable-offerings codes, which CreateFleet returns inside its 200 answer).
#include <string>
#include <string_view>

#include "cloud/aws/aws_client.h"
#include "cloud/cloud_provider.h"

namespace scalewright::cloud::aws {

// The codes that say EC2 has no capacity for an offering now: it is left out for a while, others are tried.
bool is_capacity_error(std::string_view code);

// `what` ("node group ng-1: ") before the error's describe() (code, message, request id).
CloudError cloud_error(const AwsError& error, std::string_view what = "");

// Whether `text` holds `part`, ignoring case (Auto Scaling words some errors only in their message).
bool contains_ignoring_case(std::string_view text, std::string_view part);

}  // namespace scalewright::cloud::aws
