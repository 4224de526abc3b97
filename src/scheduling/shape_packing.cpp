#include "scheduling/shape_packing.h"

#include <algorithm>

namespace scalewright::scheduling {
namespace {

using Entries = std::vector<std::pair<Symbol, std::int64_t>>;

bool fits(const Entries& requests, const ResourceList& room) {
  return std::all_of(requests.begin(), requests.end(), [&](const auto& r) { return r.second <= room.get(r.first); });
}

// Σ over the node's resources of (requests / allocatable) × (room / allocatable).
double match(const ResourceList& requests, const ResourceList& room, const Entries& allocatable) {
  double score = 0;
  for (const auto& [name, total] : allocatable) {
    const double scale = static_cast<double>(total);
    score += static_cast<double>(requests.get(name)) / scale * static_cast<double>(room.get(name)) / scale;
  }
  return score;
}

}  // namespace

bool fits_by_resources_alone(const Pod& pod) {
  const PodSpec& spec = pod.spec;
  return spec.topology_spread_constraints.empty() && spec.affinity.required_pod_affinity.empty() &&
         spec.affinity.required_pod_anti_affinity.empty() && pod.host_ports().empty() &&
         std::none_of(spec.volumes->begin(), spec.volumes->end(),
                      [](const Volume& v) { return v.source == Volume::Source::PersistentVolumeClaim; });
}

ShapePacking pack_shapes(const std::vector<ShapeCount>& shapes, const ResourceList& allocatable,
                         std::size_t node_limit) {
  ShapePacking out;
  out.placed.assign(shapes.size(), 0);
  Entries resources = allocatable.entries();
  std::erase_if(resources, [](const auto& r) { return r.second <= 0; });
  std::vector<Entries> asked;
  std::vector<std::size_t> left;
  std::vector<std::size_t> candidates;  // shapes with pods left that an empty node can hold
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    asked.push_back(shapes[s].requests.entries());
    left.push_back(shapes[s].count);
    if (left[s] > 0 && fits(asked[s], allocatable)) candidates.push_back(s);
  }
  std::vector<std::size_t> open;
  while (!candidates.empty() && out.nodes.size() < node_limit) {
    PackedNode node;
    ResourceList room = allocatable;
    // A shape that does not fit the room now never will on this node: the room only shrinks.
    open = candidates;
    while (true) {
      std::erase_if(open, [&](std::size_t s) { return left[s] == 0 || !fits(asked[s], room); });
      if (open.empty()) break;
      std::size_t best = open.front();
      double best_score = match(shapes[best].requests, room, resources);
      for (std::size_t k = 1; k < open.size(); ++k) {
        const double score = match(shapes[open[k]].requests, room, resources);
        if (score > best_score) {
          best_score = score;
          best = open[k];
        }
      }
      room -= shapes[best].requests;
      --left[best];
      ++out.placed[best];
      if (!node.shapes.empty() && node.shapes.back().first == best) {
        ++node.shapes.back().second;
      } else {
        node.shapes.emplace_back(best, 1);
      }
    }
    out.nodes.push_back(std::move(node));
    std::erase_if(candidates, [&](std::size_t s) { return left[s] == 0; });
  }
  return out;
}

}  // namespace scalewright::scheduling
