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

bool is_long_terminating(const Pod& pod, Instant now) {
  if (!pod.meta.deletion_timestamp) return false;
  constexpr std::int64_t kExtraSeconds = 30;  // upstream's PodLongTerminatingExtraThreshold
  const std::int64_t grace = pod.spec.termination_grace_period_seconds.value_or(kDefaultTerminationGracePeriodSeconds);
  return Instant(Duration((*pod.meta.deletion_timestamp + grace + kExtraSeconds) * 1000)) < now;
}

DrainPlan plan_drain(const std::vector<std::shared_ptr<const Pod>>& pods, const std::vector<PdbBudget>& pdbs,
                     const DrainOptions& options, Instant now) {
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

}  // namespace scalewright::nodegroups
