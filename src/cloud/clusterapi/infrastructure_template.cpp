#include "cloud/clusterapi/infrastructure_template.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace scalewright::cloud::clusterapi {

using nlohmann::json;

namespace {

// The plural of `kind` among the resources /apis/<group>/<version> lists (not a subresource), or "".
std::string plural_in(const json& resources, const std::string& kind) {
  if (!resources.contains("resources") || !resources["resources"].is_array()) return "";
  for (const json& resource : resources["resources"]) {
    const std::string name = resource.value("name", "");
    if (resource.value("kind", "") == kind && name.find('/') == std::string::npos) return name;
  }
  return "";
}

}  // namespace

Result<std::optional<std::pair<std::string, std::string>>> InfrastructureTemplates::resource_of(
    const InfrastructureRef& ref) const {
  const std::string key = ref.api_group + "/" + ref.kind;
  {
    std::lock_guard lock(mutex_);
    if (auto found = resources_.find(key); found != resources_.end()) return found->second;
  }
  std::vector<std::string> versions;  // "/apis/<group>/<version>", in the order looked at
  if (ref.api_version.find('/') != std::string::npos) {
    versions.push_back("/apis/" + ref.api_version);
  } else {
    auto group = api_.get("/apis/" + ref.api_group);
    if (!group.ok() && group.error().is_not_found()) return std::optional<std::pair<std::string, std::string>>();
    if (!group.ok()) return Error{fmt::format("API group {}: {}", ref.api_group, group.error().describe())};
    for (const json& version : group->value("versions", json::array())) {
      if (version.contains("groupVersion")) versions.push_back("/apis/" + version.value("groupVersion", ""));
    }
  }
  std::optional<std::pair<std::string, std::string>> found;
  for (const std::string& path : versions) {
    auto resources = api_.get(path);
    if (!resources.ok() && resources.error().is_not_found()) continue;
    if (!resources.ok()) return Error{fmt::format("{}: {}", path, resources.error().describe())};
    if (std::string plural = plural_in(*resources, ref.kind); !plural.empty()) {
      found.emplace(path, std::move(plural));
      break;
    }
  }
  std::lock_guard lock(mutex_);
  resources_[key] = found;
  return found;
}

Result<std::optional<TemplateInfo>> InfrastructureTemplates::read(const std::string& namespace_,
                                                                  const InfrastructureRef& ref) const {
  if (ref.empty()) return std::optional<TemplateInfo>();
  const std::string label = fmt::format("{} {}/{}", ref.kind, namespace_, ref.name);
  auto resource = resource_of(ref);
  if (!resource) return Error{label + ": " + resource.error().message};
  if (!*resource) return std::optional<TemplateInfo>();
  const std::string path =
      fmt::format("{}/namespaces/{}/{}/{}", (*resource)->first, namespace_, (*resource)->second, ref.name);
  auto object = api_.get(path);
  if (!object.ok() && object.error().is_not_found()) return std::optional<TemplateInfo>();
  if (!object.ok()) return Error{fmt::format("{}: {}", label, object.error().describe())};
  const json::json_pointer capacity_at("/status/capacity");
  if (!object->contains(capacity_at) || !(*object)[capacity_at].is_object()) return std::optional<TemplateInfo>();
  TemplateInfo info;
  for (const auto& [name, value] : (*object)[capacity_at].items()) {
    const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    Result<Quantity> quantity = Quantity::parse(text);
    std::optional<std::int64_t> amount;
    if (quantity && !quantity->negative()) amount = exact_resource_amount(Symbol(name), *quantity);
    if (!amount) return Error{fmt::format("{}: status.capacity.{} \"{}\" is not a quantity", label, name, text)};
    info.capacity.set(Symbol(name), *amount);
  }
  const json& node_info = object->value("status", json::object()).value("nodeInfo", json::object());
  info.architecture = node_info.value("architecture", "");
  info.operating_system = node_info.value("operatingSystem", "");
  return std::optional<TemplateInfo>(std::move(info));
}

}  // namespace scalewright::cloud::clusterapi
