#include "sim/simulated_cloud.h"

#include <cstdio>

#include <fmt/format.h>

#include "cloud/aws/ec2nodeclass.h"
#include "cloud/aws/instance_types.h"
#include "cloud/aws/repair_policies.h"

namespace scalewright::sim {

SimulatedCloud::SimulatedCloud(cloud::Catalog catalog, CloudSpec spec, std::uint64_t seed)
    : catalog_(std::move(catalog)), spec_(std::move(spec)), random_(seed) {}

namespace {

std::string class_key(const NodeClassReference& ref) { return ref.group + "/" + ref.kind + "/" + ref.name; }

}  // namespace

void SimulatedCloud::node_class_applied(cloud::NodeClassPtr node_class) {
  holds_ec2_node_classes_ = holds_ec2_node_classes_ || node_class->reference().group == cloud::aws::kGroup;
  const std::string key = class_key(node_class->reference());
  node_classes_[key] = {std::move(node_class), nullptr};
}

bool SimulatedCloud::takes_default_node_class(const NodePool& pool) const {
  return pool.node_class.group == cloud::aws::kGroup && !holds_ec2_node_classes_;
}

cloud::CloudResult<const cloud::Catalog*> SimulatedCloud::instance_types(const NodePool& pool) const {
  const NodeClassReference& ref = pool.node_class;
  auto found = node_classes_.find(class_key(ref));
  if (found == node_classes_.end()) {
    // The simulated cloud is AWS's: a NodePool naming one of its node classes needs it (Karpenter's NodePool is
    // not Ready without it); a nodeClassRef of another provider, or none, launches the catalog as it is. Files of
    // NodePools alone, the way a NodePool is often tried, are simulated with the catalog's own shapes: a name none of
    // the files' EC2NodeClasses has is a mistake, one with no EC2NodeClass at all is not.
    if (ref.group != cloud::aws::kGroup || takes_default_node_class(pool)) return &catalog_;
    return cloud::CloudError{cloud::ErrorClass::NodeClassNotReady,
                             "not ready: NodeClassNotFound, " + ref.kind + " \"" + ref.name + "\" not found", {}};
  }
  if (found->second.shaped == nullptr) {
    shaped_.push_back(std::make_unique<cloud::Catalog>(found->second.node_class->shape(catalog_)));
    found->second.shaped = shaped_.back().get();
  }
  return found->second.shaped;
}

bool SimulatedCloud::in_insufficient_capacity_window(const cloud::LaunchOption& option) const {
  for (const InsufficientCapacityWindow& w : spec_.faults.insufficient_capacity) {
    if (now_ < w.at || now_ >= w.at + w.duration) continue;
    if (!w.instance_type.empty() && w.instance_type != option.instance_type->name) continue;
    if (!w.zone.empty() && w.zone != option.offering->zone) continue;
    if (!w.capacity_type.empty() && w.capacity_type != cloud::to_string(option.offering->capacity_type)) continue;
    return true;
  }
  return false;
}

// The offerings are tried in the order given, as EC2 Fleet's lowest-price strategy would: the first with capacity
// launches.
cloud::CloudResult<cloud::Created> SimulatedCloud::create(const cloud::CreateRequest& request) {
  if (running_.size() >= max_instances_) {
    if (cap_reached_) cap_reached_(max_instances_);
    return cloud::CloudError{cloud::ErrorClass::Quota,
                             fmt::format("the simulation holds at most {} instances", max_instances_), {}};
  }
  cloud::Created created;
  for (const cloud::LaunchOption& option : request.offerings) {
    // Draw every random number in the same order whatever the outcome, so one fault does not shift the others.
    const bool random_shortage = random_.chance(spec_.faults.insufficient_capacity_rate);
    const bool never_ready = random_.chance(spec_.faults.never_ready_rate);
    const std::int64_t boot = random_.between(spec_.launch_latency_min.count(), spec_.launch_latency_max.count());
    if (random_shortage || in_insufficient_capacity_window(option)) {
      ++insufficient_capacity_errors_;
      created.unavailable.push_back(option);
      continue;
    }
    char id[32];
    std::snprintf(id, sizeof id, "i-%017llx", static_cast<unsigned long long>(next_instance_++));
    cloud::Instance instance{id, request.name, option.instance_type, *option.offering,
                             cloud::aws::provider_id(option.offering->zone, id)};
    running_[instance.id] = {instance, never_ready ? std::nullopt : std::optional<Instant>(now_ + Duration(boot))};
    created.instance = std::move(instance);
    created.launched = option;
    return created;
  }
  std::string message = created.unavailable.size() == 1
                            ? fmt::format("InsufficientInstanceCapacity: no {} capacity for {} in {}",
                                          cloud::to_string(created.unavailable[0].offering->capacity_type),
                                          created.unavailable[0].instance_type->name,
                                          created.unavailable[0].offering->zone)
                            : fmt::format("InsufficientInstanceCapacity: no capacity for any of {} offerings",
                                          created.unavailable.size());
  return cloud::CloudError{cloud::ErrorClass::InsufficientCapacity, std::move(message),
                           std::move(created.unavailable)};
}

cloud::CloudResult<cloud::Deleted> SimulatedCloud::terminate(const std::string& instance_id) {
  groups_.forget(instance_id);
  if (running_.erase(instance_id) == 0) return cloud::not_found(instance_id);
  return cloud::Deleted{};
}

cloud::CloudResult<cloud::Instance> SimulatedCloud::get(const std::string& instance_id) const {
  auto it = running_.find(instance_id);
  if (it == running_.end()) return cloud::not_found(instance_id);
  return it->second.instance;
}

cloud::CloudResult<std::vector<cloud::Instance>> SimulatedCloud::list() const {
  std::vector<cloud::Instance> out;
  for (const auto& [id, running] : running_) out.push_back(running.instance);
  return out;
}

std::optional<Instant> SimulatedCloud::ready_at(const std::string& instance_id) const {
  auto it = running_.find(instance_id);
  return it == running_.end() ? std::nullopt : it->second.ready_at;
}

std::vector<cloud::RepairStatement> SimulatedCloud::repair_policies() const { return cloud::aws::repair_policies(); }

}  // namespace scalewright::sim
