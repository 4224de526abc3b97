#include "nodegroups/node_group.h"

#include <gtest/gtest.h>

namespace scalewright::nodegroups {
namespace {

NodeGroup group_in_zone(const std::string& zone, std::int64_t memory_mib, std::int64_t allocatable_cpu = 1930) {
  NodeGroup g;
  g.id = "ng-" + zone;
  g.template_node.meta.labels = {{"node.kubernetes.io/instance-type", "m5.large"},
                                 {"topology.kubernetes.io/zone", zone},
                                 {"kops.k8s.io/instancegroup", "ng-" + zone},
                                 {"team", "web"}};
  g.template_node.capacity.set(resource_names::cpu(), 2000);
  g.template_node.capacity.set(resource_names::memory(), memory_mib << 20);
  g.template_node.allocatable.set(resource_names::cpu(), allocatable_cpu);
  g.template_node.allocatable.set(resource_names::memory(), (memory_mib - 500) << 20);
  return g;
}

TEST(SimilarNodeGroups, SameShapeInAnotherZoneIsSimilar) {
  EXPECT_TRUE(similar_node_groups(group_in_zone("us-east-1a", 8192), group_in_zone("us-east-1b", 8192)));
}

TEST(SimilarNodeGroups, MemoryCapacityMayDifferByOnePointFivePercent) {
  // 1.5 % of 8192 MiB is 122.88 MiB: 8070 MiB is within (122 MiB less), 8060 MiB is not (132 MiB less). The
  // allocatable memory differs by the same amount, well within 5 %.
  EXPECT_TRUE(similar_node_groups(group_in_zone("a", 8192), group_in_zone("b", 8070)));
  EXPECT_FALSE(similar_node_groups(group_in_zone("a", 8192), group_in_zone("b", 8060)));
}

TEST(SimilarNodeGroups, AllocatableWithinFivePercentAndCapacityExactOtherwise) {
  // cpu allocatable 1930m against 1834m: 96m is 4.97 % of 1930m; 1833m (97m) is 5.03 %.
  EXPECT_TRUE(similar_node_groups(group_in_zone("a", 8192, 1930), group_in_zone("b", 8192, 1834)));
  EXPECT_FALSE(similar_node_groups(group_in_zone("a", 8192, 1930), group_in_zone("b", 8192, 1833)));
  NodeGroup bigger = group_in_zone("b", 8192);
  bigger.template_node.capacity.set(resource_names::cpu(), 2001);
  EXPECT_FALSE(similar_node_groups(group_in_zone("a", 8192), bigger));
}

TEST(SimilarNodeGroups, OtherLabelsAndTaintsMustMatch) {
  NodeGroup other_team = group_in_zone("b", 8192);
  other_team.template_node.meta.labels.set(Symbol("team"), Symbol("batch"));
  EXPECT_FALSE(similar_node_groups(group_in_zone("a", 8192), other_team));
  NodeGroup tainted = group_in_zone("b", 8192);
  tainted.template_node.taints.push_back({"dedicated", "gpu", TaintEffect::NoSchedule});
  EXPECT_FALSE(similar_node_groups(group_in_zone("a", 8192), tainted));
}

TEST(SimilarNodeGroups, ALabelTheCallerIgnoresDoesNotMakeGroupsDifferent) {
  // --balancing-ignore-label (and a cloud's own per-group names) as CA takes them: only the labels named are ignored.
  NodeGroup a = group_in_zone("a", 8192);
  NodeGroup b = group_in_zone("b", 8192);
  a.template_node.meta.labels.set(Symbol("example.com/pool"), Symbol("pool-a"));
  b.template_node.meta.labels.set(Symbol("example.com/pool"), Symbol("pool-b"));
  EXPECT_FALSE(similar_node_groups(a, b));
  EXPECT_TRUE(similar_node_groups(a, b, {"example.com/pool"}));
  EXPECT_FALSE(similar_node_groups(a, b, {"example.com/other"}));
}

}  // namespace
}  // namespace scalewright::nodegroups
