#include "sim/cluster_autoscaler_setup.h"

#include <fmt/format.h>

#include "cloud/aws/auto_scaling_groups.h"
#include "config/cluster_autoscaler_flags.h"
#include "config/priority_expander.h"

namespace scalewright::sim {
namespace {

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

Result<controllers::ClusterAutoscalerLoop> cluster_autoscaler_loop(const Scenario& scenario,
                                                                   const cloud::Catalog& catalog,
                                                                   const std::vector<ConfigMap>& config_maps) {
  const std::string flags_origin = "spec.clusterAutoscaler.args";
  const std::vector<std::string> args =
      scenario.cluster_autoscaler ? scenario.cluster_autoscaler->args : std::vector<std::string>{};
  Result<nodegroups::AutoscalerOptions> options = config::parse_autoscaler_flags(args);
  if (!options) return Error{flags_origin + ": " + options.error().message};
  options->random_seed = scenario.seed;
  // The simulated cloud is AWS's: its groups are Auto Scaling groups, compared for balancing as CA does on AWS.
  if (std::optional<Error> aws = cloud::aws::adopt_autoscaler_options(*options)) {
    return Error{flags_origin + ": " + aws->message};
  }
  Result<std::vector<nodegroups::NodeGroup>> groups =
      cloud::aws::discover_node_groups(scenario.cloud.node_groups, *options, catalog);
  if (!groups) return Error{"spec.cloud.autoScalingGroups: " + groups.error().message};
  Result<std::optional<nodegroups::PriorityConfig>> priorities =
      config::priority_expander_config(options->expanders, priority_config(config_maps));
  if (!priorities) return Error{flags_origin + ": " + priorities.error().message};
  return controllers::ClusterAutoscalerLoop::create(std::move(*options), std::move(*groups), std::move(*priorities),
                                                    flags_origin);
}

}  // namespace scalewright::sim
