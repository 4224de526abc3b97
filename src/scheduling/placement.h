#pragma once
// Placing pods the way a cluster would: DaemonSet pods on every node they select and tolerate, then pending
// pods one at a time in kube-scheduler's queue order (higher priority first, then arrival), each bound before
// the next is considered.
#include <memory>
#include <optional>
#include <vector>

#include "api/node.h"
#include "api/workloads.h"
#include "scheduling/scheduler.h"

namespace scalewright::scheduling {

// The pod `daemonset` runs on `node`, as the DaemonSet controller creates it: pinned to the node by a
// metadata.name node affinity, with the tolerations the controller adds. nullopt when the DaemonSet's node
// selector, node affinity or tolerations keep it off the node.
std::optional<Pod> daemon_pod_for_node(const Workload& daemonset, const Node& node, std::int32_t ordinal);

struct Placement {
  std::shared_ptr<const Pod> pod;
  SchedulingResult result;
};

enum class PlacementMode {
  Sequential,   // each pod is bound before the next is scheduled, as in a real cluster
  Independent,  // each pod is answered alone against the snapshot as given
};

// Schedules `pods` in queue order. In Sequential mode every placed pod is bound into `snapshot`.
std::vector<Placement> place_pods(ClusterSnapshot& snapshot, const Scheduler& scheduler, std::vector<Pod> pods,
                                  PlacementMode mode);

// Adds every DaemonSet's pods to the nodes they belong on; returns the placements (pending ones too).
std::vector<Placement> place_daemon_pods(ClusterSnapshot& snapshot, const Scheduler& scheduler,
                                         const std::vector<Workload>& daemonsets);

}  // namespace scalewright::scheduling
