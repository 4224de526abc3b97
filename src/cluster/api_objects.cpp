#include "cluster/api_objects.h"

#include "kube/model_json.h"

namespace scalewright::cluster {

using nlohmann::json;

std::string object_key_of(const json& object) {
  const json& metadata = object.value("metadata", json::object());
  std::string name = metadata.value("name", "");
  std::string namespace_ = metadata.value("namespace", "");
  return namespace_.empty() ? name : namespace_ + "/" + name;
}

Labels nodeclaim_labels(const json& claim) {
  Labels labels = kube::labels_of(claim);
  for (const json& requirement : claim.value("spec", json::object()).value("requirements", json::array())) {
    const json& values = requirement.value("values", json::array());
    if (requirement.value("operator", "") == "In" && values.size() == 1 && values[0].is_string()) {
      labels.set(Symbol(requirement.value("key", "")), Symbol(values[0].get<std::string>()));
    }
  }
  return labels;
}

namespace {

// What neither the decoders nor the controllers read, dropped before decoding: managedFields (often half of an
// object's JSON; client-go informers strip them as well, with cache.TransformStripManagedFields), a pod's container
// statuses and its conditions but Ready (a PodDisruptionBudget counts pods healthy by it; the observer reads
// PodScheduled from the object itself), a node's images and nodeInfo. At 150,000 pods this is a fifth of the
// state's memory and most of the decoding time.
void drop_unread_fields(json& object, std::string_view kind) {
  if (auto metadata = object.find("metadata"); metadata != object.end() && metadata->is_object()) {
    metadata->erase("managedFields");
  }
  auto status = object.find("status");
  if (status == object.end() || !status->is_object()) return;
  if (kind == "Pod") {
    for (const char* field : {"containerStatuses", "initContainerStatuses", "ephemeralContainerStatuses"}) {
      status->erase(field);
    }
    if (auto conditions = status->find("conditions"); conditions != status->end() && conditions->is_array()) {
      json& list = *conditions;
      for (std::size_t i = list.size(); i-- > 0;) {
        if (!list[i].is_object() || list[i].value("type", "") != "Ready") list.erase(i);
      }
    }
  } else if (kind == "Node") {
    status->erase("images");
    status->erase("nodeInfo");
  }
}

}  // namespace

Result<ManifestSet> decode_api_object(json object, const Resource& resource) {
  drop_unread_fields(object, resource.kind);
  // A LIST's items have no apiVersion and kind; a watch event's object has them.
  object["apiVersion"] = resource.api_version;
  object["kind"] = resource.kind;
  // JSON is YAML: the manifest decoder reads it as it reads a file, and its errors name the object. The API server
  // has validated its fields already, and serves fields of its own version that Scalewright need not know.
  const std::string source = std::string(resource.kind) + "/" + object_key_of(object) + " from the API server";
  return decode_manifests(object.dump(), source, ManifestLimits{}, FieldValidation::Ignore);
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
