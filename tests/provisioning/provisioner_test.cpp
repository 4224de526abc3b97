#include "provisioning/provisioner.h"
#include "provisioning/nodeclaim_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "fixtures.h"

namespace scalewright::provisioning {
namespace {

using namespace fixtures;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(Provisioning, CheapestTypeHoldsTheBatchPlusDaemonOverhead) {
  Fixture f;
  // Packed as Karpenter packs, one claim takes the whole batch (priced, see the next test).
  f.input.nodepools[0].meta.annotations[std::string(kPackAsKarpenterAnnotation)] = "true";
  f.input.pending = make_pods("web", 5, 1 * kCpu, 1 * kGi);
  f.input.daemonsets.push_back(make_daemonset("logs", 500, 256 * kMi));
  ProvisioningPlan plan = f.plan();

  // 5 cpu + 500m of daemon needs 5.5 cpu: the 8-cpu types, cheapest spot price first (0.16, 0.20, 0.32).
  ASSERT_EQ(plan.new_claims.size(), 1u);
  const NewNodeClaim& claim = plan.new_claims[0];
  EXPECT_EQ(claim.nodepool, "default");
  EXPECT_THAT(claim.pods, ElementsAre(0, 1, 2, 3, 4));
  EXPECT_THAT(type_names(claim), ElementsAre("c.2xlarge", "r.2xlarge", "m.4xlarge"));
  EXPECT_EQ(claim.pod_requests.cpu_milli(), 5000);
  EXPECT_EQ(claim.pod_requests.memory(), 5 * kGi);
  EXPECT_EQ(claim.daemon_requests.cpu_milli(), 500);
  EXPECT_EQ(label(claim, "karpenter.sh/nodepool"), "default");
  EXPECT_THAT(plan.unschedulable, IsEmpty());
  EXPECT_THAT(plan.existing, IsEmpty());

  auto choice = choose_offering(claim, f.unavailable, Instant{});
  ASSERT_TRUE(choice.has_value());
  EXPECT_EQ(choice->instance_type->name, "c.2xlarge");
  EXPECT_EQ(choice->offering->capacity_type, cloud::CapacityType::Spot);
  EXPECT_EQ(choice->offering->zone, "zone-a");
}

// The same batch priced: a claim on g.xlarge (4 cpu, arm64, $0.06 spot: 3.5 cpu beside the daemon's 500m, three
// pods) would become a c.2xlarge ($0.16) for a fourth pod, but two g.xlarge hold the five pods for $0.12: growing
// costs $0.10 more, more than a node of its own for the pod ($0.06), and c.2xlarge prices five pods at
// 0.16 x 5/7.5 = $0.107 where g.xlarge asks 0.06 x 5/3.5 = $0.086 (24 % more).
TEST(Provisioning, TwoSmallerNodesHoldTheBatchWhenThatIsCheaper) {
  Fixture f;
  f.input.pending = make_pods("web", 5, 1 * kCpu, 1 * kGi);
  f.input.daemonsets.push_back(make_daemonset("logs", 500, 256 * kMi));
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 2u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 1, 2));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(3, 4));
  for (const NewNodeClaim& claim : plan.new_claims) {
    auto choice = choose_offering(claim, f.unavailable, Instant{});
    ASSERT_TRUE(choice.has_value());
    EXPECT_EQ(choice->instance_type->name, "g.xlarge");
    EXPECT_EQ(choice->offering->price_per_hour, 0.06);
  }
}

TEST(Provisioning, FirstFitDecreasingAcrossSeveralClaims) {
  Fixture f;
  require(f.input.nodepools[0], "node.kubernetes.io/instance-type", SelectorOperator::In, {"c.xlarge"});
  // cpu: 1 3 2 1 3 2 1 1 on 4-cpu nodes.
  for (int cpu : {1, 3, 2, 1, 3, 2, 1, 1}) {
    f.input.pending.push_back(make_pod("p" + std::to_string(f.input.pending.size()), cpu * kCpu, 1 * kGi));
  }
  ProvisioningPlan plan = f.plan();

  // Decreasing: 3(p1) 3(p4) 2(p2) 2(p5) 1(p0) 1(p3) 1(p6) 1(p7), each into the first claim with room.
  ASSERT_EQ(plan.new_claims.size(), 4u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(1, 0));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(4, 3));
  EXPECT_THAT(plan.new_claims[2].pods, ElementsAre(2, 5));
  EXPECT_THAT(plan.new_claims[3].pods, ElementsAre(6, 7));
  for (const NewNodeClaim& claim : plan.new_claims) EXPECT_THAT(type_names(claim), ElementsAre("c.xlarge"));
  EXPECT_EQ(plan.new_claims[3].pod_requests.cpu_milli(), 2000);
}

// Largest first (Karpenter's order) puts the two 2-cpu / 1Gi pods on one c.xlarge (4 cpu, 8Gi) and the four
// 500m / 3Gi pods two per node by memory (a third would need 9Gi): three claims. Packed node by node, each node's
// room matched with the shape that fills it best (see scheduling::pack_shapes, whose first test walks this case),
// a node takes one large pod and two small ones (3 cpu, 7Gi): two claims, $0.16/h instead of $0.24/h at spot.
TEST(Provisioning, MemoryHeavyPodsGoBesideCpuHeavyOnesWhenThatIsCheaper) {
  Fixture f;
  require(f.input.nodepools[0], "node.kubernetes.io/instance-type", SelectorOperator::In, {"c.xlarge"});
  f.input.pending = make_pods("large", 2, 2 * kCpu, 1 * kGi);
  for (Pod& pod : make_pods("small", 4, 500, 3 * kGi)) f.input.pending.push_back(std::move(pod));
  ProvisioningPlan plan = f.plan();

  ASSERT_EQ(plan.new_claims.size(), 2u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 2, 3));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(1, 4, 5));
  EXPECT_EQ(plan.new_claims[0].pod_requests.memory(), 7 * kGi);
  EXPECT_THAT(plan.unschedulable, IsEmpty());
}

// Twenty 1-cpu / 1Gi pods, on-demand, over c.large, c.xlarge and c.2xlarge ($0.05 a cpu) and x.8xlarge (32 cpu,
// 1,024Gi at $4.00: $0.125 a cpu, priced for memory these pods do not use). Karpenter lets a claim grow while any
// type holds it: all twenty on one x.8xlarge, $4.00/h. Here the claim stops where its cheapest type would become
// x.8xlarge: 9 pods there would cost 4.00 x 9/32 = $1.125 of it, 150 % more than the $0.45 the c types ask for the
// same 9 pods. So 8 pods on a c.2xlarge, 8 more on another, the last 4 on a c.xlarge: $1.00/h.
TEST(Provisioning, ANodeClaimDoesNotGrowOntoATypePricedForWhatItsPodsDoNotUse) {
  const std::vector<cloud::Zone> zone = zones(1);
  auto catalog = [&] {
    std::vector<cloud::InstanceType> types{
        make_type("c.large", "amd64", 2, 4, 0.10, 0.04, zone), make_type("c.xlarge", "amd64", 4, 8, 0.20, 0.08, zone),
        make_type("c.2xlarge", "amd64", 8, 16, 0.40, 0.16, zone),
        make_type("x.8xlarge", "amd64", 32, 1024, 4.00, 1.60, zone)};
    return cloud::Catalog::from_instance_types("test-region", zone, std::move(types));
  };
  for (const bool as_karpenter : {false, true}) {
    SCOPED_TRACE(as_karpenter ? "packed as Karpenter" : "priced");
    Fixture f;
    f.catalog = catalog();
    require(f.input.nodepools[0], karpenter_labels::capacity_type, SelectorOperator::In, {"on-demand"});
    if (as_karpenter) f.input.nodepools[0].meta.annotations[std::string(kPackAsKarpenterAnnotation)] = "true";
    f.input.pending = make_pods("web", 20, 1 * kCpu, 1 * kGi);
    const ProvisioningPlan plan = f.plan();
    std::vector<std::pair<std::string, std::size_t>> launched;  // each claim's cheapest type, and its pods
    for (const NewNodeClaim& claim : plan.new_claims) launched.emplace_back(type_names(claim)[0], claim.pods.size());
    if (as_karpenter) {
      EXPECT_THAT(launched, ElementsAre(std::pair<std::string, std::size_t>{"x.8xlarge", 20}));
    } else {
      EXPECT_THAT(launched, ElementsAre(std::pair<std::string, std::size_t>{"c.2xlarge", 8},
                                        std::pair<std::string, std::size_t>{"c.2xlarge", 8},
                                        std::pair<std::string, std::size_t>{"c.xlarge", 4}));
    }
    EXPECT_THAT(plan.unschedulable, IsEmpty());
  }
}

// A pod whose place depends on others (here hostname anti-affinity) keeps the batch in Karpenter's order.
TEST(Provisioning, PodsThatDependOnOtherPodsKeepLargestFirst) {
  Fixture f;
  require(f.input.nodepools[0], "node.kubernetes.io/instance-type", SelectorOperator::In, {"c.xlarge"});
  f.input.pending = make_pods("large", 2, 2 * kCpu, 1 * kGi);
  for (Pod& pod : make_pods("small", 4, 500, 3 * kGi)) f.input.pending.push_back(std::move(pod));
  PodAffinityTerm apart;
  apart.label_selector = LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol("lonely")}}}};
  apart.topology_key = Symbol(well_known::hostname);
  Pod lonely = make_pod("lonely", 100, 128 * kMi, "lonely");
  lonely.spec.affinity.required_pod_anti_affinity.push_back(apart);
  f.input.pending.push_back(std::move(lonely));
  ProvisioningPlan plan = f.plan();

  // Largest first: large-0 large-1 (claim 0, its cpu full), small ×2 (claim 1), small ×2 (claim 2); lonely last, on
  // the first claim with room: the second.
  ASSERT_EQ(plan.new_claims.size(), 3u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(0, 1));
  EXPECT_THAT(plan.new_claims[1].pods, ElementsAre(2, 3, 6));
  EXPECT_THAT(plan.new_claims[2].pods, ElementsAre(4, 5));
}

TEST(Provisioning, ExistingCapacityIsUsedBeforeNewClaims) {
  Fixture f;
  f.cluster.add_node(make_node("node-1", 4, 8));
  f.input.pending = {make_pod("p0", 1 * kCpu, 1 * kGi), make_pod("p1", 2 * kCpu, 1 * kGi),
                     make_pod("p2", 1 * kCpu, 1 * kGi), make_pod("p3", 1 * kCpu, 1 * kGi)};
  ProvisioningPlan plan = f.plan();

  // p1 (2 cpu), p0 and p2 fill node-1's 4 cpu; p3 needs a new claim, the cheapest type that holds 1 cpu.
  ASSERT_EQ(plan.existing.size(), 3u);
  EXPECT_EQ(plan.existing[0].pod, 0u);
  EXPECT_EQ(plan.existing[1].pod, 1u);
  EXPECT_EQ(plan.existing[2].pod, 2u);
  for (const Nomination& n : plan.existing) EXPECT_EQ(n.node, "node-1");
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(3));
  EXPECT_EQ(plan.new_claims[0].instance_types.front()->name, "c.large");
}

// Pods of one workload that differ only in requests share their constraints; each is still judged on existing
// nodes with its own requests, whichever of them came first.
TEST(Provisioning, PodsOfOneShapeAreJudgedOnExistingNodesWithTheirOwnRequests) {
  for (const bool small_first : {true, false}) {
    SCOPED_TRACE(small_first ? "small first" : "big first");
    Fixture f;
    f.cluster.add_node(make_node("node-1", 2, 8));
    const Pod small = make_pod("small", 1 * kCpu, 1 * kGi, "web");
    const Pod big = make_pod("big", 3 * kCpu, 1 * kGi, "web");
    f.input.pending = small_first ? std::vector<Pod>{small, big} : std::vector<Pod>{big, small};
    const std::size_t small_index = small_first ? 0 : 1;
    ProvisioningPlan plan = f.plan();
    ASSERT_EQ(plan.existing.size(), 1u);
    EXPECT_EQ(plan.existing[0].pod, small_index);
    EXPECT_EQ(plan.existing[0].node, "node-1");
    ASSERT_EQ(plan.new_claims.size(), 1u);
    EXPECT_THAT(plan.new_claims[0].pods, ElementsAre(1 - small_index));
    EXPECT_EQ(plan.new_claims[0].pod_requests.cpu_milli(), 3 * kCpu);
    EXPECT_THAT(plan.unschedulable, IsEmpty());
  }
}

// Relaxing a preference keeps each pod's own requests too.
TEST(Provisioning, PodsOfOneShapeKeepTheirRequestsWhenRelaxed) {
  Fixture f;
  std::vector<Pod> pods = {make_pod("a", 1 * kCpu, 1 * kGi, "web"), make_pod("b", 2 * kCpu, 2 * kGi, "web"),
                           make_pod("c", 1 * kCpu, 1 * kGi, "web")};
  for (Pod& pod : pods) {
    PreferredSchedulingTerm preferred;
    preferred.weight = 10;
    preferred.preference.match_expressions.push_back(
        requirement(well_known::instance_type, SelectorOperator::In, {"x.nano"}));
    pod.spec.affinity.preferred_node_affinity.push_back(preferred);
  }
  f.input.pending = pods;
  ProvisioningPlan plan = f.plan();
  EXPECT_THAT(plan.unschedulable, IsEmpty());
  std::int64_t cpu = 0;
  std::int64_t memory = 0;
  std::size_t count = 0;
  for (const NewNodeClaim& claim : plan.new_claims) {
    cpu += claim.pod_requests.cpu_milli();
    memory += claim.pod_requests.memory();
    count += claim.pods.size();
  }
  EXPECT_EQ(count, 3u);
  EXPECT_EQ(cpu, 4 * kCpu);
  EXPECT_EQ(memory, 4 * kGi);
}

TEST(Provisioning, InFlightNodeIsUsedDespiteItsStartupAndNotReadyTaints) {
  Fixture f;
  const Taint startup{"example.com/agent-not-ready", "true", TaintEffect::NoSchedule};
  f.input.nodepools[0].startup_taints.push_back(startup);
  Node node = make_node("launching-1", 4, 8);
  node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol("default"));
  node.taints = {startup, Taint{"node.kubernetes.io/not-ready", "", TaintEffect::NoSchedule}};
  node.conditions.clear();
  f.cluster.add_node(node);
  f.input.pending = {make_pod("p0", 1 * kCpu, 1 * kGi)};

  f.input.in_flight_nodes = {"launching-1"};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.existing.size(), 1u);
  EXPECT_EQ(plan.existing[0].node, "launching-1");
  EXPECT_THAT(plan.new_claims, IsEmpty());

  // The same node, not in flight, keeps its taints: the pod needs new capacity.
  f.input.in_flight_nodes.clear();
  plan = f.plan();
  EXPECT_THAT(plan.existing, IsEmpty());
  EXPECT_EQ(plan.new_claims.size(), 1u);
}

TEST(Provisioning, NodePoolLimitsHoldUnderABurstOfOneThousandPods) {
  Fixture f;
  NodePool& np = f.input.nodepools[0];
  require(np, "node.kubernetes.io/instance-type", SelectorOperator::In, {"c.2xlarge"});
  limit(np, resource_names::cpu(), 100 * kCpu);
  ResourceList used;
  used.set(resource_names::cpu(), 20 * kCpu);
  f.input.nodepool_usage["default"] = used;
  f.input.pending = make_pods("burst", 1000, 1 * kCpu, 1 * kGi);
  ProvisioningPlan plan = f.plan();

  // 100 - 20 = 80 cpu left: ten 8-cpu nodes of 8 pods each.
  ASSERT_EQ(plan.new_claims.size(), 10u);
  std::int64_t capacity = 0;
  for (const NewNodeClaim& claim : plan.new_claims) {
    EXPECT_EQ(claim.pods.size(), 8u);
    capacity += claim.instance_types.front()->capacity.cpu_milli();
  }
  EXPECT_EQ(capacity, 80 * kCpu);
  ASSERT_EQ(plan.unschedulable.size(), 920u);
  EXPECT_EQ(plan.unschedulable[0].reason, "no nodepool can hold the pod: nodepool \"default\": limits exceeded (cpu)");
}

TEST(Provisioning, ALimitOnNodesCountsEveryNodeOfThePoolAndEveryNewClaim) {
  // Karpenter counts each node as one of resource "nodes". limits.nodes 3 with one node running leaves two new
  // NodeClaims: 1-cpu pods fill two 16-cpu m.4xlarge claims (32 pods); the other 68 fit no further claim.
  Fixture f;
  limit(f.input.nodepools[0], nodes_resource(), 3);
  f.input.nodepool_usage["default"] = limit_usage(ResourceList());
  f.input.pending = make_pods("burst", 100, 1 * kCpu, 1 * kGi);
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 2u);
  EXPECT_EQ(plan.new_claims[0].pods.size() + plan.new_claims[1].pods.size(), 32u);
  ASSERT_EQ(plan.unschedulable.size(), 68u);
  EXPECT_EQ(plan.unschedulable[0].reason,
            "no nodepool can hold the pod: nodepool \"default\": limits exceeded (nodes)");
}

// The cpu a plan's new claims hold against a limit (each the capacity of the largest type it may still launch, as
// Karpenter counts it), and the pods on them.
std::pair<std::int64_t, std::size_t> held_against_cpu_limit(const ProvisioningPlan& plan) {
  std::int64_t worst_case = 0;
  std::size_t pods = 0;
  for (const NewNodeClaim& claim : plan.new_claims) {
    std::int64_t largest = 0;
    for (const cloud::InstanceType* t : claim.instance_types) largest = std::max(largest, t->capacity.cpu_milli());
    worst_case += largest;
    pods += claim.pods.size();
  }
  return {worst_case, pods};
}

TEST(Provisioning, NodePoolLimitsCountTheLargestTypeAClaimMayStillLaunch) {
  Fixture f;
  limit(f.input.nodepools[0], resource_names::cpu(), 100 * kCpu);
  f.input.pending = make_pods("burst", 1000, 1 * kCpu, 1 * kGi);
  ProvisioningPlan plan = f.plan();

  // Six 16-cpu claims of 16 pods (96 cpu), then only types of at most 4 cpu fit the last 4 cpu: 4 pods.
  ASSERT_EQ(plan.new_claims.size(), 7u);
  const auto [worst_case, pods] = held_against_cpu_limit(plan);
  EXPECT_EQ(worst_case, 100 * kCpu);
  EXPECT_EQ(pods, 100u);
  EXPECT_THAT(type_names(plan.new_claims[6]), ElementsAre("g.xlarge", "c.xlarge"));
}

TEST(Provisioning, ThePriceRuleLeavesNoPodALimitHasRoomFor) {
  // The price rule alone (no comparison with Karpenter's packing): claims it keeps small each hold the largest type
  // they may still launch against the limit, which runs out before the pods do; the pods left are placed as
  // Karpenter places them, growing the claims, until the limit's 100 cpu hold 100 pods.
  Fixture f;
  f.input.compared_batch = 0;
  limit(f.input.nodepools[0], resource_names::cpu(), 100 * kCpu);
  f.input.pending = make_pods("burst", 1000, 1 * kCpu, 1 * kGi);
  ProvisioningPlan plan = f.plan();
  const auto [worst_case, pods] = held_against_cpu_limit(plan);
  EXPECT_LE(worst_case, 100 * kCpu);
  EXPECT_EQ(pods, 100u);
  EXPECT_EQ(plan.unschedulable.size(), 900u);
}

TEST(Provisioning, HeavierNodePoolWinsThenName) {
  Fixture f;
  f.input.nodepools = {make_nodepool("low", 10), make_nodepool("high", 50), make_nodepool("b-equal", 50)};
  f.input.pending = {make_pod("p0", 1 * kCpu, 1 * kGi)};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_EQ(plan.new_claims[0].nodepool, "b-equal");  // weight 50, and "b-equal" < "high"

  // A pod only the lighter NodePool's label admits goes there.
  f.input.nodepools[0].template_labels.set(Symbol("team"), Symbol("batch"));
  f.input.pending[0].spec.node_selector.set(Symbol("team"), Symbol("batch"));
  plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_EQ(plan.new_claims[0].nodepool, "low");
  EXPECT_EQ(label(plan.new_claims[0], "team"), "batch");
}

TEST(Provisioning, PodRequirementsNarrowTheClaim) {
  {
    Fixture f;  // arm64 only
    Pod pod = make_pod("arm", 1 * kCpu, 1 * kGi);
    pod.spec.node_selector.set(Symbol(well_known::arch), Symbol("arm64"));
    f.input.pending = {pod};
    ProvisioningPlan plan = f.plan();
    ASSERT_EQ(plan.new_claims.size(), 1u);
    EXPECT_THAT(type_names(plan.new_claims[0]), ElementsAre("g.xlarge"));
    EXPECT_EQ(label(plan.new_claims[0], well_known::arch), "arm64");
  }
  {
    Fixture f;  // one zone only
    Pod pod = make_pod("zonal", 1 * kCpu, 1 * kGi);
    pod.spec.node_selector.set(Symbol(well_known::zone), Symbol("zone-b"));
    f.input.pending = {pod};
    ProvisioningPlan plan = f.plan();
    ASSERT_EQ(plan.new_claims.size(), 1u);
    EXPECT_EQ(label(plan.new_claims[0], well_known::zone), "zone-b");
    auto choice = choose_offering(plan.new_claims[0], f.unavailable, Instant{});
    ASSERT_TRUE(choice);
    EXPECT_EQ(choice->offering->zone, "zone-b");
    EXPECT_EQ(choice->instance_type->name, "c.large");
  }
  {
    Fixture f;  // on-demand only
    Pod pod = make_pod("steady", 1 * kCpu, 1 * kGi);
    require_node_affinity(pod, {requirement("karpenter.sh/capacity-type", SelectorOperator::In, {"on-demand"})});
    f.input.pending = {pod};
    ProvisioningPlan plan = f.plan();
    ASSERT_EQ(plan.new_claims.size(), 1u);
    EXPECT_EQ(label(plan.new_claims[0], "karpenter.sh/capacity-type"), "on-demand");
    auto choice = choose_offering(plan.new_claims[0], f.unavailable, Instant{});
    ASSERT_TRUE(choice);
    EXPECT_EQ(choice->offering->capacity_type, cloud::CapacityType::OnDemand);
    EXPECT_EQ(choice->instance_type->name, "c.large");  // 0.10 on-demand
    EXPECT_DOUBLE_EQ(choice->offering->price_per_hour, 0.10);
  }
}

TEST(Provisioning, RequiredNodeAffinityTermsAreTriedInTurn) {
  Fixture f;
  require(f.input.nodepools[0], well_known::arch, SelectorOperator::In, {"amd64"});
  Pod pod = make_pod("either", 1 * kCpu, 1 * kGi);
  require_node_affinity(pod, {requirement(well_known::arch, SelectorOperator::In, {"arm64"})});
  require_node_affinity(pod, {requirement(well_known::instance_type, SelectorOperator::In, {"c.xlarge"})});
  f.input.pending = {pod};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_THAT(type_names(plan.new_claims[0]), ElementsAre("c.xlarge"));
}

TEST(Provisioning, DaemonSetRequestsCountOnEveryNewClaim) {
  Fixture f;
  f.input.daemonsets.push_back(make_daemonset("agent", 1500, 256 * kMi));
  f.input.pending = make_pods("web", 3, 1 * kCpu, 1 * kGi);
  ProvisioningPlan plan = f.plan();
  // 3 cpu of pods fit a 4-cpu type, 4.5 cpu with the daemon do not: one c.2xlarge ($0.16 spot) would hold them, two
  // g.xlarge (2.5 cpu beside the daemon: two pods, then one) cost $0.12, each with the daemon's requests.
  ASSERT_EQ(plan.new_claims.size(), 2u);
  for (const NewNodeClaim& claim : plan.new_claims) {
    EXPECT_EQ(type_names(claim).front(), "g.xlarge");
    EXPECT_EQ(claim.daemon_requests.cpu_milli(), 1500);
  }
  EXPECT_EQ(plan.new_claims[0].pods.size() + plan.new_claims[1].pods.size(), 3u);
}

TEST(Provisioning, DaemonSetCountsOnlyWhereItWouldRun) {
  Fixture f;
  Workload arm_only = make_daemonset("arm-agent", 1500, 256 * kMi);
  arm_only.pod_template.spec.node_selector.set(Symbol(well_known::arch), Symbol("arm64"));
  f.input.daemonsets.push_back(arm_only);
  f.input.pending = make_pods("web", 4, 1 * kCpu, 1 * kGi);
  ProvisioningPlan plan = f.plan();
  // On amd64 the 4 cpu fit c.xlarge exactly; on the cheaper arm64 g.xlarge the daemon would not fit beside them.
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_THAT(type_names(plan.new_claims[0]), ElementsAre("c.xlarge", "c.2xlarge", "r.2xlarge", "m.4xlarge"));
  EXPECT_EQ(plan.new_claims[0].daemon_requests.cpu_milli(), 0);
}

TEST(Provisioning, PodBiggerThanEveryTypeLaunchesNothing) {
  // The second: two containers of 5Ei (the decoders refuse such a pod; the engine must not wrap either). The sum
  // wrapped to -6Ei and fit a c.large; it saturates at 2^63 - 1 bytes, which no type holds.
  Pod past_int64 = make_pod("past-int64", 1 * kCpu, 5 * kEi);
  Container second = past_int64.spec.containers->front();
  second.name = "second";
  second.requests.set(resource_names::cpu(), 0);
  past_int64.spec.containers.push_back(second);
  const std::pair<Pod, std::string> cases[] = {{make_pod("huge", 64 * kCpu, 1 * kGi), "cpu=64 memory=1Gi"},
                                               {past_int64, "cpu=1 memory=9223372036854775807"}};
  for (const auto& [pod, requests] : cases) {
    SCOPED_TRACE(pod.meta.name);
    Fixture f;
    f.input.pending = {pod};
    ProvisioningPlan plan = f.plan();
    EXPECT_THAT(plan.new_claims, IsEmpty());
    ASSERT_EQ(plan.unschedulable.size(), 1u);
    EXPECT_EQ(plan.unschedulable[0].reason,
              "no nodepool can hold the pod: nodepool \"default\": no instance type has enough resources (" +
                  requests + ")");
  }
}

TEST(Provisioning, SelectorNoNodePoolAllowsLaunchesNothing) {
  Fixture f;
  require(f.input.nodepools[0], well_known::arch, SelectorOperator::In, {"amd64"});
  Pod pod = make_pod("arm", 1 * kCpu, 1 * kGi);
  pod.spec.node_selector.set(Symbol(well_known::arch), Symbol("arm64"));
  f.input.pending = {pod};
  ProvisioningPlan plan = f.plan();
  EXPECT_THAT(plan.new_claims, IsEmpty());
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].reason,
            "no nodepool can hold the pod: nodepool \"default\": incompatible requirements, key "
            "\"kubernetes.io/arch\": In {arm64} conflicts with In {amd64}");
}

TEST(Provisioning, UntoleratedNodePoolTaintLaunchesNothing) {
  Fixture f;
  NodePool gpu = make_nodepool("gpu");
  gpu.taints.push_back(Taint{"nvidia.com/gpu", "true", TaintEffect::NoSchedule});
  f.input.nodepools = {gpu};
  f.input.pending = {make_pod("web", 1 * kCpu, 1 * kGi)};
  ProvisioningPlan plan = f.plan();
  EXPECT_THAT(plan.new_claims, IsEmpty());
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].reason,
            "no nodepool can hold the pod: nodepool \"gpu\": did not tolerate taint {nvidia.com/gpu: true}");

  // Tolerated, the taint travels to the claim.
  Toleration toleration;
  toleration.key = "nvidia.com/gpu";
  toleration.op = TolerationOperator::Exists;
  f.input.pending[0].spec.tolerations.push_back(toleration);
  plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 1u);
  ASSERT_EQ(plan.new_claims[0].taints.size(), 1u);
  EXPECT_EQ(plan.new_claims[0].taints[0].key, "nvidia.com/gpu");
}

TEST(Provisioning, ReasonNamesEveryNodePool) {
  Fixture f;
  NodePool gpu = make_nodepool("gpu", 10);
  gpu.taints.push_back(Taint{"nvidia.com/gpu", "true", TaintEffect::NoSchedule});
  f.input.nodepools.push_back(gpu);
  f.input.pending = {make_pod("huge", 64 * kCpu, 1 * kGi)};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].reason,
            "no nodepool can hold the pod: nodepool \"gpu\": did not tolerate taint {nvidia.com/gpu: true}; "
            "nodepool \"default\": no instance type has enough resources (cpu=64 memory=1Gi)");
}

TEST(Provisioning, MinValuesKeepsEnoughInstanceTypeChoices) {
  Fixture f;
  require(f.input.nodepools[0], cloud::aws::labels::instance_family, SelectorOperator::In, {"c", "m", "r"}, 3);
  f.input.pending = make_pods("web", 10, 1 * kCpu, 1 * kGi);
  ProvisioningPlan plan = f.plan();
  // 8 pods still leave c.2xlarge, r.2xlarge and m.4xlarge (3 families); a 9th would leave only m.4xlarge.
  ASSERT_EQ(plan.new_claims.size(), 2u);
  EXPECT_EQ(plan.new_claims[0].pods.size(), 8u);
  EXPECT_THAT(type_names(plan.new_claims[0]), ElementsAre("c.2xlarge", "r.2xlarge", "m.4xlarge"));
  EXPECT_EQ(plan.new_claims[1].pods.size(), 2u);

  f.input.pending = {make_pod("big", 9 * kCpu, 1 * kGi)};
  plan = f.plan();
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_THAT(plan.unschedulable[0].reason,
              HasSubstr("minValues of \"karpenter.k8s.aws/instance-family\" not met (1 < 3)"));
}

TEST(Provisioning, UnavailableOfferingsNarrowTheCandidates) {
  Fixture f;
  for (const char* zone : {"zone-a", "zone-b"}) {
    for (cloud::CapacityType ct : {cloud::CapacityType::OnDemand, cloud::CapacityType::Spot}) {
      f.unavailable.mark({"c.large", zone, ct}, Instant(Duration(180'000)));
    }
  }
  f.input.pending = {make_pod("web", 1 * kCpu, 1 * kGi)};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 1u);
  EXPECT_EQ(plan.new_claims[0].instance_types.front()->name, "g.xlarge");

  f.input.now = Instant(Duration(180'000));  // the marks have expired
  plan = f.plan();
  EXPECT_EQ(plan.new_claims[0].instance_types.front()->name, "c.large");
}

TEST(Provisioning, APlanCostsEachClaimAtTheOfferingItsLaunchPicks) {
  // A 3-cpu pod: g.xlarge (arm64, 4 cpu) is the cheapest type that holds it, spot first: 0.06 an hour.
  Fixture f;
  f.input.pending.push_back(make_pod("web", 3 * kCpu, 1 * kGi, "web"));
  EXPECT_DOUBLE_EQ(f.plan().price_per_hour, 0.06);
  // Its spot offerings gone in every zone, c.xlarge's spot (0.08) still comes before g.xlarge on demand (0.16).
  for (const char* zone : {"zone-a", "zone-b", "zone-c"}) {
    f.unavailable.mark({"g.xlarge", zone, cloud::CapacityType::Spot}, Instant(Duration(180'000)));
  }
  EXPECT_DOUBLE_EQ(f.plan().price_per_hour, 0.08);
  // On demand only: g.xlarge at 0.16.
  require(f.input.nodepools[0], "karpenter.sh/capacity-type", SelectorOperator::In, {"on-demand"});
  EXPECT_DOUBLE_EQ(f.plan().price_per_hour, 0.16);
}

TEST(Provisioning, SamePlanForTheSameInput) {
  Fixture f;
  f.cluster.add_node(make_node("node-1", 2, 4));
  NodePool spot = make_nodepool("spot", 5);
  require(spot, "karpenter.sh/capacity-type", SelectorOperator::In, {"spot"});
  f.input.nodepools.push_back(spot);
  f.input.daemonsets.push_back(make_daemonset("logs", 200, 128 * kMi));
  for (int i = 0; i < 40; ++i) {
    Pod pod = make_pod("mix-" + std::to_string(i), (1 + i % 5) * 500, (1 + i % 3) * kGi, i % 2 ? "a" : "b");
    if (i % 7 == 0) pod.spec.topology_spread_constraints.push_back(spread("a", well_known::zone));
    f.input.pending.push_back(pod);
  }
  auto describe = [](const ProvisioningPlan& plan) {
    std::string out;
    for (const Nomination& n : plan.existing) out += std::to_string(n.pod) + "@" + n.node + ";";
    for (const NewNodeClaim& c : plan.new_claims) {
      out += c.nodepool + "[" + c.requirements.to_string() + "]";
      for (std::size_t p : c.pods) out += std::to_string(p) + ",";
      for (const std::string& t : type_names(c)) out += t + ",";
      out += ";";
    }
    for (const Unschedulable& u : plan.unschedulable) out += std::to_string(u.pod) + ":" + u.reason + ";";
    return out;
  };
  const std::string first = describe(f.plan());
  EXPECT_EQ(describe(f.plan()), first);
  EXPECT_FALSE(first.empty());
}

TEST(Provisioning, PodPinnedToAHostNeverGetsANewNode) {
  Fixture f;
  f.cluster.add_node(make_node("node-1", 1, 4));
  Pod pod = make_pod("pinned", 2 * kCpu, 1 * kGi);
  pod.spec.node_selector.set(Symbol(well_known::hostname), Symbol("node-1"));
  f.input.pending = {pod};
  ProvisioningPlan plan = f.plan();
  EXPECT_THAT(plan.new_claims, IsEmpty());
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].reason,
            "no nodepool can hold the pod: nodepool \"default\": node affinity matches no new node");
}

TEST(Provisioning, HostPortsKeepPodsApart) {
  Fixture f;
  f.input.pending = make_pods("proxy", 3, 1 * kCpu, 1 * kGi);
  for (Pod& pod : f.input.pending) pod.spec.containers[0].ports.push_back({8080, 8080, "TCP", ""});
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.new_claims.size(), 3u);
  for (const NewNodeClaim& claim : plan.new_claims) EXPECT_EQ(claim.pods.size(), 1u);
}

TEST(Provisioning, NoNodePoolsMeansNothingLaunches) {
  Fixture f;
  f.input.nodepools.clear();
  f.input.pending = {make_pod("web", 1 * kCpu, 1 * kGi)};
  ProvisioningPlan plan = f.plan();
  EXPECT_THAT(plan.new_claims, IsEmpty());
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].reason, "no nodepool can hold the pod: no nodepools");
}

TEST(Provisioning, LabelNoNodePoolDefinesIsReported) {
  Fixture f;
  Pod pod = make_pod("web", 1 * kCpu, 1 * kGi);
  pod.spec.node_selector.set(Symbol("team"), Symbol("search"));
  f.input.pending = {pod};
  ProvisioningPlan plan = f.plan();
  ASSERT_EQ(plan.unschedulable.size(), 1u);
  EXPECT_EQ(plan.unschedulable[0].reason,
            "no nodepool can hold the pod: nodepool \"default\": incompatible requirements, label \"team\" does "
            "not have known values");
}

}  // namespace
}  // namespace scalewright::provisioning

namespace scalewright::provisioning {
namespace {

using namespace fixtures;

// Random batches against invariants any plan must keep: every pod accounted for once, every candidate type of a
// claim holds its pods and daemons, requirements hold, limits hold.
TEST(Provisioning, PlanInvariantsHoldOnRandomBatches) {
  std::uint64_t state = 12345;
  auto next = [&](std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  };
  // Both ways: the batch compared with Karpenter's packing, and planned by the price rule alone (as a batch past
  // ProvisioningInput::compared_batch is), whose pods the rule left nowhere to go are placed all the same.
  for (int round = 0; round < 60; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Fixture f;
    if (round % 2 == 1) f.input.compared_batch = 0;
    f.catalog = make_catalog(3);
    NodePool& np = f.input.nodepools[0];
    limit(np, resource_names::cpu(), static_cast<std::int64_t>(40 + next(80)) * kCpu);
    NodePool spot = make_nodepool("spot", 10);
    require(spot, "karpenter.sh/capacity-type", SelectorOperator::In, {"spot"});
    limit(spot, resource_names::cpu(), static_cast<std::int64_t>(next(40)) * kCpu);
    const bool plain = round % 3 == 2;
    if (!plain) f.input.nodepools.push_back(spot);
    f.input.daemonsets.push_back(make_daemonset("logs", 100 + static_cast<std::int64_t>(next(400)), 128 * kMi));
    if (next(2)) f.cluster.add_node(make_node("node-1", 4, 8, "zone-b"));
    const int pods = 20 + static_cast<int>(next(200));
    for (int i = 0; i < pods; ++i) {
      Pod pod = make_pod("p" + std::to_string(i), static_cast<std::int64_t>(100 + next(4000)),
                         static_cast<std::int64_t>(1 + next(8)) * 512 * kMi, "app" + std::to_string(next(4)));
      // Every third round plain pods from one NodePool, for which a plan packed node by node over every type of
      // it is made too.
      switch (plain ? 7 : next(8)) {
        case 0: pod.spec.node_selector.set(Symbol(well_known::arch), Symbol("arm64")); break;
        case 1: pod.spec.topology_spread_constraints.push_back(spread(pod.meta.labels.find(Symbol("app"))->string(),
                                                                      well_known::zone));
          break;
        case 2:
          pod.spec.affinity.required_pod_anti_affinity.push_back(
              app_term(pod.meta.labels.find(Symbol("app"))->string(), well_known::hostname));
          break;
        case 3: pod.spec.node_selector.set(Symbol(well_known::zone), Symbol("zone-c")); break;
        default: break;
      }
      f.input.pending.push_back(pod);
    }
    const ProvisioningPlan plan = f.plan();

    std::vector<int> seen(f.input.pending.size(), 0);
    for (const Nomination& n : plan.existing) ++seen[n.pod];
    for (const Unschedulable& u : plan.unschedulable) {
      ++seen[u.pod];
      EXPECT_FALSE(u.reason.empty());
    }
    std::map<std::string, std::int64_t> worst_case_cpu;
    double launched = 0;  // each claim at the offering its launch picks: what the plan says it costs
    for (const NewNodeClaim& claim : plan.new_claims) {
      ASSERT_FALSE(claim.pods.empty());
      ASSERT_FALSE(claim.instance_types.empty());
      ResourceList requests;
      for (std::size_t p : claim.pods) {
        ++seen[p];
        const Pod& pod = f.input.pending[p];
        requests += pod.effective_requests();
        EXPECT_TRUE(RequirementSet::from_labels(pod.spec.node_selector).compatible(claim.requirements));
      }
      EXPECT_TRUE(requests == claim.pod_requests);
      std::int64_t largest = 0;
      for (const cloud::InstanceType* t : claim.instance_types) {
        EXPECT_TRUE((requests + claim.daemon_requests).fits_in(t->allocatable) ||
                    t != claim.instance_types.front());
        EXPECT_TRUE(requests.fits_in(t->allocatable)) << t->name;
        largest = std::max(largest, t->capacity.cpu_milli());
      }
      worst_case_cpu[claim.nodepool] += largest;
      const std::optional<LaunchChoice> choice = choose_offering(claim, f.unavailable, Instant{});
      ASSERT_TRUE(choice.has_value());
      launched += choice->offering->price_per_hour;
    }
    EXPECT_NEAR(plan.price_per_hour, launched, 1e-9);
    for (int n : seen) EXPECT_EQ(n, 1);
    for (const NodePool& pool : f.input.nodepools) {
      EXPECT_LE(worst_case_cpu[pool.meta.name], pool.limits.cpu_milli()) << pool.meta.name;
    }
  }
}

}  // namespace
}  // namespace scalewright::provisioning
