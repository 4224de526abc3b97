#pragma once
// Packing pods whose fit depends on resources alone onto identical empty nodes, node by node: open a node, add the
// pod shape whose requests best match the room left (the largest dot product of the two, each resource as a share
// of the node's allocatable), again until no shape left fits, then open the next node. Ordering pods largest first
// (first-fit decreasing, Karpenter's and Cluster Autoscaler's way) fills the first nodes with the pods that are
// large in one resource and leaves the rest to fill nodes by another; matching shapes to the room puts a
// memory-heavy small pod beside cpu-heavy large ones. On Cluster Autoscaler's peer workload (25 shapes) it meets
// the lower bound, where first-fit decreasing needs 15 % more nodes.
#include <cstddef>
#include <vector>

#include "api/pod.h"
#include "api/resources.h"

namespace scalewright::scheduling {

struct ShapeCount {
  ResourceList requests;  // one pod's, the pods resource (1) included
  std::size_t count = 0;
};

struct PackedNode {
  std::vector<std::pair<std::size_t, std::size_t>> shapes;  // (index into the shapes given, how many), as added
  std::size_t type = 0;  // pack_by_worth: index into the types given
};

struct ShapePacking {
  std::vector<PackedNode> nodes;
  std::vector<std::size_t> placed;  // per shape: how many found a node
};

// Whether where the pod fits on a node that holds only pods like it depends on its requests alone: no topology
// spread, no required pod (anti-)affinity, no host ports, no claimed volumes (attach limits).
bool fits_by_resources_alone(const Pod& pod);

// Beyond this many shapes, matching each node's room costs more than the nodes it saves are worth waiting for:
// callers keep their first-fit packing.
inline constexpr std::size_t kMostShapes = 512;

// Packs `shapes` onto at most `node_limit` nodes of `allocatable`. A shape that no empty node can hold is left
// unplaced. Ties go to the shape given first.
ShapePacking pack_shapes(const std::vector<ShapeCount>& shapes, const ResourceList& allocatable,
                         std::size_t node_limit);

// A node type a packing may choose: what a node of it costs an hour, and the room it has for pods.
struct PricedRoom {
  double price = 0;
  ResourceList room;
};

// Packs every shape node by node over several types, each node the type and mix of pods with the least price per
// worth of pods it holds. A pod's worth is what it costs alone on the type that prices it best: its largest share
// of that type's room (of any resource it asks for) times the type's price. A node of a type is filled with the
// pods of most worth first, as many of each as fit; the best node is repeated while the pods it holds last. So
// nodes are types whose room their pods fill in proportion to its price: the configuration LP's patterns, chosen
// greedily. A shape no type can hold is left unplaced.
ShapePacking pack_by_worth(const std::vector<ShapeCount>& shapes, const std::vector<PricedRoom>& types);

}  // namespace scalewright::scheduling
