#pragma once
// Reading the manifests users already `kubectl apply`: multi-document YAML or JSON, List objects, one file or
// many. A file is decoded whole or not at all: the first invalid object rejects the file with its name, the
// document number, kind/name and the field path.
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/autoscaling.h"
#include "api/node.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/result.h"
#include "api/scenario.h"
#include "api/workloads.h"
#include "cloud/node_class.h"

namespace scalewright {

namespace cloud::clusterapi {
struct ScalableObject;
}  // namespace cloud::clusterapi

// Cluster Autoscaler's own Deployment, as users run it: Scalewright takes its place with the flags of its
// container (command and args, in that order).
struct ClusterAutoscalerDeployment {
  ObjectMeta meta;
  std::string container;
  std::vector<std::string> flags;
};

// Where an object came from, for messages: "web.yaml doc 3 Deployment/web", and the path of the object inside
// its document ("" or "items[2]").
struct ObjectOrigin {
  std::string context;
  std::string path;

  // "web.yaml doc 3 Deployment/web: spec.replicas" (".. items[2].spec.replicas" inside a List).
  std::string at(std::string_view field) const;
};

struct ManifestSet {
  std::vector<Node> nodes;
  std::vector<Pod> pods;
  std::vector<Workload> workloads;
  std::vector<PodDisruptionBudget> pod_disruption_budgets;
  std::vector<PriorityClass> priority_classes;
  std::vector<Namespace> namespaces;
  std::vector<ConfigMap> config_maps;
  std::vector<NodePool> nodepools;  // NodePools and v1alpha5 Provisioners
  std::vector<Scenario> scenarios;
  std::vector<HorizontalPodAutoscaler> horizontal_pod_autoscalers;  // autoscaling/v2, v2beta2 and v1 (converted)
  std::vector<ScaledObject> scaled_objects;                          // keda.sh/v1alpha1
  // Deployments that run Cluster Autoscaler: not workloads (their pod is not simulated), but its configuration.
  std::vector<ClusterAutoscalerDeployment> cluster_autoscaler_deployments;
  // Providers' node classes (karpenter.k8s.aws EC2NodeClass), decoded by their provider (src/cloud/PROVIDER/).
  std::vector<cloud::NodeClassPtr> node_classes;
  // Cluster API's MachineDeployments, MachineSets and MachinePools (cluster.x-k8s.io), decoded by their provider
  // (src/cloud/clusterapi/scalable_manifest.h) as Cluster Autoscaler's clusterapi provider reads them.
  std::vector<std::shared_ptr<const cloud::clusterapi::ScalableObject>> cluster_api_objects;
  // "web.yaml doc 3: skipped unknown kind ConfigMap (v1)"; a kind decoder's own warnings get the same prefix and
  // the object: "so.yaml doc 1 ScaledObject/queue: spec.triggers[0]: trigger type kafka is not simulated"
  std::vector<std::string> warnings;
  // Where each decoded object was read, by kind, namespace and name (see object_key), for errors found after
  // decoding: references between objects, checks against the cloud's catalog. An object given twice is refused
  // when it is read (by the manifest decoder within a file, by load_manifest_files across files).
  std::map<std::string, ObjectOrigin, std::less<>> origins;

  void append(ManifestSet&& other);
  // "<file> doc <n> <Kind>/<name>: <field>", or "<kind>/<name>: <field>" for an object of unknown origin.
  std::string locate(std::string_view kind, const ObjectMeta& meta, std::string_view field) const;
};

// What a manifest file may be; beyond either limit it is refused with the limit in the message (README.md,
// "Limits"). 256 MiB is five times the 50 MB of issue [5] (156,101 Deployments), far beyond the 3 MiB the API
// server takes in one request. 1,000 levels of nesting is 10 times below the 10,000 of Kubernetes' own JSON
// decoding (k8s.io/apimachinery/pkg/util/json, maxDepth) and some 20 times deeper than the deepest real
// manifests (CRDs with a pod template in their schema, about 30-50 levels).
struct ManifestLimits {
  std::uintmax_t max_bytes = 256 * 1024 * 1024;
  int max_depth = 1000;
};

// kubectl's --validate: what a field the kind does not have (`consolidateAftr`), or a key given twice in one
// mapping, makes of the object. Strict (kubectl's default, "true"): an error naming its path; Warn: a warning line;
// Ignore ("false"): nothing, the field dropped and the last of two keys taken, as the API server's decoding does.
enum class FieldValidation { Strict, Warn, Ignore };
// "strict", "true", "warn", "ignore", "false", as kubectl spells them; nullopt for anything else.
std::optional<FieldValidation> parse_field_validation(std::string_view text);

namespace manifest {
// The whole of a file the commands read as text: a manifest file, or a file a manifest names (a load step's CSV).
// Refused unread when over `limits.max_bytes`, or once it has given more (a pipe has no size), in the words of a
// manifest file that is too large ("... for a <noun>"); with `regular_only`, a device, pipe or socket too (a CSV
// file: /dev/zero would be read without end). The error starts with the path.
Result<std::string> read_input_file(const std::filesystem::path& path, const ManifestLimits& limits,
                                    std::string_view noun, bool regular_only);
}  // namespace manifest

// Decodes every document of `text`. `source` is the name used in messages (a file name).
Result<ManifestSet> decode_manifests(std::string_view text, std::string_view source,
                                     const ManifestLimits& limits = {},
                                     FieldValidation validation = FieldValidation::Strict);
// The objects of a Scenario's apply step, decoded again from TimelineStep::apply_source: their fields were checked
// when the scenario loaded, under its --validate, so they are not checked again.
Result<ManifestSet> decode_applied(const std::string& apply_source, std::string_view source);
Result<ManifestSet> load_manifest_file(const std::filesystem::path& path, const ManifestLimits& limits = {},
                                       FieldValidation validation = FieldValidation::Strict);
// The manifest files of a directory, as `kubectl apply -f DIR` reads them: its *.yaml, *.yml and *.json files,
// sorted by name, subdirectories left alone. No such file is an error naming the directory.
Result<std::vector<std::filesystem::path>> manifest_files_in(const std::filesystem::path& directory);
// Loads the files in order (a directory stands for manifest_files_in(it)); then resolves what spans files (pod
// priority from PriorityClass names).
Result<ManifestSet> load_manifest_files(const std::vector<std::string>& paths,
                                        FieldValidation validation = FieldValidation::Strict);

}  // namespace scalewright
