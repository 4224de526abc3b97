// Multi-node consolidation: the sweep and the prefix search (src/disruption/multi_node.cpp), and as Karpenter does
// it. The catalog is consolidation_fixture.h's.
#include <gtest/gtest.h>

#include "consolidation_fixture.h"
#include "disruption/consolidation.h"

namespace scalewright::disruption {
namespace {

using namespace consolidation_fixtures;

TEST(MultiNodeConsolidation, DeletesEveryNodeWhosePodsFitOnWhatTheOthersLeft) {
  Cluster cluster;
  // Four c.xlarge (4 cpu, $0.20/h) with one 1-cpu pod each. n1's pod goes to n2, n2's two to n3, n3's three to
  // n4 (4 of 4 cpu); n4's four fit nowhere.
  for (int i = 1; i <= 4; ++i) cluster.node("n" + std::to_string(i), "c.xlarge", cloud::CapacityType::OnDemand, 1, 1000);
  ConsolidationResult result = consolidate_multi_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(result.command->decision, Decision::Delete);
  EXPECT_EQ(names(cluster.input, *result.command), (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_NEAR(result.command->savings(), 0.60, 1e-9);
  EXPECT_EQ(result.command->pods, 3u);  // the pods of the nodes deleted, as they are bound now
}

TEST(MultiNodeConsolidation, ReplacesSeveralNodesByOneWhenThatSavesMore) {
  Cluster cluster;
  // Three r.2xlarge ($0.50/h, 8 cpu) with two 1-cpu pods each. Deleting two (their pods onto the third) saves
  // $1.00/h; replacing all three by one c.2xlarge ($0.40/h, 8 cpu for the 6 pods) saves $1.10/h.
  for (int i = 1; i <= 3; ++i) cluster.node("r" + std::to_string(i), "r.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);
  ConsolidationResult result = consolidate_multi_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(result.command->decision, Decision::Replace);
  EXPECT_EQ(names(cluster.input, *result.command), (std::vector<std::string>{"r1", "r2", "r3"}));
  ASSERT_EQ(result.command->replacements.size(), 1u);
  EXPECT_EQ(type_names(result.command->replacements.front()).front(), "c.2xlarge");
  EXPECT_NEAR(result.command->savings(), 1.10, 1e-9);
}

TEST(MultiNodeConsolidation, BudgetsLimitHowManyNodesOneCommandTakes) {
  Cluster cluster;
  for (int i = 1; i <= 4; ++i) cluster.node("n" + std::to_string(i), "c.xlarge", cloud::CapacityType::OnDemand, 1, 1000);
  cluster.input.allowed["default"] = 2;
  ConsolidationResult result = consolidate_multi_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(names(cluster.input, *result.command), (std::vector<std::string>{"n1", "n2"}));

  cluster.input.allowed["default"] = 1;  // one node at a time: a command for one is single-node's
  EXPECT_FALSE(consolidate_multi_node(cluster.ready()).command);
  ConsolidationResult single = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(single.command);
  EXPECT_EQ(names(cluster.input, *single.command), std::vector<std::string>{"n1"});
}

TEST(AsKarpenter, NoSweepAndNoRepack) {
  // x (4 cpu, 1 used) and y (2 cpu, empty) are not candidates. The sweep deletes a (two 1500m pods, onto x) and
  // then b (one 2000m pod, onto y), saving their $0.30/h. Karpenter's prefix search places all three pods at once,
  // largest first (2000m on x, 1500m on y, the other 1500m nowhere) and replaces a and b by one c.large for that
  // pod, saving $0.20/h: asked to consolidate as Karpenter does, that is the command. And the nine tightly packed
  // nodes of the repack test stay as they are.
  Cluster swept;
  holes_for_a_sweep(swept);
  std::optional<Command> ours = consolidate_multi_node(swept.ready()).command;
  ASSERT_TRUE(ours);
  EXPECT_EQ(ours->decision, Decision::Delete);
  EXPECT_NEAR(ours->savings(), 0.30, 1e-9);
  swept.input.as_karpenter = true;
  std::optional<Command> karpenters = consolidate_multi_node(swept.ready()).command;
  ASSERT_TRUE(karpenters);
  EXPECT_EQ(karpenters->decision, Decision::Replace);
  ASSERT_EQ(karpenters->replacements.size(), 1u);
  EXPECT_EQ(karpenters->replacements.front().instance_types.front()->name, "c.large");
  EXPECT_NEAR(karpenters->savings(), 0.20, 1e-9);

  Cluster packed;
  nine_packed_nodes(packed);
  ASSERT_TRUE(consolidate_repack(packed.ready()).command);
  packed.input.as_karpenter = true;
  EXPECT_FALSE(consolidate_repack(packed.ready()).command);
}

}  // namespace
}  // namespace scalewright::disruption
