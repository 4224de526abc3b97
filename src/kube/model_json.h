#pragma once
// Model values as the API server's JSON writes them, for the objects Scalewright creates and patches (NodeClaims,
// Nodes): one spelling of a resource list and of taints.
#include <nlohmann/json.hpp>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "api/resources.h"

namespace scalewright::kube {

// {"cpu": "3920m", "memory": "15Gi", "pods": "58"}
inline nlohmann::json resources_json(const ResourceList& list) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, amount] : list.entries()) out[name.string()] = format_amount(name, amount);
  return out;
}

// [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}], value left out when empty
inline nlohmann::json taints_json(const std::vector<Taint>& taints) {
  nlohmann::json out = nlohmann::json::array();
  for (const Taint& taint : taints) {
    nlohmann::json t = {{"key", taint.key}, {"effect", std::string(to_string(taint.effect))}};
    if (!taint.value.empty()) t["value"] = taint.value;
    out.push_back(std::move(t));
  }
  return out;
}

// An object as its user wrote it, for the manifest decoder to read as it reads a file of it: apiVersion, kind,
// name, labels, annotations and spec; what the server adds (status, uid, resourceVersion, managedFields...) is not
// the user's and left out.
inline nlohmann::json as_written(const nlohmann::json& object) {
  nlohmann::json written = {{"apiVersion", object.value("apiVersion", "")}, {"kind", object.value("kind", "")}};
  const nlohmann::json& metadata = object.value("metadata", nlohmann::json::object());
  written["metadata"] = {{"name", metadata.value("name", "")}};
  for (const char* key : {"labels", "annotations"}) {
    if (metadata.contains(key)) written["metadata"][key] = metadata[key];
  }
  written["spec"] = object.value("spec", nlohmann::json::object());
  return written;
}

// An object's metadata.labels (string values only; none when absent).
inline Labels labels_of(const nlohmann::json& object) {
  Labels labels;
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return labels;
  auto found = metadata->find("labels");
  if (found == metadata->end() || !found->is_object()) return labels;
  for (const auto& [key, value] : found->items()) {
    if (value.is_string()) labels.set(Symbol(key), Symbol(value.get<std::string>()));
  }
  return labels;
}

}  // namespace scalewright::kube
