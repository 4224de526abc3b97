#pragma once
// NodePools on Cluster API, as karpenter-provider-cluster-api runs them: a NodePool's ClusterAPINodeClass selects
// MachineDeployments by label, and each one it selects is an instance type. Its name is the node.kubernetes.io/
// instance-type label of the nodes it makes (from the template's labels or the capacity labels annotation; else the
// MachineDeployment's name), its capacity and labels are what Cluster Autoscaler reads for a scale from zero
// (capacity_keys, else the infrastructure template), and it is offered on demand in its zone (the zone label, else
// the template's failure domain) at the price of scalewright.dev/price-per-hour, else 0, while its replicas are below
// its max-size annotation (no annotation: no bound). MachineDeployments of one type in several zones are that type's
// offerings, one per zone; of one type in one zone, the cheapest with room is launched first.
//
// A NodeClaim launches by taking an unclaimed Machine of the chosen MachineDeployment, after raising its replicas
// by one through the /scale subresource when every unclaimed Machine is already owed to a launch under way (so a
// launch retried never raises twice), and waits until Cluster API's infrastructure provider gives the Machine its
// providerID, by which the Node registers. The Machine is claimed with the nodeclaim annotation and the
// node.cluster.x-k8s.io/karpenter-member label (which Cluster API copies to the Node). It is removed as Cluster
// Autoscaler removes a chosen node: the delete-machine annotation, then one replica less.
//
// The node classes and MachineDeployments are read again by refresh() (the running provider calls it every few
// seconds): a class whose types or offerings changed is reported, and the loop takes the new catalog on its next
// instance_types() call (a catalog handed to the engine changes only there, on the loop's thread).
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "api/result.h"
#include "cloud/cloud_provider.h"
#include "cloud/clusterapi/capi_node_class.h"
#include "cloud/clusterapi/node_group_client.h"
#include "kube/api_client.h"

namespace scalewright::cloud::clusterapi {

// The label Cluster API copies from a claimed Machine to its Node (node.cluster.x-k8s.io/* labels are), as
// karpenter-provider-cluster-api marks the Machines it manages.
inline constexpr std::string_view kMemberLabel = "node.cluster.x-k8s.io/karpenter-member";
// On a claimed Machine: the NodeClaim it is the instance of.
inline constexpr std::string_view kNodeClaimAnnotation = "scalewright.dev/nodeclaim";

struct ClusterApiNodePoolsSettings {
  // How often a launch looks again for its Machine, and how long it waits for one to take (karpenter-provider-
  // cluster-api: 30 s) and for that Machine's providerID (the infrastructure provider's machine being made).
  std::chrono::milliseconds poll{250};
  std::chrono::milliseconds machine_timeout{30'000};
  std::chrono::milliseconds provider_id_timeout{300'000};
  // The architecture of a type whose labels and template say none (CA's CAPI_SCALE_ZERO_DEFAULT_ARCH).
  std::string default_architecture = "amd64";
};

// One selected MachineDeployment as an offering of its type.
struct DeploymentOffering {
  ClusterApiNodeGroup deployment;  // as read (no max-size: unbounded)
  std::string instance_type;
  std::string zone;  // "" when nothing says one
  bool has_room() const { return deployment.max_size == 0 || deployment.replicas < deployment.max_size; }
};

// What a refresh found.
struct NodePoolsRefresh {
  std::vector<std::string> changed;  // node classes whose types, offerings or readiness changed
  // Per node class: empty when ready, else why it launches nothing (for its status and the NodePool's).
  std::map<std::string, std::string> not_ready;
};

class ClusterApiNodePools final : public CloudProvider {
 public:
  // `management` serves Cluster API's objects (MachineDeployments, Machines); `workload` the ClusterAPINodeClasses.
  ClusterApiNodePools(const NodeGroupClient& management, const kube::ApiClient& workload,
                      ClusterApiNodePoolsSettings settings = {});

  // Reads the node classes and the MachineDeployments again. An error only when a list fails (nothing changes then).
  Result<NodePoolsRefresh> refresh();
  // Stops launches that wait, now and from now on (the controller is stopping).
  void stop();

  const Catalog& catalog() const override { return empty_; }
  CloudResult<const Catalog*> instance_types(const NodePool& pool) const override;
  CloudResult<Created> create(const CreateRequest& request) override;
  // `instance_id` is the Machine's providerID.
  CloudResult<Deleted> terminate(const std::string& instance_id) override;
  CloudResult<Instance> get(const std::string& instance_id) const override;
  // The claimed Machines that have a providerID.
  CloudResult<std::vector<Instance>> list() const override;

 private:
  struct ClassEntry {
    std::string not_ready;  // empty when ready
    std::string signature;  // what its catalog was built from, to see a change
    std::vector<DeploymentOffering> offerings;
    std::unique_ptr<Catalog> pending;  // built by refresh(), taken by instance_types()
    Catalog* current = nullptr;        // handed to the engine (owned by catalogs_)
  };
  enum class Take { Claimed, NoneFree, Failed };

  // The Machine `request` launches as on `offering`'s MachineDeployment; InsufficientCapacity when it is at its max.
  CloudResult<Instance> launch_on(const DeploymentOffering& offering, const CreateRequest& request);
  // Takes a free Machine of the deployment for `claim` when more are free than launches wait for them (or, with
  // `waiting`, when any is). Callers hold launch_mutex_.
  Take take_free_machine(const ClusterApiNodeGroup& md, const std::string& claim, bool waiting, std::string& machine,
                         CloudError& error);
  CloudResult<Instance> await_provider_id(const ClusterApiNodeGroup& md, const std::string& machine) const;
  CloudResult<std::vector<nlohmann::json>> machines_of(const ClusterApiNodeGroup& md) const;
  CloudResult<std::vector<nlohmann::json>> claimed_machines() const;
  Instance instance_of(const nlohmann::json& machine) const;
  bool stopping() const;

  const NodeGroupClient& capi_;
  const kube::ApiClient& workload_;
  ClusterApiNodePoolsSettings settings_;
  Catalog empty_;
  mutable std::mutex mutex_;  // classes_, catalogs_, stopping_
  mutable std::map<std::string, ClassEntry> classes_;  // by name
  // Every catalog handed out: the engine may hold its types for as long as it runs.
  mutable std::vector<std::unique_ptr<Catalog>> catalogs_;
  bool stopping_ = false;
  // One launch or removal at a time changes a MachineDeployment's replicas and claims its Machines.
  std::mutex launch_mutex_;
  std::map<std::string, int> awaited_;  // by MachineDeployment "ns/name": launches that raised it and wait
};

// The offerings a node class's MachineDeployments make (`deployments` as read, in namespace/name order): those of a
// type whose capacity differs from the first MachineDeployment of that type are refused with why, in `refused`.
std::vector<DeploymentOffering> deployment_offerings(const std::vector<ClusterApiNodeGroup>& deployments,
                                                     std::vector<std::string>& refused);
// The catalog of those offerings: a type per name, an on-demand offering per zone (the cheapest of the zone's
// MachineDeployments with room; available when one has room).
Catalog catalog_of(const std::vector<DeploymentOffering>& offerings, const std::string& default_architecture);

}  // namespace scalewright::cloud::clusterapi
