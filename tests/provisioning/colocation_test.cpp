// Pods that must share one node (required pod affinity on kubernetes.io/hostname to their own Deployment), on
// the fixtures catalog: c.large 2 cpu, c.xlarge and g.xlarge 4, c.2xlarge and r.2xlarge 8, m.4xlarge 16.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixtures.h"
#include "provisioning/provisioner.h"

namespace scalewright::provisioning {
namespace {

using namespace fixtures;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Pods of app `app`, one per entry of `cpu_milli` (1Gi each), each required on the node of another pod of `app`.
std::vector<Pod> colocated(const std::string& app, const std::vector<std::int64_t>& cpu_milli) {
  std::vector<Pod> out;
  for (std::size_t i = 0; i < cpu_milli.size(); ++i) {
    Pod pod = make_pod(app + "-" + std::to_string(i), cpu_milli[i], 1 * kGi, app);
    pod.spec.affinity.required_pod_affinity.push_back(app_term(app, well_known::hostname));
    out.push_back(std::move(pod));
  }
  return out;
}

// Largest first, db-0 (4 cpu) would open a claim that the four 3-cpu web pods fill to 16 cpu before db-1 and
// db-2 (1 cpu each) come; they must go where db-0 went, and would stay pending for good.
TEST(Colocation, GroupIsPlacedTogetherBeforeLargerPodsFillItsClaim) {
  Fixture f;
  f.input.pending = make_pods("web", 4, 3 * kCpu, 1 * kGi);  // pods 0..3
  for (Pod& pod : colocated("db", {4 * kCpu, 1 * kCpu, 1 * kCpu})) f.input.pending.push_back(pod);  // 4..6
  ProvisioningPlan plan = f.plan();

  EXPECT_THAT(plan.unschedulable, IsEmpty());
  ASSERT_EQ(plan.new_claims.size(), 2u);
  // db-0 reserves 6 cpu for its group (c.2xlarge and up); web-0 brings it to 9, which only m.4xlarge holds,
  // and web-1 and web-2 to 15. web-3 (3 cpu) no longer fits the 1 cpu left.
  const NewNodeClaim& shared = plan.new_claims[0];
  EXPECT_THAT(shared.pods, ElementsAre(4, 5, 6, 0, 1, 2));
  EXPECT_THAT(type_names(shared), ElementsAre("m.4xlarge"));
  EXPECT_EQ(shared.pod_requests.cpu_milli(), 15 * kCpu);
  EXPECT_EQ(shared.pod_requests.memory(), 6 * kGi);
  EXPECT_EQ(shared.pod_requests.pods(), 6);
  // web-3 alone: every type of 4 cpu or more, cheapest spot first (0.06, 0.08, 0.16, 0.20, 0.32).
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(3));
  EXPECT_THAT(type_names(plan.new_claims[1]),
              ElementsAre("g.xlarge", "c.xlarge", "c.2xlarge", "r.2xlarge", "m.4xlarge"));
}

// 3 × 6 cpu = 18 cpu on one node; the largest type has 16. Placed one by one, two would launch a node the third
// can never join.
TEST(Colocation, ABatchPastTheComparedSizeIsPlannedByThePriceRuleAlone) {
  // The batch above, compared with Karpenter's packing: the price rule alone keeps db-0's claim from growing for
  // the web pods and opens one for each (5 claims), dearer than the 2 of Karpenter's packing, which goes ahead.
  Fixture f;
  f.input.pending = make_pods("web", 4, 3 * kCpu, 1 * kGi);
  for (Pod& pod : colocated("db", {4 * kCpu, 1 * kCpu, 1 * kCpu})) f.input.pending.push_back(pod);
  const ProvisioningPlan compared = f.plan();
  f.input.compared_batch = 6;  // one pod short of the batch
  const ProvisioningPlan alone = f.plan();
  EXPECT_EQ(compared.new_claims.size(), 2u);
  EXPECT_THAT(alone.unschedulable, IsEmpty());
  EXPECT_EQ(alone.new_claims.size(), 5u);
  EXPECT_GT(alone.price_per_hour, compared.price_per_hour);
}

TEST(Colocation, GroupNoInstanceTypeHoldsIsReportedWhole) {
  Fixture f;
  f.input.pending = colocated("db", {6 * kCpu, 6 * kCpu, 6 * kCpu});
  ProvisioningPlan plan = f.plan();

  EXPECT_THAT(plan.new_claims, IsEmpty());
  EXPECT_THAT(plan.existing, IsEmpty());
  ASSERT_EQ(plan.unschedulable.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(plan.unschedulable[i].pod, i);
    EXPECT_EQ(plan.unschedulable[i].reason,
              "3 pods that must share one node (required pod affinity on \"kubernetes.io/hostname\") need cpu=18 "
              "memory=3Gi together: no nodepool can hold the pod: nodepool \"default\": no instance type has "
              "enough resources (cpu=18 memory=3Gi)");
  }
}

// A peer already runs on node-1: every pod goes there on its own, as the scheduler's affinity says, and none is
// held back for the others.
TEST(Colocation, PodsWhosePeerRunsFollowItOneByOne) {
  Fixture f;
  const scheduling::NodeId node = f.cluster.add_node(make_node("node-1", 8, 32));
  f.cluster.add_pod(make_pod("db-old", 1 * kCpu, 1 * kGi, "db"), node);
  // node-1 has 7 cpu left: db-0 and db-1 (3 each) fit, db-2 (2) does not, and may only run beside db-old.
  f.input.pending = colocated("db", {3 * kCpu, 3 * kCpu, 2 * kCpu});
  ProvisioningPlan plan = f.plan();

  EXPECT_THAT(plan.new_claims, IsEmpty());
  ASSERT_EQ(plan.existing.size(), 2u);
  EXPECT_EQ(plan.existing[0].pod, 0u);
  EXPECT_EQ(plan.existing[0].node, "node-1");
  EXPECT_EQ(plan.existing[1].pod, 1u);
  EXPECT_EQ(plan.existing[1].node, "node-1");
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].pod, 2u);
}

// The same group with no peer running: db-0 is judged on node-1 with the group's 8 cpu, which node-1's 7 free
// cpu cannot hold, so the group starts a node of its own (8 cpu: c.2xlarge and up) and node-1 stays as it was.
TEST(Colocation, LeaderTakesAnExistingNodeOnlyWithRoomForTheGroup) {
  Fixture f;
  const scheduling::NodeId node = f.cluster.add_node(make_node("node-1", 8, 32));
  f.cluster.add_pod(make_pod("cache", 1 * kCpu, 1 * kGi, "cache"), node);
  f.input.pending = colocated("db", {3 * kCpu, 3 * kCpu, 2 * kCpu});
  ProvisioningPlan plan = f.plan();

  EXPECT_THAT(plan.existing, IsEmpty());
  EXPECT_THAT(plan.unschedulable, IsEmpty());
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 1, 2));
  EXPECT_THAT(type_names(plan.new_claims[0]), ElementsAre("c.2xlarge", "r.2xlarge", "m.4xlarge"));
}

}  // namespace
}  // namespace scalewright::provisioning
