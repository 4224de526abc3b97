#pragma once
// Cluster Autoscaler's drain rules (utils/drain, simulator/drain.go): for the pods of one node, which ones must be
// evicted and rescheduled elsewhere, which go away with the node (DaemonSet and mirror pods), and which pod, if
// any, blocks removing the node, with upstream's BlockingPodReason. Pure: pods, PDB budgets and options in.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/node.h"
#include "api/duration.h"
#include "api/pod.h"
#include "api/workloads.h"

namespace scalewright::nodegroups {

// Annotations and taints in Cluster Autoscaler's own words.
inline constexpr std::string_view kSafeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict";
inline constexpr std::string_view kSafeToEvictLocalVolumesAnnotation =
    "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes";
inline constexpr std::string_view kScaleDownDisabledAnnotation =
    "cluster-autoscaler.kubernetes.io/scale-down-disabled";
inline constexpr std::string_view kMirrorPodAnnotation = "kubernetes.io/config.mirror";
inline constexpr std::string_view kSystemNamespace = "kube-system";

// simulator/drainability's BlockingPodReason, as CA's status and events print them.
enum class BlockingPodReason {
  NoReason,
  ControllerNotFound,
  MinReplicasReached,
  NotReplicated,
  LocalStorageRequested,
  NotSafeToEvictAnnotation,
  UnmovableKubeSystemPod,
  NotEnoughPdb,
  UnexpectedError,
};
std::string_view to_string(BlockingPodReason reason);

struct BlockingPod {
  std::string pod;  // "namespace/name"
  BlockingPodReason reason = BlockingPodReason::NoReason;
  std::string message;  // upstream's error text, e.g. "pod with local storage present: default/cache-0"
};

// The drain flags of AutoscalerOptions that decide what blocks a node.
struct DrainOptions {
  bool skip_nodes_with_local_storage = true;
  bool skip_nodes_with_system_pods = true;
  bool skip_nodes_with_custom_controller_pods = true;
};

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
// emptyDir or hostPath volumes not listed in the safe-to-evict-local-volumes annotation.
bool has_local_storage(const Pod& pod);
// cluster-autoscaler.kubernetes.io/scale-down-disabled: "true" on the node.
bool scale_down_disabled(const Node& node);

struct DrainPlan {
  std::vector<std::shared_ptr<const Pod>> pods_to_move;    // evicted and rescheduled by their controllers
  std::vector<std::shared_ptr<const Pod>> daemonset_pods;  // go with the node (mirror pods are not listed)
  std::optional<BlockingPod> blocking;                     // the first pod that prevents the drain
  bool drainable() const { return !blocking.has_value(); }
};

// GetPodsForDeletionOnNodeDrain followed by the PDB check, for one node's pods. `pdbs` carries the budgets left
// in this scan: each pod to move must be one the eviction subresource would evict now (may_evict), or the first
// that is not blocks the node (NotEnoughPdb).
// Terminal pods are ignored: they hold nothing and need no eviction.
// Pods being deleted for longer than their grace period and 30 s more (see is_long_terminating) are left out.
DrainPlan plan_drain(const std::vector<std::shared_ptr<const Pod>>& pods, const std::vector<PdbBudget>& pdbs,
                     const DrainOptions& options, Duration now);

// Deleted longer ago than its grace period (30 s when unset) plus 30 s: a pod whose node cannot confirm it gone
// (an unreachable kubelet), which CA then neither moves nor counts.
bool is_long_terminating(const Pod& pod, Duration now);

// The order in which the actuator evicts a drained node's pods: lower priority first, as CA's drain priority
// groups do, so that critical pods leave last; DaemonSet pods are not evicted.
std::vector<std::shared_ptr<const Pod>> eviction_order(std::vector<std::shared_ptr<const Pod>> pods);

// The grace period an eviction gives the pod: its terminationGracePeriodSeconds (30 s when unset), capped by
// --max-graceful-termination-sec.
std::int64_t eviction_grace_period_seconds(const Pod& pod, std::int64_t max_graceful_termination_seconds);

}  // namespace scalewright::nodegroups
