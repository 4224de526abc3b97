#pragma once
// One Cluster Autoscaler scale-up decision (core/scaleup/orchestrator) as a pure function of the cluster at
// `now`: which pending pods need new capacity, which node group(s) to grow and by how much, and why each pod gets
// what it gets, with the events upstream would record (TriggeredScaleUp, NotTriggerScaleUp).
//
// The steps, as upstream takes them:
//   1. pods younger than --new-pod-scale-up-delay wait;
//   2. upcoming nodes (each group's target size minus its registered nodes) join a fork of the snapshot as
//      template nodes, and pods that fit on existing or upcoming nodes are set aside: they need no new node;
//   3. groups backed off, at their max size, or whose one more node would break --cores-total /
//      --memory-total are skipped, with upstream's reason;
//   4. the binpacking estimator sizes an option per remaining group; the expander chain picks one;
//   5. the count is capped by --max-nodes-total and the cores/memory totals, then, with
//      --balance-similar-node-groups, split over the similar groups smallest first.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/pod.h"
#include "nodegroups/backoff.h"
#include "nodegroups/expander.h"
#include "nodegroups/node_group.h"
#include "nodegroups/options.h"
#include "scheduling/scheduler.h"
#include "scheduling/snapshot.h"

namespace scalewright::nodegroups {

struct PendingPod {
  std::shared_ptr<const Pod> pod;
  Instant created{};  // metadata.creationTimestamp, on the same clock as `now`
};

// Nodes, cores and memory the cluster counts against --max-nodes-total, --cores-total and --memory-total:
// registered nodes plus upcoming ones, by capacity.
struct ClusterTotals {
  std::int32_t nodes = 0;
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
};

struct ScaleUpInput {
  Instant now{};
  std::vector<NodeGroup> groups;
  // Registered (Ready) nodes per group id; a group's upcoming nodes are target_size minus this. A group left
  // out has no upcoming nodes.
  std::map<std::string, std::int32_t> registered_nodes;
  std::vector<PendingPod> unschedulable;  // pods kube-scheduler marked unschedulable
  // When unset: the snapshot's live nodes plus the upcoming ones, by capacity.
  std::optional<ClusterTotals> totals;
};

// One group's resize: "{ng-a 25->29 (max: 80)}" as upstream prints it.
struct ScaleUpInfo {
  std::string group;
  std::int32_t current_size = 0;
  std::int32_t new_size = 0;
  std::int32_t max_size = 0;
};
std::string to_string(const ScaleUpInfo& info);
// "[{ng-a 3->4 (max: 80)} {ng-b 3->4 (max: 80)}]", as Go prints the list.
std::string to_string(const std::vector<ScaleUpInfo>& infos);

// Upstream's BalanceScaleUpBetweenGroups: `new_nodes` spread over `groups` (current_size and max_size set),
// each node to the smallest group still below its max (the earlier one on ties); capped at the total room.
// Returns only the groups that grow.
std::vector<ScaleUpInfo> balance_scale_up(std::vector<ScaleUpInfo> groups, std::int32_t new_nodes);

struct Event {
  std::string object;  // the pod, "namespace/name"
  std::string type;    // "Normal"
  std::string reason;  // "TriggeredScaleUp", "NotTriggerScaleUp"
  std::string message;
};

enum class PodOutcome {
  TooNew,            // younger than --new-pod-scale-up-delay
  FitsExistingNode,  // a Ready node has room: kube-scheduler will place it
  FitsUpcomingNode,  // a node already being added will take it
  TriggeredScaleUp,  // one of the nodes this decision adds will take it
  NoScaleUp,         // no group can or was chosen to take it now
};
std::string_view to_string(PodOutcome outcome);

// The answer to "which capacity will this pending pod get, and why".
struct PodDecision {
  std::string pod;  // "namespace/name"
  PodOutcome outcome = PodOutcome::NoScaleUp;
  std::string node;        // FitsExistingNode / FitsUpcomingNode: the node it fits on
  std::string node_group;  // TriggeredScaleUp: the chosen group
  std::string reason;      // NoScaleUp: upstream's aggregated reasons ("1 max node group size reached"); else why
};

struct ScaleUpDecision {
  std::vector<ScaleUpInfo> scale_ups;  // empty: no scale-up
  std::optional<std::size_t> chosen_option;
  std::vector<Option> options;  // every group's option, as the expanders saw them
  std::vector<Event> events;
  std::vector<PodDecision> pods;  // one per unschedulable pod, in input order
  bool scaled_up() const { return !scale_ups.empty(); }
};

// The totals ClusterTotals defaults to: live snapshot nodes plus upcoming template nodes, by capacity.
ClusterTotals cluster_totals(const scheduling::ClusterSnapshot& snapshot, const ScaleUpInput& input);

// One decision. `snapshot` holds the Ready nodes with their pods; it is forked and left as given. The expander
// chain's random tie-break is seeded from options.random_seed.
ScaleUpDecision decide_scale_up(scheduling::ClusterSnapshot& snapshot, const ScaleUpInput& input,
                                const AutoscalerOptions& options, const ExpanderConfig& expander,
                                const NodeGroupBackoff& backoff, const scheduling::Scheduler& scheduler);

}  // namespace scalewright::nodegroups
