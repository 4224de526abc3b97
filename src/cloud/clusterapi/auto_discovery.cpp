#include "cloud/clusterapi/auto_discovery.h"

#include <fmt/format.h>

#include <optional>

#include "api/ascii.h"
#include "manifest/names.h"

namespace scalewright::cloud::clusterapi {

namespace {

Error spec_error(std::string_view spec, std::string_view why) {
  return Error{fmt::format("--node-group-auto-discovery={}: {}", spec, why)};
}

}  // namespace

Result<AutoDiscoverySpec> parse_auto_discovery_spec(std::string_view spec) {
  std::vector<std::string_view> halves = split(spec, ':');
  if (halves.size() != 2) return spec_error(spec, "want clusterapi:key=value,key=value (exactly one ':')");
  if (halves[0] != "clusterapi") {
    return spec_error(spec, fmt::format("discoverer \"{}\" is not clusterapi", halves[0]));
  }
  AutoDiscoverySpec out;
  for (std::string_view pair : split(halves[1], ',')) {
    if (pair.empty()) continue;  // "clusterapi:" and a trailing comma mean no requirement, as in CA
    std::vector<std::string_view> kv = split(pair, '=');
    if (kv.size() != 2) return spec_error(spec, fmt::format("\"{}\" is not key=value", pair));
    std::string_view key = kv[0], value = kv[1];
    if (key == "namespace") {
      out.namespace_ = value;
    } else if (key == "clusterName") {
      out.cluster_name = value;
    } else {
      // Any other key is a label the object must carry; CA builds a label requirement of it, which checks both.
      if (std::optional<std::string> problem = manifest::qualified_name_problem(key)) {
        return spec_error(spec, fmt::format("label key \"{}\": {}", key, *problem));
      }
      if (std::optional<std::string> problem = manifest::label_value_problem(value)) {
        return spec_error(spec, fmt::format("label value \"{}\" of {}: {}", value, key, *problem));
      }
      out.labels.emplace_back(key, value);
    }
  }
  return out;
}

Result<std::vector<AutoDiscoverySpec>> parse_auto_discovery(const std::vector<std::string>& specs) {
  std::vector<AutoDiscoverySpec> out;
  for (const std::string& spec : specs) {
    Result<AutoDiscoverySpec> parsed = parse_auto_discovery_spec(spec);
    if (!parsed) return parsed.error();
    out.push_back(std::move(*parsed));
  }
  return out;
}

DiscoveredObject discovered_object(const nlohmann::json& object, const CapiKeys& keys) {
  using nlohmann::json;
  DiscoveredObject out;
  const json& metadata = object.value("metadata", json::object());
  out.namespace_ = metadata.value("namespace", "");
  if (metadata.contains("labels") && metadata["labels"].is_object()) {
    for (const auto& [key, value] : metadata["labels"].items()) {
      if (value.is_string()) out.labels.emplace(key, value.get<std::string>());
    }
  }
  const json& spec = object.value("spec", json::object());
  if (spec.contains("clusterName") && spec["clusterName"].is_string()) {
    out.cluster_name = spec["clusterName"].get<std::string>();
  } else if (auto label = out.labels.find(keys.cluster_name); label != out.labels.end()) {
    out.cluster_name = label->second;
  }
  return out;
}

bool matches(const AutoDiscoverySpec& spec, const DiscoveredObject& object) {
  if (!spec.namespace_.empty() && spec.namespace_ != object.namespace_) return false;
  if (!spec.cluster_name.empty() && spec.cluster_name != object.cluster_name) return false;
  for (const auto& [key, value] : spec.labels) {
    auto found = object.labels.find(key);
    if (found == object.labels.end() || found->second != value) return false;
  }
  return true;
}

bool allowed(const std::vector<AutoDiscoverySpec>& specs, const DiscoveredObject& object) {
  if (specs.empty()) return true;
  for (const AutoDiscoverySpec& spec : specs) {
    if (matches(spec, object)) return true;
  }
  return false;
}

std::optional<Error> adopt_autoscaler_options(const nodegroups::AutoscalerOptions& options) {
  if (!options.nodes.empty()) {
    return Error{"--nodes: provider clusterapi finds its node groups by their annotations (cluster.x-k8s.io/"
                 "cluster-api-autoscaler-node-group-{min,max}-size), not by --nodes"};
  }
  Result<std::vector<AutoDiscoverySpec>> specs = parse_auto_discovery(options.auto_discovery);
  if (!specs) return specs.error();
  return std::nullopt;
}

}  // namespace scalewright::cloud::clusterapi
