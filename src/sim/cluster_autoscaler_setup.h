#pragma once
// The Cluster Autoscaler a scenario runs, set up from what the scenario and its manifests say: CA's flags (the
// Scenario's spec.clusterAutoscaler.args, or CA's own Deployment among the manifests), the simulated cloud's
// groups read as an AWS user's Auto Scaling groups (cloud/aws) or, with --cloud-provider=clusterapi, the Cluster API
// objects among the manifests (cloud/clusterapi), and the priority expander's ConfigMap.
#include <optional>
#include <string>
#include <vector>

#include "api/result.h"
#include "api/scenario.h"
#include "cloud/catalog.h"
#include "cloud/clusterapi/scalable_manifest.h"
#include "controllers/cluster_autoscaler_loop.h"
#include "manifest/manifest.h"

namespace scalewright::sim {

// Which configuration Cluster Autoscaler runs with: the Scenario's spec.clusterAutoscaler.args when given, or else
// the flags of CA's own Deployment among the manifests, which then become the Scenario's. Returns a note saying
// where the flags came from (nullopt when there is no CA Deployment), or an error when there are two.
Result<std::optional<std::string>> adopt_cluster_autoscaler_deployment(
    Scenario& scenario, const std::vector<ClusterAutoscalerDeployment>& deployments);

// CA's loop from the scenario's clusterAutoscaler.args and its node groups: with --cloud-provider=clusterapi, the
// Cluster API objects among the files (`cluster_api`, as CA's clusterapi provider makes groups of them; the
// Auto Scaling groups of spec.cloud are then refused), else spec.cloud.autoScalingGroups (the simulated cloud is
// AWS's); and for the priority expander the kube-system/cluster-autoscaler-priority-expander ConfigMap among
// `config_maps`. Errors name the field, flag, group or ConfigMap. `notes`, when given, is told what the user should
// know but that does not stop the run: objects that are no group and why.
Result<controllers::ClusterAutoscalerLoop> cluster_autoscaler_loop(
    const Scenario& scenario, const cloud::Catalog& catalog, const std::vector<ConfigMap>& config_maps = {},
    const std::vector<cloud::clusterapi::ScalableObjectPtr>& cluster_api = {},
    std::vector<std::string>* notes = nullptr);

// Whether CA's flags in the scenario say --cloud-provider=clusterapi: its groups are Cluster API's objects, whose
// nodes are shaped by their annotations rather than by the catalog's instance types.
bool runs_on_cluster_api(const Scenario& scenario);

}  // namespace scalewright::sim
