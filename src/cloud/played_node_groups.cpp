#include "cloud/played_node_groups.h"

#include <algorithm>

#include <fmt/format.h>

namespace scalewright::cloud {

CloudError PlayedNodeGroups::no_group(const std::string& group) {
  return {ErrorClass::NotFound, fmt::format("node group {} not found", group), {}};
}

std::optional<Error> PlayedNodeGroups::add(PlayedGroupSpec spec) {
  const InstanceType* type = nullptr;
  if (spec.own_type) {
    own_types_.push_back(std::make_unique<const InstanceType>(std::move(*spec.own_type)));
    spec.own_type.reset();
    type = own_types_.back().get();
  } else {
    type = catalog_.find(spec.instance_type);
  }
  if (type == nullptr) {
    return Error{fmt::format("node group {}: instance type {} is not in the catalog", spec.id, spec.instance_type)};
  }
  Group& group = groups_[spec.id];
  group.spec = std::move(spec);
  group.instance_type = type;
  return std::nullopt;
}

std::string PlayedNodeGroups::group_of(const Labels& labels) const {
  for (const auto& [id, group] : groups_) {
    bool all = true;
    for (const auto& [key, value] : group.spec.labels) {
      const Symbol* found = labels.find(key);
      if (found == nullptr || *found != value) {
        all = false;
        break;
      }
    }
    if (all && !group.spec.labels.empty()) return id;
  }
  return "";
}

void PlayedNodeGroups::adopt(const std::string& group, Instance instance) {
  auto found = groups_.find(group);
  if (found == groups_.end()) return;
  found->second.instances.push_back({std::move(instance), InstanceState::Running, std::nullopt});
  ++found->second.target;
}

void PlayedNodeGroups::forget(const std::string& instance_id) {
  for (auto& [id, group] : groups_) {
    std::erase_if(group.instances, [&](const GroupInstance& i) { return i.instance.id == instance_id; });
  }
}

CloudResult<std::int32_t> PlayedNodeGroups::target_size(const std::string& group) const {
  auto found = groups_.find(group);
  if (found == groups_.end()) return no_group(group);
  return found->second.target;
}

CloudResult<std::vector<GroupInstance>> PlayedNodeGroups::increase_size(const std::string& id, std::int32_t delta) {
  auto found = groups_.find(id);
  if (found == groups_.end()) return no_group(id);
  Group& group = found->second;
  const PlayedGroupSpec& spec = group.spec;
  group.target += delta;
  // Zones in turn, counted over the instances the group has, as an Auto Scaling group balances its subnets.
  std::map<std::string, int> per_zone;
  for (const GroupInstance& i : group.instances) {
    if (!i.error) ++per_zone[i.instance.offering.zone];
  }
  std::vector<GroupInstance> launched;
  for (std::int32_t n = 0; n < delta && !spec.zones.empty(); ++n) {
    const std::string name = namer_(id);
    const std::string zone =
        *std::min_element(spec.zones.begin(), spec.zones.end(), [&](const std::string& a, const std::string& b) {
          return per_zone[a] != per_zone[b] ? per_zone[a] < per_zone[b] : a < b;
        });
    const Offering* offering = group.instance_type->offering(zone, spec.capacity_type);
    if (offering == nullptr) continue;  // discovery keeps such zones out; nothing to launch from
    Labels labels = spec.labels;
    labels.set(Symbol(well_known::hostname), Symbol(name));
    if (!zone.empty()) labels.set(Symbol(well_known::zone), Symbol(zone));
    CloudResult<Created> created = launch_({name, {{group.instance_type, offering}}, std::move(labels), spec.taints});
    GroupInstance instance;
    if (created) {
      instance.instance = std::move(created->instance);
      ++per_zone[zone];
    } else {
      instance.instance.id = name;
      instance.instance.node_name = name;
      instance.error = std::move(created.error());
    }
    group.instances.push_back(instance);
    launched.push_back(std::move(instance));
  }
  return launched;
}

CloudResult<Deleted> PlayedNodeGroups::delete_nodes(const std::string& id, const std::vector<std::string>& ids) {
  auto found = groups_.find(id);
  if (found == groups_.end()) return no_group(id);
  Group& group = found->second;
  for (const std::string& instance_id : ids) {
    const auto is_it = [&](const GroupInstance& i) { return i.instance.id == instance_id; };
    auto it = std::find_if(group.instances.begin(), group.instances.end(), is_it);
    if (it == group.instances.end()) continue;  // not the group's (any more): done
    // One that failed never launched: nothing to terminate. Another stays the group's until it is terminated, so
    // that a refused termination can be tried again.
    if (!it->error) {
      CloudResult<Deleted> terminated = terminate_(instance_id);
      if (!deleted(terminated)) return terminated;
    }
    std::erase_if(group.instances, is_it);  // the cloud's terminate may have let it go already
    group.target = std::max(group.target - 1, 0);
  }
  return Deleted{};
}

CloudResult<Deleted> PlayedNodeGroups::decrease_target_size(const std::string& id, std::int32_t delta) {
  auto found = groups_.find(id);
  if (found == groups_.end()) return no_group(id);
  Group& group = found->second;
  const auto have = static_cast<std::int32_t>(group.instances.size());
  if (group.target - delta < have) {
    return CloudError{ErrorClass::Other,
                      fmt::format("node group {}: target {} cannot drop by {} below its {} instances", id,
                                  group.target, delta, have),
                      {}};
  }
  group.target -= delta;
  return Deleted{};
}

CloudResult<std::vector<GroupInstance>> PlayedNodeGroups::nodes(const std::string& group) const {
  auto found = groups_.find(group);
  if (found == groups_.end()) return no_group(group);
  return found->second.instances;
}

}  // namespace scalewright::cloud
