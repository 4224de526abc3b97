#pragma once
// Cluster Autoscaler's scale-down planning (core/scaledown: eligibility, planner, unneeded; simulator/cluster.go's
// node-removal simulation), as a pure function of a snapshot, the node groups and `now`, plus the one piece of
// state upstream keeps between scans: since when each node has been unneeded. The actuation (taint, evict,
// delete) belongs to the adapters; this says which nodes go, which pods move and where the simulation put them.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "cloud/instance_type.h"
#include "nodegroups/drainability.h"
#include "nodegroups/node_group.h"
#include "nodegroups/options.h"
#include "scheduling/snapshot.h"

namespace scalewright::nodegroups {

// The taint the actuator puts on a node before draining it (NoSchedule), and the soft one (PreferNoSchedule) CA
// puts on unneeded nodes, with the Unix time as the value.
inline constexpr std::string_view kToBeDeletedTaint = "ToBeDeletedByClusterAutoscaler";
inline constexpr std::string_view kDeletionCandidateTaint = "DeletionCandidateOfClusterAutoscaler";
inline constexpr std::string_view kGpuResource = cloud::device_resources::nvidia_gpu;

// simulator.UnremovableReason, as CA's status and events print them.
enum class UnremovableReason {
  NoReason,
  ScaleDownDisabledAnnotation,
  ScaleDownUnreadyDisabled,  // a NotReady node with --scale-down-unready-enabled=false
  NotAutoscaled,
  NotUnneededLongEnough,
  NotUnreadyLongEnough,  // a NotReady node unneeded for less than --scale-down-unready-time
  NodeGroupMinSizeReached,
  MinimalResourceLimitExceeded,
  CurrentlyBeingDeleted,
  NotUnderutilized,
  NoPlaceToMovePods,
  BlockedByPod,
  UnexpectedError,
};
std::string_view to_string(UnremovableReason reason);

// status.ScaleDownResult of one scan.
enum class ScaleDownStatus {
  ScaleDownNotTried,
  ScaleDownInCooldown,
  ScaleDownNoUnneeded,
  ScaleDownNoNodeDeleted,
  ScaleDownNodeDeleteStarted,
};
std::string_view to_string(ScaleDownStatus status);

// Ready as Cluster Autoscaler's scale-down sees it (utils/kubernetes GetReadinessState): the Ready condition
// (Node::is_ready, so a node without one counts as Ready where upstream says NotReady) and no DiskPressure or
// NetworkUnavailable condition that is True. A NotReady node is removed after --scale-down-unready-time instead of
// --scale-down-unneeded-time.
bool ready_for_scale_down(const Node& node);

struct NodeUtilization {
  double cpu = 0;
  double memory = 0;
  double gpu = 0;
  double utilization = 0;  // what the threshold is compared with: max(cpu, memory), or gpu on a GPU node
  std::string resource;    // the resource that gave `utilization`: "cpu", "memory" or "nvidia.com/gpu"
  bool gpu_node = false;
};

// utilization.Calculate: requests of the node's pods over its allocatable, per resource. With
// --ignore-daemonsets-utilization (or the node's group's ignoredaemonsetsutilization option) or
// --ignore-mirror-pods-utilization, those pods' requests leave both the numerator and the allocatable. nullopt when
// the node has no allocatable cpu or memory (gpu on a GPU node) to divide by. Pods long terminating at `now`
// (is_long_terminating) count nowhere.
std::optional<NodeUtilization> node_utilization(const scheduling::NodeInfo& node, const AutoscalerOptions& options,
                                                const GroupAutoscalingOptions& group, Instant now);

struct PodMove {
  std::shared_ptr<const Pod> pod;
  std::string destination;  // the node the removal simulation placed it on
};

struct UnneededNode {
  std::string node;
  std::string group;
  Instant since{};     // first scan of the current unbroken run in which the node was unneeded
  bool empty = false;  // no pod to move (DaemonSet and mirror pods go with the node)
  std::vector<PodMove> pods_to_move;
  std::vector<std::shared_ptr<const Pod>> daemonset_pods;
  NodeUtilization utilization;
};

struct UnremovableNode {
  std::string node;
  UnremovableReason reason = UnremovableReason::NoReason;
  std::optional<BlockingPod> blocking_pod;  // BlockedByPod only
  std::optional<NodeUtilization> utilization;
};

struct ScaleDownInput {
  std::unordered_map<std::string, std::string> group_of_node;  // node name -> NodeGroup::id; absent: not autoscaled
  std::vector<NodeGroup> groups;
  std::vector<PodDisruptionBudget> pdbs;
  // Pods on no node yet: PDBs count them as expected and not healthy (a replacement that has not started yet
  // keeps its budget spent).
  std::vector<std::shared_ptr<const Pod>> pending_pods;
  std::optional<Instant> last_scale_up;
  std::optional<Instant> last_scale_down_delete;
  std::optional<Instant> last_scale_down_failure;
  // Deletions the actuator has started and not finished: they count against min sizes and parallelism.
  std::map<std::string, std::int32_t> deletions_in_progress;  // group id -> nodes being deleted
  std::int32_t drains_in_progress = 0;                         // of those, non-empty nodes being drained
  // What the removal simulation reads (the snapshot's nodes and pods, the PDBs, the pending pods), as a version
  // that moves whenever any of it changes; nullopt where the caller cannot tell (or a pod is terminating, which
  // changes what counts with time alone). An update with the same version as the last one reuses its simulation.
  std::optional<std::uint64_t> cluster_version;
};

struct ScaleDownResult {
  ScaleDownStatus status = ScaleDownStatus::ScaleDownNotTried;
  std::vector<UnneededNode> unneeded;        // every node unneeded in this scan, with its since-time
  std::vector<UnneededNode> delete_empty;    // to delete now without a drain
  std::vector<UnneededNode> delete_drain;    // to taint, drain (evict pods_to_move) and delete now
  std::vector<UnremovableNode> unremovable;  // every other node, with the first reason found
  const UnremovableNode* find_unremovable(std::string_view node) const;
  const UnneededNode* find_unneeded(std::string_view node) const;
};

// Why a node of a group stays, for its Event (whose reason is node.reason's): "cpu 62% (memory 40%) is not below
// --scale-down-utilization-threshold 0.50", or the group's own value where it sets one ("... is not below the
// group's autoscaling option scaledownutilizationthreshold 0.30"). `group`: the node's (nullptr: none).
std::string explain_unremovable(const UnremovableNode& node, const AutoscalerOptions& options,
                                const NodeGroup* group);
// Why an unneeded node is removed now: its utilization against the threshold (the flag's or its group's, as
// above), for how long, and where its pods go.
std::string explain_removal(const UnneededNode& node, const AutoscalerOptions& options, const NodeGroup* group,
                            Instant now);

// Keeps, between scans, since when each node has been unneeded; everything else is recomputed at each update.
class ScaleDownPlanner {
 public:
  // One scan at `now`. `snapshot` holds the nodes, NotReady ones too, and their pods; it is forked for the
  // what-ifs and reverted, so it comes back as it went in. Nodes are checked previously-unneeded first (so the ones
  // closest to removal keep their place), and a node found unneeded is gone, with its pods at their new places, for
  // every node checked after it: two unneeded nodes never count on the same free room, and PDB budgets are shared.
  ScaleDownResult update(scheduling::ClusterSnapshot& snapshot, const ScaleDownInput& input,
                         const AutoscalerOptions& options, Instant now);

  const std::map<std::string, Instant>& unneeded_since() const { return unneeded_since_; }
  // Forget everything, e.g. after the actuator deleted nodes or the autoscaler restarted.
  void clear() {
    unneeded_since_.clear();
    removals_.reset();
  }
  // Scans since the last whose removal simulation was reused rather than run: for tests and benchmarks.
  std::size_t simulations_reused() const { return reused_; }

 private:
  // The eligibility checks and removal simulation of one update: what does not change while the cluster stands.
  struct Removals {
    std::optional<std::uint64_t> cluster_version;
    std::vector<std::string> unneeded_before;  // the nodes unneeded at the update before it, which went first
    std::vector<UnremovableNode> unremovable;
    std::vector<UnneededNode> unneeded;  // their since-times are set at each update
  };
  Removals simulate_removals(scheduling::ClusterSnapshot& snapshot, const ScaleDownInput& input,
                             const AutoscalerOptions& options, Instant now) const;

  std::map<std::string, Instant> unneeded_since_;
  std::optional<Removals> removals_;
  std::size_t reused_ = 0;
};

// Scale-down is in cooldown at `now`: within --scale-down-delay-after-add of a scale-up, -after-delete of a
// deletion (the scan interval when unset) or -after-failure of a failed deletion.
bool scale_down_in_cooldown(const ScaleDownInput& input, const AutoscalerOptions& options, Instant now);

}  // namespace scalewright::nodegroups
