#pragma once
// Provider `kwok`: a cloud whose instances are Node objects and nothing more, as kwok (Kubernetes WithOut Kubelet)
// fakes them. A launch creates, after the launch latency, a Node with the instance type's labels, capacity and
// allocatable from the catalog, Ready, and keeps it alive by renewing its Lease in kube-node-lease as a kubelet
// would; terminating the instance deletes the Node. It also plays the kubelet for the pods bound to its nodes:
// they are reported Running and Ready, and a pod being deleted is confirmed gone at once (FakeKubelet).
//
// A user can try Scalewright on any cluster (kind, k3s, a test control plane) without a cloud account, and we test
// at scale with it. It runs on threads of its own, as a cloud runs apart from its controller: the controllers'
// calls only queue work.
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <stop_token>
#include <string>
#include <vector>

#include "api/result.h"
#include "api/scenario.h"
#include "cloud/cloud_provider.h"
#include "cloud/kwok/fake_kubelet.h"
#include "cloud/played_node_groups.h"
#include "kube/api_client.h"

namespace scalewright::cloud {

// What a launched instance's Node is named: its NodeClaim's (or its group instance's) name, or a hostname as EC2's
// kubelets register (ip-10-1-2-3.us-west-2.compute.internal), which only its spec.providerID ties to its NodeClaim.
// Under a hostname, a NodeClaim's Node registers with its instance's labels only (type, zone, capacity type,
// hostname), as a kubelet that knows its instance and not its NodeClaim: registration syncs the NodeClaim's.
enum class KwokNodeNames { NodeClaim, Hostname };

struct KwokOptions {
  // From the launch to the Node's registration, Ready.
  std::chrono::milliseconds launch_latency{0};
  // kubelet's node Lease: 40 s long, renewed every 10 s.
  std::chrono::seconds lease_duration{40};
  std::chrono::seconds lease_renew_interval{10};
  KwokNodeNames node_names = KwokNodeNames::NodeClaim;  // --kwok-node-names
};

// The label every kwok Node carries: how the provider finds its instances again after a restart.
inline constexpr std::string_view kKwokNodeLabel = "kwok.scalewright.dev/node";

// The Auto Scaling groups kwok plays for Cluster Autoscaler's --nodes=MIN:MAX:NAME flags: the groups `defined`
// (a file in a Scenario's spec.cloud.autoScalingGroups format), and for each NAME they do not define that is an
// instance type of the catalog, a group of that type on demand in every zone offering it, starting at MIN nodes
// (`--nodes=1:10:m5.large` works with no file). Any other NAME is left for discovery to refuse.
std::vector<CloudNodeGroup> kwok_auto_scaling_groups(const std::vector<StaticNodeGroup>& nodes_flags,
                                                       std::vector<CloudNodeGroup> defined, const Catalog& catalog);

class KwokProvider final : public CloudProvider {
 public:
  KwokProvider(const kube::ApiClient& client, Catalog catalog, KwokOptions options = {});
  ~KwokProvider() override;
  KwokProvider(const KwokProvider&) = delete;
  KwokProvider& operator=(const KwokProvider&) = delete;

  // Finds the instances of an earlier run (Nodes with kKwokNodeLabel, each instance by its Node's spec.providerID,
  // and NodeClaims launched on kwok whose Node is missing: they boot now), then starts renewing their Leases and playing the kubelet for their pods. Called
  // once this replica leads: a standby's provider does nothing. While the API server cannot answer, it waits for
  // it; it gives up once stop is requested.
  std::optional<Error> start(const std::stop_token& stop = {});
  void stop();

  const Catalog& catalog() const override { return catalog_; }
  CloudResult<Created> create(const CreateRequest& request) override;
  CloudResult<Deleted> terminate(const std::string& instance_id) override;
  CloudResult<Instance> get(const std::string& instance_id) const override;
  CloudResult<std::vector<Instance>> list() const override;
  // Karpenter's kwok provider's: a node whose Ready condition is False or Unknown for 10 minutes.
  std::vector<RepairStatement> repair_policies() const override {
    return {{"Ready", "False", Duration(10 * 60'000)}, {"Ready", "Unknown", Duration(10 * 60'000)}};
  }

  // The Auto Scaling groups kwok plays, their instances launched and terminated through create() and terminate().
  // After a restart, start() finds each group's nodes again by the group's labels.
  PlayedNodeGroups& node_groups() { return groups_; }

  // Work done so far, for tests and metrics.
  std::size_t nodes_created() const;
  std::size_t pods_started() const;

 private:
  void register_node(const Instance& instance, const Labels& labels, const std::vector<Taint>& taints,
                     std::chrono::milliseconds after);
  std::optional<Instance> instance_of_node(const nlohmann::json& node) const;
  // "<group>-<five safe characters>", as generateName makes them, not taken by another instance.
  std::string instance_name(const std::string& group);
  // The name of a new instance's Node: `instance` itself, or a hostname no other Node has (with mutex_ held).
  std::string node_name_locked(const std::string& instance);

  const kube::ApiClient& client_;
  Catalog catalog_;
  KwokOptions options_;
  FakeKubelet kubelet_;  // plays what runs on its nodes

  mutable std::mutex mutex_;
  std::map<std::string, Instance> instances_;  // by id (the NodeClaim's or group instance's name)

  std::mt19937_64 names_{std::random_device{}()};  // group instances' name suffixes
  PlayedNodeGroups groups_{catalog_, [this](const std::string& group) { return instance_name(group); },
                           [this](const CreateRequest& request) { return create(request); },
                           [this](const std::string& id) { return terminate(id); }};
};

}  // namespace scalewright::cloud
