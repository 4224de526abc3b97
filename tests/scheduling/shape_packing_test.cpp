#include "scheduling/shape_packing.h"

#include <gtest/gtest.h>

#include "units.h"

namespace scalewright::scheduling {
namespace {

ResourceList resources(std::int64_t cpu_milli, std::int64_t memory, std::int64_t pods) {
  ResourceList r;
  r.set(resource_names::cpu(), cpu_milli);
  r.set(resource_names::memory(), memory);
  r.set(resource_names::pods(), pods);
  return r;
}

using Shapes = std::vector<std::pair<std::size_t, std::size_t>>;

// Two 2000m / 1Gi pods and four 500m / 3Gi pods on 4000m / 8Gi nodes. Largest first, the two big pods fill one
// node's cpu, and the small ones fill two more by memory (two each: 6Gi): three nodes. Matched to the room:
// - empty node, room (1, 1) as shares: big scores 0.5·1 + 0.125·1 = 0.625, small 0.125 + 0.375 = 0.5: big;
// - room 2000m / 7Gi, (0.5, 0.875): big 0.25 + 0.109 = 0.359, small 0.0625 + 0.328 = 0.391: small;
// - room 1500m / 4Gi: big no longer fits; small does (500m, 3Gi); then 1000m / 1Gi holds neither.
// So each node takes one big and two small pods: two nodes, the bound (6000m of cpu on 4000m nodes).
TEST(PackShapes, MatchesMemoryHeavyPodsWithCpuHeavyOnes) {
  const std::vector<ShapeCount> shapes{{resources(2000, 1 * kGi, 1), 2}, {resources(500, 3 * kGi, 1), 4}};
  const ShapePacking packing = pack_shapes(shapes, resources(4000, 8 * kGi, 110), 10);
  ASSERT_EQ(packing.nodes.size(), 2u);
  EXPECT_EQ(packing.nodes[0].shapes, (Shapes{{0, 1}, {1, 2}}));
  EXPECT_EQ(packing.nodes[1].shapes, (Shapes{{0, 1}, {1, 2}}));
  EXPECT_EQ(packing.placed, (std::vector<std::size_t>{2, 4}));
}

TEST(PackShapes, StopsAtTheNodeLimitAndLeavesWhatNoNodeHolds) {
  const std::vector<ShapeCount> shapes{{resources(2000, 1 * kGi, 1), 2},
                                       {resources(500, 3 * kGi, 1), 4},
                                       {resources(5000, 1 * kGi, 1), 1}};  // larger than a node
  const ShapePacking packing = pack_shapes(shapes, resources(4000, 8 * kGi, 110), 1);
  ASSERT_EQ(packing.nodes.size(), 1u);
  EXPECT_EQ(packing.placed, (std::vector<std::size_t>{1, 2, 0}));
}

// The pods resource counts: 3 slots hold 3 pods whatever room cpu and memory leave.
TEST(PackShapes, PodSlotsLimitANode) {
  const std::vector<ShapeCount> shapes{{resources(100, 1 * kGi / 8, 1), 7}};
  const ShapePacking packing = pack_shapes(shapes, resources(4000, 8 * kGi, 3), 10);
  ASSERT_EQ(packing.nodes.size(), 3u);
  EXPECT_EQ(packing.nodes[0].shapes, (Shapes{{0, 3}}));
  EXPECT_EQ(packing.nodes[2].shapes, (Shapes{{0, 1}}));
}

}  // namespace
}  // namespace scalewright::scheduling
