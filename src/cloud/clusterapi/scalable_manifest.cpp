#include "cloud/clusterapi/scalable_manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <string_view>
#include <tuple>
#include <utility>

#include "api/integer.h"
#include "cloud/clusterapi/to_node_group.h"
#include "manifest/meta_decoder.h"

namespace scalewright::cloud::clusterapi {

using nlohmann::json;

namespace {

// A plain YAML scalar as the JSON kubectl would send for it (Kubernetes reads manifests as YAML 1.1): the booleans
// the Field reader takes, integers, decimal numbers, else a string. Quoted ones ("3") stay strings.
json plain_scalar(const std::string& text) {
  static constexpr std::string_view kTrue[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static constexpr std::string_view kFalse[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  if (std::find(std::begin(kTrue), std::end(kTrue), text) != std::end(kTrue)) return true;
  if (std::find(std::begin(kFalse), std::end(kFalse), text) != std::end(kFalse)) return false;
  if (std::optional<std::int64_t> integer = parse_integer(text)) return *integer;
  // A decimal number only: from_chars would also take "inf" and "nan", which YAML spells ".inf" and ".nan".
  const bool numeric = !text.empty() && text.find_first_not_of("0123456789+-.eE") == std::string::npos &&
                       text.find_first_of("0123456789") != std::string::npos;
  double number = 0;
  if (numeric) {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
    if (ec == std::errc() && end == text.data() + text.size()) return number;
  }
  return text;
}

// The document's node as JSON, which is what the API server would hold of it and what CA's decoding reads. A key
// given twice keeps its last value, as the API server's decoding does (strict validation refuses it first).
json json_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json out = json::object();
      for (const auto& entry : node) out[entry.first.Scalar()] = json_of(entry.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json out = json::array();
      for (const auto& item : node) out.push_back(json_of(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      const std::string& tag = node.Tag();
      if (tag == "!" || tag == "tag:yaml.org,2002:str") return node.Scalar();
      return plain_scalar(node.Scalar());
    }
    default:
      return nullptr;
  }
}

// CA's order of listing: MachineSets, MachineDeployments, MachinePools.
int list_order(ScalableKind kind) {
  switch (kind) {
    case ScalableKind::MachineSet:
      return 0;
    case ScalableKind::MachineDeployment:
      return 1;
    case ScalableKind::MachinePool:
      return 2;
  }
  return 3;
}

}  // namespace

ScalableObjectPtr decode_scalable_object(const manifest::Field& object, ScalableKind kind) {
  const ObjectMeta meta = manifest::decode_object_meta(object, manifest::Scope::Namespaced);
  // Cluster API's fields are its schema's to check; CA's decoding below reads the ones it needs.
  object.known({"spec"});
  json written = json_of(object.node());
  // The metadata as decoded: its namespace defaulted as kubectl applies it, its labels and annotations strings.
  json& metadata = written["metadata"];
  metadata["namespace"] = meta.namespace_;
  metadata["annotations"] = meta.annotations.get();
  json labels = json::object();
  for (const auto& [key, value] : meta.labels) labels[key.string()] = value.string();
  metadata["labels"] = std::move(labels);

  const CapiKeys keys;
  Decoded decoded = decode_scalable_resource(kind, written, keys);
  if (const Error* error = std::get_if<Error>(&decoded)) {
    // The decoder's message starts with the object, which the manifest decoder's own prefix names already.
    const std::string self = fmt::format("{} {}/{}: ", to_string(kind), meta.namespace_, meta.name);
    std::string_view problem = error->message;
    if (problem.starts_with(self)) problem.remove_prefix(self.size());
    object.fail(std::string(problem));
  }
  auto out = std::make_shared<ScalableObject>();
  out->kind = kind;
  out->namespace_ = meta.namespace_;
  out->name = meta.name;
  out->discovered = discovered_object(written, keys);
  if (auto* group = std::get_if<ClusterApiNodeGroup>(&decoded)) {
    out->decoded = std::move(*group);
  } else {
    out->decoded = std::get<Skipped>(std::move(decoded));
  }
  return out;
}

Result<FoundNodeGroups> discover_node_groups(const std::vector<ScalableObjectPtr>& objects,
                                             const nodegroups::AutoscalerOptions& options) {
  if (std::optional<Error> refused = adopt_autoscaler_options(options)) return *refused;
  Result<std::vector<AutoDiscoverySpec>> specs = parse_auto_discovery(options.auto_discovery);
  if (!specs) return specs.error();
  std::vector<const ScalableObject*> listed;
  for (const ScalableObjectPtr& object : objects) {
    if (allowed(*specs, object->discovered)) listed.push_back(object.get());
  }
  std::sort(listed.begin(), listed.end(), [](const ScalableObject* a, const ScalableObject* b) {
    return std::tuple(list_order(a->kind), a->namespace_, a->name) <
           std::tuple(list_order(b->kind), b->namespace_, b->name);
  });
  FoundNodeGroups found;
  for (const ScalableObject* object : listed) {
    const std::string label = fmt::format("{} {}/{}", to_string(object->kind), object->namespace_, object->name);
    if (const auto* skipped = std::get_if<Skipped>(&object->decoded)) {
      if (!skipped->owned) {
        found.notes.push_back(fmt::format("{} is not a node group: {}", label, skipped->reason));
      }
      continue;
    }
    const auto& group = std::get<ClusterApiNodeGroup>(object->decoded);
    std::optional<nodegroups::NodeGroup> built = to_node_group(group, /*registered=*/nullptr);
    if (!built) {
      found.notes.push_back(fmt::format(
          "{} is not a node group here: at {} replicas without the capacity.cluster-autoscaler.kubernetes.io/cpu "
          "and memory annotations, a new node has no shape (on a cluster it would take one of its Nodes')",
          label, group.replicas));
      continue;
    }
    found.groups.push_back(std::move(*built));
  }
  return found;
}

}  // namespace scalewright::cloud::clusterapi
