#include "cloud/aws/asg_node_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

#include "cloud/aws/instance_types.h"

namespace scalewright::cloud::aws {

namespace {

// CA's placeholderInstanceNamePrefix.
constexpr std::string_view kPlaceholderPrefix = "i-placeholder-";

// Auto Scaling's lifecycle states (LifecycleState), as CA's InstanceState: launching, in service, or going away.
InstanceState state_of(const AsgInstance& instance) {
  const std::string_view state = instance.lifecycle_state;
  if (state.starts_with("Pending") || state.starts_with("Warmed:Pending")) return InstanceState::Creating;
  if (state.starts_with("Terminat") || state.starts_with("Detach") || state.starts_with("Warmed:Terminat")) {
    return InstanceState::Deleting;
  }
  return InstanceState::Running;
}

// CA skips these when asked to delete them: terminating again would lower the desired capacity twice.
bool terminating(const AsgInstance& instance) {
  const std::string_view state = instance.lifecycle_state;
  return state == "Terminated" || state.starts_with("Terminating");
}

// Spot only when the mixed instances policy launches no on-demand instance at all; any on-demand share makes the
// group's new nodes (the base capacity first) on-demand.
CapacityType capacity_type_of(const AutoScalingGroup& group) {
  const auto& policy = group.mixed_instances_policy;
  if (policy && policy->on_demand_base_capacity == 0 && policy->on_demand_percentage_above_base == 0) {
    return CapacityType::Spot;
  }
  return CapacityType::OnDemand;
}

std::string no_group_message(const std::string& group) {
  return fmt::format("node group {} not found: no Auto Scaling group of that name among those managed", group);
}

// A failed launch as CA reports a placeholder it cannot fulfil (OutOfResources, placeholder-cannot-be-fulfilled);
// an account limit named in the activity's message is a quota rather than a want of capacity.
CloudError unfulfillable(const std::string& group, const ScalingActivity& activity) {
  const std::string& why = activity.status_message.empty() ? activity.description : activity.status_message;
  const bool quota = contains_ignoring_case(why, "limit") || contains_ignoring_case(why, "quota");
  return {quota ? ErrorClass::Quota : ErrorClass::InsufficientCapacity,
          fmt::format("node group {}: placeholder-cannot-be-fulfilled: AWS cannot launch more instances for it: "
                      "scaling activity {} failed: {}",
                      group, activity.id, why),
          {}};
}

}  // namespace

std::string placeholder_id(const std::string& group, std::int32_t n) {
  return fmt::format("{}{}-{}", kPlaceholderPrefix, group, n);
}

bool is_placeholder(const std::string& instance_id) { return instance_id.starts_with(kPlaceholderPrefix); }

CloudResult<std::vector<CloudNodeGroup>> to_cloud_node_groups(const AutoScalingApi& api,
                                                              const std::vector<AutoScalingGroup>& groups) {
  std::vector<CloudNodeGroup> out;
  for (const AutoScalingGroup& group : groups) {
    AwsResult<std::string> type = api.instance_type_of(group);
    if (!type) return cloud_error(type.error(), fmt::format("Auto Scaling group {}: its instance type: ", group.name));
    if (type->empty()) {
      return CloudError{ErrorClass::Other,
                        fmt::format("Auto Scaling group {}: no instance type: its launch configuration, launch "
                                    "template or mixed instances policy names none",
                                    group.name),
                        {}};
    }
    CloudNodeGroup value;
    value.name = group.name;
    value.instance_type = *type;
    value.zones = group.zones;
    value.capacity_type = capacity_type_of(group) == CapacityType::Spot ? "spot" : "on-demand";
    value.min_size = group.min_size;
    value.max_size = group.max_size;
    value.desired_capacity = group.desired_capacity;
    value.tags = group.tags;
    out.push_back(std::move(value));
  }
  return out;
}

Result<std::unique_ptr<AsgNodeGroups>> AsgNodeGroups::create(const AutoScalingApi& api,
                                                             const nodegroups::AutoscalerOptions& options,
                                                             AsgNodeGroupsSettings settings) {
  std::map<std::string, StaticNodeGroup> explicit_groups;
  for (const StaticNodeGroup& group : options.nodes) explicit_groups.emplace(group.name, group);
  std::vector<TagDiscovery> discovery;
  for (const std::string& spec : options.auto_discovery) {
    Result<TagDiscovery> parsed = parse_tag_discovery(spec);
    if (!parsed) return Error{"--node-group-auto-discovery=" + parsed.error().message};
    discovery.push_back(std::move(*parsed));
  }
  return std::unique_ptr<AsgNodeGroups>(
      new AsgNodeGroups(api, std::move(explicit_groups), std::move(discovery), std::move(settings)));
}

AsgNodeGroups::AsgNodeGroups(const AutoScalingApi& api, std::map<std::string, StaticNodeGroup> explicit_groups,
                             std::vector<TagDiscovery> discovery, AsgNodeGroupsSettings settings)
    : api_(api),
      explicit_(std::move(explicit_groups)),
      discovery_(std::move(discovery)),
      settings_(std::move(settings)) {}

std::optional<CloudError> AsgNodeGroups::refresh() {
  std::lock_guard lock(mutex_);
  return refresh_locked();
}

std::optional<CloudError> AsgNodeGroups::refresh_locked() const {
  std::vector<std::string> names;
  for (const auto& [name, group] : explicit_) names.push_back(name);
  AwsResult<std::vector<AutoScalingGroup>> found = api_.describe_groups(names);
  if (!found) return cloud_error(found.error(), "reading the --nodes Auto Scaling groups: ");
  std::vector<AutoScalingGroup> described = std::move(*found);
  // Each spec on its own (its tags all must match); a group two specs find is kept once.
  for (const TagDiscovery& spec : discovery_) {
    AwsResult<std::vector<AutoScalingGroup>> tagged = api_.describe_groups_by_tags(spec.tags);
    if (!tagged) return cloud_error(tagged.error(), "discovering Auto Scaling groups by tags: ");
    for (AutoScalingGroup& group : *tagged) described.push_back(std::move(group));
  }

  std::map<std::string, Cached> fresh;
  for (AutoScalingGroup& group : described) {
    if (fresh.contains(group.name)) continue;
    Cached cached;
    if (auto previous = groups_.find(group.name); previous != groups_.end()) {
      cached.last_update = previous->second.last_update;
    }
    if (auto flag = explicit_.find(group.name); flag != explicit_.end()) {
      cached.min_size = flag->second.min_size;
      cached.max_size = flag->second.max_size;
    } else {
      cached.min_size = group.min_size;
      cached.max_size = group.max_size;
    }
    if (group.desired_capacity > static_cast<std::int32_t>(group.instances.size())) {
      // As CA: activities it cannot read leave the group deemed able to launch. Before our first size change
      // (last_update at the epoch) every failed activity of the newest page counts, as in CA.
      AwsResult<std::vector<ScalingActivity>> failed = api_.failed_activities_since(group.name, cached.last_update);
      if (failed && !failed->empty()) cached.unfulfillable = unfulfillable(group.name, failed->front());
    }
    cached.group = std::move(group);
    const std::string name = cached.group.name;
    fresh.emplace(name, std::move(cached));
  }
  groups_ = std::move(fresh);
  refreshed_at_ = settings_.clock();
  return std::nullopt;
}

std::optional<CloudError> AsgNodeGroups::refresh_if_due() const {
  if (refreshed_at_ && settings_.clock() - *refreshed_at_ < settings_.refresh_interval) return std::nullopt;
  return refresh_locked();
}

CloudResult<AsgNodeGroups::Cached*> AsgNodeGroups::find(const std::string& group) const {
  if (std::optional<CloudError> failed = refresh_if_due()) {
    failed->message = fmt::format("node group {}: {}", group, failed->message);
    return *failed;
  }
  auto found = groups_.find(group);
  if (found == groups_.end()) return CloudError{ErrorClass::NotFound, no_group_message(group), {}};
  return &found->second;
}

std::vector<AutoScalingGroup> AsgNodeGroups::groups() const {
  std::lock_guard lock(mutex_);
  std::vector<AutoScalingGroup> out;
  for (const auto& [name, cached] : groups_) out.push_back(cached.group);
  return out;
}

CloudResult<std::vector<CloudNodeGroup>> AsgNodeGroups::cloud_node_groups() const {
  std::lock_guard lock(mutex_);
  if (std::optional<CloudError> failed = refresh_if_due()) return *failed;
  std::vector<AutoScalingGroup> described;
  for (const auto& [name, cached] : groups_) described.push_back(cached.group);
  return to_cloud_node_groups(api_, described);
}

std::optional<CloudError> AsgNodeGroups::set_desired(Cached& cached, std::int32_t desired) const {
  if (std::optional<AwsError> failed = api_.set_desired_capacity(cached.group.name, desired)) {
    return cloud_error(*failed,
                       fmt::format("node group {}: setting its desired capacity to {}: ", cached.group.name, desired));
  }
  // As CA, the cache takes the new size at once, and failures before this change no longer count.
  cached.group.desired_capacity = desired;
  cached.last_update = settings_.clock();
  cached.unfulfillable.reset();
  return std::nullopt;
}

CloudResult<std::int32_t> AsgNodeGroups::target_size(const std::string& group) const {
  std::lock_guard lock(mutex_);
  CloudResult<Cached*> cached = find(group);
  if (!cached) return cached.error();
  return (*cached)->group.desired_capacity;
}

CloudResult<std::vector<GroupInstance>> AsgNodeGroups::increase_size(const std::string& group, std::int32_t delta) {
  std::lock_guard lock(mutex_);
  CloudResult<Cached*> found = find(group);
  if (!found) return found.error();
  Cached& cached = **found;
  if (delta <= 0) {
    return CloudError{
        ErrorClass::Other, fmt::format("node group {}: size increase must be positive, got {}", group, delta), {}};
  }
  const std::int32_t desired = cached.group.desired_capacity + delta;
  // AWS refuses a desired capacity above MaxSize (moto does not): refused here, without a call, as CA does.
  if (desired > cached.max_size) {
    return CloudError{ErrorClass::Other,
                      fmt::format("node group {}: size increase too large: {} + {} is above its maximum {}", group,
                                  cached.group.desired_capacity, delta, cached.max_size),
                      {}};
  }
  if (std::optional<CloudError> failed = set_desired(cached, desired)) return *failed;
  // The group launches them; nodes() shows them, placeholders until the next refresh reads them.
  return std::vector<GroupInstance>{};
}

CloudResult<Deleted> AsgNodeGroups::delete_nodes(const std::string& group, const std::vector<std::string>& ids) {
  std::lock_guard lock(mutex_);
  if (ids.empty()) return Deleted{};
  CloudResult<Cached*> found = find(group);
  if (!found) return found.error();
  const auto instance_of = [this, &group](const std::string& id) -> AsgInstance* {
    auto& instances = groups_.at(group).group.instances;
    auto it = std::find_if(instances.begin(), instances.end(), [&](const AsgInstance& i) { return i.id == id; });
    return it == instances.end() ? nullptr : &*it;
  };
  // An instance the cache has not seen may have been launched since it was read: read once more before deciding it
  // is not the group's (and so done).
  const bool unseen = std::any_of(ids.begin(), ids.end(),
                                  [&](const std::string& id) { return !is_placeholder(id) && !instance_of(id); });
  if (unseen) {
    if (std::optional<CloudError> failed = refresh_locked()) {
      failed->message = fmt::format("node group {}: {}", group, failed->message);
      return *failed;
    }
    if (!groups_.contains(group)) return CloudError{ErrorClass::NotFound, no_group_message(group), {}};
  }
  Cached& cached = groups_.at(group);

  std::vector<std::string> to_terminate;
  bool placeholders = false;
  std::set<std::string> seen;
  for (const std::string& id : ids) {
    if (!seen.insert(id).second) continue;
    if (is_placeholder(id)) {
      placeholders = true;
      continue;
    }
    const AsgInstance* instance = instance_of(id);
    if (instance != nullptr && !terminating(*instance)) to_terminate.push_back(id);
  }

  // Placeholders stand for desired capacity with no instance: as CA, the desired capacity drops to the instances
  // the group has now, read afresh.
  std::int32_t desired = cached.group.desired_capacity;
  if (placeholders) {
    AwsResult<std::vector<AutoScalingGroup>> now = api_.describe_groups({group});
    if (!now) return cloud_error(now.error(), fmt::format("node group {}: reading it: ", group));
    if (now->empty()) return CloudError{ErrorClass::NotFound, no_group_message(group), {}};
    cached.group = std::move(now->front());
    desired = std::min(cached.group.desired_capacity, static_cast<std::int32_t>(cached.group.instances.size()));
  }
  if (!placeholders && to_terminate.empty()) return Deleted{};  // every one gone or going already
  const std::int32_t after = desired - static_cast<std::int32_t>(to_terminate.size());
  if (after < cached.min_size) {
    return CloudError{ErrorClass::Other,
                      fmt::format("node group {}: deleting {} would take its size from {} to {}, below its minimum {}",
                                  group, ids.size() == 1 ? ids.front() : fmt::format("{} instances", ids.size()),
                                  cached.group.desired_capacity, after, cached.min_size),
                      {}};
  }
  if (placeholders && desired < cached.group.desired_capacity) {
    if (std::optional<CloudError> failed = set_desired(cached, desired)) return *failed;
  }
  for (const std::string& id : to_terminate) {
    if (std::optional<AwsError> failed = api_.terminate_instance(id)) {
      CloudError error = cloud_error(*failed, fmt::format("node group {}: terminating {}: ", group, id));
      if (error.error_class == ErrorClass::NotFound) continue;  // gone already: done
      return error;
    }
    // As CA, the cache follows at once: one fewer desired, and the instance on its way out.
    --cached.group.desired_capacity;
    if (AsgInstance* instance = instance_of(id)) instance->lifecycle_state = "Terminating";
  }
  return Deleted{};
}

CloudResult<Deleted> AsgNodeGroups::decrease_target_size(const std::string& group, std::int32_t delta) {
  std::lock_guard lock(mutex_);
  CloudResult<Cached*> found = find(group);
  if (!found) return found.error();
  Cached& cached = **found;
  if (delta <= 0) {
    return CloudError{
        ErrorClass::Other, fmt::format("node group {}: size decrease must be positive, got {}", group, delta), {}};
  }
  // Only desired capacity no instance stands for may go (placeholders don't count: they are that capacity).
  const auto have = static_cast<std::int32_t>(cached.group.instances.size());
  const std::int32_t desired = cached.group.desired_capacity;
  if (desired - delta < have) {
    return CloudError{
        ErrorClass::Other,
        fmt::format("node group {}: target {} cannot drop by {} below its {} instances", group, desired, delta, have),
        {}};
  }
  if (std::optional<CloudError> failed = set_desired(cached, desired - delta)) return *failed;
  return Deleted{};
}

CloudResult<std::vector<GroupInstance>> AsgNodeGroups::nodes(const std::string& group) const {
  std::lock_guard lock(mutex_);
  CloudResult<Cached*> found = find(group);
  if (!found) return found.error();
  return instances_of(**found);
}

std::vector<GroupInstance> AsgNodeGroups::instances_of(const Cached& cached) const {
  const AutoScalingGroup& group = cached.group;
  const CapacityType capacity_type = capacity_type_of(group);
  std::vector<GroupInstance> out;
  for (const AsgInstance& asg_instance : group.instances) {
    GroupInstance item;
    Instance& instance = item.instance;
    instance.id = asg_instance.id;
    // The node's name is EC2's private DNS name, which the group does not tell: the node is found by its providerID.
    instance.provider_id = provider_id(asg_instance.zone, asg_instance.id);
    instance.offering.zone = asg_instance.zone;
    instance.offering.capacity_type = capacity_type;
    if (settings_.catalog != nullptr) {
      instance.instance_type = settings_.catalog->find(asg_instance.instance_type);
      if (instance.instance_type != nullptr) {
        if (const Offering* offering = instance.instance_type->offering(asg_instance.zone, capacity_type)) {
          instance.offering = *offering;
        }
      }
    }
    item.state = state_of(asg_instance);
    out.push_back(std::move(item));
  }
  // CA's placeholders, in the group's first zone.
  const std::string zone = group.zones.empty() ? std::string() : group.zones.front();
  for (auto n = static_cast<std::int32_t>(group.instances.size()); n < group.desired_capacity; ++n) {
    GroupInstance item;
    item.instance.id = placeholder_id(group.name, n);
    item.instance.node_name = item.instance.id;
    item.instance.provider_id = provider_id(zone, item.instance.id);
    item.instance.offering.zone = zone;
    item.instance.offering.capacity_type = capacity_type;
    item.state = InstanceState::Creating;
    item.error = cached.unfulfillable;
    item.placeholder = true;
    out.push_back(std::move(item));
  }
  return out;
}

}  // namespace scalewright::cloud::aws
