#pragma once
// Karpenter's NodePool disruption budgets (spec.disruption.budgets): how many of a NodePool's nodes a disruption
// reason may take at once, now. Pure: the NodePool, the node counts and the wall clock come in as values.
#include <chrono>
#include <cstdint>
#include <limits>

#include "api/nodepool.h"

namespace scalewright::disruption {

// No budget applies: as many as there are candidates.
inline constexpr std::int32_t kUnlimited = std::numeric_limits<std::int32_t>::max();

// Without a schedule a budget is always active. With one it is active from each time the schedule fires (UTC) for
// `duration`: at the minute it fires, active; `duration` later, no longer. As Karpenter, it asks whether the first
// firing after (now - duration) comes no later than now.
bool budget_active(const DisruptionBudget& budget, std::chrono::sys_seconds now);

// How many more of the NodePool's nodes may be disrupted for `reason` now: the smallest `nodes` among the active
// budgets that name `reason` or no reason at all, a percentage of `nodes_in_pool` rounded up, less the nodes
// already being disrupted (deleting, draining, NotReady), never below 0. kUnlimited when no budget applies.
std::int32_t allowed_disruptions(const NodePool& pool, DisruptionReason reason, std::int32_t nodes_in_pool,
                                 std::int32_t nodes_disrupting, std::chrono::sys_seconds now);

}  // namespace scalewright::disruption
