#include "eviction/eviction.h"

#include <algorithm>

namespace scalewright::eviction {

namespace {

// The pods the eviction subresource deletes without looking at a budget: finished, being deleted, or Pending. A
// bound pod still Pending without a Ready condition is a simulated one (the simulator reports no kubelet status),
// and runs as far as we know; `scalewright run` keeps each pod's phase and conditions as the kubelet reports them.
bool evicted_without_budget(const Pod& pod) {
  if (pod.is_terminal() || pod.meta.deletion_timestamp) return true;
  if (pod.status.phase != PodPhase::Pending) return false;
  return !pod.is_bound() || std::any_of(pod.status.conditions.begin(), pod.status.conditions.end(),
                                        [](const PodCondition& c) { return c.type == "Ready"; });
}

}  // namespace

bool pod_is_healthy(const Pod& pod) {
  if (pod.is_terminal() || pod.meta.deletion_timestamp) return false;
  for (const PodCondition& condition : pod.status.conditions) {
    if (condition.type == "Ready") return condition.status == "True";
  }
  // No Ready condition reported: a simulated pod, healthy once it runs somewhere.
  return pod.is_bound() || pod.status.phase == PodPhase::Running;
}

PdbBudget pdb_budget(const PodDisruptionBudget& pdb, const std::vector<const Pod*>& pods) {
  PdbBudget budget;
  budget.pdb = pdb;
  std::int32_t expected = 0;
  for (const Pod* pod : pods) {
    // A pod being deleted has left its controller's count (its replacement takes its place there).
    if (!pdb.selects(*pod) || pod->is_terminal() || pod->meta.deletion_timestamp) continue;
    ++expected;
    if (pod_is_healthy(*pod)) ++budget.current_healthy;
  }
  if (pdb.max_unavailable) {
    budget.desired_healthy = std::max(0, expected - pdb.max_unavailable->scaled(expected, /*round_up=*/true));
  } else if (pdb.min_available) {
    budget.desired_healthy = pdb.min_available->scaled(expected, /*round_up=*/true);
  }
  budget.disruptions_allowed = std::max(0, budget.current_healthy - budget.desired_healthy);
  return budget;
}

EvictionVerdict may_evict(const Pod& pod, const std::vector<PdbBudget>& budgets) {
  EvictionVerdict verdict;
  if (evicted_without_budget(pod)) return verdict;
  for (std::size_t i = 0; i < budgets.size(); ++i) {
    if (!budgets[i].pdb.selects(pod)) continue;
    if (verdict.budget) {
      verdict.budget.reset();
      verdict.outcome = EvictionOutcome::MoreThanOneBudget;
      return verdict;
    }
    verdict.budget = i;
  }
  if (!verdict.budget) return verdict;
  const PdbBudget& budget = budgets[*verdict.budget];
  if (!pod_is_healthy(pod)) {
    // Evicting a pod that does not count as healthy takes nothing from the budget's healthy pods.
    if (budget.pdb.unhealthy_pod_eviction_policy == UnhealthyPodEvictionPolicy::AlwaysAllow) return verdict;
    if (budget.desired_healthy > 0 && budget.current_healthy >= budget.desired_healthy) return verdict;
  }
  verdict.spends = true;
  if (budget.disruptions_allowed < 1) verdict.outcome = EvictionOutcome::RefusedByBudget;
  return verdict;
}

std::vector<PdbBudget> pdb_budgets(const scheduling::ClusterSnapshot& snapshot, const std::vector<PodDisruptionBudget>& pdbs,
                                   const std::vector<std::shared_ptr<const Pod>>& pending_pods) {
  std::vector<PdbBudget> budgets;
  if (pdbs.empty()) return budgets;
  std::vector<const Pod*> pods;
  pods.reserve(snapshot.pod_count() + pending_pods.size());
  for (const scheduling::NodeInfo& node : snapshot.nodes()) {
    if (node.removed) continue;
    for (const auto& placed : node.pods) pods.push_back(placed.pod.get());
  }
  for (const auto& pod : pending_pods) pods.push_back(pod.get());
  budgets.reserve(pdbs.size());
  for (const PodDisruptionBudget& pdb : pdbs) budgets.push_back(pdb_budget(pdb, pods));
  return budgets;
}

bool is_mirror_pod(const Pod& pod) {
  return pod.meta.annotations.count(std::string(kMirrorPodAnnotation)) > 0;
}

std::vector<std::shared_ptr<const Pod>> eviction_order(std::vector<std::shared_ptr<const Pod>> pods) {
  std::stable_sort(pods.begin(), pods.end(),
                   [](const auto& a, const auto& b) { return a->priority() < b->priority(); });
  return pods;
}

std::int64_t eviction_grace_period_seconds(const Pod& pod, std::int64_t max_graceful_termination_seconds) {
  return std::min(pod.spec.termination_grace_period_seconds.value_or(kDefaultTerminationGracePeriodSeconds),
                  max_graceful_termination_seconds);
}

}  // namespace scalewright::eviction
