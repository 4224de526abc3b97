#include "scheduling/plugin_support.h"

#include <algorithm>

namespace scalewright::scheduling {

StaticVerdict judge_statically(const Pod& pod, const NodeInfo& info) {
  const Node& node = *info.node;
  StaticVerdict v;
  v.serial = info.serial;

  for (std::size_t i = 0; i < node.taints.size(); ++i) {
    const Taint& taint = node.taints[i];
    if (taint.effect == TaintEffect::PreferNoSchedule) continue;
    if (!tolerates_all(pod.spec.tolerations, taint)) {
      v.untolerated_taint = static_cast<std::int32_t>(i);
      break;
    }
  }
  v.tolerates_taints = v.untolerated_taint < 0;

  const Affinity& affinity = pod.spec.affinity;
  Symbol node_name(node.meta.name);
  v.matches_node_affinity =
      node.meta.labels.contains_all(pod.spec.node_selector) &&
      (!affinity.required_node_affinity || affinity.required_node_affinity->matches(node.meta.labels, node_name));

  static const Taint unschedulable_taint{std::string(well_known::taint_unschedulable), "", TaintEffect::NoSchedule};
  if (node.unschedulable && !tolerates_all(pod.spec.tolerations, unschedulable_taint)) {
    v.failure = StaticVerdict::Failure::Unschedulable;
  } else if (!pod.spec.node_name.empty() && pod.spec.node_name != node.meta.name) {
    v.failure = StaticVerdict::Failure::NodeName;
  } else if (!v.tolerates_taints) {
    v.failure = StaticVerdict::Failure::Taint;
  } else if (!v.matches_node_affinity) {
    v.failure = StaticVerdict::Failure::NodeAffinity;
  }

  // TaintToleration scores with the tolerations that can tolerate PreferNoSchedule (effect empty or that).
  for (const Taint& taint : node.taints) {
    if (taint.effect != TaintEffect::PreferNoSchedule) continue;
    bool tolerated = std::any_of(pod.spec.tolerations.begin(), pod.spec.tolerations.end(), [&](const Toleration& t) {
      return (!t.effect || *t.effect == TaintEffect::PreferNoSchedule) && t.tolerates(taint);
    });
    if (!tolerated) ++v.intolerable_prefer_no_schedule;
  }
  for (const PreferredSchedulingTerm& term : affinity.preferred_node_affinity) {
    if (term.preference.matches(node.meta.labels, node_name)) v.preferred_affinity_weight += term.weight;
  }
  return v;
}


void default_normalize(std::vector<std::int64_t>& scores, bool reverse) {
  std::int64_t max = 0;
  for (std::int64_t s : scores) max = std::max(max, s);
  for (std::int64_t& s : scores) {
    if (max == 0) {
      s = reverse ? kMaxNodeScore : s;
      continue;
    }
    s = kMaxNodeScore * s / max;
    if (reverse) s = kMaxNodeScore - s;
  }
}

}  // namespace scalewright::scheduling
