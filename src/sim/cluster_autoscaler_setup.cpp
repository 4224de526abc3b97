#include "sim/cluster_autoscaler_setup.h"

#include <fmt/format.h>

#include "api/wording.h"
#include "cloud/aws/auto_scaling_groups.h"
#include "config/cluster_autoscaler_flags.h"
#include "config/priority_expander.h"

namespace scalewright::sim {
namespace {

// CA's --cloud-provider for Cluster API.
constexpr std::string_view kClusterApi = "clusterapi";

// The `priorities` of CA's priority-expander ConfigMap, which CA reads from its own namespace (kube-system).
std::optional<std::string> priority_config(const std::vector<ConfigMap>& config_maps) {
  for (const ConfigMap& c : config_maps) {
    if (c.meta.name != nodegroups::kPriorityConfigMap || c.meta.namespace_ != "kube-system") {
      continue;
    }
    auto priorities = c.data.find("priorities");
    if (priorities != c.data.end()) return priorities->second;
  }
  return std::nullopt;
}

}  // namespace

Result<std::optional<std::string>> adopt_cluster_autoscaler_deployment(
    Scenario& scenario, const std::vector<ClusterAutoscalerDeployment>& deployments) {
  if (deployments.empty()) return std::optional<std::string>();
  auto name = [](const ClusterAutoscalerDeployment& d) {
    return "Deployment " + d.meta.namespace_ + "/" + d.meta.name;
  };
  if (deployments.size() > 1) {
    return Error{fmt::format("{} and {} both run Cluster Autoscaler; a run takes one", name(deployments[0]),
                             name(deployments[1]))};
  }
  const ClusterAutoscalerDeployment& ca = deployments.front();
  if (scenario.cluster_autoscaler) {
    return std::optional<std::string>(fmt::format(
        "Scenario/{} gives spec.clusterAutoscaler.args: the flags of {} are not used", scenario.meta.name, name(ca)));
  }
  scenario.cluster_autoscaler = ClusterAutoscalerSpec{ca.flags};
  return std::optional<std::string>(
      fmt::format("Cluster Autoscaler runs with the flags of {} (container {})", name(ca), ca.container));
}

Result<controllers::ClusterAutoscalerLoop> cluster_autoscaler_loop(
    const Scenario& scenario, const cloud::Catalog& catalog, const std::vector<ConfigMap>& config_maps,
    const std::vector<cloud::clusterapi::ScalableObjectPtr>& cluster_api, std::vector<std::string>* notes) {
  const std::string flags_origin = "spec.clusterAutoscaler.args";
  const std::vector<std::string> args =
      scenario.cluster_autoscaler ? scenario.cluster_autoscaler->args : std::vector<std::string>{};
  Result<nodegroups::AutoscalerOptions> options = config::parse_autoscaler_flags(args);
  if (!options) return Error{flags_origin + ": " + options.error().message};
  options->random_seed = scenario.seed;
  auto tell = [&](std::string note) {
    if (notes != nullptr) notes->push_back(std::move(note));
  };
  std::vector<nodegroups::NodeGroup> groups;
  if (options->cloud_provider == kClusterApi) {
    // Both at once would leave the reader guessing which groups CA scaled: a scenario written for AWS stays AWS's.
    if (!scenario.cloud.node_groups.empty()) {
      return Error{fmt::format("spec.cloud.autoScalingGroups: Cluster Autoscaler runs with --cloud-provider={} ({}), "
                               "whose node groups are the Cluster API objects among the files, not Auto Scaling "
                               "groups: remove one or the other",
                               kClusterApi, flags_origin)};
    }
    Result<cloud::clusterapi::FoundNodeGroups> found = cloud::clusterapi::discover_node_groups(cluster_api, *options);
    if (!found) return Error{flags_origin + ": " + found.error().message};
    for (std::string& note : found->notes) tell(std::move(note));
    if (found->groups.empty()) {
      tell("no Cluster API object among the files is a node group of Cluster Autoscaler: it has nothing to scale");
    }
    groups = std::move(found->groups);
  } else {
    // The simulated cloud is AWS's: its groups are Auto Scaling groups, compared for balancing as CA does on AWS.
    if (std::optional<Error> aws = cloud::aws::adopt_autoscaler_options(*options)) {
      return Error{flags_origin + ": " + aws->message};
    }
    Result<std::vector<nodegroups::NodeGroup>> discovered =
        cloud::aws::discover_node_groups(scenario.cloud.node_groups, *options, catalog);
    if (!discovered) return Error{"spec.cloud.autoScalingGroups: " + discovered.error().message};
    groups = std::move(*discovered);
    if (!cluster_api.empty()) {
      tell(fmt::format("the files hold {} (MachineDeployments, MachineSets, MachinePools); "
                       "Cluster Autoscaler runs without --cloud-provider={}, so they are not its node groups",
                       plural(cluster_api.size(), "Cluster API object"), kClusterApi));
    }
  }
  Result<std::optional<nodegroups::PriorityConfig>> priorities =
      config::priority_expander_config(options->expanders, priority_config(config_maps));
  if (!priorities) return Error{flags_origin + ": " + priorities.error().message};
  return controllers::ClusterAutoscalerLoop::create(std::move(*options), std::move(groups), std::move(*priorities),
                                                    flags_origin);
}

bool runs_on_cluster_api(const Scenario& scenario) {
  if (!scenario.cluster_autoscaler) return false;
  Result<nodegroups::AutoscalerOptions> options = config::parse_autoscaler_flags(scenario.cluster_autoscaler->args);
  return options && options->cloud_provider == kClusterApi;
}

}  // namespace scalewright::sim
