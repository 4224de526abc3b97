// Pod-to-pod constraints on new capacity: spread, affinity, anti-affinity, and preferences relaxed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixtures.h"
#include "provisioning/provisioner.h"

namespace scalewright::provisioning {
namespace {

using namespace fixtures;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(Topology, ZonalSpreadOverThreeZonesPutsTwoPodsInEach) {
  Fixture f;
  f.catalog = make_catalog(3);
  f.input.pending = make_pods("web", 6, 1 * kCpu, 1 * kGi, "web");
  for (Pod& pod : f.input.pending) pod.spec.topology_spread_constraints.push_back(spread("web", well_known::zone));
  ProvisioningPlan plan = f.plan();

  // web-0 opens zone-a, web-1 zone-b (zone-a would be 2 against 0), web-2 zone-c, then round again.
  ASSERT_EQ(plan.new_claims.size(), 3u);
  EXPECT_EQ(label(plan.new_claims[0], well_known::zone), "zone-a");
  EXPECT_EQ(label(plan.new_claims[1], well_known::zone), "zone-b");
  EXPECT_EQ(label(plan.new_claims[2], well_known::zone), "zone-c");
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 3));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(1, 4));
  EXPECT_THAT(plan.new_claims[2].pods, ElementsAre(2, 5));
  EXPECT_THAT(plan.unschedulable, IsEmpty());
}

TEST(Topology, ZonalSpreadPicksTheEmptiestZoneEvenWithinTheSkew) {
  Fixture f;
  f.catalog = make_catalog(3);
  f.input.pending = make_pods("web", 6, 1 * kCpu, 1 * kGi, "web");
  for (Pod& pod : f.input.pending) {
    pod.spec.topology_spread_constraints.push_back(spread("web", well_known::zone));
    pod.spec.topology_spread_constraints.back().max_skew = 2;
  }
  ProvisioningPlan plan = f.plan();
  // zone-a could take a second pod within a skew of 2, but zone-b and zone-c have fewer.
  ASSERT_EQ(plan.new_claims.size(), 3u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 3));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(1, 4));
  EXPECT_THAT(plan.new_claims[2].pods, ElementsAre(2, 5));
}

TEST(Topology, ZonalSpreadCountsPodsAlreadyRunning) {
  Fixture f;
  f.cluster.add_node(make_node("full-a", 2, 4, "zone-a"));
  for (int i = 0; i < 2; ++i) {
    Pod running = make_pod("running-" + std::to_string(i), 1 * kCpu, 1 * kGi, "web");
    f.cluster.add_pod(running, 0);
  }
  f.input.pending = make_pods("web", 2, 1 * kCpu, 1 * kGi, "web");
  for (Pod& pod : f.input.pending) pod.spec.topology_spread_constraints.push_back(spread("web", well_known::zone));
  ProvisioningPlan plan = f.plan();

  // zone-a holds 2, zone-b 0: both new pods belong in zone-b (1 then 2 against 2).
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_EQ(label(plan.new_claims[0], well_known::zone), "zone-b");
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 1));
}

TEST(Topology, HostnameAntiAffinityPutsOnePodPerClaim) {
  Fixture f;
  f.input.pending = make_pods("db", 4, 1 * kCpu, 1 * kGi, "db");
  for (Pod& pod : f.input.pending) {
    pod.spec.affinity.required_pod_anti_affinity.push_back(app_term("db", well_known::hostname));
  }
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_THAT(plan.new_claims[i].pods, ElementsAre(i));
    EXPECT_EQ(plan.new_claims[i].instance_types.front()->name, "c.large");
  }
}

TEST(Topology, HostnameSpreadWithMaxSkewOneActsLikeAntiAffinity) {
  Fixture f;
  f.input.pending = make_pods("web", 3, 1 * kCpu, 1 * kGi, "web");
  for (Pod& pod : f.input.pending) {
    pod.spec.topology_spread_constraints.push_back(spread("web", well_known::hostname));
  }
  ProvisioningPlan plan = f.plan();
  EXPECT_EQ(plan.new_claims.size(), 3u);
}

TEST(Topology, ZonalAntiAffinityPutsEachPodInAnEmptyZone) {
  Fixture f;
  f.input.pending = make_pods("db", 3, 1 * kCpu, 1 * kGi, "db");
  for (Pod& pod : f.input.pending) {
    pod.spec.affinity.required_pod_anti_affinity.push_back(app_term("db", well_known::zone));
  }
  ProvisioningPlan plan = f.plan();
  // Two zones: two pods, the third has nowhere to go.
  ASSERT_EQ(plan.new_claims.size(), 2u);
  EXPECT_EQ(label(plan.new_claims[0], well_known::zone), "zone-a");
  EXPECT_EQ(label(plan.new_claims[1], well_known::zone), "zone-b");
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].pod, 2u);
}

TEST(Topology, PodAffinityCoLocatesOnTheSameClaim) {
  // Compared with Karpenter's packing, and planned by the price rule alone (a batch past compared_batch): the rule
  // would stop the cache pod's claim at g.xlarge (4 cpu) with two web pods, but the third has no other place to go
  // than that node, so the claim grows for it all the same.
  for (const std::size_t compared : {kComparedBatch, std::size_t{0}}) {
    SCOPED_TRACE(compared == 0 ? "the price rule alone" : "compared with Karpenter's packing");
    Fixture f;
    f.input.compared_batch = compared;
    f.input.pending.push_back(make_pod("cache", 2 * kCpu, 1 * kGi, "cache"));
    for (int i = 0; i < 3; ++i) {
      Pod web = make_pod("web-" + std::to_string(i), 1 * kCpu, 1 * kGi, "web");
      web.spec.affinity.required_pod_affinity.push_back(app_term("cache", well_known::hostname));
      f.input.pending.push_back(web);
    }
    ProvisioningPlan plan = f.plan();
    EXPECT_THAT(plan.unschedulable, IsEmpty());
    ASSERT_EQ(plan.new_claims.size(), 1u);
    EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 1, 2, 3));
    EXPECT_EQ(plan.new_claims[0].instance_types.front()->name, "c.2xlarge");  // 5 cpu
  }
}

TEST(Topology, PodAffinityToAPodLaterInTheBatchIsRetried) {
  Fixture f;
  for (int i = 0; i < 2; ++i) {
    Pod web = make_pod("web-" + std::to_string(i), 2 * kCpu, 1 * kGi, "web");
    web.spec.affinity.required_pod_affinity.push_back(app_term("cache", well_known::hostname));
    f.input.pending.push_back(web);
  }
  f.input.pending.push_back(make_pod("cache", 1 * kCpu, 1 * kGi, "cache"));
  ProvisioningPlan plan = f.plan();
  // The web pods come first (larger) but have nothing to join until the cache pod has a claim.
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(2, 0, 1));
  EXPECT_THAT(plan.unschedulable, IsEmpty());
}

TEST(Topology, ZonalPodAffinityNarrowsTheClaimToTheTargetsZone) {
  Fixture f;
  Pod cache = make_pod("cache", 1 * kCpu, 1 * kGi, "cache");
  cache.spec.node_selector.set(Symbol(well_known::zone), Symbol("zone-b"));
  f.input.pending.push_back(cache);
  for (int i = 0; i < 2; ++i) {
    Pod web = make_pod("web-" + std::to_string(i), 8 * kCpu, 1 * kGi, "web");
    web.spec.affinity.required_pod_affinity.push_back(app_term("cache", well_known::zone));
    web.spec.affinity.required_pod_anti_affinity.push_back(app_term("web", well_known::hostname));
    f.input.pending.push_back(web);
  }
  ProvisioningPlan plan = f.plan();
  // Three claims, every one in zone-b: the cache pod's c.large ($0.04 spot), and a c.2xlarge ($0.16) for each web
  // pod, $0.36 in all; one web pod beside the cache pod would need an m.4xlarge ($0.32), $0.48 with the other's.
  ASSERT_EQ(plan.new_claims.size(), 3u);
  for (const NewNodeClaim& claim : plan.new_claims) EXPECT_EQ(label(claim, well_known::zone), "zone-b");
  EXPECT_THAT(plan.unschedulable, IsEmpty());
}

TEST(Topology, ExistingPodsAntiAffinityKeepsNewPodsOutOfTheirZone) {
  Fixture f;
  f.cluster.add_node(make_node("node-a", 1, 4, "zone-a"));
  Pod guard = make_pod("guard", 1 * kCpu, 1 * kGi, "guard");
  guard.spec.affinity.required_pod_anti_affinity.push_back(app_term("web", well_known::zone));
  f.cluster.add_pod(guard, 0);
  f.input.pending = {make_pod("web", 1 * kCpu, 1 * kGi, "web")};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_FALSE(plan.new_claims[0].requirements.allows(std::string(well_known::zone), "zone-a"));
  auto choice = choose_offering(plan.new_claims[0], f.unavailable, Instant{});
  ASSERT_TRUE(choice);
  EXPECT_EQ(choice->offering->zone, "zone-b");
}

TEST(Topology, PreferredAntiAffinityIsRelaxedWhenItCannotBeMet) {
  Fixture f;  // two zones
  f.input.pending = make_pods("web", 3, 1 * kCpu, 1 * kGi, "web");
  for (Pod& pod : f.input.pending) {
    pod.spec.affinity.preferred_pod_anti_affinity.push_back({100, app_term("web", well_known::zone)});
  }
  ProvisioningPlan plan = f.plan();
  // One pod per zone while the preference holds; the third joins the first claim once it is dropped.
  EXPECT_THAT(plan.unschedulable, IsEmpty());
  ASSERT_EQ(plan.new_claims.size(), 2u);
  EXPECT_EQ(label(plan.new_claims[0], well_known::zone), "zone-a");
  EXPECT_EQ(label(plan.new_claims[1], well_known::zone), "zone-b");
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 2));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(1));
}

TEST(Topology, PreferredNodeAffinityIsHonouredThenRelaxed) {
  Fixture f;
  Pod pod = make_pod("web", 1 * kCpu, 1 * kGi);
  PreferredSchedulingTerm preferred;
  preferred.weight = 10;
  preferred.preference.match_expressions.push_back(
      requirement(well_known::instance_type, SelectorOperator::In, {"r.2xlarge"}));
  pod.spec.affinity.preferred_node_affinity.push_back(preferred);
  f.input.pending = {pod};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_THAT(type_names(plan.new_claims[0]), ElementsAre("r.2xlarge"));

  // A preference no type can meet is dropped.
  f.input.pending[0].spec.affinity.preferred_node_affinity[0].preference.match_expressions[0].values = {
      Symbol("x.nano")};
  plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_EQ(plan.new_claims[0].instance_types.front()->name, "c.large");
}

TEST(Topology, ScheduleAnywaySpreadIsHonouredWhilePossible) {
  Fixture f;
  f.input.pending = make_pods("web", 4, 1 * kCpu, 1 * kGi, "web");
  for (Pod& pod : f.input.pending) {
    pod.spec.topology_spread_constraints.push_back(
        spread("web", well_known::zone, UnsatisfiableConstraintAction::ScheduleAnyway));
  }
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 2u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 2));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(1, 3));
}

TEST(Topology, SpreadCountsExistingNodesAndNewClaimsTogether) {
  Fixture f;
  f.cluster.add_node(make_node("node-a", 8, 16, "zone-a"));
  f.input.pending = make_pods("web", 2, 1 * kCpu, 1 * kGi, "web");
  for (Pod& pod : f.input.pending) pod.spec.topology_spread_constraints.push_back(spread("web", well_known::zone));
  ProvisioningPlan plan = f.plan();
  // web-0 fits node-a; a second pod there would make zone-a 2 against an empty zone-b, which a new node offers.
  ASSERT_EQ(plan.existing.size(), 1u);
  EXPECT_EQ(plan.existing[0].pod, 0u);
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_EQ(label(plan.new_claims[0], well_known::zone), "zone-b");
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(1));
}

TEST(Topology, PodsDifferingOnlyInUnselectedLabelsAreStillSpread) {
  Fixture f;
  f.catalog = make_catalog(3);
  f.input.pending = make_pods("db", 6, 1 * kCpu, 1 * kGi, "db");
  for (Pod& pod : f.input.pending) {
    pod.meta.labels.set(Symbol("statefulset.kubernetes.io/pod-name"), Symbol(pod.meta.name));
    pod.spec.topology_spread_constraints.push_back(spread("db", well_known::zone));
  }
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 3u);
  for (const NewNodeClaim& claim : plan.new_claims) EXPECT_EQ(claim.pods.size(), 2u);
}

TEST(Topology, AntiAffinityOfAPodInTheBatchKeepsOthersOffItsClaim) {
  Fixture f;
  Pod guard = make_pod("guard", 2 * kCpu, 1 * kGi, "guard");
  guard.spec.affinity.required_pod_anti_affinity.push_back(app_term("web", well_known::hostname));
  f.input.pending = {guard, make_pod("web-0", 1 * kCpu, 1 * kGi, "web"), make_pod("web-1", 1 * kCpu, 1 * kGi, "web")};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 2u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(1, 2));
}

TEST(Topology, ExistingPodsHostnameAntiAffinityIsHonouredOnExistingNodes) {
  Fixture f;
  f.cluster.add_node(make_node("node-1", 8, 16));
  Pod running = make_pod("db-running", 1 * kCpu, 1 * kGi, "db");
  f.cluster.add_pod(running, 0);
  Pod pending = make_pod("db-new", 1 * kCpu, 1 * kGi, "db");
  pending.spec.affinity.required_pod_anti_affinity.push_back(app_term("db", well_known::hostname));
  f.input.pending = {pending, make_pod("web", 1 * kCpu, 1 * kGi, "web")};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.existing.size(), 1u);
  EXPECT_EQ(plan.existing[0].pod, 1u);  // web fits node-1
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0));
}

TEST(Topology, PreferredPodAffinityToNothingIsRelaxed) {
  Fixture f;
  Pod pod = make_pod("web", 1 * kCpu, 1 * kGi, "web");
  pod.spec.affinity.preferred_pod_affinity.push_back({50, app_term("cache", well_known::hostname)});
  f.input.pending = {pod};
  ProvisioningPlan plan = f.plan();
  EXPECT_THAT(plan.unschedulable, IsEmpty());
  EXPECT_EQ(plan.new_claims.size(), 1u);
}

TEST(Topology, RequiredPodAffinityToNothingIsUnschedulable) {
  Fixture f;
  Pod pod = make_pod("web", 1 * kCpu, 1 * kGi, "web");
  pod.spec.affinity.required_pod_affinity.push_back(app_term("cache", well_known::hostname));
  f.input.pending = {pod};
  ProvisioningPlan plan = f.plan();
  EXPECT_THAT(plan.new_claims, IsEmpty());
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].reason,
            "no nodepool can hold the pod: nodepool \"default\": unsatisfiable pod affinity on \"kubernetes.io/hostname\"");
}

}  // namespace
}  // namespace scalewright::provisioning
