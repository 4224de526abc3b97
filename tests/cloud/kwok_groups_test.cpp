// The Auto Scaling groups kwok plays for Cluster Autoscaler's --nodes flags in `scalewright run`.
#include <gtest/gtest.h>

#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"
#include "cloud/kwok/kwok_provider.h"

namespace scalewright::cloud {
namespace {

Catalog two_types() {
  std::vector<Zone> zones{{"us-east-1a", "use1-az1"}, {"us-east-1b", "use1-az2"}};
  InstanceHardware hw;
  hw.category = "m";
  hw.vcpu = 2;
  hw.memory_mib = 8192;
  hw.arch = "amd64";
  hw.max_pods = 29;
  InstanceType m5 = aws::make_instance_type("m5.large", hw, {}, "us-east-1");
  aws::add_offerings(m5, zones, 0.096, 0.035);
  hw.vcpu = 4;
  InstanceType m5x = aws::make_instance_type("m5.xlarge", hw, {}, "us-east-1");
  aws::add_offerings(m5x, zones, 0.192, 0.07);
  return Catalog::from_instance_types("us-east-1", zones, {m5, m5x});
}

TEST(KwokGroups, AnInstanceTypeNamedByNodesIsAGroupOfThatTypeStartingAtItsMinimum) {
  const Catalog catalog = two_types();
  const std::vector<CloudNodeGroup> groups =
      kwok_auto_scaling_groups({{2, 10, "m5.large"}, {0, 3, "m5.xlarge"}}, {}, catalog);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].name, "m5.large");
  EXPECT_EQ(groups[0].instance_type, "m5.large");
  EXPECT_EQ(groups[0].min_size, 2);
  EXPECT_EQ(groups[0].max_size, 10);
  EXPECT_EQ(groups[0].desired_capacity, 2);
  EXPECT_EQ(groups[0].capacity_type, "on-demand");
  EXPECT_TRUE(groups[0].zones.empty());  // every zone offering the type
  EXPECT_EQ(groups[1].name, "m5.xlarge");
  EXPECT_EQ(groups[1].desired_capacity, 0);
}

TEST(KwokGroups, DefinedGroupsWinAndOtherNamesAreLeftForDiscoveryToRefuse) {
  CloudNodeGroup defined;
  defined.name = "m5.large";  // a group that happens to be named as a type: its definition stands
  defined.instance_type = "m5.xlarge";
  defined.max_size = 5;
  const std::vector<CloudNodeGroup> groups =
      kwok_auto_scaling_groups({{1, 5, "m5.large"}, {1, 5, "workers"}}, {defined}, two_types());
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].instance_type, "m5.xlarge");
}

}  // namespace
}  // namespace scalewright::cloud
