#pragma once
// Node groups played in memory, for the clouds that have none of their own (the simulated cloud, kwok): each group
// keeps its target size and its instances as an Auto Scaling group does, and launches a new instance in the zone
// where it has the fewest (as an ASG balances its subnets), through the cloud's own create() and terminate().
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cloud/node_group_provider.h"

namespace scalewright::cloud {

// One group as the cloud plays it: what it launches, where, and the labels and taints of its new nodes (each node
// also gets its zone and hostname).
struct PlayedGroupSpec {
  std::string id;
  std::string instance_type;  // a type of the cloud's catalog
  std::vector<std::string> zones;
  CapacityType capacity_type = CapacityType::OnDemand;
  Labels labels;
  std::vector<Taint> taints;
  // The type its instances are when it is none of the catalog's (a Cluster API group's nodes are shaped by its
  // annotations): its offerings are the zones it launches in ("" for none: its nodes get no zone label) and its price.
  std::optional<InstanceType> own_type;
};

class PlayedNodeGroups final : public NodeGroupProvider {
 public:
  // A new instance's name, the node it registers as ("ng-1-x2k4p").
  using Namer = std::function<std::string(const std::string& group)>;
  using Launcher = std::function<CloudResult<Created>(const CreateRequest& request)>;
  using Terminator = std::function<CloudResult<Deleted>(const std::string& instance_id)>;

  PlayedNodeGroups(const Catalog& catalog, Namer namer, Launcher launch, Terminator terminate)
      : catalog_(catalog), namer_(std::move(namer)), launch_(std::move(launch)), terminate_(std::move(terminate)) {}
  void set_namer(Namer namer) { namer_ = std::move(namer); }

  // Adds a group with no instance and a target of 0 (or replaces one's spec, keeping its instances); an error when
  // its instance type is not in the catalog and it brings no type of its own.
  std::optional<Error> add(PlayedGroupSpec spec);
  bool has(const std::string& group) const { return groups_.contains(group); }
  // The group a node with `labels` belongs to: the one whose spec labels it all carries (each spec holds its group's
  // own label); empty when none.
  std::string group_of(const Labels& labels) const;
  // An instance running before (found again after a restart): the group's target grows by one.
  void adopt(const std::string& group, Instance instance);
  // An instance gone by other means than delete_nodes (terminated directly, reclaimed): it leaves its group, whose
  // target stays.
  void forget(const std::string& instance_id);

  CloudResult<std::int32_t> target_size(const std::string& group) const override;
  CloudResult<std::vector<GroupInstance>> increase_size(const std::string& group, std::int32_t delta) override;
  CloudResult<Deleted> delete_nodes(const std::string& group, const std::vector<std::string>& instance_ids) override;
  CloudResult<Deleted> decrease_target_size(const std::string& group, std::int32_t delta) override;
  CloudResult<std::vector<GroupInstance>> nodes(const std::string& group) const override;

 private:
  struct Group {
    PlayedGroupSpec spec;
    const InstanceType* instance_type = nullptr;
    std::int32_t target = 0;
    std::vector<GroupInstance> instances;
  };
  static CloudError no_group(const std::string& group);

  const Catalog& catalog_;
  Namer namer_;
  Launcher launch_;
  Terminator terminate_;
  std::map<std::string, Group> groups_;
  // The groups' own types, each kept while the run lasts: instances launched from a replaced one still point at it.
  std::vector<std::unique_ptr<const InstanceType>> own_types_;
};

}  // namespace scalewright::cloud
