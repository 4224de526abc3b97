#pragma once
// Which kinds the manifest decoder understands: a table from API group and kind to the function that decodes
// the object into a ManifestSet. A new kind is one decode function and one add() call.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api/result.h"
#include "manifest/field.h"
#include "manifest/manifest.h"

namespace scalewright::manifest {

// Where the object being decoded comes from.
struct DecodeContext {
  // The folder of the file holding the object: paths inside it (a Scenario's load `csv:` file) are relative to it.
  std::filesystem::path directory;
  // The limits the file is read under: a file it names is capped as the file itself is.
  ManifestLimits limits;
  // How unknown fields are treated (--validate): objects the object holds (a Scenario's apply steps) alike.
  FieldValidation validation = FieldValidation::Strict;
};

// Decodes `object` (the document's root, or one item of a List) and appends the result to `out`. Reports an
// invalid field by throwing FieldError, usually through Field's readers. Warnings it appends to out.warnings are
// prefixed with the file, document and object by the manifest decoder.
using KindDecoder = std::function<void(const Field& object, const DecodeContext& context, ManifestSet& out)>;

struct KindEntry {
  std::string group;                  // "" for the core group ("v1"), "apps", "policy", "karpenter.sh"
  std::string kind;                   // "Deployment"
  std::vector<std::string> versions;  // the versions accepted, e.g. {"v1", "v1beta1"}
  KindDecoder decode;
};

class KindRegistry {
 public:
  // Adds a kind, replacing an entry for the same group and kind.
  void add(KindEntry entry);
  const KindEntry* find(std::string_view group, std::string_view kind) const;

  // Node, Pod, Namespace (v1); Deployment, ReplicaSet, StatefulSet, DaemonSet (apps/v1); Job (batch/v1);
  // PodDisruptionBudget (policy/v1, policy/v1beta1); PriorityClass (scheduling.k8s.io/v1); HorizontalPodAutoscaler
  // (autoscaling/v2, v2beta2, v1); ScaledObject (keda.sh/v1alpha1); MachineDeployment, MachineSet, MachinePool
  // (cluster.x-k8s.io/v1beta2, v1beta1).
  static const KindRegistry& builtin();

 private:
  std::vector<KindEntry> entries_;
};

// decode_manifests with a registry of one's own (the built-in kinds plus others, for example).
Result<ManifestSet> decode_manifests(std::string_view text, std::string_view source, const KindRegistry& kinds,
                                     const ManifestLimits& limits = {},
                                     FieldValidation validation = FieldValidation::Strict);

}  // namespace scalewright::manifest
