#include "cloud/aws/cloud_errors.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace scalewright::cloud::aws {
namespace {

constexpr std::array<std::string_view, 8> kCapacityErrors = {"InsufficientInstanceCapacity",
                                                             "MaxSpotInstanceCountExceeded",
                                                             "VcpuLimitExceeded",
                                                             "UnfulfillableCapacity",
                                                             "Unsupported",
                                                             "InsufficientFreeAddressesInSubnet",
                                                             "MaxFleetCountExceeded",
                                                             "ReservationCapacityExceeded"};

constexpr std::array<std::string_view, 8> kUnauthorized = {
    "UnauthorizedOperation", "AccessDenied",          "AccessDeniedException", "UnrecognizedClientException",
    "InvalidClientTokenId",  "SignatureDoesNotMatch", "AuthFailure",           "ExpiredToken"};

}  // namespace

bool is_capacity_error(std::string_view code) {
  return std::find(kCapacityErrors.begin(), kCapacityErrors.end(), code) != kCapacityErrors.end();
}

bool contains_ignoring_case(std::string_view text, std::string_view part) {
  auto found = std::search(text.begin(), text.end(), part.begin(), part.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return found != text.end();
}

CloudError cloud_error(const AwsError& error, std::string_view what) {
  const std::string& code = error.code;
  ErrorClass error_class = ErrorClass::Other;
  if (error.throttled() || code == "ResourceContention") {
    // ResourceContention: "You already have a pending update to an Auto Scaling resource": the same call later.
    error_class = ErrorClass::Throttled;
  } else if (code == "NoCredentials" ||
             std::find(kUnauthorized.begin(), kUnauthorized.end(), code) != kUnauthorized.end()) {
    error_class = ErrorClass::Unauthorized;
  } else if ((code == "ValidationError" && contains_ignoring_case(error.message, "not found")) ||
             code.ends_with(".NotFound") || code.ends_with("NotFoundException")) {
    // Auto Scaling says "AutoScalingGroup name not found - ..." and "Instance Id not found - ..." as ValidationError.
    error_class = ErrorClass::NotFound;
  } else if (code == "LimitExceeded" || code == "InstanceLimitExceeded" || code == "VcpuLimitExceeded") {
    error_class = ErrorClass::Quota;
  } else if (is_capacity_error(code)) {
    error_class = ErrorClass::InsufficientCapacity;
  }
  return {error_class, std::string(what) + error.describe(), {}};
}

}  // namespace scalewright::cloud::aws
