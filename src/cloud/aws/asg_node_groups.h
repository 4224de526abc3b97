#pragma once
// Cluster Autoscaler's node groups on real Auto Scaling groups, as CA's AWS provider (cloudprovider/aws/
// aws_cloud_provider.go, auto_scaling_groups.go) drives them: the groups CA manages (--nodes names, and the groups
// an asg:tag= spec finds) read into a cache, refreshed when a call finds it older than the refresh interval (CA's
// one minute) or when refresh() is called; a group's target is its desired capacity, raised and lowered with
// SetDesiredCapacity; a chosen instance is terminated with TerminateInstanceInAutoScalingGroup, lowering the desired
// capacity with it. Desired capacity the group has no instance for yet shows as placeholder instances
// (i-placeholder-<group>-<n>), which carry an error once the group's scaling activities say it failed to launch, so
// that the node-group controller deletes them and backs the group off.
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/scenario.h"
#include "cloud/aws/auto_scaling_api.h"
#include "cloud/aws/auto_scaling_groups.h"
#include "cloud/aws/cloud_errors.h"
#include "cloud/node_group_provider.h"
#include "nodegroups/options.h"

namespace scalewright::cloud::aws {

// The placeholder instance id CA gives the n-th instance a group has not launched yet.
std::string placeholder_id(const std::string& group, std::int32_t n);
bool is_placeholder(const std::string& instance_id);

// The groups as discover_node_groups reads them: name, instance type (instance_type_of), zones, capacity type
// ("spot" for a mixed instances policy that launches spot only: no on-demand base, 0% on-demand above it), bounds,
// desired capacity and tags. Errors name the group and the AWS error; a group whose type nothing tells is an error.
CloudResult<std::vector<CloudNodeGroup>> to_cloud_node_groups(const AutoScalingApi& api,
                                                              const std::vector<AutoScalingGroup>& groups);

struct AsgNodeGroupsSettings {
  // CA's refreshInterval: a cache older than this is read again before a call uses it.
  std::chrono::seconds refresh_interval{60};
  std::function<std::chrono::system_clock::time_point()> clock = [] { return std::chrono::system_clock::now(); };
  // Where given, instances get their instance type and offering from it.
  const Catalog* catalog = nullptr;
};

class AsgNodeGroups final : public NodeGroupProvider {
 public:
  // The groups named by options.nodes (their bounds from the flag) and found by options.auto_discovery (bounds from
  // the group). Errors name the flag; nothing is called yet.
  static Result<std::unique_ptr<AsgNodeGroups>> create(const AutoScalingApi& api,
                                                       const nodegroups::AutoscalerOptions& options,
                                                       AsgNodeGroupsSettings settings = {});

  // Reads the groups now (CA's regenerate): a --nodes group that does not exist is left out; a group whose desired
  // capacity is above its instances is asked for its failed scaling activities.
  std::optional<CloudError> refresh();
  // The groups as last read (bounds as the account has them), in name order.
  std::vector<AutoScalingGroup> groups() const;
  // The groups as discover_node_groups reads them, refreshed first when due.
  CloudResult<std::vector<CloudNodeGroup>> cloud_node_groups() const;

  CloudResult<std::int32_t> target_size(const std::string& group) const override;
  // Refused above the group's maximum (AWS checks it too; moto does not).
  CloudResult<std::vector<GroupInstance>> increase_size(const std::string& group, std::int32_t delta) override;
  // Placeholders among the ids lower the desired capacity to the instances the group has; the others are terminated
  // one by one (those already terminating are skipped). Refused, with no call, below the group's minimum.
  CloudResult<Deleted> delete_nodes(const std::string& group, const std::vector<std::string>& instance_ids) override;
  CloudResult<Deleted> decrease_target_size(const std::string& group, std::int32_t delta) override;
  CloudResult<std::vector<GroupInstance>> nodes(const std::string& group) const override;

 private:
  struct Cached {
    AutoScalingGroup group;  // as last read; desired_capacity follows our own changes until the next read
    std::int32_t min_size = 0, max_size = 0;
    // When we last changed its size (CA's lastUpdateTime): failed activities before it are old news.
    std::chrono::system_clock::time_point last_update{};
    std::optional<CloudError> unfulfillable;  // its launches failed since last_update
  };

  AsgNodeGroups(const AutoScalingApi& api, std::map<std::string, StaticNodeGroup> explicit_groups,
                std::vector<TagDiscovery> discovery, AsgNodeGroupsSettings settings);
  // Callers hold mutex_.
  std::optional<CloudError> refresh_locked() const;
  std::optional<CloudError> refresh_if_due() const;
  CloudResult<Cached*> find(const std::string& group) const;
  std::optional<CloudError> set_desired(Cached& cached, std::int32_t desired) const;
  std::vector<GroupInstance> instances_of(const Cached& cached) const;

  const AutoScalingApi& api_;
  std::map<std::string, StaticNodeGroup> explicit_;  // --nodes, by name
  std::vector<TagDiscovery> discovery_;
  AsgNodeGroupsSettings settings_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, Cached> groups_;
  mutable std::optional<std::chrono::system_clock::time_point> refreshed_at_;
};

}  // namespace scalewright::cloud::aws
