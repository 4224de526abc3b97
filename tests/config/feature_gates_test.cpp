#include "config/feature_gates.h"

#include <gtest/gtest.h>

namespace scalewright::config {
namespace {

TEST(FeatureGates, NodeRepairIsOffUnlessTurnedOnAndTheLastWordWins) {
  EXPECT_FALSE(parse_feature_gates("")->node_repair);  // upstream's default
  EXPECT_TRUE(parse_feature_gates("NodeRepair=true")->node_repair);
  EXPECT_FALSE(parse_feature_gates("NodeRepair=true,NodeRepair=false")->node_repair);
  // Karpenter's other gates are accepted and change nothing here.
  EXPECT_TRUE(parse_feature_gates("SpotToSpotConsolidation=true,NodeRepair=true,ReservedCapacity=false")->node_repair);
}

TEST(FeatureGates, AMisspeltGateOrAValueThatIsNoBooleanIsRefusedNamingIt) {
  EXPECT_EQ(parse_feature_gates("NodeRepiar=true").error().message,
            "\"NodeRepiar=true\": not a feature gate of Karpenter's (NodeRepair, ReservedCapacity, "
            "SpotToSpotConsolidation, NodeOverlay, StaticCapacity, CapacityBuffer)");
  EXPECT_EQ(parse_feature_gates("NodeRepair=yes").error().message,
            "\"NodeRepair=yes\": expected NAME=true or NAME=false");
  EXPECT_EQ(parse_feature_gates("NodeRepair").error().message, "\"NodeRepair\": expected NAME=true or NAME=false");
}

}  // namespace
}  // namespace scalewright::config
