#include "disruption/budgets.h"

#include <algorithm>
#include <optional>

namespace scalewright::disruption {

bool budget_active(const DisruptionBudget& budget, std::chrono::sys_seconds now) {
  if (!budget.window) return true;
  const auto since = now - std::chrono::duration_cast<std::chrono::seconds>(budget.window->duration);
  // next() is the first whole minute strictly after `since`: a firing exactly `duration` ago has ended.
  const std::optional<std::chrono::sys_seconds> fires = budget.window->schedule.next(since, std::chrono::seconds(0));
  // A schedule that never fires ("0 0 30 2 *"): robfig/cron answers the zero time, which Karpenter's check reads as
  // not after now, so the budget is always active. Kept, so that such a NodePool behaves here as it does there.
  if (!fires) return true;
  return *fires <= now;
}

std::int32_t allowed_disruptions(const NodePool& pool, DisruptionReason reason, std::int32_t nodes_in_pool,
                                 std::int32_t nodes_disrupting, std::chrono::sys_seconds now) {
  std::int32_t allowed = kUnlimited;
  for (const DisruptionBudget& budget : pool.budgets) {
    const auto& named = budget.reasons;
    const bool applies = named.empty() || std::find(named.begin(), named.end(), to_string(reason)) != named.end();
    if (!applies || !budget_active(budget, now)) continue;
    // Rounded up, as Kubernetes' maxUnavailable: "10%" of 5 nodes lets one go rather than none.
    allowed = std::min(allowed, budget.nodes.scaled(nodes_in_pool, /*round_up=*/true));
  }
  if (allowed == kUnlimited) return kUnlimited;
  return std::max(allowed - nodes_disrupting, 0);
}

}  // namespace scalewright::disruption
