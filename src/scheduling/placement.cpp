#include "scheduling/placement.h"

#include <algorithm>
#include <numeric>

namespace scalewright::scheduling {
namespace {

// The tolerations the DaemonSet controller adds to every daemon pod, so that node conditions and cordons do not
// keep system daemons away.
std::vector<Toleration> daemon_tolerations() {
  auto tol = [](std::string_view key, TaintEffect effect) {
    Toleration t;
    t.key = std::string(key);
    t.op = TolerationOperator::Exists;
    t.effect = effect;
    return t;
  };
  return {tol(well_known::taint_not_ready, TaintEffect::NoExecute),
          tol(well_known::taint_unreachable, TaintEffect::NoExecute),
          tol("node.kubernetes.io/disk-pressure", TaintEffect::NoSchedule),
          tol("node.kubernetes.io/memory-pressure", TaintEffect::NoSchedule),
          tol("node.kubernetes.io/pid-pressure", TaintEffect::NoSchedule),
          tol("node.kubernetes.io/unschedulable", TaintEffect::NoSchedule)};
}

}  // namespace

std::optional<Pod> daemon_pod_for_node(const Workload& daemonset, const Node& node, std::int32_t ordinal) {
  Pod pod = daemonset.make_pod(ordinal);
  for (Toleration& t : daemon_tolerations()) {
    if (std::find(pod.spec.tolerations.begin(), pod.spec.tolerations.end(), t) == pod.spec.tolerations.end()) {
      pod.spec.tolerations.push_back(std::move(t));
    }
  }
  // The controller's own check: the template's node selection and the taints it must tolerate.
  Symbol node_name(node.meta.name);
  const Affinity& affinity = pod.spec.affinity;
  if (!node.meta.labels.contains_all(pod.spec.node_selector)) return std::nullopt;
  if (affinity.required_node_affinity && !affinity.required_node_affinity->matches(node.meta.labels, node_name)) {
    return std::nullopt;
  }
  for (const Taint& taint : node.taints) {
    if (taint.effect != TaintEffect::PreferNoSchedule && !tolerates_all(pod.spec.tolerations, taint)) {
      return std::nullopt;
    }
  }
  // Pin the pod to its node, replacing the required node affinity as the controller does.
  NodeSelectorTerm pin;
  pin.match_fields.push_back({Symbol("metadata.name"), SelectorOperator::In, {node_name}});
  pod.spec.affinity.required_node_affinity = NodeSelector{{pin}};
  return pod;
}

std::vector<Placement> place_pods(ClusterSnapshot& snapshot, const Scheduler& scheduler, std::vector<Pod> pods,
                                  PlacementMode mode) {
  std::vector<std::size_t> order(pods.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return pods[a].priority() > pods[b].priority(); });
  std::vector<Placement> placements;
  placements.reserve(pods.size());
  for (std::size_t i : order) {
    auto pod = std::make_shared<const Pod>(std::move(pods[i]));
    SchedulingResult result = scheduler.schedule(snapshot, *pod);
    if (mode == PlacementMode::Sequential && result.scheduled()) snapshot.add_pod(pod, result.chosen);
    placements.push_back({std::move(pod), std::move(result)});
  }
  return placements;
}

std::vector<Placement> place_daemon_pods(ClusterSnapshot& snapshot, const Scheduler& scheduler,
                                         const std::vector<Workload>& daemonsets) {
  std::vector<Pod> pods;
  for (const Workload& ds : daemonsets) {
    if (ds.kind != WorkloadKind::DaemonSet) continue;
    const auto& nodes = snapshot.nodes();
    for (NodeId id = 0; id < nodes.size(); ++id) {
      if (nodes[id].removed) continue;
      if (auto pod = daemon_pod_for_node(ds, *nodes[id].node, static_cast<std::int32_t>(id))) {
        pods.push_back(std::move(*pod));
      }
    }
  }
  return place_pods(snapshot, scheduler, std::move(pods), PlacementMode::Sequential);
}

}  // namespace scalewright::scheduling
