#include "cloud/clusterapi/clusterapi_registration.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <ctime>
#include <memory>
#include <thread>
#include <optional>
#include <utility>

#include "cloud/clusterapi/auto_discovery.h"
#include "cloud/clusterapi/capi_api.h"
#include "cloud/clusterapi/capi_node_groups.h"
#include "cloud/clusterapi/capi_node_pools.h"
#include "cloud/clusterapi/node_group_client.h"
#include "kube/event_sink.h"
#include "net/retry.h"
#include "nodegroups/node_group.h"
#include "nodegroups/options.h"

namespace scalewright::cloud::clusterapi {

namespace {

class RunningClusterApi final : public RunningProvider {
 public:
  RunningClusterApi(std::optional<kube::ApiClient> management, const kube::ApiClient& workload, CapiApi capi,
                    NodeClassChanges node_class_changes)
      : management_(std::move(management)),
        workload_(workload),
        capi_(std::move(capi)),
        events_(this->management(), "cluster-autoscaler", "scalewright"),
        pools_client_(this->management(), capi_),
        pools_(pools_client_, workload_),
        node_class_changes_(std::move(node_class_changes)) {}
  ~RunningClusterApi() override {
    stop();
    events_.flush();
  }

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
    groups_ = std::make_unique<ClusterApiNodeGroups>(management(), capi_, std::move(*specs), workload_);
    Result<NodeGroupListing> listed = groups_->refresh();
    if (!listed) return listed.error();
    for (const RefusedGroup& refused : listed->refused) refuse(refused);
    return std::nullopt;
  }

  CloudProvider& cloud() override { return pools_; }
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
  // The node classes and the MachineDeployments they select, read now and then every refresh interval while this
  // replica leads: a class that changed is told to the loop, and its status says whether it is ready.
  std::optional<Error> start(const std::stop_token&) override {
    refresh_node_classes();
    refresher_ = std::jthread([this](const std::stop_token& stop) {
      while (true) {
        net::sleep_unless_stopped(kNodeClassRefresh, stop);
        if (stop.stop_requested()) return;
        refresh_node_classes();
      }
    });
    return std::nullopt;
  }
  void stop() override {
    pools_.stop();
    if (refresher_.joinable()) {
      refresher_.request_stop();
      refresher_.join();
    }
  }

  void refresh_node_classes() {
    Result<NodePoolsRefresh> refreshed = pools_.refresh();
    if (!refreshed) {
      // Without Scalewright's ClusterAPINodeClass CRD there are no NodePools on this provider, only node groups.
      if (!classes_missing_logged_) {
        spdlog::warn("clusterapi: no NodePools on Cluster API until ClusterAPINodeClasses can be read "
                     "(deploy/crds/karpenter.cluster.x-k8s.io_clusterapinodeclasses.yaml): {}",
                     refreshed.error().message);
      }
      classes_missing_logged_ = true;
      return;
    }
    classes_missing_logged_ = false;
    for (const std::string& name : refreshed->changed) {
      auto not_ready = refreshed->not_ready.find(name);
      if (not_ready != refreshed->not_ready.end()) write_status(name, not_ready->second);
      if (node_class_changes_) node_class_changes_(name);
    }
  }

  // status.conditions Ready, as Karpenter's node classes say whether NodePools can launch from them.
  void write_status(const std::string& name, const std::string& not_ready) const {
    const std::string now = fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)));
    nlohmann::json condition = {{"type", "Ready"},
                                {"status", not_ready.empty() ? "True" : "False"},
                                {"reason", not_ready.empty() ? "Ready" : "NotReady"},
                                {"message", not_ready},
                                {"lastTransitionTime", now}};
    auto patched = workload_.merge_patch(std::string(kNodeClassesPath) + "/" + name + "/status",
                                         {{"status", {{"conditions", nlohmann::json::array({condition})}}}});
    if (!patched.ok() && !patched.error().is_not_found()) {
      spdlog::warn("clusterapi: {} {} status: {}", kNodeClassKind, name, patched.error().describe());
    }
    if (!not_ready.empty()) spdlog::warn("clusterapi: {} {} is not ready: {}", kNodeClassKind, name, not_ready);
  }

 private:
  static constexpr std::chrono::seconds kNodeClassRefresh{2};

  std::optional<kube::ApiClient> management_;
  const kube::ApiClient& workload_;
  CapiApi capi_;
  mutable kube::EventSink events_;
  NoNodeGroups no_groups_;
  std::unique_ptr<ClusterApiNodeGroups> groups_;
  NodeGroupClient pools_client_;  // every namespace: a node class's selector says which MachineDeployments
  ClusterApiNodePools pools_;
  NodeClassChanges node_class_changes_;
  bool classes_missing_logged_ = false;
  std::jthread refresher_;
};

}  // namespace

ProviderRegistration clusterapi_registration() {
  ProviderRegistration r;
  r.name = "clusterapi";
  r.summary = "Cluster API's MachineDeployments, MachineSets and MachinePools as node groups (Cluster Autoscaler's "
              "clusterapi provider), and MachineDeployments as NodePools' instance types (ClusterAPINodeClass)";
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
            "infrastructure.cluster.x-k8s.io/*: get, list, watch",
            "karpenter.cluster.x-k8s.io/clusterapinodeclasses: get, list, watch",
            "karpenter.cluster.x-k8s.io/clusterapinodeclasses/status: get, update, patch"};
  r.node_groups_without_flags = true;
  r.adopt_autoscaler_options = adopt_autoscaler_options;
  r.make = [](ProviderContext& context) -> Result<std::unique_ptr<RunningProvider>> {
    std::optional<kube::ApiClient> management;
    if (const std::string kubeconfig = context.flag(kCloudConfigFlag); !kubeconfig.empty()) {
      if (!context.connect) return Error{std::string(kCloudConfigFlag) + ": this command connects to one cluster only"};
      Result<kube::ApiClient> connected = context.connect(kubeconfig);
      if (!connected) return Error{fmt::format("{} {}: {}", kCloudConfigFlag, kubeconfig, connected.error().message)};
      management.emplace(std::move(*connected));
    }
    const kube::ApiClient& capi_server = management ? *management : context.client;
    Result<CapiApi> capi = discover_capi_api(capi_server, capi_settings_from_environment());
    if (!capi) return capi.error();
    spdlog::info("clusterapi: Cluster API served as {}/{} on the {} cluster", capi->group, capi->version,
                 management ? "management" : "workload");
    auto running = std::make_unique<RunningClusterApi>(std::move(management), context.client, std::move(*capi),
                                                       context.node_class_changes);
    nodegroups::AutoscalerOptions defaults;
    const nodegroups::AutoscalerOptions& flags =
        context.cluster_autoscaler != nullptr ? *context.cluster_autoscaler : defaults;
    if (std::optional<Error> failed = running->use_groups(flags)) return *failed;
    return std::unique_ptr<RunningProvider>(std::move(running));
  };
  return r;
}

}  // namespace scalewright::cloud::clusterapi
