#pragma once
// A provider's node class (karpenter.k8s.aws EC2NodeClass, ...) as the engine sees it: the object a NodePool's
// nodeClassRef names, and what it makes of the nodes launched under it. Each provider decodes its own kind in its
// folder (src/cloud/aws/ for EC2NodeClass); the simulator and the controllers see only this.
#include <memory>

#include "api/meta.h"
#include "api/nodepool.h"
#include "cloud/catalog.h"

namespace scalewright::cloud {

class NodeClass {
 public:
  virtual ~NodeClass() = default;
  // Its group, kind and name, as a nodeClassRef names it.
  virtual NodeClassReference reference() const = 0;
  // The catalog's instance types as nodes of this class come up (Karpenter's GetInstanceTypes for a NodePool
  // naming it): capacity, overhead, allocatable and labels as the provider computes them with the class's settings,
  // offerings unchanged; types the class cannot run are left out.
  virtual Catalog shape(const Catalog& catalog) const = 0;
};

using NodeClassPtr = std::shared_ptr<const NodeClass>;

}  // namespace scalewright::cloud
