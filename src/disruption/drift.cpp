#include "disruption/drift.h"

#include "api/requirements.h"

namespace scalewright::disruption {

std::string_view to_string(DriftReason reason) {
  switch (reason) {
    case DriftReason::NodePoolDrifted: return "NodePoolDrifted";
    case DriftReason::RequirementsDrifted: return "RequirementsDrifted";
  }
  return "NodePoolDrifted";
}

std::optional<DriftReason> drifted(const NodePool& pool, std::string_view stamped_hash, const Labels& node_labels,
                                   std::string_view stamped_hash_version) {
  if (!stamped_hash.empty() && stamped_hash_version == kNodePoolHashVersion && stamped_hash != pool.hash()) {
    return DriftReason::NodePoolDrifted;
  }
  // The requirements only, as Karpenter: the template labels are in the hash, and a NodeClaim without a stamped hash
  // is not found drifted by a label change.
  RequirementSet required;
  for (const NodePoolRequirement& r : pool.requirements) required.add(r.requirement);
  for (const auto& [key, values] : required.keys()) {
    const Symbol* value = node_labels.find(Symbol(key));
    if (value != nullptr ? !values.allows(value->string()) : !values.allows_absent()) {
      return DriftReason::RequirementsDrifted;
    }
  }
  return std::nullopt;
}

}  // namespace scalewright::disruption
