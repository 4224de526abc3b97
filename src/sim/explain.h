#pragma once
// `scalewright explain`: why, for one object of a run, in words and numbers. It reads a run's report as
// `simulate --output` writes it (or `simulate --explain` hands over the run just made): the Events the controllers
// recorded on the object (the same messages `scalewright run` records as Kubernetes Events), where a pod waited and
// ran, the NodeClaim a pod waited for, and the timeline lines that name the object.
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "api/result.h"

namespace scalewright::sim {

// An object as a user names it, kubectl-style: "pod/web-1" (namespace default), "pod/shop/web-1",
// "node/default-52cfd", "nodeclaim/...", "nodepool/default", "hpa/php-apache", "scaledobject/podinfo".
struct ObjectRef {
  std::string kind;  // as Kubernetes names it: "Pod", "Node", "NodeClaim", "NodePool", "HorizontalPodAutoscaler",
                     // "ScaledObject"
  std::string name;  // "namespace/name" for namespaced kinds
  bool namespaced() const;
  std::string to_string() const { return kind + " " + name; }
};

Result<ObjectRef> parse_object_ref(std::string_view text);

// An error unless `report` is one run's JSON report or a --compare run's array of them.
std::optional<Error> check_report(const nlohmann::json& report);

// Writes why, for `object`, from `report` (one run's JSON report, or the array of a --compare run's, each headed
// by its scenario). nullopt when done; an error when the report has no such object, saying which ones of that kind
// it has.
std::optional<Error> explain(const nlohmann::json& report, const ObjectRef& object, std::ostream& out);

}  // namespace scalewright::sim
