// The repack onto fewer new nodes (src/disruption/repack.cpp). The catalog is consolidation_fixture.h's.
#include <gtest/gtest.h>

#include "consolidation_fixture.h"
#include "disruption/consolidation.h"

namespace scalewright::disruption {
namespace {

using namespace consolidation_fixtures;

TEST(Repack, PacksNodesKarpentersMethodsCannotImproveOnFewerNewNodes) {
  // Nine c.xlarge ($0.20, 4 cpu) run three 1100m pods each: 900m free on every node, less than a pod. No node can
  // go (no room), no cheaper type holds one node's 3300m, and one node holding k nodes' pods costs as much as they
  // do (m.4xlarge, $0.80, holds 14 pods: four nodes' twelve). Repacked, the 27 pods take two m.4xlarge (14 + 13),
  // $1.60 for $1.80: of the sizes tried (2, 3, 4, 6, 9) only nine saves a node's price.
  Cluster cluster;
  nine_packed_nodes(cluster);
  EXPECT_FALSE(consolidate_multi_node(cluster.ready()).command);
  EXPECT_FALSE(consolidate_single_node(cluster.ready()).command);
  ConsolidationResult result = consolidate_repack(cluster.ready());
  ASSERT_TRUE(result.command);
  const Command& command = *result.command;
  EXPECT_EQ(command.method, Method::Repack);
  EXPECT_EQ(command.decision, Decision::Replace);
  EXPECT_EQ(command.candidates.size(), 9u);
  EXPECT_EQ(command.pods, 27u);
  ASSERT_EQ(command.replacements.size(), 2u);
  EXPECT_EQ(command.replacements[0].instance_types.front()->name, "m.4xlarge");
  EXPECT_EQ(command.replacements[1].instance_types.front()->name, "m.4xlarge");
  EXPECT_NEAR(command.price_before, 1.80, 1e-9);
  EXPECT_NEAR(command.price_after, 1.60, 1e-9);
  // Checked again where kube-scheduler would put the pods on the two new nodes: it holds.
  Revalidation again = revalidate(cluster.ready(), command.candidates, Decision::Replace, Method::Repack);
  EXPECT_TRUE(again.command) << again.reason;
}

}  // namespace
}  // namespace scalewright::disruption
