#include "cluster/dry_run_cloud.h"

#include <spdlog/spdlog.h>

namespace scalewright::cluster {

cloud::LaunchOutcome DryRunCloud::launch(const cloud::LaunchRequest& request) {
  spdlog::info("dry-run: would launch {} {} {} ${:.4f}/h as {}", request.instance_type->name, request.offering->zone,
               cloud::to_string(request.offering->capacity_type), request.offering->price_per_hour, request.name);
  cloud::Instance instance{request.name, request.name, request.instance_type, *request.offering,
                           "dry-run://" + request.name};
  launched_[instance.id] = instance;
  return {instance, false, ""};
}

void DryRunCloud::terminate(const std::string& instance_id) {
  spdlog::info("dry-run: would terminate instance {}", instance_id);
  launched_.erase(instance_id);
}

std::optional<cloud::Instance> DryRunCloud::get(const std::string& instance_id) const {
  auto it = launched_.find(instance_id);
  if (it == launched_.end()) return real_.get(instance_id);
  return it->second;
}

std::vector<cloud::Instance> DryRunCloud::list() const {
  std::vector<cloud::Instance> out = real_.list();
  for (const auto& [id, instance] : launched_) out.push_back(instance);
  return out;
}

}  // namespace scalewright::cluster
