#include "nodegroups/estimator.h"

#include <algorithm>
#include <numeric>
#include <unordered_map>

#include "scheduling/equivalence.h"
#include "scheduling/shape_packing.h"

namespace scalewright::nodegroups {
namespace {

using scheduling::ClusterSnapshot;
using scheduling::NodeId;
using scheduling::Scheduler;

bool fits(const Scheduler& scheduler, const ClusterSnapshot& snapshot, const Pod& pod, NodeId node) {
  return scheduler.rejections(snapshot, pod, node).empty();
}

std::string controller_key(const Pod& pod) {
  const OwnerReference* owner = pod.meta.controller();
  if (owner == nullptr) return "";
  return owner->uid.empty() ? owner->kind + "/" + owner->name : owner->uid;
}

// The same pods packed node by node, each node's room matched with the pod shape that fills it best
// (scheduling::pack_shapes), when every group fits by its requests alone. Replaces `out` when it places as many
// pods on fewer nodes.
void pack_tighter(const std::vector<PodGroup>& groups, const std::vector<std::size_t>& order, const NodeGroup& group,
                  std::int32_t node_limit, Estimate& out) {
  if (order.empty() || order.size() > scheduling::kMostShapes) return;
  std::vector<scheduling::ShapeCount> shapes;
  for (std::size_t g : order) {
    if (!scheduling::fits_by_resources_alone(*groups[g].pods.front())) return;
    shapes.push_back({groups[g].pods.front()->effective_requests(), groups[g].pods.size()});
  }
  const scheduling::ShapePacking packing =
      scheduling::pack_shapes(shapes, group.template_node.allocatable, static_cast<std::size_t>(node_limit));
  const auto placed = std::accumulate(packing.placed.begin(), packing.placed.end(), std::size_t{0});
  if (placed < out.pods.size() || static_cast<std::int32_t>(packing.nodes.size()) >= out.node_count) return;
  Estimate tighter;
  tighter.rejected = std::move(out.rejected);
  tighter.node_count = static_cast<std::int32_t>(packing.nodes.size());
  tighter.placed_per_group.assign(groups.size(), 0);
  std::vector<std::size_t> next(order.size(), 0);  // per shape: its group's next pod
  for (const scheduling::PackedNode& node : packing.nodes) {
    for (const auto& [shape, count] : node.shapes) {
      const PodGroup& pods = groups[order[shape]];
      for (std::size_t k = 0; k < count; ++k) tighter.pods.push_back(pods.pods[next[shape]++]);
      tighter.placed_per_group[order[shape]] += static_cast<std::int32_t>(count);
    }
  }
  std::size_t wanted = 0;
  for (const scheduling::ShapeCount& shape : shapes) wanted += shape.count;
  tighter.limit_reached = placed < wanted;
  out = std::move(tighter);
}

}  // namespace

std::vector<PodGroup> group_pending_pods(const std::vector<std::shared_ptr<const Pod>>& pods) {
  std::vector<PodGroup> groups;
  std::unordered_map<std::string, std::size_t> index;
  for (const auto& pod : pods) {
    std::string key = controller_key(*pod) + '\n' + scheduling::scheduling_key(*pod);
    auto [it, inserted] = index.try_emplace(std::move(key), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].pods.push_back(pod);
  }
  return groups;
}

std::string template_node_name(const NodeGroup& group, std::int32_t n) {
  return "template-node-for-" + group.id + "-" + std::to_string(n);
}

Node instantiate_template(const NodeGroup& group, std::int32_t n) {
  Node node = group.template_node;
  node.meta.name = template_node_name(group, n);
  node.meta.labels.set(Symbol(well_known::hostname), Symbol(node.meta.name));
  return node;
}

double pod_score(const Pod& pod, const Node& template_node) {
  const ResourceList requests = pod.effective_requests();
  const ResourceList& allocatable = template_node.allocatable;
  double score = 0;
  if (allocatable.cpu_milli() > 0) {
    score += static_cast<double>(requests.cpu_milli()) / static_cast<double>(allocatable.cpu_milli());
  }
  if (allocatable.memory() > 0) {
    score += static_cast<double>(requests.memory()) / static_cast<double>(allocatable.memory());
  }
  return score;
}

Estimate estimate_nodes(const std::vector<PodGroup>& groups, const NodeGroup& group, ClusterSnapshot& snapshot,
                        const Scheduler& scheduler, std::int32_t node_limit) {
  Estimate out;
  out.placed_per_group.assign(groups.size(), 0);

  // Which groups an empty template node can hold at all, checked once per group on a probe node.
  std::vector<std::size_t> order;
  snapshot.fork();
  const NodeId probe = snapshot.add_node(instantiate_template(group, 0));
  for (std::size_t i = 0; i < groups.size(); ++i) {
    if (groups[i].pods.empty()) continue;
    std::vector<std::string> reasons = scheduler.rejections(snapshot, *groups[i].pods.front(), probe);
    if (reasons.empty()) {
      order.push_back(i);
    } else {
      out.rejected.push_back({i, std::move(reasons)});
    }
  }
  snapshot.revert();

  std::vector<double> scores(groups.size(), 0);
  for (std::size_t i : order) scores[i] = pod_score(*groups[i].pods.front(), group.template_node);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });

  snapshot.fork();
  std::vector<NodeId> new_nodes;
  std::vector<std::int32_t> pods_on;  // per new node
  std::int32_t added = 0;
  auto place = [&](const std::shared_ptr<const Pod>& pod, std::size_t slot, std::size_t g) {
    snapshot.add_pod(pod, new_nodes[slot]);
    ++pods_on[slot];
    ++out.placed_per_group[g];
    out.pods.push_back(pod);
  };

  for (std::size_t g : order) {
    const auto& pods = groups[g].pods;
    // Identical pods: a node that turned one member away turns the next away too, unless the answer depends
    // on other domains (topology spread) or on pods still to come (required pod affinity).
    const PodSpec& spec = pods.front()->spec;
    const bool skip_rejecting_nodes =
        spec.topology_spread_constraints.empty() && spec.affinity.required_pod_affinity.empty();
    std::size_t cursor = 0;
    std::size_t k = 0;
    // First the nodes this estimate already added, first-fit; the first member that fits none of them sends
    // the rest of the group to new nodes, as upstream does.
    for (; k < pods.size(); ++k) {
      bool placed = false;
      for (std::size_t slot = skip_rejecting_nodes ? cursor : 0; slot < new_nodes.size(); ++slot) {
        if (fits(scheduler, snapshot, *pods[k], new_nodes[slot])) {
          place(pods[k], slot, g);
          cursor = slot;
          placed = true;
          break;
        }
      }
      if (!placed) break;
    }
    // Then new nodes, filling the newest before adding another.
    for (; k < pods.size(); ++k) {
      if (!new_nodes.empty() && fits(scheduler, snapshot, *pods[k], new_nodes.back())) {
        place(pods[k], new_nodes.size() - 1, g);
        continue;
      }
      // An empty fresh node turned it away: another fresh node would too.
      if (!new_nodes.empty() && pods_on.back() == 0) break;
      if (added >= node_limit) {
        out.limit_reached = true;
        break;
      }
      new_nodes.push_back(snapshot.add_node(instantiate_template(group, ++added)));
      pods_on.push_back(0);
      if (!fits(scheduler, snapshot, *pods[k], new_nodes.back())) break;
      place(pods[k], new_nodes.size() - 1, g);
    }
  }
  snapshot.revert();
  out.node_count = static_cast<std::int32_t>(std::count_if(pods_on.begin(), pods_on.end(), [](std::int32_t n) {
    return n > 0;
  }));
  pack_tighter(groups, order, group, node_limit, out);
  return out;
}

}  // namespace scalewright::nodegroups
