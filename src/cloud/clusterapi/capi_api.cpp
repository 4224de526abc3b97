#include "cloud/clusterapi/capi_api.h"

#include <fmt/format.h>

#include <cstdlib>
#include <utility>

namespace scalewright::cloud::clusterapi {

using nlohmann::json;

CapiSettings capi_settings_from_environment() {
  CapiSettings settings;
  if (const char* group = std::getenv("CAPI_GROUP")) settings.group = group;
  if (const char* version = std::getenv("CAPI_VERSION")) settings.version = version;
  return settings;
}

bool CapiApi::serves(ScalableKind kind) const {
  switch (kind) {
    case ScalableKind::MachineDeployment:
      return machine_deployments;
    case ScalableKind::MachineSet:
      return machine_sets;
    case ScalableKind::MachinePool:
      return machine_pools;
  }
  return false;
}

std::string CapiApi::collection_path(ScalableKind kind, std::string_view namespace_) const {
  if (namespace_.empty()) return fmt::format("/apis/{}/{}/{}", group, version, resource_name(kind));
  return fmt::format("/apis/{}/{}/namespaces/{}/{}", group, version, namespace_, resource_name(kind));
}

std::string CapiApi::object_path(ScalableKind kind, std::string_view namespace_, std::string_view name) const {
  return collection_path(kind, namespace_) + "/" + std::string(name);
}

std::string CapiApi::machines_path(std::string_view namespace_, std::string_view name) const {
  std::string path = namespace_.empty() ? fmt::format("/apis/{}/{}/machines", group, version)
                                        : fmt::format("/apis/{}/{}/namespaces/{}/machines", group, version, namespace_);
  if (!name.empty()) path += "/" + std::string(name);
  return path;
}

namespace {

std::string served_versions(const json& group) {
  std::string out;
  if (!group.contains("versions") || !group["versions"].is_array()) return out;
  for (const json& v : group["versions"]) {
    if (!v.is_object() || !v.contains("version") || !v["version"].is_string()) continue;
    if (!out.empty()) out += ", ";
    out += v["version"].get<std::string>();
  }
  return out;
}

}  // namespace

Result<CapiApi> discover_capi_api(const kube::ApiClient& api, const CapiSettings& settings) {
  CapiApi capi;
  capi.group = settings.group.empty() ? std::string(kDefaultGroup) : settings.group;
  capi.keys = CapiKeys(capi.group);
  // The group document names the preferred version, and the served ones for an error about CAPI_VERSION.
  auto group = api.get("/apis/" + capi.group);
  if (!group.ok()) {
    if (group.error().is_not_found()) {
      return Error{
          fmt::format("API group {} is not served (are Cluster API's CRDs installed? CAPI_GROUP names "
                      "another group)",
                      capi.group)};
    }
    return Error{fmt::format("discovering API group {}: {}", capi.group, group.error().describe())};
  }
  if (!settings.version.empty()) {
    capi.version = settings.version;
  } else {
    const json& preferred = (*group)["preferredVersion"];
    if (!preferred.is_object() || !preferred.contains("version") || !preferred["version"].is_string()) {
      return Error{fmt::format("API group {} names no preferredVersion", capi.group)};
    }
    capi.version = preferred["version"].get<std::string>();
  }
  auto resources = api.get("/apis/" + capi.group + "/" + capi.version);
  if (!resources.ok()) {
    if (resources.error().is_not_found() && !settings.version.empty()) {
      return Error{fmt::format("CAPI_VERSION={}: API group {} does not serve it (it serves {})", settings.version,
                               capi.group, served_versions(*group))};
    }
    return Error{fmt::format("discovering {}/{}: {}", capi.group, capi.version, resources.error().describe())};
  }
  const json& list = (*resources)["resources"];
  if (list.is_array()) {
    for (const json& r : list) {
      if (!r.is_object() || !r.contains("name") || !r["name"].is_string()) continue;
      const std::string& name = r["name"].get_ref<const std::string&>();
      if (name == "machinedeployments") capi.machine_deployments = true;
      if (name == "machinesets") capi.machine_sets = true;
      if (name == "machinepools") capi.machine_pools = true;
    }
  }
  return capi;
}

}  // namespace scalewright::cloud::clusterapi
