#include "cluster/api_objects.h"

namespace scalewright::cluster {

using nlohmann::json;

std::string object_key_of(const json& object) {
  const json& metadata = object.value("metadata", json::object());
  std::string name = metadata.value("name", "");
  std::string namespace_ = metadata.value("namespace", "");
  return namespace_.empty() ? name : namespace_ + "/" + name;
}

Result<ManifestSet> decode_api_object(json object, const Resource& resource) {
  // A LIST's items have no apiVersion and kind; a watch event's object has them.
  object["apiVersion"] = resource.api_version;
  object["kind"] = resource.kind;
  // JSON is YAML: the manifest decoder reads it as it reads a file, and its errors name the object.
  const std::string source = std::string(resource.kind) + "/" + object_key_of(object) + " from the API server";
  return decode_manifests(object.dump(), source);
}

ConditionState condition_of(const json& object, std::string_view type) {
  auto status = object.find("status");
  if (status == object.end() || !status->is_object()) return {};
  auto conditions = status->find("conditions");
  if (conditions == status->end() || !conditions->is_array()) return {};
  for (const json& condition : *conditions) {
    if (condition.is_object() && condition.value("type", "") == type) {
      return {condition.value("status", ""), condition.value("reason", "")};
    }
  }
  return {};
}

}  // namespace scalewright::cluster
