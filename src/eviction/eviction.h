#pragma once
// The eviction subresource's rules, shared by both node models (Karpenter's termination and consolidation, Cluster
// Autoscaler's drain and scale-down): a PodDisruptionBudget's status as kube-controller-manager's disruption
// controller computes it, whether the API server evicts a pod now, in which order and with which grace a drain
// evicts, and which pods a drain leaves alone (mirror pods). Pure: pods and budgets in.
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "api/workloads.h"
#include "scheduling/snapshot.h"

namespace scalewright::eviction {

// The annotation the kubelet puts on a static pod's mirror in the API: it cannot be evicted, and goes with its node.
inline constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";

// A PodDisruptionBudget with its status as the disruption controller computes it. The planner and the termination
// controller lower `disruptions_allowed` as they evict within one pass, as the eviction subresource does.
struct PdbBudget {
  PodDisruptionBudget pdb;
  std::int32_t disruptions_allowed = 0;  // status.disruptionsAllowed
  std::int32_t current_healthy = 0;      // status.currentHealthy
  std::int32_t desired_healthy = 0;      // status.desiredHealthy
};

// The status the disruption controller computes from the pods the PDB selects: disruptionsAllowed is
// currentHealthy - desiredHealthy, never below 0. The selected pods not being deleted stand for the controllers'
// scale (we do not read the controllers): maxUnavailable and a minAvailable percentage scale against their count,
// so `pods` should include the pending ones (expected, not healthy) as well as the bound ones.
PdbBudget pdb_budget(const PodDisruptionBudget& pdb, const std::vector<const Pod*>& pods);
// Healthy for the disruption controller: not terminal, not being deleted, Ready (without a Ready condition, as
// simulated pods are: bound to a node or Running).
bool pod_is_healthy(const Pod& pod);

// The PDBs with their status computed from the snapshot's pods and the pending ones (see pdb_budget).
std::vector<PdbBudget> pdb_budgets(const scheduling::ClusterSnapshot& snapshot,
                                   const std::vector<PodDisruptionBudget>& pdbs,
                                   const std::vector<std::shared_ptr<const Pod>>& pending_pods = {});

// What the eviction subresource answers.
enum class EvictionOutcome {
  Evicted,
  RefusedByBudget,    // 429: the one budget covering the pod allows no disruption now
  MoreThanOneBudget,  // 500: the eviction subresource does not support a pod that two budgets cover
};

struct EvictionVerdict {
  EvictionOutcome outcome = EvictionOutcome::Evicted;
  std::optional<std::size_t> budget;  // the index of the one budget covering the pod, when exactly one does
  bool spends = false;                // decided by that budget's disruptionsAllowed, which an eviction lowers by one
};

// The eviction subresource's rules for `pod`, given every budget as it stands in this pass:
// - a pod not Running (Pending, Succeeded, Failed) or being deleted is evicted without looking at any budget;
// - a pod that more than one budget covers is refused; one that none covers is evicted;
// - a Running pod that is not Ready is evicted without spending its budget under AlwaysAllow, or under
//   IfHealthyBudget while the budget has its desired healthy pods (and desires some);
// - any other pod spends one of the budget's disruptions, and is refused when none is left.
EvictionVerdict may_evict(const Pod& pod, const std::vector<PdbBudget>& budgets);

bool is_mirror_pod(const Pod& pod);

// The order in which the actuator evicts a drained node's pods: lower priority first, as CA's drain priority
// groups do, so that critical pods leave last; DaemonSet pods are not evicted.
std::vector<std::shared_ptr<const Pod>> eviction_order(std::vector<std::shared_ptr<const Pod>> pods);

// The grace period an eviction gives the pod: its terminationGracePeriodSeconds (30 s when unset), capped by
// --max-graceful-termination-sec.
std::int64_t eviction_grace_period_seconds(const Pod& pod, std::int64_t max_graceful_termination_seconds);

}  // namespace scalewright::eviction
