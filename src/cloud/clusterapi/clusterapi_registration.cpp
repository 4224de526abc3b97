#include "cloud/clusterapi/clusterapi_registration.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <memory>
#include <optional>
#include <utility>

#include "cloud/clusterapi/auto_discovery.h"
#include "cloud/clusterapi/capi_api.h"
#include "cloud/clusterapi/capi_node_groups.h"
#include "cloud/clusterapi/node_group_client.h"
#include "kube/event_sink.h"
#include "nodegroups/node_group.h"
#include "nodegroups/options.h"

namespace scalewright::cloud::clusterapi {

namespace {

// NodePools have no instances to launch on Cluster API in this build: every NodePool says why it cannot launch.
class NoNodePools final : public CloudProvider {
 public:
  const Catalog& catalog() const override { return catalog_; }
  CloudResult<const Catalog*> instance_types(const NodePool& pool) const override {
    return CloudError{ErrorClass::NodeClassNotReady,
                      fmt::format("NodePool {}: provider clusterapi scales node groups (Cluster Autoscaler's "
                                  "model); NodePools on Cluster API are not supported yet",
                                  pool.meta.name),
                      {}};
  }
  CloudResult<Created> create(const CreateRequest& request) override {
    return CloudError{ErrorClass::NodeClassNotReady, "NodeClaim " + request.name + ": no NodePools on clusterapi", {}};
  }
  CloudResult<Deleted> terminate(const std::string&) override { return Deleted{}; }
  CloudResult<Instance> get(const std::string& instance_id) const override {
    return CloudError{ErrorClass::NotFound, "instance " + instance_id + ": no NodePools on clusterapi", {}};
  }
  CloudResult<std::vector<Instance>> list() const override { return std::vector<Instance>{}; }

 private:
  Catalog catalog_;
};

class RunningClusterApi final : public RunningProvider {
 public:
  RunningClusterApi(std::optional<kube::ApiClient> management, const kube::ApiClient& workload)
      : management_(std::move(management)),
        workload_(workload),
        events_(this->management(), "cluster-autoscaler", "scalewright") {}
  ~RunningClusterApi() override { events_.flush(); }

  const kube::ApiClient& management() const { return management_ ? *management_ : workload_; }

  // An object that is not a node group for something wrong with it: a log line and a Warning Event on it, as Cluster
  // Autoscaler's users look for them (kubectl describe machinedeployment).
  void refuse(const RefusedGroup& refused) const {
    spdlog::warn("clusterapi: node group refused: {}", refused.message);
    events_.emit({{refused.api_version, std::string(to_string(refused.kind)), refused.namespace_, refused.name,
                   refused.uid},
                  "Warning",
                  "NodeGroupRefused",
                  "Discover",
                  refused.message});
  }

  std::optional<Error> use_groups(const nodegroups::AutoscalerOptions& flags) {
    Result<std::vector<AutoDiscoverySpec>> specs = parse_auto_discovery(flags.auto_discovery);
    if (!specs) return specs.error();
    Result<CapiApi> capi = discover_capi_api(management(), capi_settings_from_environment());
    if (!capi) return capi.error();
    spdlog::info("clusterapi: Cluster API served as {}/{} on the {} cluster", capi->group, capi->version,
                 management_ ? "management" : "workload");
    groups_ = std::make_unique<ClusterApiNodeGroups>(management(), std::move(*capi), std::move(*specs), workload_);
    Result<NodeGroupListing> listed = groups_->refresh();
    if (!listed) return listed.error();
    for (const RefusedGroup& refused : listed->refused) refuse(refused);
    return std::nullopt;
  }

  CloudProvider& cloud() override { return no_node_pools_; }
  NodeGroupProvider& node_groups() override {
    if (groups_) return *groups_;
    return no_groups_;
  }
  std::optional<Result<std::vector<nodegroups::NodeGroup>>> node_groups_found(
      const nodegroups::AutoscalerOptions& flags) const override {
    (void)flags;  // read by use_groups
    if (!groups_) return Result<std::vector<nodegroups::NodeGroup>>(std::vector<nodegroups::NodeGroup>{});
    std::vector<RefusedGroup> refused;
    std::vector<nodegroups::NodeGroup> groups = groups_->node_groups(refused);
    for (const RefusedGroup& group : refused) refuse(group);
    for (const nodegroups::NodeGroup& group : groups) {
      spdlog::info("clusterapi: node group {} (min {}, max {}, {} replicas): a new node has {}", group.id,
                   group.min_size, group.max_size, group.target_size, group.template_node.allocatable.to_string());
    }
    return Result<std::vector<nodegroups::NodeGroup>>(std::move(groups));
  }
  std::optional<Error> start(const std::stop_token&) override { return std::nullopt; }
  void stop() override {}

 private:
  std::optional<kube::ApiClient> management_;
  const kube::ApiClient& workload_;
  mutable kube::EventSink events_;
  NoNodePools no_node_pools_;
  NoNodeGroups no_groups_;
  std::unique_ptr<ClusterApiNodeGroups> groups_;
};

// CA's clusterapi provider reads only clusterapi: discovery specs.
std::optional<Error> adopt_clusterapi_options(nodegroups::AutoscalerOptions& options) {
  if (!options.nodes.empty()) {
    return Error{"--nodes: provider clusterapi finds its node groups by their annotations (cluster.x-k8s.io/"
                 "cluster-api-autoscaler-node-group-{min,max}-size), not by --nodes"};
  }
  Result<std::vector<AutoDiscoverySpec>> specs = parse_auto_discovery(options.auto_discovery);
  if (!specs) return specs.error();
  return std::nullopt;
}

}  // namespace

ProviderRegistration clusterapi_registration() {
  ProviderRegistration r;
  r.name = "clusterapi";
  r.summary = "Cluster API's MachineDeployments, MachineSets and MachinePools as node groups (Cluster Autoscaler's "
              "clusterapi provider)";
  r.flags = {{std::string(kCloudConfigFlag),
              "clusterapi: kubeconfig of the management cluster, where Cluster API's objects are (default: the "
              "cluster --kubeconfig names, as Cluster Autoscaler)",
              ""}};
  // On the management cluster: the scalable objects and their Scales, the Machines (marked for deletion), and the
  // infrastructure templates an empty group's capacity is read from (any provider's: their group is not known
  // ahead).
  r.rbac = {"cluster.x-k8s.io/machinedeployments: get, list, watch",
            "cluster.x-k8s.io/machinedeployments/scale: get, update, patch",
            "cluster.x-k8s.io/machinesets: get, list, watch",
            "cluster.x-k8s.io/machinesets/scale: get, update, patch",
            "cluster.x-k8s.io/machinepools: get, list, watch",
            "cluster.x-k8s.io/machinepools/scale: get, update, patch",
            "cluster.x-k8s.io/machines: get, list, watch, update, patch",
            "infrastructure.cluster.x-k8s.io/*: get, list, watch"};
  r.node_groups_without_flags = true;
  r.adopt_autoscaler_options = adopt_clusterapi_options;
  r.make = [](ProviderContext& context) -> Result<std::unique_ptr<RunningProvider>> {
    std::optional<kube::ApiClient> management;
    if (const std::string kubeconfig = context.flag(kCloudConfigFlag); !kubeconfig.empty()) {
      if (!context.connect) return Error{std::string(kCloudConfigFlag) + ": this command connects to one cluster only"};
      Result<kube::ApiClient> connected = context.connect(kubeconfig);
      if (!connected) return Error{fmt::format("{} {}: {}", kCloudConfigFlag, kubeconfig, connected.error().message)};
      management.emplace(std::move(*connected));
    }
    auto running = std::make_unique<RunningClusterApi>(std::move(management), context.client);
    nodegroups::AutoscalerOptions defaults;
    const nodegroups::AutoscalerOptions& flags =
        context.cluster_autoscaler != nullptr ? *context.cluster_autoscaler : defaults;
    if (std::optional<Error> failed = running->use_groups(flags)) return *failed;
    return std::unique_ptr<RunningProvider>(std::move(running));
  };
  return r;
}

}  // namespace scalewright::cloud::clusterapi
