#include "api/nodepool.h"

namespace scalewright {

RequirementSet NodePool::requirement_set() const {
  RequirementSet out = RequirementSet::from_labels(template_labels);
  for (const NodePoolRequirement& r : requirements) out.add(r.requirement);
  out.add(std::string(karpenter_labels::nodepool), ValueSet::of({meta.name}));
  return out;
}

}  // namespace scalewright
