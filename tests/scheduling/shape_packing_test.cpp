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

// Four pods of 2 cpu / 28Gi (M) and eight of 3 cpu / 1Gi (C) over five types:
//   type       cpu  memory  price   M's share x price        C's share x price
//   c.large     2    4Gi    0.04    does not fit             does not fit
//   g.xlarge    4    8Gi    0.06    does not fit             0.75 x 0.06 = 0.045 (C's worth)
//   c.2xlarge   8   16Gi    0.16    does not fit             0.375 x 0.16 = 0.06
//   r.2xlarge   8   64Gi    0.20    0.4375 x 0.20 = 0.0875   0.375 x 0.20 = 0.075
//                                   (M's worth)
//   m.4xlarge  16   64Gi    0.32    0.4375 x 0.32 = 0.14     0.1875 x 0.32 = 0.06
// A node holds M first (the greater worth), then C: g.xlarge one C (0.06 for 0.045: 1.33 per worth), c.2xlarge two
// (0.16 for 0.09: 1.78), r.2xlarge two M and one C (0.20 for 0.22: 0.909), m.4xlarge two M and four C (0.32 for
// 0.355: 0.901). Two of those hold every pod: $0.64, where M and C apart cost 0.40 + 0.48. Priced again by that
// packing (M 0.0789, C 0.0406), m.4xlarge still wins: the same packing.
TEST(PackByWorth, ChoosesTheTypeAndMixWithTheLeastPricePerWorth) {
  const std::vector<ShapeCount> shapes{{resources(2000, 28 * kGi, 1), 4}, {resources(3000, 1 * kGi, 1), 8}};
  const std::vector<PricedRoom> types{{0.04, resources(2000, 4 * kGi, 110)},
                                      {0.06, resources(4000, 8 * kGi, 110)},
                                      {0.16, resources(8000, 16 * kGi, 110)},
                                      {0.20, resources(8000, 64 * kGi, 110)},
                                      {0.32, resources(16000, 64 * kGi, 110)}};
  const ShapePacking packing = pack_by_worth(shapes, types);
  ASSERT_EQ(packing.nodes.size(), 2u);
  for (const PackedNode& node : packing.nodes) {
    EXPECT_EQ(node.type, 4u);
    EXPECT_EQ(node.shapes, (Shapes{{0, 2}, {1, 4}}));
  }
  EXPECT_EQ(packing.placed, (std::vector<std::size_t>{4, 8}));
}

// A pod no type holds is left out; pod slots count as a resource: two slots hold two of the C pods.
TEST(PackByWorth, LeavesWhatNoTypeHoldsAndCountsPodSlots) {
  const std::vector<ShapeCount> shapes{{resources(3000, 1 * kGi, 1), 3}, {resources(9000, 1 * kGi, 1), 1}};
  const std::vector<PricedRoom> types{{0.16, resources(8000, 16 * kGi, 2)}};
  const ShapePacking packing = pack_by_worth(shapes, types);
  ASSERT_EQ(packing.nodes.size(), 2u);
  EXPECT_EQ(packing.nodes[0].shapes, (Shapes{{0, 2}}));
  EXPECT_EQ(packing.nodes[1].shapes, (Shapes{{0, 1}}));
  EXPECT_EQ(packing.placed, (std::vector<std::size_t>{3, 0}));
}

}  // namespace
}  // namespace scalewright::scheduling
