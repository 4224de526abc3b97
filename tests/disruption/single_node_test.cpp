// Single-node consolidation (src/disruption/single_node.cpp) and the replacement rules it applies (search.cpp).
// The catalog is consolidation_fixture.h's.
#include <gtest/gtest.h>

#include "consolidation_fixture.h"
#include "disruption/consolidation.h"

namespace scalewright::disruption {
namespace {

using namespace consolidation_fixtures;

TEST(SingleNodeConsolidation, DeletesANodeWhosePodsFitOnTheRest) {
  Cluster cluster;
  cluster.node("light", "c.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);  // 2 of 8 cpu
  cluster.node("full", "c.2xlarge", cloud::CapacityType::OnDemand, 6, 1000);   // 6 of 8: room for light's 2
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(result.command->decision, Decision::Delete);
  EXPECT_EQ(names(cluster.input, *result.command), std::vector<std::string>{"light"});
  EXPECT_EQ(result.command->pods, 2u);
  EXPECT_DOUBLE_EQ(result.command->savings(), 0.40);
  // The snapshot is left as it came.
  EXPECT_EQ(cluster.snapshot.pod_count(), 8u);
  EXPECT_EQ(cluster.snapshot.live_node_count(), 2u);
}

TEST(SingleNodeConsolidation, ReplacesANodeByOneStrictlyCheaper) {
  Cluster cluster;  // on-demand only
  cluster.node("big", "c.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);  // $0.40/h for 2 cpu of pods
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  const Command& command = *result.command;
  EXPECT_EQ(command.decision, Decision::Replace);
  ASSERT_EQ(command.replacements.size(), 1u);
  // Holding 2 cpu and 2Gi, cheaper than $0.40/h: c.large ($0.10) and c.xlarge ($0.20); c.2xlarge at the same
  // price is not a replacement.
  EXPECT_EQ(type_names(command.replacements.front()), (std::vector<std::string>{"c.large", "c.xlarge"}));
  EXPECT_DOUBLE_EQ(command.price_after, 0.10);
  EXPECT_NEAR(command.savings(), 0.30, 1e-9);
}

TEST(SingleNodeConsolidation, NoReplacementWhereNothingCheaperHoldsThePods) {
  Cluster cluster;
  cluster.node("small", "c.large", cloud::CapacityType::OnDemand, 1, 1500);  // $0.10/h, the cheapest that holds it
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  EXPECT_FALSE(result.command);
  ASSERT_EQ(result.kept.size(), 1u);
  EXPECT_EQ(result.kept[0].reason, "no instance type that holds its pods costs less than $0.1000/h");
}

TEST(SingleNodeConsolidation, AnOnDemandNodeMayGiveWayToSpotAndTheReplacementIsSpotOnly) {
  Cluster cluster({"on-demand", "spot"});
  cluster.node("od", "c.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);  // $0.40/h
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  ASSERT_EQ(result.command->replacements.size(), 1u);
  const provisioning::NewNodeClaim& claim = result.command->replacements.front();
  // Spot prices under $0.40: every amd64 type (g.xlarge is arm64, which the NodePool excludes).
  EXPECT_EQ(type_names(claim), (std::vector<std::string>{"c.large", "c.xlarge", "c.2xlarge", "r.2xlarge",
                                                         "m.4xlarge"}));
  EXPECT_FALSE(claim.requirements.allows("karpenter.sh/capacity-type", "on-demand"));
  EXPECT_DOUBLE_EQ(result.command->price_after, 0.04);
}

TEST(SingleNodeConsolidation, SpotToSpotNeedsFifteenCheaperTypes) {
  Cluster cluster({"spot"});
  cluster.node("spot", "m.4xlarge", cloud::CapacityType::Spot, 2, 1000);  // $0.32/h spot
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  EXPECT_FALSE(result.command);
  ASSERT_EQ(result.kept.size(), 1u);
  // Cheaper spot types holding 2 cpu: c.large, c.xlarge, c.2xlarge, r.2xlarge.
  EXPECT_EQ(result.kept[0].reason, "spot-to-spot replacement needs 15 cheaper instance types, 4 found");

  cluster.input.spot_to_spot = false;
  result = consolidate_single_node(cluster.ready());
  ASSERT_EQ(result.kept.size(), 1u);
  EXPECT_EQ(result.kept[0].reason, "spot-to-spot replacement is disabled");
}

TEST(SingleNodeConsolidation, SpotToSpotLaunchesFromTheFifteenCheapest) {
  // Twenty types of 4 cpu, spot from $0.01 to $0.20; the node is a $0.50 spot type of the same size.
  const std::vector<cloud::Zone> z = zones(1);
  std::vector<cloud::InstanceType> types;
  for (int i = 1; i <= 20; ++i) {
    types.push_back(make_type("t" + std::to_string(i) + ".xlarge", "amd64", 4, 8, 1.0, 0.01 * i, z));
  }
  types.push_back(make_type("dear.xlarge", "amd64", 4, 8, 1.0, 0.50, z));
  Cluster cluster({"spot"});
  cluster.catalog = cloud::Catalog::from_instance_types("test-region", z, std::move(types));
  cluster.node("spot", "dear.xlarge", cloud::CapacityType::Spot, 1, 1000);
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  ASSERT_EQ(result.command->replacements.size(), 1u);
  const std::vector<std::string> kept = type_names(result.command->replacements.front());
  ASSERT_EQ(kept.size(), 15u);
  EXPECT_EQ(kept.front(), "t1.xlarge");
  EXPECT_EQ(kept.back(), "t15.xlarge");
}

}  // namespace
}  // namespace scalewright::disruption
