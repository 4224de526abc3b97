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

// The karpenter.sh/nodepool-hash-version stamped beside our hash. Not Karpenter's ("v3"): our hash is not
// hashstructure's, and a NodeClaim stamped by Karpenter itself must be skipped, not found drifted.
inline constexpr std::string_view kNodePoolHashVersion = "scalewright-v1";

// The hash of what a NodeClaim takes from its NodePool's template, 16 hex digits, the same on every run and machine
// (FNV-1a 64 over a canonical text). Karpenter v1 hashes spec.template except its requirements: the labels and
// annotations, taints and startupTaints as sets (order does not matter), nodeClassRef, expireAfter and
// terminationGracePeriod (its drift tests change each of the last three and expect drift). Weight, limits and
// spec.disruption are behaviour, not the node, and are left out.
std::string nodepool_hash(const NodePool& pool);

// Whether a NodeClaim of `pool` has drifted, and why. NodePoolDrifted when its stamped hash differs from the pool's
// hash now; a NodeClaim without the annotation (empty `stamped_hash`) or stamped at another hash version is skipped
// there, as Karpenter does. Then RequirementsDrifted when its labels do not satisfy spec.template.spec.requirements:
// a key the node lacks is fine for NotIn and DoesNotExist only; a value it has must be one the requirement allows.
std::optional<DriftReason> drifted(const NodePool& pool, std::string_view stamped_hash, const Labels& node_labels,
                                   std::string_view stamped_hash_version = kNodePoolHashVersion);

}  // namespace scalewright::disruption
