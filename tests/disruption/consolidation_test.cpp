// Consolidation's search, on the provisioning tests' catalog (tests/provisioning/fixtures.h):
//
//   type          arch   cpu  memory  on-demand  spot
//   c.large       amd64   2    4Gi      0.10     0.04
//   c.xlarge      amd64   4    8Gi      0.20     0.08
//   g.xlarge      arm64   4    8Gi      0.16     0.06
//   c.2xlarge     amd64   8   16Gi      0.40     0.16
//   r.2xlarge     amd64   8   64Gi      0.50     0.20
//   m.4xlarge     amd64  16   64Gi      0.80     0.32
#include "disruption/consolidation.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../provisioning/fixtures.h"

namespace scalewright::disruption {
namespace {

using namespace provisioning::fixtures;

// A cluster of NodePool nodes, each a candidate, built as the disruption controller would hand them over.
struct Cluster {
  cloud::Catalog catalog = make_catalog(1);
  scheduling::ClusterSnapshot snapshot;
  provisioning::UnavailableOfferings unavailable;
  ConsolidationInput input;

  explicit Cluster(std::vector<std::string> capacity_types = {"on-demand"}) {
    NodePool pool = make_nodepool("default");
    require(pool, karpenter_labels::capacity_type, SelectorOperator::In, capacity_types);
    require(pool, well_known::arch, SelectorOperator::In, {"amd64"});
    input.nodepools.push_back(pool);
  }

  // A node of `type` (from the catalog) running `pods` pods of `cpu` millicores and 1Gi each.
  void node(const std::string& name, const std::string& type_name, cloud::CapacityType capacity_type, int pods,
            std::int64_t cpu_milli) {
    const cloud::InstanceType* type = catalog.find(type_name);
    ASSERT_NE(type, nullptr) << type_name;
    Node node = make_node(name, type->capacity.cpu_milli() / kCpu, type->capacity.memory() / kGi);
    node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol("default"));
    node.meta.labels.set(Symbol(karpenter_labels::capacity_type), Symbol(cloud::to_string(capacity_type)));
    for (const auto& [k, v] : type->labels) node.meta.labels.set(k, v);
    Candidate c;
    c.id = snapshot.add_node(node);
    c.node = name;
    c.nodepool = "default";
    c.instance_type = type_name;
    c.capacity_type = capacity_type;
    c.capacity = type->capacity;
    for (const cloud::Offering& o : type->offerings) {
      if (o.capacity_type == capacity_type) c.price_per_hour = o.price_per_hour;
    }
    for (int i = 0; i < pods; ++i) {
      auto pod = std::make_shared<Pod>(make_pod(name + "-pod-" + std::to_string(i), cpu_milli, 1 * kGi));
      pod->spec.node_name = name;
      snapshot.add_pod(std::shared_ptr<const Pod>(pod), c.id);
      c.add_pod(pod);
      c.disruption_cost += eviction_cost(*pod);
    }
    input.candidates.push_back(std::move(c));
  }

  ConsolidationInput& ready() {
    input.cluster = &snapshot;
    input.catalog = &catalog;
    input.unavailable = &unavailable;
    return input;
  }
};

// x (c.xlarge, 1000m used) and y (c.large, empty), not candidates; candidates a (c.xlarge, two 1500m pods) and b
// (c.large, one 2000m pod). Moved off in turn on the first node with room, a's pods go to x and b's to y; placed
// all at once, largest first, one 1500m pod finds no room.
void holes_for_a_sweep(Cluster& cluster) {
  cluster.node("x", "c.xlarge", cloud::CapacityType::OnDemand, 1, 1000);
  cluster.node("y", "c.large", cloud::CapacityType::OnDemand, 0, 0);
  cluster.node("a", "c.xlarge", cloud::CapacityType::OnDemand, 2, 1500);
  cluster.node("b", "c.large", cloud::CapacityType::OnDemand, 1, 2000);
  cluster.input.candidates.erase(cluster.input.candidates.begin(), cluster.input.candidates.begin() + 2);
}

// Nine c.xlarge ($0.20, 4 cpu) running three 1100m pods each: 900m free on every node, less than a pod.
void nine_packed_nodes(Cluster& cluster) {
  for (int i = 0; i < 9; ++i) cluster.node("n" + std::to_string(i), "c.xlarge", cloud::CapacityType::OnDemand, 3, 1100);
}

std::vector<std::string> names(const ConsolidationInput& input, const Command& command) {
  std::vector<std::string> out;
  for (std::size_t i : command.candidates) out.push_back(input.candidates[i].node);
  return out;
}

TEST(EvictionCost, PriorityAndDeletionCostAsUpstreamWeighsThem) {
  Pod pod = make_pod("p", 100, kGi);
  EXPECT_DOUBLE_EQ(eviction_cost(pod), 1.0);
  pod.spec.priority = 1 << 25;  // + 1
  EXPECT_DOUBLE_EQ(eviction_cost(pod), 2.0);
  pod.meta.annotations["controller.kubernetes.io/pod-deletion-cost"] = "-134217728";  // - 2^27: - 1
  EXPECT_DOUBLE_EQ(eviction_cost(pod), 1.0);
  pod.spec.priority = 2000000000;  // system-node-critical: 1 + 59.6 - 1, clamped
  EXPECT_DOUBLE_EQ(eviction_cost(pod), 10.0);
}

TEST(LifetimeRemaining, ANodeNearExpiryCostsLessToDisrupt) {
  const Duration expire = Duration(720LL * 3600 * 1000);
  EXPECT_DOUBLE_EQ(lifetime_remaining(Duration(180LL * 3600 * 1000), expire), 0.75);
  EXPECT_DOUBLE_EQ(lifetime_remaining(Duration(800LL * 3600 * 1000), expire), 0.0);
  EXPECT_DOUBLE_EQ(lifetime_remaining(Duration(800LL * 3600 * 1000), std::nullopt), 1.0);
}

TEST(OrderCandidates, LeastDisruptionPerDollarFirst) {
  std::vector<Candidate> c(3);
  c[0].node = "busy-cheap";  // 3 pods on $0.20/h: 15 per dollar
  c[0].disruption_cost = 3;
  c[0].price_per_hour = 0.20;
  c[1].node = "light-dear";  // 2 pods on $0.40/h: 5 per dollar
  c[1].disruption_cost = 2;
  c[1].price_per_hour = 0.40;
  c[2].node = "empty";
  c[2].price_per_hour = 0.10;
  order_candidates(c);
  EXPECT_EQ(c[0].node, "empty");
  EXPECT_EQ(c[1].node, "light-dear");
  EXPECT_EQ(c[2].node, "busy-cheap");
}

TEST(SingleNodeConsolidation, DeletesANodeWhosePodsFitOnTheRest) {
  Cluster cluster;
  cluster.node("light", "c.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);  // 2 of 8 cpu
  cluster.node("full", "c.2xlarge", cloud::CapacityType::OnDemand, 6, 1000);   // 6 of 8: room for light's 2
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(result.command->decision, Decision::Delete);
  EXPECT_EQ(names(cluster.input, *result.command), std::vector<std::string>{"light"});
  EXPECT_EQ(result.command->pods, 2u);
  EXPECT_DOUBLE_EQ(result.command->savings(), 0.40);
  // The snapshot is left as it came.
  EXPECT_EQ(cluster.snapshot.pod_count(), 8u);
  EXPECT_EQ(cluster.snapshot.live_node_count(), 2u);
}

TEST(SingleNodeConsolidation, ReplacesANodeByOneStrictlyCheaper) {
  Cluster cluster;  // on-demand only
  cluster.node("big", "c.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);  // $0.40/h for 2 cpu of pods
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  const Command& command = *result.command;
  EXPECT_EQ(command.decision, Decision::Replace);
  ASSERT_EQ(command.replacements.size(), 1u);
  // Holding 2 cpu and 2Gi, cheaper than $0.40/h: c.large ($0.10) and c.xlarge ($0.20); c.2xlarge at the same
  // price is not a replacement.
  EXPECT_EQ(type_names(command.replacements.front()), (std::vector<std::string>{"c.large", "c.xlarge"}));
  EXPECT_DOUBLE_EQ(command.price_after, 0.10);
  EXPECT_NEAR(command.savings(), 0.30, 1e-9);
}

TEST(SingleNodeConsolidation, NoReplacementWhereNothingCheaperHoldsThePods) {
  Cluster cluster;
  cluster.node("small", "c.large", cloud::CapacityType::OnDemand, 1, 1500);  // $0.10/h, the cheapest that holds it
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  EXPECT_FALSE(result.command);
  ASSERT_EQ(result.kept.size(), 1u);
  EXPECT_EQ(result.kept[0].reason, "no instance type that holds its pods costs less than $0.1000/h");
}

TEST(SingleNodeConsolidation, AnOnDemandNodeMayGiveWayToSpotAndTheReplacementIsSpotOnly) {
  Cluster cluster({"on-demand", "spot"});
  cluster.node("od", "c.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);  // $0.40/h
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  ASSERT_EQ(result.command->replacements.size(), 1u);
  const provisioning::NewNodeClaim& claim = result.command->replacements.front();
  // Spot prices under $0.40: every amd64 type (g.xlarge is arm64, which the NodePool excludes).
  EXPECT_EQ(type_names(claim), (std::vector<std::string>{"c.large", "c.xlarge", "c.2xlarge", "r.2xlarge",
                                                         "m.4xlarge"}));
  EXPECT_FALSE(claim.requirements.allows("karpenter.sh/capacity-type", "on-demand"));
  EXPECT_DOUBLE_EQ(result.command->price_after, 0.04);
}

TEST(SingleNodeConsolidation, SpotToSpotNeedsFifteenCheaperTypes) {
  Cluster cluster({"spot"});
  cluster.node("spot", "m.4xlarge", cloud::CapacityType::Spot, 2, 1000);  // $0.32/h spot
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  EXPECT_FALSE(result.command);
  ASSERT_EQ(result.kept.size(), 1u);
  // Cheaper spot types holding 2 cpu: c.large, c.xlarge, c.2xlarge, r.2xlarge.
  EXPECT_EQ(result.kept[0].reason, "spot-to-spot replacement needs 15 cheaper instance types, 4 found");

  cluster.input.spot_to_spot = false;
  result = consolidate_single_node(cluster.ready());
  ASSERT_EQ(result.kept.size(), 1u);
  EXPECT_EQ(result.kept[0].reason, "spot-to-spot replacement is disabled");
}

TEST(SingleNodeConsolidation, SpotToSpotLaunchesFromTheFifteenCheapest) {
  // Twenty types of 4 cpu, spot from $0.01 to $0.20; the node is a $0.50 spot type of the same size.
  const std::vector<cloud::Zone> z = zones(1);
  std::vector<cloud::InstanceType> types;
  for (int i = 1; i <= 20; ++i) {
    types.push_back(make_type("t" + std::to_string(i) + ".xlarge", "amd64", 4, 8, 1.0, 0.01 * i, z));
  }
  types.push_back(make_type("dear.xlarge", "amd64", 4, 8, 1.0, 0.50, z));
  Cluster cluster({"spot"});
  cluster.catalog = cloud::Catalog::from_instance_types("test-region", z, std::move(types));
  cluster.node("spot", "dear.xlarge", cloud::CapacityType::Spot, 1, 1000);
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  ASSERT_EQ(result.command->replacements.size(), 1u);
  const std::vector<std::string> kept = type_names(result.command->replacements.front());
  ASSERT_EQ(kept.size(), 15u);
  EXPECT_EQ(kept.front(), "t1.xlarge");
  EXPECT_EQ(kept.back(), "t15.xlarge");
}

TEST(MultiNodeConsolidation, DeletesEveryNodeWhosePodsFitOnWhatTheOthersLeft) {
  Cluster cluster;
  // Four c.xlarge (4 cpu, $0.20/h) with one 1-cpu pod each. n1's pod goes to n2, n2's two to n3, n3's three to
  // n4 (4 of 4 cpu); n4's four fit nowhere.
  for (int i = 1; i <= 4; ++i) cluster.node("n" + std::to_string(i), "c.xlarge", cloud::CapacityType::OnDemand, 1, 1000);
  ConsolidationResult result = consolidate_multi_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(result.command->decision, Decision::Delete);
  EXPECT_EQ(names(cluster.input, *result.command), (std::vector<std::string>{"n1", "n2", "n3"}));
  EXPECT_NEAR(result.command->savings(), 0.60, 1e-9);
  EXPECT_EQ(result.command->pods, 3u);  // the pods of the nodes deleted, as they are bound now
}

TEST(MultiNodeConsolidation, ReplacesSeveralNodesByOneWhenThatSavesMore) {
  Cluster cluster;
  // Three r.2xlarge ($0.50/h, 8 cpu) with two 1-cpu pods each. Deleting two (their pods onto the third) saves
  // $1.00/h; replacing all three by one c.2xlarge ($0.40/h, 8 cpu for the 6 pods) saves $1.10/h.
  for (int i = 1; i <= 3; ++i) cluster.node("r" + std::to_string(i), "r.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);
  ConsolidationResult result = consolidate_multi_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(result.command->decision, Decision::Replace);
  EXPECT_EQ(names(cluster.input, *result.command), (std::vector<std::string>{"r1", "r2", "r3"}));
  ASSERT_EQ(result.command->replacements.size(), 1u);
  EXPECT_EQ(type_names(result.command->replacements.front()).front(), "c.2xlarge");
  EXPECT_NEAR(result.command->savings(), 1.10, 1e-9);
}

TEST(MultiNodeConsolidation, BudgetsLimitHowManyNodesOneCommandTakes) {
  Cluster cluster;
  for (int i = 1; i <= 4; ++i) cluster.node("n" + std::to_string(i), "c.xlarge", cloud::CapacityType::OnDemand, 1, 1000);
  cluster.input.allowed["default"] = 2;
  ConsolidationResult result = consolidate_multi_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(names(cluster.input, *result.command), (std::vector<std::string>{"n1", "n2"}));

  cluster.input.allowed["default"] = 1;  // one node at a time: a command for one is single-node's
  EXPECT_FALSE(consolidate_multi_node(cluster.ready()).command);
  ConsolidationResult single = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(single.command);
  EXPECT_EQ(names(cluster.input, *single.command), std::vector<std::string>{"n1"});
}

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

TEST(AsKarpenter, NoSweepAndNoRepack) {
  // x (4 cpu, 1 used) and y (2 cpu, empty) are not candidates. The sweep deletes a (two 1500m pods, onto x) and
  // then b (one 2000m pod, onto y), saving their $0.30/h. Karpenter's prefix search places all three pods at once,
  // largest first (2000m on x, 1500m on y, the other 1500m nowhere) and replaces a and b by one c.large for that
  // pod, saving $0.20/h: asked to consolidate as Karpenter does, that is the command. And the nine tightly packed
  // nodes of the repack test stay as they are.
  Cluster swept;
  holes_for_a_sweep(swept);
  std::optional<Command> ours = consolidate_multi_node(swept.ready()).command;
  ASSERT_TRUE(ours);
  EXPECT_EQ(ours->decision, Decision::Delete);
  EXPECT_NEAR(ours->savings(), 0.30, 1e-9);
  swept.input.as_karpenter = true;
  std::optional<Command> karpenters = consolidate_multi_node(swept.ready()).command;
  ASSERT_TRUE(karpenters);
  EXPECT_EQ(karpenters->decision, Decision::Replace);
  ASSERT_EQ(karpenters->replacements.size(), 1u);
  EXPECT_EQ(karpenters->replacements.front().instance_types.front()->name, "c.large");
  EXPECT_NEAR(karpenters->savings(), 0.20, 1e-9);

  Cluster packed;
  nine_packed_nodes(packed);
  ASSERT_TRUE(consolidate_repack(packed.ready()).command);
  packed.input.as_karpenter = true;
  EXPECT_FALSE(consolidate_repack(packed.ready()).command);
}

TEST(Balanced, ActsOnlyWhereTheSavedShareIsAtLeastHalfTheDisruptedShare) {
  Cluster cluster;
  cluster.input.nodepools[0].consolidation_policy = ConsolidationPolicy::Balanced;
  cluster.input.candidates.resize(1);
  cluster.input.candidates[0].nodepool = "default";
  cluster.input.pool_cost["default"] = 1.00;
  cluster.input.pool_disruption_cost["default"] = 10;
  Command command;
  command.candidates = {0};
  command.disruption_cost = 3;  // 30 % of the pool's disruption: needs at least 15 % of its cost saved
  command.price_before = 0.10;
  EXPECT_FALSE(balanced_enough(command, cluster.input));  // 10 %
  command.price_before = 0.15;
  EXPECT_TRUE(balanced_enough(command, cluster.input));  // 15 %
  cluster.input.nodepools[0].consolidation_policy = ConsolidationPolicy::WhenEmptyOrUnderutilized;
  command.price_before = 0.01;
  EXPECT_TRUE(balanced_enough(command, cluster.input));  // not a Balanced NodePool
}

TEST(Revalidation, ACommandNoLongerTrueIsAbandonedWithWhy) {
  Cluster cluster;
  cluster.node("light", "c.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);
  cluster.node("full", "c.2xlarge", cloud::CapacityType::OnDemand, 6, 1000);
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_TRUE(revalidate(cluster.ready(), result.command->candidates, Decision::Delete).command);
  // A pod bound to "full" in the meantime leaves room for one of light's two.
  cluster.snapshot.add_pod(make_pod("late", 1000, kGi), cluster.input.candidates[1].id);
  Revalidation again = revalidate(cluster.ready(), result.command->candidates, Decision::Delete);
  EXPECT_FALSE(again.command);
  EXPECT_EQ(again.reason, "pod default/light-pod-1 fits on no other node");
}

TEST(Revalidation, ADeleteThatHoldsOnlyByFirstFitIsAbandonedAtItsCheck) {
  // x (4 cpu, 1 used) and y (2 cpu, empty) are not candidates. The sweep, placing on the first node with room,
  // takes a (two 1500m pods: both onto x) and then b (one 2000m pod: onto y). kube-scheduler spreads instead: the
  // 2000m pod goes to x (left 25 % cpu and 75 % memory free, against y's 0 % and 75 %; and x is the better
  // balanced), a 1500m pod then to y, the only node with room, and the other 1500m pod fits nowhere. Checked where
  // kube-scheduler would put them, the command does not hold.
  Cluster cluster;
  holes_for_a_sweep(cluster);
  ConsolidationResult result = consolidate_multi_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(names(cluster.input, *result.command), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(result.command->decision, Decision::Delete);
  Revalidation again = revalidate(cluster.ready(), result.command->candidates, Decision::Delete);
  EXPECT_FALSE(again.command);
  EXPECT_TRUE(again.reason.starts_with("pod default/a-pod-")) << again.reason;
  EXPECT_TRUE(again.reason.ends_with(" fits on no other node")) << again.reason;
}

TEST(Revalidation, ASingleNodeDeleteMustHoldWhicheverEndKubeSchedulerStartsFrom) {
  // e (c.large, empty) and f (c.xlarge, 2500m used) are not candidates; c (c.xlarge) runs a 2000m pod and two of
  // 500m. Largest first, the 2000m pod can go only to e and the two small ones to f: the delete holds, for the search
  // and, placed as kube-scheduler would, for the check. But the evicted pods' replacements come in no chosen order,
  // and kube-scheduler sends each to the node least used after it (e: 25 % against f's 75 %, then 50 % against
  // 75 %): small ones first fill e, and the 2000m pod then finds 1000m free on e and 1500m on f. One pod left
  // pending would launch a node and undo the saving: the check refuses the command.
  Cluster cluster;
  cluster.node("e", "c.large", cloud::CapacityType::OnDemand, 0, 0);
  cluster.node("f", "c.xlarge", cloud::CapacityType::OnDemand, 1, 2500);
  cluster.node("c", "c.xlarge", cloud::CapacityType::OnDemand, 1, 2000);
  Candidate& c = cluster.input.candidates.back();
  for (int i = 0; i < 2; ++i) {
    auto pod = std::make_shared<Pod>(make_pod("c-small-" + std::to_string(i), 500, 1 * kGi));
    pod->spec.node_name = "c";
    cluster.snapshot.add_pod(std::shared_ptr<const Pod>(pod), c.id);
    c.add_pod(pod);
  }
  cluster.input.candidates.erase(cluster.input.candidates.begin(), cluster.input.candidates.begin() + 2);
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(result.command->decision, Decision::Delete);
  EXPECT_EQ(result.command->pods, 3u);
  Revalidation again = revalidate(cluster.ready(), result.command->candidates, Decision::Delete);
  EXPECT_FALSE(again.command);
  EXPECT_EQ(again.reason, "pod default/c-pod-0 would find no node if kube-scheduler took the pods smallest first");
}

// Every pod of every candidate in one scheduling class, as the state groups the pods of one Deployment.
void one_class(Cluster& cluster) {
  for (Candidate& c : cluster.input.candidates) std::fill(c.classes.begin(), c.classes.end(), Symbol("default/web"));
}

TEST(ConsolidationMemo, AVerdictIsReusedWhileTheContextAndTheNodesPodsStay) {
  // Nine c.xlarge with three 1100m pods each: no pod fits another node's 900m, and nothing on-demand cheaper than
  // $0.20/h holds 3.3 cpu. Asked again with nothing changed, no node is tried; a node whose pods changed is tried
  // alone; in another context (a node gained room), all are.
  Cluster cluster;
  nine_packed_nodes(cluster);
  ConsolidationMemo memo;
  ConsolidationInput& input = cluster.ready();
  input.memo = &memo;
  memo.begin(1, Duration(0), std::nullopt);
  const ConsolidationResult first = consolidate_single_node(input);
  EXPECT_FALSE(first.command);
  EXPECT_EQ(first.tries, 9u);
  ASSERT_EQ(first.kept.size(), 9u);
  EXPECT_EQ(first.kept[4].reason, "no instance type that holds its pods costs less than $0.2000/h");

  memo.begin(1, Duration(10'000), std::nullopt);
  const ConsolidationResult again = consolidate_single_node(input);
  EXPECT_EQ(again.tries, 0u);
  ASSERT_EQ(again.kept.size(), 9u);
  EXPECT_EQ(again.kept[4].reason, first.kept[4].reason);

  input.candidates[4].pods_version = 1;
  EXPECT_EQ(consolidate_single_node(input).tries, 1u);
  memo.begin(2, Duration(20'000), std::nullopt);
  EXPECT_EQ(consolidate_single_node(input).tries, 9u);
  // An offering marked unavailable lapses at 5 min: past it, the verdicts are asked again.
  memo.begin(2, Duration(30'000), Duration(300'000));
  EXPECT_EQ(consolidate_single_node(input).tries, 0u);
  memo.begin(2, Duration(300'000), std::nullopt);
  EXPECT_EQ(consolidate_single_node(input).tries, 9u);
}

TEST(ConsolidationMemo, NodesAlikeShareOneReplacementVerdict) {
  // Three r.2xlarge spot nodes ($0.20/h) each run three 2500m pods of one class: 7.5 cpu, more than the 1 cpu the
  // other two have left. c.2xlarge spot ($0.16/h, 8 cpu) would hold them, but it is the only cheaper type, and spot
  // replaces spot only with 15. One provisioning plan answers for the three nodes alike; without the classes no two
  // are known alike, and each needs its own.
  Cluster cluster({"spot"});
  for (const std::string name : {"a", "b", "c"}) cluster.node(name, "r.2xlarge", cloud::CapacityType::Spot, 3, 2500);
  ConsolidationMemo memo;
  ConsolidationInput& input = cluster.ready();
  input.memo = &memo;
  memo.begin(1, Duration(0), std::nullopt);
  const ConsolidationResult unknown = consolidate_single_node(input);
  EXPECT_EQ(unknown.plans, 3u);

  one_class(cluster);
  memo.begin(2, Duration(0), std::nullopt);
  const ConsolidationResult alike = consolidate_single_node(input);
  EXPECT_FALSE(alike.command);
  EXPECT_EQ(alike.tries, 3u);
  EXPECT_EQ(alike.plans, 1u);
  ASSERT_EQ(alike.kept.size(), 3u);
  for (const Kept& kept : alike.kept) {
    EXPECT_EQ(kept.reason, "spot-to-spot replacement needs 15 cheaper instance types, 1 found");
  }
}

TEST(ConsolidationMemo, PodsThatNeedMoreThanTheRestHasLeftAreJudgedWithoutPlacingThem) {
  // Two m.4xlarge spot nodes ($0.32/h, 16 cpu) each run three 5000m pods: 15 cpu, where the other has 1 cpu left.
  // Only a node of at least 14 cpu could take the rest, and none cheaper than $0.32/h has that: no plan is needed.
  Cluster cluster({"spot"});
  for (const std::string name : {"a", "b"}) cluster.node(name, "m.4xlarge", cloud::CapacityType::Spot, 3, 5000);
  const ConsolidationResult result = consolidate_single_node(cluster.ready());
  EXPECT_FALSE(result.command);
  EXPECT_EQ(result.plans, 0u);
  ASSERT_EQ(result.kept.size(), 2u);
  EXPECT_EQ(result.kept[0].reason,
            "its pods need more than the other nodes have left, and no instance type cheaper than $0.3200/h holds "
            "them");
}

}  // namespace
}  // namespace scalewright::disruption
