#include "nodegroups/drainability.h"

#include <algorithm>

namespace scalewright::nodegroups {

namespace {


std::string annotation(const ObjectMeta& meta, std::string_view key) {
  auto it = meta.annotations.find(std::string(key));
  return it == meta.annotations.end() ? std::string() : it->second;
}

// The controllers Cluster Autoscaler knows how to recreate pods for (its listers cover exactly these kinds).
bool is_known_replicating_kind(const std::string& kind) {
  return kind == "ReplicationController" || kind == "ReplicaSet" || kind == "Job" || kind == "StatefulSet";
}

BlockingPod blocking(const Pod& pod, BlockingPodReason reason, std::string message) {
  return BlockingPod{pod.meta.key(), reason, std::move(message)};
}

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

std::string_view to_string(BlockingPodReason reason) {
  switch (reason) {
    case BlockingPodReason::NoReason: return "NoReason";
    case BlockingPodReason::ControllerNotFound: return "ControllerNotFound";
    case BlockingPodReason::MinReplicasReached: return "MinReplicasReached";
    case BlockingPodReason::NotReplicated: return "NotReplicated";
    case BlockingPodReason::LocalStorageRequested: return "LocalStorageRequested";
    case BlockingPodReason::NotSafeToEvictAnnotation: return "NotSafeToEvictAnnotation";
    case BlockingPodReason::UnmovableKubeSystemPod: return "UnmovableKubeSystemPod";
    case BlockingPodReason::NotEnoughPdb: return "NotEnoughPdb";
    case BlockingPodReason::UnexpectedError: return "UnexpectedError";
  }
  return "UnexpectedError";
}

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

bool is_mirror_pod(const Pod& pod) {
  return pod.meta.annotations.count(std::string(kMirrorPodAnnotation)) > 0;
}

bool has_local_storage(const Pod& pod) {
  // Volumes the owner declared safe to lose, comma-separated.
  std::string allowed = "," + annotation(pod.meta, kSafeToEvictLocalVolumesAnnotation) + ",";
  for (const Volume& volume : pod.spec.volumes) {
    if (volume.source != Volume::Source::EmptyDir && volume.source != Volume::Source::HostPath) continue;
    if (allowed.find("," + volume.name + ",") == std::string::npos) return true;
  }
  return false;
}

bool scale_down_disabled(const Node& node) { return annotation(node.meta, kScaleDownDisabledAnnotation) == "true"; }

bool is_long_terminating(const Pod& pod, Duration now) {
  if (!pod.meta.deletion_timestamp) return false;
  constexpr std::int64_t kExtraSeconds = 30;  // upstream's PodLongTerminatingExtraThreshold
  const std::int64_t grace = pod.spec.termination_grace_period_seconds.value_or(kDefaultTerminationGracePeriodSeconds);
  return Duration((*pod.meta.deletion_timestamp + grace + kExtraSeconds) * 1000) < now;
}

DrainPlan plan_drain(const std::vector<std::shared_ptr<const Pod>>& pods, const std::vector<PdbBudget>& pdbs,
                     const DrainOptions& options, Duration now) {
  DrainPlan plan;
  for (const auto& pod_ptr : pods) {
    const Pod& pod = *pod_ptr;
    if (is_mirror_pod(pod) || pod.is_terminal() || is_long_terminating(pod, now)) continue;
    if (pod.is_daemonset_pod()) {
      plan.daemonset_pods.push_back(pod_ptr);
      continue;
    }
    const std::string key = pod.meta.key();
    const std::string safe_to_evict = annotation(pod.meta, kSafeToEvictAnnotation);
    if (safe_to_evict != "true") {
      const OwnerReference* owner = pod.meta.controller();
      bool replicated = owner != nullptr &&
                        (is_known_replicating_kind(owner->kind) || !options.skip_nodes_with_custom_controller_pods);
      if (!replicated) {
        plan.blocking = blocking(pod, BlockingPodReason::NotReplicated, key + " is not replicated");
        return plan;
      }
      if (options.skip_nodes_with_system_pods && pod.meta.namespace_ == kSystemNamespace &&
          std::none_of(pdbs.begin(), pdbs.end(), [&](const PdbBudget& b) { return b.pdb.selects(pod); })) {
        plan.blocking = blocking(pod, BlockingPodReason::UnmovableKubeSystemPod,
                                 "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: " + key);
        return plan;
      }
      if (options.skip_nodes_with_local_storage && has_local_storage(pod)) {
        plan.blocking =
            blocking(pod, BlockingPodReason::LocalStorageRequested, "pod with local storage present: " + key);
        return plan;
      }
      if (safe_to_evict == "false") {
        plan.blocking = blocking(pod, BlockingPodReason::NotSafeToEvictAnnotation,
                                 "pod annotated as not safe to evict present: " + key);
        return plan;
      }
    }
    plan.pods_to_move.push_back(pod_ptr);
  }
  // Each pod must be one the eviction subresource would evict now. A budget need not allow one disruption per pod:
  // the drain evicts them in turn, each eviction waiting for the budget that the one before it spent to come back
  // (upstream's PDB rule; its tracker only marks such a node as not drainable in parallel).
  for (const auto& pod : plan.pods_to_move) {
    const EvictionVerdict verdict = may_evict(*pod, pdbs);
    if (verdict.outcome == EvictionOutcome::RefusedByBudget) {
      plan.blocking = blocking(*pod, BlockingPodReason::NotEnoughPdb,
                               "not enough pod disruption budget to move " + pod->meta.key());
      return plan;
    }
    if (verdict.outcome == EvictionOutcome::MoreThanOneBudget) {
      plan.blocking = blocking(*pod, BlockingPodReason::NotEnoughPdb,
                               "more than one pod disruption budget covers " + pod->meta.key() +
                                   ", which the eviction subresource does not support");
      return plan;
    }
  }
  return plan;
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

}  // namespace scalewright::nodegroups
