#pragma once
// Cluster Autoscaler's loop: every --scan-interval, the engine's scale-up decision (nodegroups::decide_scale_up)
// and scale-down planner (nodegroups::ScaleDownPlanner) over what ClusterAutoscalerController observed; the controller
// carries out what they decide (launching a group's nodes, draining and deleting them), and the loop keeps what
// CA keeps between scans (target sizes, backoff, unneeded times) and writes its status.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/instant.h"
#include "api/result.h"
#include "api/scenario.h"
#include "api/workloads.h"
#include "nodegroups/backoff.h"
#include "nodegroups/expander.h"
#include "nodegroups/node_group.h"
#include "nodegroups/options.h"
#include "nodegroups/scale_down.h"
#include "nodegroups/scale_up.h"
#include "scheduling/scheduler.h"
#include "scheduling/snapshot.h"
#include "controllers/ports.h"

namespace scalewright::controllers {

// What CA observes at one scan.
struct NodeGroupScan {
  scheduling::ClusterSnapshot* snapshot = nullptr;  // Ready nodes and their pods; forked and reverted
  const scheduling::Scheduler* scheduler = nullptr;
  std::unordered_map<std::string, std::string> group_of_node;  // Ready nodes of the groups
  std::map<std::string, std::int32_t> registered;              // registered (Ready or not) nodes per group
  std::map<std::string, std::int32_t> unready;                 // of those, nodes that stopped reporting
  // Every registered node of the cluster, in a group or not, and how many of them are unready: CA's health check.
  std::int32_t cluster_nodes = 0;
  std::int32_t cluster_unready = 0;
  std::map<std::string, std::int32_t> launching;               // launched, not yet Ready, per group
  std::vector<nodegroups::PendingPod> unschedulable;
  std::vector<PodDisruptionBudget> pdbs;
  std::vector<std::shared_ptr<const Pod>> pending_pods;  // every pod on no node, for the PDBs' counts
  // Scale-downs being carried out: nodes tainted and not yet deleted.
  std::map<std::string, std::int32_t> deletions_in_progress;  // per group
  std::int32_t drains_in_progress = 0;                         // of those, nodes whose pods are being evicted
  // Moves when anything the scale-down simulation reads changes (see nodegroups::ScaleDownInput::cluster_version).
  std::optional<std::uint64_t> cluster_version;
};

// What CA decided at one scan, for ClusterAutoscalerController to carry out.
struct NodeGroupActions {
  std::vector<nodegroups::ScaleUpInfo> scale_ups;
  std::vector<nodegroups::UnneededNode> removals;  // empty nodes first, then the ones to drain
  // Pods no node group can take now (NoScaleUp), by the reason CA gives: NodePools may provision for them.
  std::map<std::string, std::string, std::less<>> declined_pods;  // pod -> reason
  // The Events CA records on the pending pods of a scale-up decision (TriggeredScaleUp, NotTriggerScaleUp).
  std::vector<nodegroups::Event> pod_events;
  // Why a group's node stays (NotUnderutilized, BlockedByPod, ...), on the node when the reason changes: the
  // answer to "why was this node not removed?".
  std::vector<nodegroups::Event> node_events;
};

class ClusterAutoscalerLoop {
 public:
  // From parsed flags and the groups the provider built for them (bounds, template node, target size), with the
  // priority expander's configuration when the cluster has it (config::priority_expander_config); errors name
  // `flags_origin` ("spec.clusterAutoscaler.args", "Cluster Autoscaler's flags").
  static Result<ClusterAutoscalerLoop> create(nodegroups::AutoscalerOptions options,
                                              std::vector<nodegroups::NodeGroup> groups,
                                              std::optional<nodegroups::PriorityConfig> priorities,
                                              const std::string& flags_origin);

  const nodegroups::AutoscalerOptions& options() const { return options_; }
  const std::vector<nodegroups::NodeGroup>& groups() const { return groups_; }
  // The group `id` (nullptr: none), in constant time.
  const nodegroups::NodeGroup* group(const std::string& id) const;

  NodeGroupActions scan(const NodeGroupScan& scan, Instant now, std::vector<TimelineEntry>& timeline);
  // A node of `group` was deleted by the scale-down: the group's target shrinks.
  void node_removed(const std::string& group, Instant now);
  // A node's drain failed (a pod could not be evicted in time): scale-down waits
  // --scale-down-delay-after-failure.
  void scale_down_failed(Instant now) { last_scale_down_failure_ = now; }
  // A node of `group` never came (no capacity, or not Ready within --max-node-provision-time): the target
  // shrinks back and the group backs off.
  void provisioning_failed(const std::string& group, const std::string& error_code, Instant now);

  // A group's target size as the cloud keeps it (an Auto Scaling group's desired capacity), read back from the
  // cloud when the loop resumes on a running cluster.
  void set_target_size(const std::string& group, std::int32_t size);
  // When the last scan ran (nullopt before the first).
  std::optional<Instant> last_scan() const { return scanned_ ? std::optional<Instant>(last_scan_) : std::nullopt; }

  // The cluster-autoscaler-status report as of the last scan.
  std::string status(Instant now, std::chrono::sys_seconds wall_clock_at_start) const;

 private:
  ClusterAutoscalerLoop(nodegroups::AutoscalerOptions options, std::vector<nodegroups::NodeGroup> groups,
                        nodegroups::ExpanderConfig expander);
  nodegroups::NodeGroup* find(const std::string& id);

  nodegroups::AutoscalerOptions options_;
  std::vector<nodegroups::NodeGroup> groups_;
  // Group id -> its place in groups_: group() is asked per node per scan (its options), so it must not search.
  std::unordered_map<std::string, std::size_t> index_;
  nodegroups::ExpanderConfig expander_;
  nodegroups::NodeGroupBackoff backoff_;
  nodegroups::ScaleDownPlanner planner_;
  std::optional<Instant> last_scale_up_;
  std::optional<Instant> last_delete_;
  std::optional<Instant> last_scale_down_failure_;
  std::map<std::string, std::string> last_not_triggered_;  // reason -> pods line, said when it changes
  std::map<std::string, std::string> last_blocked_;        // node -> why a pod keeps it, said when it changes
  std::map<std::string, nodegroups::UnremovableReason> last_kept_;  // a group's node -> why it stays, as last said
  bool cluster_healthy_ = true;
  // For the status report: what the last scan saw.
  Instant last_scan_{};
  bool scanned_ = false;
  std::map<std::string, std::int32_t> registered_;
  std::map<std::string, std::int32_t> launching_;
  std::map<std::string, std::int32_t> unready_;
  std::map<std::string, std::int32_t> being_deleted_;
  std::map<std::string, std::int32_t> candidates_;  // unneeded nodes per group
};

}  // namespace scalewright::controllers
