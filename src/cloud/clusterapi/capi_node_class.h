#pragma once
// karpenter-provider-cluster-api's node class, ClusterAPINodeClass (karpenter.cluster.x-k8s.io/v1alpha1,
// cluster-scoped): a NodePool's nodeClassRef names one, and its spec.scalableResourceSelector picks the
// MachineDeployments whose Machines the NodePool's nodes are. Each MachineDeployment it selects is one instance type
// (capi_node_pools.h). Decoded with the manifest decoder's Field, so a bad file names the object and the field.
#include <memory>
#include <string_view>

#include "api/labels.h"
#include "api/meta.h"
#include "api/result.h"
#include "cloud/node_class.h"
#include "manifest/kind_registry.h"

namespace scalewright::cloud::clusterapi {

inline constexpr std::string_view kNodeClassGroup = "karpenter.cluster.x-k8s.io";
inline constexpr std::string_view kNodeClassKind = "ClusterAPINodeClass";
inline constexpr std::string_view kNodeClassesPath = "/apis/karpenter.cluster.x-k8s.io/v1alpha1/clusterapinodeclasses";

class ClusterApiNodeClass final : public NodeClass {
 public:
  ClusterApiNodeClass(ObjectMeta meta, LabelSelector selector) : meta_(std::move(meta)), selector_(std::move(selector)) {}
  NodeClassReference reference() const override {
    return {std::string(kNodeClassGroup), std::string(kNodeClassKind), meta_.name};
  }
  // Its types are the MachineDeployments it selects, which only the running provider reads: the catalog given is
  // not its to shape, and nothing of it is offered.
  Catalog shape(const Catalog& catalog) const override;

  const ObjectMeta& meta() const { return meta_; }
  // spec.scalableResourceSelector: an empty selector selects every MachineDeployment in scope.
  const LabelSelector& selector() const { return selector_; }

 private:
  ObjectMeta meta_;
  LabelSelector selector_;
};

// The built-in kinds and ClusterAPINodeClass: what the provider decodes its node classes with.
const manifest::KindRegistry& kinds_with_node_class();

// One ClusterAPINodeClass as the API server returned it (status and server-side metadata are not read); the error
// names the object and the field at fault.
Result<std::shared_ptr<const ClusterApiNodeClass>> decode_node_class(const nlohmann::json& object);

}  // namespace scalewright::cloud::clusterapi
