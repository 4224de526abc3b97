#include "scheduling/shape_packing.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

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

namespace {

// One greedy packing of pack_by_worth() with the given worths (+inf: no type holds the shape).
ShapePacking pack_with_worth(const std::vector<ShapeCount>& shapes, const std::vector<Entries>& asked,
                             const std::vector<PricedRoom>& types, const std::vector<double>& worth, double* cost) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const std::size_t n = shapes.size();
  // How many of shape `s` fit in `room` (at most `cap`).
  auto copies = [&](std::size_t s, const ResourceList& room, std::size_t cap) {
    std::int64_t fit = static_cast<std::int64_t>(cap);
    for (const auto& [name, amount] : asked[s]) {
      if (amount > 0) fit = std::min(fit, std::max<std::int64_t>(room.get(name), 0) / amount);
    }
    return static_cast<std::size_t>(std::max<std::int64_t>(fit, 0));
  };
  std::vector<std::size_t> by_worth(n);
  std::iota(by_worth.begin(), by_worth.end(), 0);
  std::stable_sort(by_worth.begin(), by_worth.end(), [&](std::size_t a, std::size_t b) { return worth[a] > worth[b]; });

  ShapePacking out;
  out.placed.assign(n, 0);
  *cost = 0;
  std::vector<std::size_t> left(n);
  for (std::size_t s = 0; s < n; ++s) left[s] = std::isfinite(worth[s]) ? shapes[s].count : 0;
  std::vector<std::size_t> mix(n), best_mix(n);
  while (std::any_of(left.begin(), left.end(), [](std::size_t count) { return count > 0; })) {
    double best_ratio = kNever;
    std::size_t best_type = 0;
    for (std::size_t t = 0; t < types.size(); ++t) {
      ResourceList room = types[t].room;
      double held = 0;
      for (std::size_t s : by_worth) {
        mix[s] = left[s] == 0 ? 0 : copies(s, room, left[s]);
        if (mix[s] == 0) continue;
        for (const auto& [name, amount] : asked[s]) {
          room.set(name, room.get(name) - amount * static_cast<std::int64_t>(mix[s]));
        }
        held += static_cast<double>(mix[s]) * worth[s];
      }
      if (held > 0 && types[t].price / held < best_ratio) {
        best_ratio = types[t].price / held;
        best_type = t;
        best_mix = mix;
      }
    }
    std::size_t repeats = std::numeric_limits<std::size_t>::max();
    for (std::size_t s = 0; s < n; ++s) {
      if (best_mix[s] > 0) repeats = std::min(repeats, left[s] / best_mix[s]);
    }
    PackedNode node;
    node.type = best_type;
    for (std::size_t s : by_worth) {
      if (best_mix[s] > 0) node.shapes.emplace_back(s, best_mix[s]);
    }
    for (std::size_t s = 0; s < n; ++s) {
      left[s] -= repeats * best_mix[s];
      out.placed[s] += repeats * best_mix[s];
    }
    out.nodes.insert(out.nodes.end(), repeats, node);
    *cost += static_cast<double>(repeats) * types[best_type].price;
  }
  return out;
}

}  // namespace

ShapePacking pack_by_worth(const std::vector<ShapeCount>& shapes, const std::vector<PricedRoom>& types) {
  constexpr double kNever = std::numeric_limits<double>::infinity();
  const std::size_t n = shapes.size();
  std::vector<Entries> asked;
  for (const ShapeCount& shape : shapes) asked.push_back(shape.requests.entries());
  std::vector<double> worth(n, kNever);
  for (std::size_t s = 0; s < n; ++s) {
    for (const PricedRoom& type : types) {
      double largest = 0;
      for (const auto& [name, amount] : asked[s]) {
        const std::int64_t room = type.room.get(name);
        largest = std::max(largest, room > 0 ? static_cast<double>(amount) / static_cast<double>(room) : kNever);
      }
      if (largest <= 1) worth[s] = std::min(worth[s], type.price * largest);
    }
  }
  // Worths priced by the packing they led to: each node's price shared among its pods in proportion to their
  // worth, averaged per shape; packed again with those, kPasses times, the cheapest packing kept.
  constexpr int kPasses = 3;
  double best_cost = kNever;
  ShapePacking best;
  for (int pass = 0; pass < kPasses; ++pass) {
    double cost = 0;
    ShapePacking packing = pack_with_worth(shapes, asked, types, worth, &cost);
    if (cost < best_cost) {
      best_cost = cost;
      best = packing;
    }
    std::vector<double> paid(n, 0);
    for (const PackedNode& node : packing.nodes) {
      double held = 0;
      for (const auto& [s, count] : node.shapes) held += static_cast<double>(count) * worth[s];
      for (const auto& [s, count] : node.shapes) {
        paid[s] += static_cast<double>(count) * types[node.type].price * worth[s] / held;
      }
    }
    for (std::size_t s = 0; s < n; ++s) {
      if (packing.placed[s] > 0) worth[s] = paid[s] / static_cast<double>(packing.placed[s]);
    }
  }
  return best;
}

}  // namespace scalewright::scheduling
