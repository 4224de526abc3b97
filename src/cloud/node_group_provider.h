#pragma once
// What Cluster Autoscaler's node-group controller asks of a cloud whose groups own their size (an Auto Scaling
// group, a VM scale set, a MachineDeployment), as CA's CloudProvider/NodeGroup (cloudprovider/cloud_provider.go)
// shapes it: a group's target size, raise it (the cloud launches the instances), delete chosen instances (the target
// drops with them), lower the target for instances not yet launched, and the group's instances with their state.
// Which groups there are, their bounds and template nodes, come from the provider's reading of its groups
// (cloud/aws/auto_scaling_groups.h reads Auto Scaling groups' tags).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cloud/cloud_provider.h"

namespace scalewright::cloud {

// An instance's state, as CA's cloudprovider.InstanceState.
enum class InstanceState { Running, Creating, Deleting };

struct GroupInstance {
  Instance instance;  // for one that failed, only its id and node name are set
  InstanceState state = InstanceState::Creating;
  // Set when its creation failed (CA's InstanceErrorInfo): the instance never comes; the caller deletes it, which
  // lowers the group's target, and backs the group off.
  std::optional<CloudError> error;
  // Desired capacity the cloud has no instance for yet (Cluster Autoscaler's placeholder instances): upcoming, and
  // no node registers for it; an instance of its own takes its place once launched.
  bool placeholder = false;
};

class NodeGroupProvider {
 public:
  virtual ~NodeGroupProvider() = default;
  // The size the cloud keeps the group at.
  virtual CloudResult<std::int32_t> target_size(const std::string& group) const = 0;
  // Raises the target by `delta`: the cloud launches that many instances, returned as it started them (Creating, or
  // with the error that stopped one). A provider that cannot tell yet returns none: nodes() shows them later.
  virtual CloudResult<std::vector<GroupInstance>> increase_size(const std::string& group, std::int32_t delta) = 0;
  // Terminates these instances of the group, and lowers its target by as many (an instance not found is done).
  virtual CloudResult<Deleted> delete_nodes(const std::string& group, const std::vector<std::string>& instance_ids) = 0;
  // Lowers the target by `delta` for instances not launched yet; never below the instances the group has.
  virtual CloudResult<Deleted> decrease_target_size(const std::string& group, std::int32_t delta) = 0;
  // The group's instances, with their state.
  virtual CloudResult<std::vector<GroupInstance>> nodes(const std::string& group) const = 0;
};

// A cloud without node groups: every group is not found.
class NoNodeGroups final : public NodeGroupProvider {
 public:
  CloudResult<std::int32_t> target_size(const std::string& group) const override { return missing(group); }
  CloudResult<std::vector<GroupInstance>> increase_size(const std::string& group, std::int32_t) override {
    return missing(group);
  }
  CloudResult<Deleted> delete_nodes(const std::string& group, const std::vector<std::string>&) override {
    return missing(group);
  }
  CloudResult<Deleted> decrease_target_size(const std::string& group, std::int32_t) override { return missing(group); }
  CloudResult<std::vector<GroupInstance>> nodes(const std::string& group) const override { return missing(group); }

 private:
  static CloudError missing(const std::string& group) {
    return {ErrorClass::NotFound, "node group " + group + " not found: the provider has no node groups", {}};
  }
};

}  // namespace scalewright::cloud
