#pragma once
// Where Cluster API's objects are served, found as Cluster Autoscaler's clusterapi provider finds them: the API
// group (`cluster.x-k8s.io`, or CAPI_GROUP) and its version (CAPI_VERSION, else the group's preferred version in API
// discovery: v1beta1 with Cluster API up to v1.10, v1beta2 from v1.11), and which scalable kinds that version serves.
#include <map>
#include <string>
#include <string_view>

#include "api/result.h"
#include "cloud/clusterapi/capi_keys.h"
#include "kube/api_client.h"

namespace scalewright::cloud::clusterapi {

// The two environment variables CA reads; empty means unset.
struct CapiSettings {
  std::string group;    // CAPI_GROUP
  std::string version;  // CAPI_VERSION
};
// CAPI_GROUP and CAPI_VERSION from this process's environment.
CapiSettings capi_settings_from_environment();

// The served group and version, and which of the scalable resources it lists.
struct CapiApi {
  std::string group;
  std::string version;
  bool machine_deployments = false;
  bool machine_sets = false;
  bool machine_pools = false;
  CapiKeys keys;

  bool serves(ScalableKind kind) const;
  // "/apis/cluster.x-k8s.io/v1beta2/machinedeployments" (all namespaces) or ".../namespaces/NS/machinedeployments".
  std::string collection_path(ScalableKind kind, std::string_view namespace_ = {}) const;
  std::string object_path(ScalableKind kind, std::string_view namespace_, std::string_view name) const;
  // The Machines: "/apis/cluster.x-k8s.io/v1beta2/machines", or of one namespace, or one Machine.
  std::string machines_path(std::string_view namespace_ = {}, std::string_view name = {}) const;
};

// GET /apis/<group> (its preferredVersion, unless settings pin a version), then GET /apis/<group>/<version> for its
// resources. Errors say what was asked and why it failed: a group that is not served (Cluster API's CRDs are not
// installed), a CAPI_VERSION the group does not serve (with the versions it does).
Result<CapiApi> discover_capi_api(const kube::ApiClient& api, const CapiSettings& settings);

}  // namespace scalewright::cloud::clusterapi
