// What every search shares: eviction and disruption costs, the candidates' order, Balanced, the memo of verdicts
// (src/disruption/consolidation.cpp, search.cpp). The catalog is consolidation_fixture.h's.
#include <gtest/gtest.h>

#include "consolidation_fixture.h"
#include "disruption/consolidation.h"

namespace scalewright::disruption {
namespace {

using namespace consolidation_fixtures;

TEST(EvictionCost, PriorityAndDeletionCostAsUpstreamWeighsThem) {
  Pod pod = make_pod("p", 100, kGi);
  EXPECT_DOUBLE_EQ(eviction_cost(pod), 1.0);
  pod.spec.priority = 1 << 25;  // + 1
  EXPECT_DOUBLE_EQ(eviction_cost(pod), 2.0);
  pod.meta.annotations["controller.kubernetes.io/pod-deletion-cost"] = "-134217728";  // - 2^27: - 1
  EXPECT_DOUBLE_EQ(eviction_cost(pod), 1.0);
  pod.spec.priority = 2000000000;  // system-node-critical: 1 + 59.6 - 1, clamped
  EXPECT_DOUBLE_EQ(eviction_cost(pod), 10.0);
}

TEST(LifetimeRemaining, ANodeNearExpiryCostsLessToDisrupt) {
  const Duration expire = Duration(720LL * 3600 * 1000);
  EXPECT_DOUBLE_EQ(lifetime_remaining(Duration(180LL * 3600 * 1000), expire), 0.75);
  EXPECT_DOUBLE_EQ(lifetime_remaining(Duration(800LL * 3600 * 1000), expire), 0.0);
  EXPECT_DOUBLE_EQ(lifetime_remaining(Duration(800LL * 3600 * 1000), std::nullopt), 1.0);
}

TEST(OrderCandidates, LeastDisruptionPerDollarFirst) {
  std::vector<Candidate> c(3);
  c[0].node = "busy-cheap";  // 3 pods on $0.20/h: 15 per dollar
  c[0].disruption_cost = 3;
  c[0].price_per_hour = 0.20;
  c[1].node = "light-dear";  // 2 pods on $0.40/h: 5 per dollar
  c[1].disruption_cost = 2;
  c[1].price_per_hour = 0.40;
  c[2].node = "empty";
  c[2].price_per_hour = 0.10;
  order_candidates(c);
  EXPECT_EQ(c[0].node, "empty");
  EXPECT_EQ(c[1].node, "light-dear");
  EXPECT_EQ(c[2].node, "busy-cheap");
}

TEST(Balanced, ActsOnlyWhereTheSavedShareIsAtLeastHalfTheDisruptedShare) {
  Cluster cluster;
  cluster.input.nodepools[0].consolidation_policy = ConsolidationPolicy::Balanced;
  cluster.input.candidates.resize(1);
  cluster.input.candidates[0].nodepool = "default";
  cluster.input.pool_cost["default"] = 1.00;
  cluster.input.pool_disruption_cost["default"] = 10;
  Command command;
  command.candidates = {0};
  command.disruption_cost = 3;  // 30 % of the pool's disruption: needs at least 15 % of its cost saved
  command.price_before = 0.10;
  EXPECT_FALSE(balanced_enough(command, cluster.input));  // 10 %
  command.price_before = 0.15;
  EXPECT_TRUE(balanced_enough(command, cluster.input));  // 15 %
  cluster.input.nodepools[0].consolidation_policy = ConsolidationPolicy::WhenEmptyOrUnderutilized;
  command.price_before = 0.01;
  EXPECT_TRUE(balanced_enough(command, cluster.input));  // not a Balanced NodePool
}

TEST(ConsolidationMemo, AVerdictIsReusedWhileTheContextAndTheNodesPodsStay) {
  // Nine c.xlarge with three 1100m pods each: no pod fits another node's 900m, and nothing on-demand cheaper than
  // $0.20/h holds 3.3 cpu. Asked again with nothing changed, no node is tried; a node whose pods changed is tried
  // alone; in another context (a node gained room), all are.
  Cluster cluster;
  nine_packed_nodes(cluster);
  ConsolidationMemo memo;
  ConsolidationInput& input = cluster.ready();
  input.memo = &memo;
  memo.begin(1, Instant{}, std::nullopt);
  const ConsolidationResult first = consolidate_single_node(input);
  EXPECT_FALSE(first.command);
  EXPECT_EQ(first.tries, 9u);
  ASSERT_EQ(first.kept.size(), 9u);
  EXPECT_EQ(first.kept[4].reason, "no instance type that holds its pods costs less than $0.2000/h");

  memo.begin(1, Instant(Duration(10'000)), std::nullopt);
  const ConsolidationResult again = consolidate_single_node(input);
  EXPECT_EQ(again.tries, 0u);
  ASSERT_EQ(again.kept.size(), 9u);
  EXPECT_EQ(again.kept[4].reason, first.kept[4].reason);

  input.candidates[4].pods_version = 1;
  EXPECT_EQ(consolidate_single_node(input).tries, 1u);
  memo.begin(2, Instant(Duration(20'000)), std::nullopt);
  EXPECT_EQ(consolidate_single_node(input).tries, 9u);
  // An offering marked unavailable lapses at 5 min: past it, the verdicts are asked again.
  memo.begin(2, Instant(Duration(30'000)), Instant(Duration(300'000)));
  EXPECT_EQ(consolidate_single_node(input).tries, 0u);
  memo.begin(2, Instant(Duration(300'000)), std::nullopt);
  EXPECT_EQ(consolidate_single_node(input).tries, 9u);
}

TEST(ConsolidationMemo, NodesAlikeShareOneReplacementVerdict) {
  // Three r.2xlarge spot nodes ($0.20/h) each run three 2500m pods of one class: 7.5 cpu, more than the 1 cpu the
  // other two have left. c.2xlarge spot ($0.16/h, 8 cpu) would hold them, but it is the only cheaper type, and spot
  // replaces spot only with 15. One provisioning plan answers for the three nodes alike; without the classes no two
  // are known alike, and each needs its own.
  Cluster cluster({"spot"});
  for (const std::string name : {"a", "b", "c"}) cluster.node(name, "r.2xlarge", cloud::CapacityType::Spot, 3, 2500);
  ConsolidationMemo memo;
  ConsolidationInput& input = cluster.ready();
  input.memo = &memo;
  memo.begin(1, Instant{}, std::nullopt);
  const ConsolidationResult unknown = consolidate_single_node(input);
  EXPECT_EQ(unknown.plans, 3u);

  one_class(cluster);
  memo.begin(2, Instant{}, std::nullopt);
  const ConsolidationResult alike = consolidate_single_node(input);
  EXPECT_FALSE(alike.command);
  EXPECT_EQ(alike.tries, 3u);
  EXPECT_EQ(alike.plans, 1u);
  ASSERT_EQ(alike.kept.size(), 3u);
  for (const Kept& kept : alike.kept) {
    EXPECT_EQ(kept.reason, "spot-to-spot replacement needs 15 cheaper instance types, 1 found");
  }
}

TEST(ConsolidationMemo, PodsThatNeedMoreThanTheRestHasLeftAreJudgedWithoutPlacingThem) {
  // Two m.4xlarge spot nodes ($0.32/h, 16 cpu) each run three 5000m pods: 15 cpu, where the other has 1 cpu left.
  // Only a node of at least 14 cpu could take the rest, and none cheaper than $0.32/h has that: no plan is needed.
  Cluster cluster({"spot"});
  for (const std::string name : {"a", "b"}) cluster.node(name, "m.4xlarge", cloud::CapacityType::Spot, 3, 5000);
  const ConsolidationResult result = consolidate_single_node(cluster.ready());
  EXPECT_FALSE(result.command);
  EXPECT_EQ(result.plans, 0u);
  ASSERT_EQ(result.kept.size(), 2u);
  EXPECT_EQ(result.kept[0].reason,
            "its pods need more than the other nodes have left, and no instance type cheaper than $0.3200/h holds "
            "them");
}


}  // namespace
}  // namespace scalewright::disruption
