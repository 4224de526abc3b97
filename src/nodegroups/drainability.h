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

#include "api/instant.h"
#include "api/node.h"
#include "api/duration.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "eviction/eviction.h"

namespace scalewright::nodegroups {

// The eviction subresource's rules, which CA's drain builds on (shared with Karpenter's termination).
using eviction::EvictionOutcome;
using eviction::EvictionVerdict;
using eviction::is_mirror_pod;
using eviction::may_evict;
using eviction::pdb_budget;
using eviction::pdb_budgets;
using eviction::PdbBudget;
using eviction::pod_is_healthy;

// Annotations and taints in Cluster Autoscaler's own words.
inline constexpr std::string_view kSafeToEvictAnnotation = "cluster-autoscaler.kubernetes.io/safe-to-evict";
inline constexpr std::string_view kSafeToEvictLocalVolumesAnnotation =
    "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes";
inline constexpr std::string_view kScaleDownDisabledAnnotation =
    "cluster-autoscaler.kubernetes.io/scale-down-disabled";
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
                     const DrainOptions& options, Instant now);

// Deleted longer ago than its grace period (30 s when unset) plus 30 s: a pod whose node cannot confirm it gone
// (an unreachable kubelet), which CA then neither moves nor counts.
bool is_long_terminating(const Pod& pod, Instant now);

}  // namespace scalewright::nodegroups
