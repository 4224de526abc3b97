#include "cluster/dry_run_cloud.h"

#include <spdlog/spdlog.h>

namespace scalewright::cluster {

// The offering the real provider would be asked for first.
cloud::CloudResult<cloud::Created> DryRunCloud::create(const cloud::CreateRequest& request) {
  if (request.offerings.empty()) {
    return cloud::CloudError{cloud::ErrorClass::Other, "no offering to launch " + request.name, {}};
  }
  const cloud::LaunchOption& option = request.offerings.front();
  spdlog::info("dry-run: would launch {} {} {} ${:.4f}/h as {}", option.instance_type->name, option.offering->zone,
               cloud::to_string(option.offering->capacity_type), option.offering->price_per_hour, request.name);
  cloud::Instance instance{request.name, request.name, option.instance_type, *option.offering,
                           "dry-run://" + request.name};
  launched_[instance.id] = instance;
  return cloud::Created{std::move(instance), option, {}};
}

cloud::CloudResult<cloud::Deleted> DryRunCloud::terminate(const std::string& instance_id) {
  spdlog::info("dry-run: would terminate instance {}", instance_id);
  launched_.erase(instance_id);
  return cloud::Deleted{};
}

cloud::CloudResult<cloud::Instance> DryRunCloud::get(const std::string& instance_id) const {
  auto it = launched_.find(instance_id);
  if (it == launched_.end()) return real_.get(instance_id);
  return it->second;
}

cloud::CloudResult<std::vector<cloud::Instance>> DryRunCloud::list() const {
  cloud::CloudResult<std::vector<cloud::Instance>> out = real_.list();
  if (!out) return out;
  for (const auto& [id, instance] : launched_) out->push_back(instance);
  return out;
}

}  // namespace scalewright::cluster
