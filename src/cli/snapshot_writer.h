#pragma once
// What `scalewright snapshot` writes, apart from how it lists it: the objects a live cluster holds, cleaned as for
// re-applying them, kept only where the simulator reads them, as multi-document YAML ending in a Scenario. No I/O:
// the command feeds it what the API server lists and writes out what it returns.
#include <array>
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cloud/catalog.h"
#include "manifest/manifest.h"

namespace scalewright::cli {

// The kinds a snapshot holds, in the order it writes them: what others refer to first, as `kubectl apply` needs them.
inline constexpr std::array<std::string_view, 14> kSnapshotKinds = {
    "Namespace", "PriorityClass", "NodePool",  "Node", "ConfigMap",           "Deployment",
    "ReplicaSet", "StatefulSet",  "DaemonSet", "Job",  "Pod",                 "PodDisruptionBudget",
    "HorizontalPodAutoscaler",    "ScaledObject"};

// The Scenario document that ends a snapshot.
struct SnapshotScenario {
  std::string name = "snapshot";
  std::string duration = "1h";  // as the user wrote it: a valid duration
  std::string region = "us-east-1";
};

// One object, kept as `kubectl get -o yaml` shows it but without what the server set on it: no resourceVersion,
// uid, creationTimestamp, generation, selfLink, managedFields, kubectl's last-applied-configuration, owner
// references' uid; no status except a Node's capacity, allocatable and Ready condition (what the simulator reads).
// apiVersion and kind are set (a list's items carry neither).
nlohmann::json clean_object(nlohmann::json object, std::string_view api_version, std::string_view kind);

// One document of YAML for a JSON value: strings that would read back as something else ("8", "true", "1h",
// "null", "") quoted, so that the manifest decoder reads exactly the JSON the API server sent.
std::string to_yaml(const nlohmann::json& value);

class SnapshotWriter {
 public:
  // NodePools are checked against `catalog` as `simulate` checks them (null: not checked).
  explicit SnapshotWriter(const cloud::Catalog* catalog) : catalog_(catalog) {}

  // Adds one object as a list delivers it. Objects the simulator makes itself are left out and counted
  // (DaemonSet pods, a Deployment's ReplicaSets, KEDA's HPAs, finished pods and Jobs); so is anything that does not
  // decode as `simulate` decodes it, or refers to something left out, with a warning naming it and why.
  // PriorityClasses go before the pods and workloads that name them, workloads before their autoscalers.
  void add(std::string_view api_version, std::string_view kind, nlohmann::json object);

  // The YAML: the comment `header` (lines without "# "), every object kept (Namespaces, PriorityClasses, NodePools,
  // Nodes, ConfigMaps, workloads, Pods, PDBs, autoscalers), and the Scenario.
  std::string finish(const std::vector<std::string>& header, const SnapshotScenario& scenario) const;

  // "Pod default/web-1 left out: spec.containers[0]...: ...", in the order met.
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Objects written, by kind ("Pod": 12).
  const std::map<std::string, std::size_t, std::less<>>& written() const { return written_; }
  // What was left out on purpose, by why ("DaemonSet pods (the simulator places one on every node)": 3).
  const std::map<std::string, std::size_t, std::less<>>& omitted() const { return omitted_; }

 private:
  // Why `kind` `object` is not written, or "" when it is; a reason of the simulator's own goes to omitted_.
  std::string skip_reason(std::string_view kind, const nlohmann::json& object) const;
  // Why the decoded object cannot run in the simulator, or "".
  std::string problem(std::string_view kind, ManifestSet& decoded);
  void keep(std::string_view kind, std::string yaml, const ManifestSet& decoded);

  const cloud::Catalog* catalog_;
  std::map<std::string, std::vector<std::string>, std::less<>> documents_;  // by kind
  // What later objects are checked against: PriorityClasses, and workloads by kind, namespace and name only.
  ManifestSet kept_;
  std::vector<std::string> warnings_;
  std::map<std::string, std::size_t, std::less<>> written_;
  std::map<std::string, std::size_t, std::less<>> omitted_;
};

}  // namespace scalewright::cli
