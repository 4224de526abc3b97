// What every controller shares through its ports: an instance's termination, tried again while the cloud refuses it
// for now, and done once the cloud no longer has the instance.
#include "controllers/ports.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"

namespace scalewright::controllers {
namespace {

using namespace fakes;
using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

class TerminateInstance : public ::testing::Test, protected FakeCluster {
 protected:
  std::string instance = cloud.start("n1", "c.2xlarge", "zone-a").id;
};

TEST_F(TerminateInstance, ThrottledTerminationIsTriedAgainAfter1sThen2sUntilItGoesThrough) {
  cloud.throttle_terminations(2);
  terminate_instance(cloud, clock, writer, instance);
  EXPECT_THAT(cloud.calls, ElementsAre("terminate " + instance));
  EXPECT_TRUE(cloud.get(instance).ok());

  clock.advance_to(kStart + 999ms);
  EXPECT_EQ(cloud.calls.size(), 1u);
  clock.advance_to(kStart + 1s);  // refused again: the next try waits 2 s
  EXPECT_EQ(cloud.calls.size(), 2u);
  clock.advance_to(kStart + 2999ms);
  EXPECT_EQ(cloud.calls.size(), 2u);
  clock.advance_to(kStart + 3s);
  EXPECT_THAT(cloud.calls, ElementsAre("terminate " + instance, "terminate " + instance, "terminate " + instance));
  EXPECT_FALSE(cloud.get(instance).ok());
  EXPECT_THAT(writer.events_of("terminate-failed"),
              ElementsAre("0s instance " + instance +
                              " not terminated (Throttled: RequestLimitExceeded: Request limit exceeded.); trying "
                              "again in 1s",
                          "1s instance " + instance +
                              " not terminated (Throttled: RequestLimitExceeded: Request limit exceeded.); trying "
                              "again in 2s"));

  clock.advance_to(kStart + 1h);  // done: no more tries
  EXPECT_EQ(cloud.calls.size(), 3u);
}

TEST_F(TerminateInstance, InstanceTheCloudNoLongerHasIsDoneAtOnce) {
  terminate_instance(cloud, clock, writer, "i-gone");
  clock.advance_to(kStart + 1h);
  EXPECT_THAT(cloud.calls, ElementsAre("terminate i-gone"));
  EXPECT_THAT(writer.events_of("terminate-failed"), IsEmpty());
  EXPECT_TRUE(cloud.get(instance).ok());
}

TEST_F(TerminateInstance, AnInstanceOfANodeGroupIsDeletedThroughItsGroupWhoseTargetDrops) {
  cloud::PlayedGroupSpec spec;
  spec.id = "ng";
  spec.instance_type = "c.large";
  spec.zones = {"zone-a"};
  ASSERT_FALSE(cloud.node_groups().add(spec));
  const std::vector<cloud::GroupInstance> launched = *cloud.node_groups().increase_size("ng", 2);
  ASSERT_EQ(launched.size(), 2u);
  cloud.throttle_terminations(1);
  delete_group_instance(cloud.node_groups(), clock, writer, "ng", launched[0].instance.id);
  EXPECT_EQ(*cloud.node_groups().target_size("ng"), 2);  // refused: still the group's
  clock.advance_to(kStart + 1s);
  EXPECT_THAT(cloud.calls, ElementsAre("launch c.large zone-a on-demand", "launch c.large zone-a on-demand",
                                       "terminate " + launched[0].instance.id, "terminate " + launched[0].instance.id));
  EXPECT_THAT(writer.events_of("terminate-failed"),
              ElementsAre("0s instance " + launched[0].instance.id +
                          " of node group ng not deleted (Throttled: RequestLimitExceeded: Request limit exceeded.); "
                          "trying again in 1s"));
  EXPECT_FALSE(cloud.get(launched[0].instance.id).ok());
  EXPECT_EQ(*cloud.node_groups().target_size("ng"), 1);  // dropped once it went
  EXPECT_EQ(cloud.node_groups().nodes("ng")->size(), 1u);
}

TEST_F(TerminateInstance, NodeWithoutInstanceAsksTheCloudNothing) {
  terminate_instance(cloud, clock, writer, "");
  EXPECT_THAT(cloud.calls, IsEmpty());
}

}  // namespace
}  // namespace scalewright::controllers
