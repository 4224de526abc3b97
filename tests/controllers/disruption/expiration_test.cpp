// Expiration: a node past its NodePool's expireAfter drained, within its terminationGracePeriod.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture.h"

namespace scalewright::controllers {
namespace {

using namespace disruption_fixtures;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(Disruption, ExpiredNodeIsDrainedAndItsTerminationGracePeriodEndsADrainAPdbHolds) {
  // expireAfter 10m, terminationGracePeriod 2m. web-0 is covered by a PDB that allows no eviction: the drain that
  // starts at 10m is refused every round, and at 12m the pod is deleted without eviction and n1 goes.
  expire(10min, 2min);
  const std::string instance = add_node(state, cloud, "n1", "default").instance_id;
  state::PodRecord& web = add_pod(state, clock, "web-0", 500, "web");
  bind_pod(state, clock, web, "n1");
  allow_no_eviction_of("web");
  disruption.reconcile();

  clock.advance_to(kStart + 10min - 1ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  clock.advance_to(kStart + 10min);
  EXPECT_THAT(writer.calls, ElementsAre("10m0s taint n1 +karpenter.sh/disrupted"));
  EXPECT_THAT(writer.events_of("expired"),
              ElementsAre("10m0s node n1 expired: launched 10m0s ago, its NodePool's expireAfter is 10m0s; draining "
                          "within its terminationGracePeriod of 2m0s"));
  expect_deleted_at(kStart + 12min, "n1");
  EXPECT_THAT(cloud.calls, ElementsAre("terminate " + instance));
  ASSERT_EQ(writer.events_of("drain-deadline").size(), 1u);
  EXPECT_THAT(writer.events_of("drain-deadline").front(),
              ::testing::StartsWith("12m0s node n1 of default: its terminationGracePeriod of 2m0s is up; 1 pod deleted "
                                    "without eviction (default/web-0: "));
}

TEST_F(Disruption, ExpiryDrainLeavesADoNotDisruptPodUntilTheTerminationGracePeriod) {
  // expireAfter 10m, terminationGracePeriod 2m. web-0 is evicted when the drain starts; batch-0 says
  // karpenter.sh/do-not-disrupt, so it is not evicted (although no PDB covers it) and keeps n1 until 12m, when it
  // is deleted with the node.
  expire(10min, 2min);
  add_node(state, cloud, "n1", "default");
  run_pod("web-0", 500, "n1");
  Pod annotated = provisioning::fixtures::make_pod("batch-0", 500, 256 * kMi);
  annotated.meta.annotations["karpenter.sh/do-not-disrupt"] = "true";
  bind_pod(state, clock, *state.pod_created(annotated, "", clock.now()), "n1");
  disruption.reconcile();

  clock.advance_to(kStart + 10min);
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("10m0s evict default/web-0 grace=30s"));
  EXPECT_THAT(writer.events_of("eviction-refused"),
              ElementsAre("10m0s eviction of default/batch-0 from node n1: the pod has karpenter.sh/do-not-disrupt: "
                          "\"true\", so it is not evicted and stays until the drain's deadline; retrying every 10s"));
  expect_deleted_at(kStart + 12min, "n1");
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("10m0s evict default/web-0 grace=30s"));  // batch-0 never
}

}  // namespace
}  // namespace scalewright::controllers
