#include "cloud/cloud_provider.h"

#include <fmt/format.h>

namespace scalewright::cloud {

std::string_view to_string(ErrorClass error_class) {
  switch (error_class) {
    case ErrorClass::InsufficientCapacity: return "InsufficientCapacity";
    case ErrorClass::NotFound: return "NotFound";
    case ErrorClass::Throttled: return "Throttled";
    case ErrorClass::Unauthorized: return "Unauthorized";
    case ErrorClass::Quota: return "Quota";
    case ErrorClass::NodeClassNotReady: return "NodeClassNotReady";
    case ErrorClass::Other: return "Other";
  }
  return "Other";
}

CloudError not_found(std::string_view instance_id) {
  return {ErrorClass::NotFound, fmt::format("instance {} not found", instance_id), {}};
}

std::string describe(const LaunchOption& option) {
  return fmt::format("{} {} {}", to_string(option.offering->capacity_type), option.instance_type->name,
                     option.offering->zone);
}

}  // namespace scalewright::cloud
