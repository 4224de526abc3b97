#pragma once
// Karpenter's drift of a NodeClaim from its NodePool. Static drift: the NodeClaim carries the hash of the NodePool's
// template it was made from (annotation karpenter.sh/nodepool-hash), and a NodePool whose template hashes otherwise
// now has drifted from it. Requirements drift: the node's labels no longer satisfy the NodePool's requirements, which
// are not in the hash because widening them must not replace every node.
#include <optional>
#include <string>
#include <string_view>

#include "api/labels.h"
#include "api/nodepool.h"

namespace scalewright::disruption {

// The Drifted condition's reasons, in Karpenter's words.
enum class DriftReason { NodePoolDrifted, RequirementsDrifted };
std::string_view to_string(DriftReason reason);

// Whether a NodeClaim of `pool` has drifted, and why. NodePoolDrifted when its stamped hash differs from the pool's
// hash now (NodePool::hash()); a NodeClaim without the annotation (empty `stamped_hash`) or stamped at another hash version is skipped
// there, as Karpenter does. Then RequirementsDrifted when its labels do not satisfy spec.template.spec.requirements:
// a key the node lacks is fine for NotIn and DoesNotExist only; a value it has must be one the requirement allows.
std::optional<DriftReason> drifted(const NodePool& pool, std::string_view stamped_hash, const Labels& node_labels,
                                   std::string_view stamped_hash_version = kNodePoolHashVersion);

}  // namespace scalewright::disruption
