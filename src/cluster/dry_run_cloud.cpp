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
  {
    std::lock_guard lock(mutex_);
    launched_[instance.id] = instance;
  }
  return cloud::Created{std::move(instance), option, {}};
}

cloud::CloudResult<cloud::Deleted> DryRunCloud::terminate(const std::string& instance_id) {
  spdlog::info("dry-run: would terminate instance {}", instance_id);
  std::lock_guard lock(mutex_);
  launched_.erase(instance_id);
  return cloud::Deleted{};
}

cloud::CloudResult<cloud::Instance> DryRunCloud::get(const std::string& instance_id) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = launched_.find(instance_id); it != launched_.end()) return it->second;
  }
  return real_.get(instance_id);
}

cloud::CloudResult<std::vector<cloud::Instance>> DryRunCloud::list() const {
  cloud::CloudResult<std::vector<cloud::Instance>> out = real_.list();
  if (!out) return out;
  std::lock_guard lock(mutex_);
  for (const auto& [id, instance] : launched_) out->push_back(instance);
  return out;
}

cloud::CloudResult<std::vector<cloud::GroupInstance>> DryRunCloud::increase_size(const std::string& group,
                                                                                std::int32_t delta) {
  spdlog::info("dry-run: would raise the target of node group {} by {}", group, delta);
  return std::vector<cloud::GroupInstance>{};
}

cloud::CloudResult<cloud::Deleted> DryRunCloud::delete_nodes(const std::string& group,
                                                             const std::vector<std::string>& instance_ids) {
  for (const std::string& id : instance_ids) spdlog::info("dry-run: would delete instance {} of node group {}", id, group);
  return cloud::Deleted{};
}

cloud::CloudResult<cloud::Deleted> DryRunCloud::decrease_target_size(const std::string& group, std::int32_t delta) {
  spdlog::info("dry-run: would lower the target of node group {} by {}", group, delta);
  return cloud::Deleted{};
}

}  // namespace scalewright::cluster
