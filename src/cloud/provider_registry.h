#pragma once
// The providers `scalewright run --cloud-provider NAME` can act through, looked up by name as Cluster Autoscaler's
// builder looks up a RegisterCloudProvider'd one: each brings its own flags (declared here as data, so that the
// command line lists them and the provider reads them by name), the RBAC rules its role needs beyond the
// controller's own, and its metrics; the command line knows none of them by name. kwok now; aws, clusterapi and
// azure register beside it.
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"
#include "api/scenario.h"
#include "cloud/catalog.h"
#include "cloud/cloud_provider.h"
#include "cloud/node_group_provider.h"
#include "cloud/played_node_groups.h"
#include "kube/api_client.h"

namespace scalewright::ops {
class MetricsRegistry;
}
namespace scalewright::nodegroups {
struct AutoscalerOptions;
struct NodeGroup;
}

namespace scalewright::cloud {

// A flag of one provider's: "--kwok-launch-latency", what it means, its value when not given.
struct ProviderFlag {
  std::string name;
  std::string help;
  std::string default_value;
};

// What a cloud says of one of its instances ahead of acting on it (AWS: the EventBridge messages Karpenter reads from
// its SQS interruption queue), for the controllers to act on as Karpenter's interruption controller does.
struct InstanceNotice {
  enum class Kind {
    SpotInterruption,                 // taken back at `at` (EC2's two-minute warning): replace it and drain it now
    ScheduledChange,                  // a maintenance event (AWS Health): replace it and drain it
    Stopping,                         // stopping or stopped (a state change): replace it and drain it
    Terminating,                      // shutting down or terminated (a state change): replace it and drain it
    CapacityReservationInterruption,  // its capacity reservation takes it back: replace it and drain it
    RebalanceRecommendation,          // at higher risk of interruption: an Event only, as Karpenter does
  };
  Kind kind = Kind::SpotInterruption;
  std::string instance_id;                    // "i-0abc..."
  std::chrono::system_clock::time_point at;   // when the cloud acts; the notice's time when it does not say
  std::string source;                         // what said it, for the Event: "EC2 Spot Instance Interruption Warning"
};
// Takes notices from any thread; the controllers act on them on their own.
using InstanceNotices = std::function<void(InstanceNotice notice)>;

// Told the name of a node class of the provider's (an EC2NodeClass, a Cluster API provider's class) that now resolves
// to something else: other images, subnets or security groups, ready or not any more, a new spec, or gone. The
// controllers then look again at what depends on it (drift; launches that waited for it). Takes names from any thread.
using NodeClassChanges = std::function<void(std::string node_class)>;

// What a provider is made from.
struct ProviderContext {
  const kube::ApiClient& client;  // the cluster whose nodes it makes
  Catalog catalog;                // the region's instance types and prices
  // Every provider flag by name ("--kwok-launch-latency"), as given or defaulted.
  const std::map<std::string, std::string>& flags;
  ops::MetricsRegistry& metrics;  // where it registers its own metrics
  // The node groups Cluster Autoscaler's flags name (--nodes, --auto-scaling-groups), for a provider that plays
  // groups it does not have (kwok); a cloud with groups of its own finds them there.
  std::vector<PlayedGroupSpec> played_groups;
  // Where the notices of a provider that gets them go (empty: nowhere, as for a provider whose cloud sends none).
  InstanceNotices notices = {};
  // Where a provider with node classes says that one changed (empty: nowhere).
  NodeClassChanges node_class_changes = {};
  // Cluster Autoscaler's flags when they were given (null otherwise): a cloud with groups of its own finds the
  // groups they name (--nodes, --node-group-auto-discovery) in the account.
  const nodegroups::AutoscalerOptions* cluster_autoscaler = nullptr;
  // Where data/aws/ is (--data-dir): what a cloud whose own catalog calls are denied falls back to.
  std::filesystem::path data_dir = {};
  // A client of another cluster, from a kubeconfig's path, made as the command's own client is (its requests
  // measured alike): a provider whose objects live elsewhere (Cluster API's management cluster) connects through it.
  std::function<Result<kube::ApiClient>(const std::string& kubeconfig)> connect = {};

  // Provider flag `name`'s value (as given or defaulted); `fallback` for a flag the provider did not declare.
  std::string flag(std::string_view name, std::string_view fallback = "") const {
    auto found = flags.find(std::string(name));
    return found == flags.end() ? std::string(fallback) : found->second;
  }
};

// A provider made for `scalewright run`: the port the controllers act through, and the work it does while this
// replica leads (a standby's provider does nothing).
class RunningProvider {
 public:
  virtual ~RunningProvider() = default;
  virtual CloudProvider& cloud() = 0;
  // Its node groups (Cluster Autoscaler's model).
  virtual NodeGroupProvider& node_groups() = 0;
  // The node groups Cluster Autoscaler's flags name, found in the cloud and read as that cloud's CA reads them
  // (bounds, template node, price); nullopt for a provider that plays the groups it is given (kwok). The error names
  // the group or flag at fault.
  virtual std::optional<Result<std::vector<nodegroups::NodeGroup>>> node_groups_found(
      const nodegroups::AutoscalerOptions& flags) const;
  // Called once this replica leads; an error stops the controller. Gives up once stop is requested.
  virtual std::optional<Error> start(const std::stop_token& stop) = 0;
  // Called once the controller stops.
  virtual void stop() = 0;
};

struct ProviderRegistration {
  std::string name;     // --cloud-provider's value
  std::string summary;  // one line for --help
  std::vector<ProviderFlag> flags;
  // Rules its role needs beyond the controller's own, as "apiGroup/resource: verbs" ("/nodes: create, delete" for
  // the core group), for the chart and the docs.
  std::vector<std::string> rbac;
  // Whether it plays the node groups Cluster Autoscaler's flags name (kwok: given as ProviderContext::played_groups),
  // rather than finding them in its cloud (RunningProvider::node_groups_found).
  bool plays_node_groups = false;
  // Whether its node groups are found with no flag naming them (Cluster API: every annotated object is a group),
  // so that Cluster Autoscaler's model runs even without --nodes or --node-group-auto-discovery.
  bool node_groups_without_flags = false;
  // Takes Cluster Autoscaler's flags as this cloud's CA does: refuses a discovery spec of another cloud's and adds
  // the labels its groups always differ by to the balancing's ignored ones. The error names the flag.
  std::function<std::optional<Error>(nodegroups::AutoscalerOptions&)> adopt_autoscaler_options = {};
  // Errors name the flag at fault.
  std::function<Result<std::unique_ptr<RunningProvider>>(ProviderContext&)> make;
};

class ProviderRegistry {
 public:
  // A second registration of one name is refused (a programming error): false.
  bool add(ProviderRegistration registration);
  const ProviderRegistration* find(std::string_view name) const;
  std::vector<std::string> names() const;
  const std::vector<ProviderRegistration>& all() const { return registrations_; }

 private:
  std::vector<ProviderRegistration> registrations_;
};

}  // namespace scalewright::cloud
