#include "api/nodepool.h"

namespace scalewright {

std::string_view to_string(DisruptionReason reason) {
  switch (reason) {
    case DisruptionReason::Empty: return "Empty";
    case DisruptionReason::Drifted: return "Drifted";
    case DisruptionReason::Underutilized: return "Underutilized";
  }
  return "Empty";
}

std::optional<DisruptionReason> parse_disruption_reason(std::string_view text) {
  for (DisruptionReason r : {DisruptionReason::Empty, DisruptionReason::Drifted, DisruptionReason::Underutilized}) {
    if (text == to_string(r)) return r;
  }
  return std::nullopt;
}

ResourceList limit_usage(const ResourceList& capacity) {
  ResourceList usage = capacity;
  usage.add(nodes_resource(), 1);
  return usage;
}

RequirementSet NodePool::requirement_set() const {
  RequirementSet out = RequirementSet::from_labels(template_labels);
  for (const NodePoolRequirement& r : requirements) out.add(r.requirement);
  out.add(std::string(karpenter_labels::nodepool), ValueSet::of({meta.name}));
  return out;
}

}  // namespace scalewright
