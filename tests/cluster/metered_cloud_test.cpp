// The provider decorator of `scalewright run`: each call of both ports timed by method and provider, each failure counted by
// its error class, the answers passed through as the provider gave them.
#include "cluster/metered_cloud.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../controllers/fake_ports.h"

namespace scalewright::cluster {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MeteredCloud, TimesEveryCallByMethodAndCountsFailuresByErrorClass) {
  controllers::fakes::FakeCloud fake;
  ops::MetricsRegistry registry;
  MeteredCloud cloud(fake, fake.node_groups(), "kwok", registry);
  const cloud::InstanceType* type = fake.catalog().find("c.large");
  const cloud::CloudResult<cloud::Created> created =
      cloud.create({"n1", {{type, type->offering("zone-a", cloud::CapacityType::Spot)}}, {}, {}});
  ASSERT_TRUE(created.ok());
  EXPECT_TRUE(cloud.get(created->instance.id).ok());
  EXPECT_TRUE(cloud.terminate(created->instance.id).ok());
  // Gone now: both calls fail with NotFound, and the answers are the provider's.
  EXPECT_EQ(cloud.terminate(created->instance.id).error().error_class, cloud::ErrorClass::NotFound);
  EXPECT_EQ(cloud.get(created->instance.id).error().error_class, cloud::ErrorClass::NotFound);
  fake.throttle_terminations(1);
  EXPECT_EQ(cloud.terminate("i-9").error().error_class, cloud::ErrorClass::Throttled);
  EXPECT_TRUE(cloud.list().ok());
  // The node-group port by Cluster Autoscaler's method names: a group the cloud does not have is NotFound.
  EXPECT_EQ(cloud.increase_size("ng", 1).error().error_class, cloud::ErrorClass::NotFound);

  const std::string text = registry.render();
  EXPECT_THAT(text, HasSubstr("karpenter_cloudprovider_duration_seconds_count{method=\"Create\",provider=\"kwok\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("karpenter_cloudprovider_duration_seconds_count{method=\"Delete\",provider=\"kwok\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("karpenter_cloudprovider_duration_seconds_count{method=\"Get\",provider=\"kwok\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("karpenter_cloudprovider_duration_seconds_count{method=\"List\",provider=\"kwok\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("karpenter_cloudprovider_errors_total{method=\"Delete\",provider=\"kwok\","
                              "error=\"NotFound\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("karpenter_cloudprovider_errors_total{method=\"Delete\",provider=\"kwok\","
                              "error=\"Throttled\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("karpenter_cloudprovider_errors_total{method=\"Get\",provider=\"kwok\","
                              "error=\"NotFound\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("karpenter_cloudprovider_errors_total{method=\"IncreaseSize\",provider=\"kwok\","
                              "error=\"NotFound\"} 1\n"));
  EXPECT_THAT(text, Not(HasSubstr("method=\"Create\",provider=\"kwok\",error=")));
}

}  // namespace
}  // namespace scalewright::cluster
