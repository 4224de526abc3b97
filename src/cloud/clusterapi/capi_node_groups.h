#pragma once
// Cluster Autoscaler's node groups on Cluster API, as CA's clusterapi provider drives them: each MachineDeployment,
// MachineSet no MachineDeployment owns, and MachinePool with the size annotations is a group; its target is the
// Scale's replicas; its instances are its Machines (a MachinePool's, the provider IDs it lists). A chosen node is
// removed by marking its Machine with the delete-machine annotation and then lowering the replicas, so that Cluster
// API's MachineSet deletes that Machine and no other; the mark is taken off again if the replicas cannot be lowered.
//
// A Machine is reported as CA reports it: without a providerID yet, a placeholder (upcoming, no node registers for
// it under that id); with one but no node yet, Creating; with its node, Running; being deleted, Deleting; Failed
// (phase Failed with a failure message), an instance with an error, which the node-group controller deletes before
// backing the group off. The Machines are listed at most once per refresh interval for all groups at once (CA's
// informers watch them).
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cloud/clusterapi/node_group_client.h"
#include "cloud/clusterapi/to_node_group.h"
#include "cloud/node_group_provider.h"
#include "kube/api_client.h"
#include "nodegroups/node_group.h"

namespace scalewright::cloud::clusterapi {

struct ClusterApiNodeGroupsSettings {
  // How old the listed Machines may be before a call lists them again.
  std::chrono::milliseconds machines_refresh{2'000};
  // The architecture of an empty group's new node when nothing says it (CA's CAPI_SCALE_ZERO_DEFAULT_ARCH).
  std::string default_architecture = std::string(kDefaultArchitecture);
};

// One Machine as the groups see it (its JSON decoded once).
struct MachineView {
  std::string namespace_;
  std::string name;
  std::string provider_id;   // spec.providerID, "" until the infrastructure provider gives it
  std::string node_name;     // status.nodeRef.name, "" until its Node registered
  std::string deployment;    // label <group>/deployment-name
  std::string machine_set;   // label <group>/set-name
  std::string failure_domain;
  bool deleting = false;     // metadata.deletionTimestamp
  bool marked = false;       // the delete-machine annotation
  std::string failure;       // "reason: message" of a Failed Machine (v1beta1 status, or v1beta2's deprecated copy)
};
MachineView view_machine(const nlohmann::json& machine, const CapiKeys& keys);

// The id a Machine goes by among the group's instances: its providerID, else CA's pending-machine-<ns>_<name>
// (failed-machine-, deleting-machine- for those).
std::string instance_id_of(const MachineView& machine);

class ClusterApiNodeGroups final : public NodeGroupProvider {
 public:
  // `management` serves Cluster API's objects at `capi`; `workload` is the cluster the Nodes register in (the same
  // client when they are one cluster).
  ClusterApiNodeGroups(const kube::ApiClient& management, CapiApi capi, std::vector<AutoDiscoverySpec> specs,
                       const kube::ApiClient& workload, ClusterApiNodeGroupsSettings settings = {});

  // Lists the groups (bounds, capacity, options) now. Refused objects are returned with why; the others work.
  Result<NodeGroupListing> refresh();
  // The groups as last listed, as the node-group controller plans with them: the template node from the capacity
  // (annotations, else the infrastructure template, else one of the group's registered Nodes), labels and taints; a
  // group none of these gives a capacity is left out with why in `refused`.
  std::vector<nodegroups::NodeGroup> node_groups(std::vector<RefusedGroup>& refused) const;

  CloudResult<std::int32_t> target_size(const std::string& group) const override;
  CloudResult<std::vector<GroupInstance>> increase_size(const std::string& group, std::int32_t delta) override;
  // Refused, with no call, when it would take the group below its minimum.
  CloudResult<Deleted> delete_nodes(const std::string& group, const std::vector<std::string>& instance_ids) override;
  // Only for Machines that have no providerID yet, as CA allows.
  CloudResult<Deleted> decrease_target_size(const std::string& group, std::int32_t delta) override;
  CloudResult<std::vector<GroupInstance>> nodes(const std::string& group) const override;

 private:
  // Callers hold mutex_.
  CloudResult<const ClusterApiNodeGroup*> find(const std::string& id) const;
  CloudResult<std::vector<MachineView>> machines_of(const ClusterApiNodeGroup& group, bool fresh) const;
  std::vector<GroupInstance> instances_of(const ClusterApiNodeGroup& group,
                                          const std::vector<MachineView>& machines) const;
  std::optional<Node> registered_node_of(const ClusterApiNodeGroup& group) const;

  NodeGroupClient client_;
  const kube::ApiClient& workload_;
  ClusterApiNodeGroupsSettings settings_;
  mutable std::mutex mutex_;
  std::map<std::string, ClusterApiNodeGroup> groups_;  // by id
  mutable std::vector<MachineView> machines_;
  mutable std::optional<std::chrono::steady_clock::time_point> machines_listed_at_;
};

}  // namespace scalewright::cloud::clusterapi
