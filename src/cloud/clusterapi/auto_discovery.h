#pragma once
// --node-group-auto-discovery=clusterapi:namespace=NS,clusterName=NAME,KEY=VALUE...: which of Cluster API's scalable
// objects become node groups, as Cluster Autoscaler's clusterapi provider reads the flag. Specs are ORed; inside one
// spec every given key must match (the namespace, the cluster name, and each other key as a label equal to its value).
// No spec: every object.
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/result.h"
#include "cloud/clusterapi/capi_keys.h"
#include "nodegroups/options.h"

namespace scalewright::cloud::clusterapi {

struct AutoDiscoverySpec {
  std::string namespace_;                                   // empty: any namespace
  std::string cluster_name;                                 // empty: any cluster
  std::vector<std::pair<std::string, std::string>> labels;  // each must be on the object with this value
};

// One flag value. Errors name the flag and the part at fault: a discoverer other than `clusterapi`, no `:`, a pair
// that is not key=value, a label key or value the API server would refuse.
Result<AutoDiscoverySpec> parse_auto_discovery_spec(std::string_view spec);
// Every value of the (repeatable) flag; the first bad one is the error.
Result<std::vector<AutoDiscoverySpec>> parse_auto_discovery(const std::vector<std::string>& specs);

// The facts of one scalable object that the specs look at.
struct DiscoveredObject {
  std::string namespace_;
  std::string cluster_name;  // spec.clusterName, else its <group>/cluster-name label
  std::map<std::string, std::string> labels;
};
// Those facts of one listed (or written) object: its cluster name from spec.clusterName, else the
// <group>/cluster-name label.
DiscoveredObject discovered_object(const nlohmann::json& object, const CapiKeys& keys);
bool matches(const AutoDiscoverySpec& spec, const DiscoveredObject& object);
// True when `specs` is empty or any spec matches.
bool allowed(const std::vector<AutoDiscoverySpec>& specs, const DiscoveredObject& object);

// What CA's clusterapi provider makes of its flags: its groups are found by their annotations, so --nodes is refused
// (with why); every --node-group-auto-discovery spec must be `clusterapi:...` (the error names the spec).
std::optional<Error> adopt_autoscaler_options(const nodegroups::AutoscalerOptions& options);

}  // namespace scalewright::cloud::clusterapi
