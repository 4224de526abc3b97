// ProvisioningController through fake ports. One NodePool "default" without requirements over the fixtures'
// catalog (c.large 2 cpu 4 GiB $0.04 spot, g.xlarge 4 cpu 8 GiB arm64 $0.06 spot, c.xlarge 4 cpu 8 GiB $0.08 spot,
// ... in zone-a and zone-b); batch window idle 1 s, max 10 s. Every pod requests 256Mi memory. A test observes a
// pod, then reconciles as the simulator does after kube-scheduler's pass; the batch's deadline is a timer of the
// fake clock.
#include "controllers/provisioning.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"

namespace scalewright::controllers {
namespace {

using namespace fakes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class Provisioning : public ::testing::Test, protected FakeCluster {
 protected:
  Provisioning() { state.nodepool_applied(provisioning::fixtures::make_nodepool("default")); }

  // Pending pods p-<first>, p-<first + 1>, ... observed one every `every` from `from` after the start, each followed by
  // the reconcile after kube-scheduler's pass (which found it no node).
  void pods_arrive(int count, Duration from, Duration every, std::int64_t cpu_milli, int first = 0) {
    for (int i = 0; i < count; ++i) {
      clock.advance_to(kStart + from + i * every);
      add_pod(state, clock, fmt::format("p-{}", first + i), cpu_milli);
      provisioning.reconcile();
    }
  }
  // Nothing is launched before `at`; at `at` one node is, from `offering` ("g.xlarge zone-a spot"): its name.
  std::string expect_one_launch_at(Instant at, const std::string& offering) {
    clock.advance_to(at - 1ms);
    EXPECT_THAT(writer.calls_of("node_launched"), IsEmpty());
    clock.advance_to(at);
    const std::string node = state.nodes().empty() ? "" : state.nodes().begin()->first;
    EXPECT_THAT(writer.calls_of("node_launched"),
                ElementsAre(fmt::format("{} node_launched {} {}", format_duration(since_start(at)), node, offering)));
    return node;
  }

  NodeNames names{7};
  NodeLifecycleController lifecycle{ports};
  ProvisioningController provisioning{ports, names, lifecycle, {Duration(1'000), Duration(10'000)}};
};

TEST_F(Provisioning, BatchClosesAtTheMaxWindowUnderSteadyArrivals) {
  // A pod every 0.5 s keeps extending the idle deadline (last + 1 s), so the window closes at its max: 0 + 10 s.
  // By then the pods of 0, 0.5, ..., 9.5 s are observed: 20 of them, 20 x (50m, 256Mi) = 1 cpu and 5 GiB, more
  // memory than c.large's 4 GiB: one g.xlarge (4 cpu, 8 GiB, $0.06 spot).
  pods_arrive(20, 0s, 500ms, 50);
  const std::string node = expect_one_launch_at(kStart + 10s, "g.xlarge zone-a spot");
  EXPECT_THAT(nominated_to(state, node), SizeIs(20));
  EXPECT_EQ(state.needing_capacity(), 0u);

  // The pod observed at 10 s, after the launch, opens the next batch: it closes 1 s later.
  pods_arrive(1, 10s, 0s, 50, /*first=*/20);
  EXPECT_EQ(state.find_pod("default/p-20")->nominated_node.str(), "");
  EXPECT_EQ(clock.pending().front(), kStart + 11s);
}

TEST_F(Provisioning, BatchClosesOneSecondAfterTheLastPodWhenArrivalsStop) {
  // Pods at 0, 0.5, 1, 1.5, 2 s, then none: the window closes at 2 + 1 = 3 s, long before its max of 10 s. The
  // five (250m, 1.25 GiB) fit the cheapest type, c.large.
  pods_arrive(5, 0s, 500ms, 50);
  const std::string node = expect_one_launch_at(kStart + 3s, "c.large zone-a spot");
  EXPECT_THAT(nominated_to(state, node), SizeIs(5));
}

TEST_F(Provisioning, CheapestFittingOfferingIsLaunchedAndThePodsNominatedToTheNewNode) {
  // 3 pods x 1 cpu = 3 cpu: c.large (2 cpu) is too small; of the 4-cpu types g.xlarge spot ($0.06) is cheaper than
  // c.xlarge spot ($0.08); zone-a before zone-b at the same price.
  pods_arrive(3, 0s, 0s, 1'000);
  const std::string node = expect_one_launch_at(kStart + 1s, "g.xlarge zone-a spot");
  EXPECT_THAT(cloud.calls, ElementsAre("launch g.xlarge zone-a spot"));
  const state::NodeRecord& record = *state.find_node(node);
  EXPECT_EQ(record.phase, state::NodePhase::Launching);
  EXPECT_EQ(record.nodepool, "default");
  EXPECT_EQ(record.price_per_hour, 0.06);
  EXPECT_TRUE(cloud.get(record.instance_id).ok());
  EXPECT_THAT(writer.events_of("launch"),
              ElementsAre("1s NodeClaim " + node + " launched g.xlarge zone-a spot $0.0600/h for 3 pods"));
  // The batch's pods are first taken off whatever they waited for ("-> none"), then nominated to the new node.
  EXPECT_THAT(writer.calls_of("nominate"),
              ElementsAre("1s nominate default/p-0 -> none", "1s nominate default/p-1 -> none",
                          "1s nominate default/p-2 -> none", "1s nominate default/p-0 -> " + node,
                          "1s nominate default/p-1 -> " + node, "1s nominate default/p-2 -> " + node));
  EXPECT_THAT(nominated_to(state, node), ElementsAre("default/p-0", "default/p-1", "default/p-2"));
  EXPECT_EQ(state.needing_capacity(), 0u);
}

TEST_F(Provisioning, OfferingOutOfCapacityIsSkippedForTheNextOne) {
  // The cheapest offering (g.xlarge spot in zone-a, see above) has no capacity: the next is the same type and
  // price in zone-b.
  cloud.out_of_capacity("g.xlarge", "zone-a", cloud::CapacityType::Spot);
  pods_arrive(3, 0s, 0s, 1'000);
  const std::string node = expect_one_launch_at(kStart + 1s, "g.xlarge zone-b spot");
  EXPECT_THAT(cloud.calls, ElementsAre("launch g.xlarge zone-a spot", "launch g.xlarge zone-b spot"));
  EXPECT_THAT(writer.events_of("insufficient-capacity"),
              ElementsAre("1s InsufficientInstanceCapacity: no capacity for 1 offering (spot g.xlarge zone-a); "
                          "launched the next"));
  EXPECT_THAT(writer.events_of("launch"),
              ElementsAre("1s NodeClaim " + node + " launched g.xlarge zone-b spot $0.0600/h for 3 pods"));
  EXPECT_THAT(nominated_to(state, node), SizeIs(3));
}

TEST_F(Provisioning, NoCapacityAnywhereTriesEachOfferingOnceAndLooksAgainWhenTheCacheLapses) {
  // 3 pods x 1 cpu fit the five types of 4 cpu or more: 5 types x 2 zones x 2 capacity types = 20 offerings, none
  // with capacity. Each is tried once, spot before on-demand and cheapest first, and said in one line; then the
  // NodeClaim is given up until Karpenter's cache lets the first of them again, 3 minutes later.
  for (const std::string type : {"c.large", "c.xlarge", "g.xlarge", "c.2xlarge", "r.2xlarge", "m.4xlarge"}) {
    for (const std::string zone : {"zone-a", "zone-b"}) {
      for (const cloud::CapacityType capacity : {cloud::CapacityType::Spot, cloud::CapacityType::OnDemand}) {
        cloud.out_of_capacity(type, zone, capacity);
      }
    }
  }
  pods_arrive(3, 0s, 0s, 1'000);
  clock.advance_to(kStart + 1s);
  ASSERT_THAT(cloud.calls, SizeIs(20));
  EXPECT_THAT(std::vector<std::string>(cloud.calls.begin(), cloud.calls.begin() + 6),
              ElementsAre("launch g.xlarge zone-a spot", "launch g.xlarge zone-b spot", "launch c.xlarge zone-a spot",
                          "launch c.xlarge zone-b spot", "launch c.2xlarge zone-a spot",
                          "launch c.2xlarge zone-b spot"));
  EXPECT_EQ(cloud.calls[10], "launch g.xlarge zone-a on-demand");  // the first on-demand: the cheapest, $0.16
  EXPECT_EQ(cloud.calls[19], "launch m.4xlarge zone-b on-demand");
  EXPECT_THAT(writer.events_of("insufficient-capacity"),
              ElementsAre("1s InsufficientInstanceCapacity: no capacity for 20 offerings (spot g.xlarge zone-a, spot "
                          "g.xlarge zone-b, spot c.xlarge zone-a, spot c.xlarge zone-b, spot c.2xlarge zone-a and 15 "
                          "more); none left"));
  EXPECT_THAT(writer.events_of("launch-failed"),
              ElementsAre("1s NodeClaim for 3 pods not launched: every offering that fits is unavailable"));

  // Nothing is tried while the cache holds them; once it lapses (1 s + 3 min) the reconcile after it opens a batch,
  // which closes a second later and tries each once more.
  clock.advance_to(kStart + 3min);
  provisioning.reconcile();
  EXPECT_THAT(cloud.calls, SizeIs(20));
  clock.advance_to(kStart + 3min + 1s);
  provisioning.reconcile();
  clock.advance_to(kStart + 3min + 2s);
  EXPECT_THAT(cloud.calls, SizeIs(40));
}

TEST_F(Provisioning, LaunchRefusedForAnotherReasonThanCapacityMarksNoOfferingAndLooksAgainThreeMinutesLater) {
  cloud.refuse_creates({cloud::ErrorClass::Quota, "VcpuLimitExceeded: You have requested more vCPU capacity", {}});
  pods_arrive(3, 0s, 0s, 1'000);
  clock.advance_to(kStart + 1s);
  ASSERT_THAT(cloud.calls, SizeIs(1));
  EXPECT_THAT(writer.calls_of("node_launched"), IsEmpty());
  EXPECT_THAT(writer.events_of("launch-failed"),
              ElementsAre("1s NodeClaim for 3 pods not launched: Quota: VcpuLimitExceeded: You have requested more "
                          "vCPU capacity"));
  EXPECT_THAT(writer.events_of("insufficient-capacity"), IsEmpty());
  EXPECT_TRUE(provisioning.unavailable().empty());  // the offerings themselves were not refused

  clock.advance_to(kStart + 3min);  // not before
  provisioning.reconcile();
  EXPECT_THAT(cloud.calls, SizeIs(1));
  clock.advance_to(kStart + 3min + 1s);  // looked at again: the batch opens, and closes a second later
  provisioning.reconcile();
  clock.advance_to(kStart + 3min + 2s);
  EXPECT_THAT(cloud.calls, SizeIs(2));
}

TEST_F(Provisioning, PodsThatWaitedOnANodeClassNotYetReadyAreProvisionedOnceItIs) {
  // `scalewright run` may see a pending pod before the EC2NodeClass its NodePool names has resolved (a controller
  // started over an existing backlog). The batch closes at 1 s and launches nothing; when the class is ready at
  // 30 s, no pod or node changed, yet the pod is looked at again: a batch opens and closes at 31 s.
  cloud.node_class_not_ready = "EC2NodeClass default is not ready: no subnets yet";
  pods_arrive(1, 0s, 0s, 1'000);
  clock.advance_to(kStart + 29s);
  EXPECT_THAT(cloud.calls, IsEmpty());
  EXPECT_EQ(state.needing_capacity(), 1u);

  clock.advance_to(kStart + 30s);
  cloud.node_class_not_ready.reset();
  state.node_class_applied();
  provisioning.reconcile();
  expect_one_launch_at(kStart + 31s, "c.large zone-a spot");
  EXPECT_EQ(state.needing_capacity(), 0u);
}

TEST_F(Provisioning, NominationsToANodeThatBecameReadyAreReleasedAtTheNextReconcile) {
  pods_arrive(3, 0s, 0s, 1'000);
  const std::string node = expect_one_launch_at(kStart + 1s, "g.xlarge zone-a spot");

  // At 60 s the node is Ready and kube-scheduler binds p-0 and p-1 there, not p-2: until the next reconcile p-2
  // still waits for it, after it p-2 needs capacity again.
  clock.advance_to(kStart + 60s);
  state.node_ready(*state.find_node(node));
  bind_pod(state, clock, *state.find_pod("default/p-0"), node);
  bind_pod(state, clock, *state.find_pod("default/p-1"), node);
  EXPECT_THAT(nominated_to(state, node), ElementsAre("default/p-2"));
  EXPECT_THAT(writer.calls_of("release_nominations"), IsEmpty());

  provisioning.reconcile();
  EXPECT_THAT(writer.calls_of("release_nominations"), ElementsAre("1m0s release_nominations " + node));
  EXPECT_THAT(nominated_to(state, node), IsEmpty());
  EXPECT_EQ(state.needing_capacity(), 1u);
}

// --- launches answered a while later, as `scalewright run`'s launch workers answer ---------------------------------

class ProvisioningWithLaunchesHeld : public Provisioning {
 protected:
  HeldLaunches held{cloud};
  Ports held_ports{state, clock, writer, cloud, cloud.node_groups(), held};
  ProvisioningController provisioning{held_ports, names, lifecycle, {Duration(1'000), Duration(10'000)}};

  void pods_arrive(int count, Duration from, Duration every, std::int64_t cpu_milli, int first = 0) {
    for (int i = 0; i < count; ++i) {
      clock.advance_to(kStart + from + i * every);
      add_pod(state, clock, fmt::format("p-{}", first + i), cpu_milli);
      provisioning.reconcile();
    }
  }
};

TEST_F(ProvisioningWithLaunchesHeld, NodeClaimComesFirstAndItsPodsWaitForItWithoutASecondClaim) {
  // 3 pods x 1 cpu: one claim at 1 s (its cheapest offering g.xlarge spot, see above), no cloud call yet.
  pods_arrive(3, 0s, 0s, 1'000);
  clock.advance_to(kStart + 1s);
  ASSERT_EQ(held.held(), 1u);
  const std::string claim = held.request(0).name;
  EXPECT_THAT(writer.calls_of("nodeclaim_created"), ElementsAre("1s nodeclaim_created " + claim));
  EXPECT_THAT(cloud.calls, IsEmpty());
  const state::NodeRecord& record = *state.find_node(claim);
  EXPECT_EQ(record.phase, state::NodePhase::Launching);
  EXPECT_EQ(record.instance_id, "");
  EXPECT_EQ(held.request(0).offerings.front().instance_type->name, "g.xlarge");
  EXPECT_THAT(nominated_to(state, claim), ElementsAre("default/p-0", "default/p-1", "default/p-2"));
  EXPECT_EQ(state.needing_capacity(), 0u);

  // Pods arriving while the launch is under way are planned onto the claim as its first offering would launch
  // (g.xlarge, 4 cpu: room for one more 1-cpu pod), and onto a claim of their own past that: p-3 joins it, p-4 gets
  // a second claim (1 cpu fits c.large, the cheapest). The first three are not provisioned again.
  pods_arrive(1, 2s, 0s, 1'000, /*first=*/3);
  clock.advance_to(kStart + 3s);
  EXPECT_EQ(held.held(), 1u);
  EXPECT_THAT(nominated_to(state, claim), SizeIs(4));
  pods_arrive(1, 4s, 0s, 1'000, /*first=*/4);
  clock.advance_to(kStart + 5s);
  ASSERT_EQ(held.held(), 2u);
  EXPECT_EQ(held.request(1).offerings.front().instance_type->name, "c.large");
  EXPECT_THAT(nominated_to(state, held.request(1).name), ElementsAre("default/p-4"));

  // The first answer: the claim takes its instance, and says so at the answer's time.
  clock.advance_to(kStart + 6s);
  held.answer(0);
  EXPECT_THAT(cloud.calls, ElementsAre("launch g.xlarge zone-a spot"));
  EXPECT_THAT(writer.calls_of("node_launched"), ElementsAre("6s node_launched " + claim + " g.xlarge zone-a spot"));
  EXPECT_THAT(writer.events_of("launch"),
              ElementsAre("6s NodeClaim " + claim + " launched g.xlarge zone-a spot $0.0600/h for 3 pods"));
  EXPECT_EQ(state.find_node(claim)->instance_type, "g.xlarge");
  EXPECT_EQ(state.find_node(claim)->launched_at, kStart + 1s);  // its registration TTL runs from its creation
  EXPECT_THAT(nominated_to(state, claim), SizeIs(4));
}

TEST_F(ProvisioningWithLaunchesHeld, LaunchRefusedLaterDeletesTheNodeClaimAndItsPodsNeedCapacityAgain) {
  cloud.refuse_creates({cloud::ErrorClass::Unauthorized, "UnauthorizedOperation: not allowed to RunInstances", {}});
  pods_arrive(3, 0s, 0s, 1'000);
  clock.advance_to(kStart + 1s);
  ASSERT_EQ(held.held(), 1u);
  const std::string claim = held.request(0).name;
  clock.advance_to(kStart + 2s);
  held.answer(0);
  EXPECT_THAT(writer.calls_of("nodeclaim_not_launched"), ElementsAre("2s nodeclaim_not_launched " + claim));
  EXPECT_EQ(state.find_node(claim), nullptr);
  EXPECT_THAT(nominated_to(state, claim), IsEmpty());
  EXPECT_EQ(state.needing_capacity(), 3u);
  EXPECT_THAT(writer.events_of("launch-failed"),
              ElementsAre("2s NodeClaim for 3 pods not launched: Unauthorized: UnauthorizedOperation: not allowed to "
                          "RunInstances"));
}

TEST_F(ProvisioningWithLaunchesHeld, InstanceLaunchedForANodeClaimDeletedMeanwhileIsTerminated) {
  pods_arrive(3, 0s, 0s, 1'000);
  clock.advance_to(kStart + 1s);
  ASSERT_EQ(held.held(), 1u);
  const std::string claim = held.request(0).name;
  writer.delete_node(claim);  // kubectl delete nodeclaim, before the cloud answered
  held.answer(0);
  EXPECT_THAT(cloud.calls, ElementsAre("launch g.xlarge zone-a spot", "terminate i-1"));
  EXPECT_THAT(writer.calls_of("node_launched"), IsEmpty());
  EXPECT_THAT(writer.events_of("launch"), IsEmpty());
}

}  // namespace
}  // namespace scalewright::controllers
