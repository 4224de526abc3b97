#include "scheduling/scheduler.h"

#include <gtest/gtest.h>

#include "builders.h"
#include "scheduling/placement.h"

namespace scalewright::scheduling {
namespace {

using testing::app_selector;
using testing::app_term;
using testing::make_node;
using testing::make_pod;

std::vector<std::string> names(const ClusterSnapshot& s, const std::vector<NodeId>& ids) {
  std::vector<std::string> out;
  for (NodeId id : ids) out.push_back(s.node(id).name());
  return out;
}

TEST(Scheduler, ReasonsCountEachNodeUnderItsFirstFailingFilterInUpstreamOrder) {
  // The example: one tainted node, one cordoned node, two nodes short of cpu.
  ClusterSnapshot s;
  Node db = make_node("db", 8000, 32 * kGi);
  db.taints.push_back({"dedicated", "databases", TaintEffect::NoSchedule});
  Node cordoned = make_node("cordoned", 8000, 32 * kGi);
  cordoned.unschedulable = true;
  cordoned.taints.push_back({"dedicated", "databases", TaintEffect::NoSchedule});  // unschedulable comes first
  s.add_node(db);
  s.add_node(cordoned);
  s.add_node(make_node("small-1", 1000, 4 * kGi));
  s.add_node(make_node("small-2", 1000, 4 * kGi));

  SchedulingResult r = Scheduler().schedule(s, make_pod("nginx", 2000, 128 * kMi));
  EXPECT_FALSE(r.scheduled());
  EXPECT_TRUE(r.feasible.empty());
  EXPECT_EQ(r.reason,
            "0/4 nodes are available: 1 node(s) had untolerated taint {dedicated: databases}, "
            "1 node(s) were unschedulable, 2 Insufficient cpu.");
}

TEST(Scheduler, NodeShortOfSeveralResourcesCountsUnderEach) {
  ClusterSnapshot s;
  s.add_node(make_node("tiny", 500, 512 * kMi, "zone-a", /*pods=*/0));
  SchedulingResult r = Scheduler().schedule(s, make_pod("big", 1000, kGi));
  EXPECT_EQ(r.reason, "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Too many pods.");
}

TEST(Scheduler, DedicatedDatabaseTaintRejectsNginxButNotAPodThatToleratesIt) {
  // The seed article: kubectl taint nodes db dedicated=databases:NoSchedule.
  ClusterSnapshot s;
  Node db = make_node("db", 4000, 16 * kGi);
  db.taints.push_back({"dedicated", "databases", TaintEffect::NoSchedule});
  s.add_node(db);
  Scheduler scheduler;
  EXPECT_EQ(scheduler.schedule(s, make_pod("nginx", 100, 0)).reason,
            "0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: databases}.");

  Pod postgres = make_pod("postgres", 100, 0);
  Toleration t;
  t.key = "dedicated";
  t.value = "databases";
  t.effect = TaintEffect::NoSchedule;
  postgres.spec.tolerations.push_back(t);
  EXPECT_EQ(names(s, {scheduler.schedule(s, postgres).chosen}), std::vector<std::string>{"db"});
}

TEST(Scheduler, PreferNoScheduleOnlyLowersTheScore) {
  ClusterSnapshot s;
  Node soft = make_node("soft", 4000, 16 * kGi);
  soft.taints.push_back({"spot", "true", TaintEffect::PreferNoSchedule});
  s.add_node(soft);
  s.add_node(make_node("plain", 4000, 16 * kGi));
  SchedulingResult r = Scheduler().schedule(s, make_pod("web", 100, 0));
  EXPECT_EQ(names(s, r.feasible), (std::vector<std::string>{"soft", "plain"}));
  EXPECT_EQ(s.node(r.chosen).name(), "plain");
}

TEST(Scheduler, LeastAllocatedSpreadsAndMostAllocatedPacks) {
  ClusterSnapshot s;
  NodeId busy = s.add_node(make_node("busy", 4000, 16 * kGi));
  s.add_node(make_node("idle", 4000, 16 * kGi));
  Pod existing = make_pod("existing", 2000, 8 * kGi);
  s.add_pod(existing, busy);
  Pod incoming = make_pod("incoming", 500, 2 * kGi);
  EXPECT_EQ(s.node(Scheduler().schedule(s, incoming).chosen).name(), "idle");
  SchedulerOptions packing;
  packing.scoring = ScoringStrategy::MostAllocated;
  EXPECT_EQ(s.node(Scheduler(packing).schedule(s, incoming).chosen).name(), "busy");
}

// Two pods of 5Ei bound to a 4Gi node (as nodeName may bind them): their sum wrapped to -6Ei and left the node
// 6Ei of room; it saturates at 2^63 - 1 and leaves none. Taking one pod off sums what remains again.
TEST(Scheduler, ANodeWhoseRequestedSaturatedHasRoomForNothing) {
  ClusterSnapshot s;
  const NodeId node = s.add_node(make_node("n", 4000, 4 * kGi));
  s.add_pod(make_pod("huge-1", 0, 5 * kEi), node);
  s.add_pod(make_pod("huge-2", 0, 5 * kEi), node);
  EXPECT_EQ(s.node(node).requested.memory(), kLargestAmount);
  EXPECT_EQ(s.node(node).non_zero_requested.memory, kLargestAmount);
  EXPECT_EQ(Scheduler().schedule(s, make_pod("small", 100, 1)).reason,
            "0/1 nodes are available: 1 Insufficient memory.");

  // 5Ei, not (2^63 - 1) - 5Ei.
  s.remove_pod("default/huge-1");
  EXPECT_EQ(s.node(node).requested.memory(), 5 * kEi);
  EXPECT_EQ(s.node(node).non_zero_requested.memory, 5 * kEi);
  EXPECT_EQ(s.node(node).non_zero_requested.cpu_milli, 100);  // huge-2's cpu default
  s.remove_pod("default/huge-2");
  EXPECT_EQ(s.node(node).requested.memory(), 0);
  EXPECT_TRUE(Scheduler().schedule(s, make_pod("small", 100, 1)).scheduled());
}

// Scores on nodes of 4Ei (2^62 bytes): requested x 100 passed int64 (2^61 x 100 wrapped to -2^63), so
// MostAllocated scored the half-full node's memory -1 instead of 50. Busy, most allocated: cpu 200m of 4000m
// (the existing pod's 100m default and the incoming 100m) is 5, memory 2Ei + 1Gi of 4Ei is 50: (5 + 50) / 2 = 27;
// balanced allocation |0.025 - 0.5| / 2 gives 76; 103 in all. Idle: cpu 2, memory 0: 1, and balanced 98; 99.
TEST(Scheduler, MostAllocatedScoresNodesOfExabytesWithoutWrapping) {
  ClusterSnapshot s;
  const NodeId busy = s.add_node(make_node("busy", 4000, 4 * kEi));
  s.add_node(make_node("idle", 4000, 4 * kEi));
  s.add_pod(make_pod("existing", 0, 2 * kEi), busy);
  SchedulerOptions packing;
  packing.scoring = ScoringStrategy::MostAllocated;
  EXPECT_EQ(s.node(Scheduler(packing).schedule(s, make_pod("incoming", 100, kGi)).chosen).name(), "busy");
}

TEST(Scheduler, HostPortsConflictOnSameProtocolOnly) {
  ClusterSnapshot s;
  NodeId node = s.add_node(make_node("n", 4000, 16 * kGi));
  Pod web = make_pod("web", 100, 0);
  web.spec.containers[0].ports.push_back({80, 8080, "TCP", ""});
  s.add_pod(web, node);
  Pod same = make_pod("same", 100, 0);
  same.spec.containers[0].ports.push_back({80, 8080, "TCP", ""});
  Pod udp = make_pod("udp", 100, 0);
  udp.spec.containers[0].ports.push_back({80, 8080, "UDP", ""});
  Scheduler scheduler;
  EXPECT_EQ(scheduler.schedule(s, same).reason,
            "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports.");
  EXPECT_TRUE(scheduler.schedule(s, udp).scheduled());
}

TEST(Scheduler, RequiredAntiAffinitySpreadsReplicasOnePerNode) {
  ClusterSnapshot s;
  for (const char* n : {"n1", "n2", "n3"}) s.add_node(make_node(n, 4000, 16 * kGi));
  std::vector<Pod> replicas;
  for (int i = 0; i < 4; ++i) {
    Pod p = make_pod("web-" + std::to_string(i), 100, 0, "web");
    p.spec.affinity.required_pod_anti_affinity.push_back(app_term("web", "kubernetes.io/hostname"));
    replicas.push_back(p);
  }
  Scheduler scheduler;
  auto placements = place_pods(s, scheduler, replicas, PlacementMode::Sequential);
  ASSERT_EQ(placements.size(), 4u);
  std::set<std::string> used;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(placements[i].result.scheduled());
    used.insert(s.node(placements[i].result.chosen).name());
  }
  EXPECT_EQ(used, (std::set<std::string>{"n1", "n2", "n3"}));
  EXPECT_EQ(placements[3].result.reason, "0/3 nodes are available: 3 node(s) didn't match pod anti-affinity rules.");
}

TEST(Scheduler, ExistingPodsAntiAffinityRepelsIncomingPodItMatches) {
  ClusterSnapshot s;
  NodeId a = s.add_node(make_node("a", 4000, 16 * kGi, "zone-a"));
  s.add_node(make_node("b", 4000, 16 * kGi, "zone-b"));
  Pod loner = make_pod("loner", 100, 0, "loner");
  loner.spec.affinity.required_pod_anti_affinity.push_back(app_term("web", "topology.kubernetes.io/zone"));
  s.add_pod(loner, a);
  SchedulingResult r = Scheduler().schedule(s, make_pod("web", 100, 0, "web"));
  EXPECT_EQ(names(s, r.feasible), std::vector<std::string>{"b"});
  // A pod the term does not match may go to either zone.
  EXPECT_EQ(Scheduler().schedule(s, make_pod("api", 100, 0, "api")).feasible.size(), 2u);
}

TEST(Scheduler, ZoneSpreadWithMaxSkewOneFillsTheEmptiestZone) {
  // zone-a holds 2 matching pods, zone-b 1, zone-c 0: with maxSkew 1 only zone-c keeps skew <= 1
  // (a: 2+1-0 = 3, b: 1+1-0 = 2, c: 0+1-0 = 1).
  ClusterSnapshot s;
  NodeId a = s.add_node(make_node("a", 4000, 16 * kGi, "zone-a"));
  NodeId b = s.add_node(make_node("b", 4000, 16 * kGi, "zone-b"));
  s.add_node(make_node("c", 4000, 16 * kGi, "zone-c"));
  s.add_pod(make_pod("w1", 100, 0, "web"), a);
  s.add_pod(make_pod("w2", 100, 0, "web"), a);
  s.add_pod(make_pod("w3", 100, 0, "web"), b);
  Pod incoming = make_pod("w4", 100, 0, "web");
  TopologySpreadConstraint zone;
  zone.topology_key = Symbol("topology.kubernetes.io/zone");
  zone.label_selector = app_selector("web");
  incoming.spec.topology_spread_constraints.push_back(zone);
  Scheduler scheduler;
  EXPECT_EQ(names(s, scheduler.schedule(s, incoming).feasible), std::vector<std::string>{"c"});

  // maxSkew 2 admits zone-b too (2 <= 2) but not zone-a (3 > 2).
  incoming.spec.topology_spread_constraints[0].max_skew = 2;
  EXPECT_EQ(names(s, scheduler.schedule(s, incoming).feasible), (std::vector<std::string>{"b", "c"}));
}

TEST(Scheduler, HostnameSpreadAndMinDomains) {
  ClusterSnapshot s;
  NodeId a = s.add_node(make_node("a", 4000, 16 * kGi));
  s.add_node(make_node("b", 4000, 16 * kGi));
  s.add_pod(make_pod("w1", 100, 0, "web"), a);
  Pod incoming = make_pod("w2", 100, 0, "web");
  TopologySpreadConstraint host;
  host.topology_key = Symbol("kubernetes.io/hostname");
  host.label_selector = app_selector("web");
  incoming.spec.topology_spread_constraints.push_back(host);
  Scheduler scheduler;
  EXPECT_EQ(names(s, scheduler.schedule(s, incoming).feasible), std::vector<std::string>{"b"});

  // minDomains 3 with 2 hostnames: the global minimum is taken as 0, so node b (0+1-0 = 1) passes and a fails.
  incoming.spec.topology_spread_constraints[0].min_domains = 3;
  EXPECT_EQ(names(s, scheduler.schedule(s, incoming).feasible), std::vector<std::string>{"b"});
  // A node without the key is rejected for the missing label.
  Node unlabeled = make_node("bare", 4000, 16 * kGi);
  unlabeled.meta.labels.erase(Symbol("kubernetes.io/hostname"));
  s.add_node(unlabeled);
  SchedulingResult r = scheduler.schedule(s, incoming);
  EXPECT_EQ(names(s, r.feasible), std::vector<std::string>{"b"});
}

TEST(Scheduler, PodAffinityFollowsExistingPodAndFirstPodOfGroupMayStartAnywhere) {
  ClusterSnapshot s;
  NodeId a = s.add_node(make_node("a", 4000, 16 * kGi, "zone-a"));
  s.add_node(make_node("b", 4000, 16 * kGi, "zone-b"));
  s.add_pod(make_pod("cache", 100, 0, "cache"), a);
  Pod api = make_pod("api", 100, 0, "api");
  api.spec.affinity.required_pod_affinity.push_back(app_term("cache", "topology.kubernetes.io/zone"));
  Scheduler scheduler;
  EXPECT_EQ(names(s, scheduler.schedule(s, api).feasible), std::vector<std::string>{"a"});

  Pod first = make_pod("first", 100, 0, "group");
  first.spec.affinity.required_pod_affinity.push_back(app_term("group", "topology.kubernetes.io/zone"));
  EXPECT_EQ(scheduler.schedule(s, first).feasible.size(), 2u);
  Pod stranger = make_pod("stranger", 100, 0, "other");
  stranger.spec.affinity.required_pod_affinity.push_back(app_term("group", "topology.kubernetes.io/zone"));
  EXPECT_EQ(scheduler.schedule(s, stranger).reason,
            "0/2 nodes are available: 2 node(s) didn't match pod affinity rules.");
}

TEST(Scheduler, NodeSelectorAndAffinityMustBothMatch) {
  ClusterSnapshot s;
  Node arm = make_node("arm", 4000, 16 * kGi);
  arm.meta.labels.set(Symbol("kubernetes.io/arch"), Symbol("arm64"));
  Node amd = make_node("amd", 4000, 16 * kGi);
  amd.meta.labels.set(Symbol("kubernetes.io/arch"), Symbol("amd64"));
  s.add_node(arm);
  s.add_node(amd);
  Pod pod = make_pod("p", 100, 0);
  pod.spec.node_selector.set(Symbol("kubernetes.io/arch"), Symbol("arm64"));
  NodeSelectorTerm zone_b;
  zone_b.match_expressions.push_back(
      {Symbol("topology.kubernetes.io/zone"), SelectorOperator::In, {Symbol("zone-b")}});
  pod.spec.affinity.required_node_affinity = NodeSelector{{zone_b}};
  EXPECT_EQ(Scheduler().schedule(s, pod).reason,
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.");
}

TEST(Scheduler, FindFitReturnsFirstFeasibleNodeFromStart) {
  ClusterSnapshot s;
  s.add_node(make_node("full", 100, kGi));
  s.add_node(make_node("n1", 4000, 16 * kGi));
  s.add_node(make_node("n2", 4000, 16 * kGi));
  Scheduler scheduler;
  Pod pod = make_pod("p", 500, 0);
  EXPECT_EQ(s.node(scheduler.find_fit(s, pod)).name(), "n1");
  EXPECT_EQ(s.node(scheduler.find_fit(s, pod, 2)).name(), "n2");
  EXPECT_EQ(scheduler.find_fit(s, make_pod("huge", 64000, 0)), kNoNode);
}

TEST(Scheduler, AdaptivePercentageOfNodesToScoreMatchesUpstream) {
  EXPECT_EQ(feasible_nodes_to_find(0, 50), 50u);      // under 100 nodes: all of them
  EXPECT_EQ(feasible_nodes_to_find(0, 150), 100u);    // 49% is 73, raised to the floor of 100
  EXPECT_EQ(feasible_nodes_to_find(0, 1000), 420u);   // 50 - 1000/125 = 42%
  EXPECT_EQ(feasible_nodes_to_find(0, 5000), 500u);   // 50 - 40 = 10%
  EXPECT_EQ(feasible_nodes_to_find(0, 10000), 500u);  // 50 - 80 < 5: the 5% floor
  EXPECT_EQ(feasible_nodes_to_find(100, 5000), 5000u);
  EXPECT_EQ(feasible_nodes_to_find(30, 1000), 300u);
}

TEST(Scheduler, SamplingStopsAtEnoughFeasibleNodesAndRotatesTheStart) {
  ClusterSnapshot s;
  // (the name is built with += : GCC 12 at -O3 warns falsely about "n" + std::to_string(i), bug 105329)
  for (int i = 0; i < 200; ++i) {
    std::string name = "n";
    name += std::to_string(i);
    s.add_node(make_node(name, 4000, 16 * kGi));
  }
  SchedulerOptions options;
  options.percentage_of_nodes_to_score = 50;  // 100 of 200 nodes
  Scheduler scheduler(options);
  SchedulingResult first = scheduler.schedule(s, make_pod("a", 100, 0));
  ASSERT_EQ(first.feasible.size(), 100u);
  EXPECT_EQ(s.node(first.feasible.front()).name(), "n0");
  SchedulingResult second = scheduler.schedule(s, make_pod("b", 100, 0));
  ASSERT_EQ(second.feasible.size(), 100u);
  EXPECT_EQ(s.node(second.feasible.front()).name(), "n100");  // the next cycle starts where the last stopped
}

TEST(Scheduler, NodesWithoutRoomArePassedOverYetCountAsFilteredForTheNextStart) {
  ClusterSnapshot s;
  // 400 nodes, the even ones without a pod slot: 100 feasible nodes are wanted (25 %, raised to upstream's 100).
  for (int i = 0; i < 400; ++i) {
    std::string name = "n";
    name += std::to_string(i);
    s.add_node(make_node(name, 4000, 16 * kGi, "zone-a", i % 2 == 0 ? 0 : 110));
  }
  SchedulerOptions options;
  options.percentage_of_nodes_to_score = 25;
  Scheduler scheduler(options);
  const SchedulingResult first = scheduler.schedule(s, make_pod("a", 100, 0));
  ASSERT_EQ(first.feasible.size(), 100u);
  EXPECT_EQ(s.node(first.feasible.front()).name(), "n1");
  EXPECT_EQ(s.node(first.feasible.back()).name(), "n199");
  // n0 to n199 were filtered, the full ones too: the next cycle starts at n200, whose first fit is n201.
  const SchedulingResult second = scheduler.schedule(s, make_pod("b", 100, 0));
  ASSERT_EQ(second.feasible.size(), 100u);
  EXPECT_EQ(s.node(second.feasible.front()).name(), "n201");
  EXPECT_EQ(s.node(scheduler.find_fit(s, make_pod("c", 100, 0), 398)).name(), "n399");
  EXPECT_EQ(s.node(scheduler.find_fit(s, make_pod("d", 100, 0), 399)).name(), "n399");

  // A pod nothing holds: each node's reasons when asked for, as if every node had been filtered; none otherwise.
  const SchedulingResult told = scheduler.schedule(s, make_pod("huge", 8000, 0));
  EXPECT_FALSE(told.scheduled());
  EXPECT_EQ(told.reasons, (std::map<std::string, int>{{"Insufficient cpu", 400}, {"Too many pods", 200}}));
  EXPECT_EQ(told.reason.rfind("0/400 nodes are available: ", 0), 0u);
  const SchedulingResult untold = scheduler.schedule(s, make_pod("huge", 8000, 0), Scheduler::Explain::NoReasons);
  EXPECT_FALSE(untold.scheduled());
  EXPECT_TRUE(untold.reasons.empty());
  EXPECT_TRUE(untold.reason.empty());
  EXPECT_EQ(scheduler.find_fit(s, make_pod("huge", 8000, 0)), kNoNode);
}

TEST(Snapshot, RevertRestoresRequestsPodsAndNodes) {
  ClusterSnapshot s;
  NodeId a = s.add_node(make_node("a", 4000, 16 * kGi));
  NodeId b = s.add_node(make_node("b", 4000, 16 * kGi));
  s.add_pod(make_pod("p1", 1000, kGi, "web"), a);
  s.add_pod(make_pod("p2", 500, kGi, "web"), a);

  s.fork();
  // "If node a went away, where would its pods go?": remove it, place its pods on b.
  s.remove_node(a);
  s.add_pod(make_pod("p1", 1000, kGi, "web"), b);
  s.add_pod(make_pod("p2", 500, kGi, "web"), b);
  s.add_node(make_node("c", 2000, 8 * kGi));
  EXPECT_EQ(s.node(b).requested.cpu_milli(), 1500);
  EXPECT_EQ(s.live_node_count(), 2u);
  s.revert();

  EXPECT_EQ(s.live_node_count(), 2u);
  EXPECT_EQ(s.nodes().size(), 2u);
  EXPECT_FALSE(s.node(a).removed);
  EXPECT_EQ(s.node(a).requested.cpu_milli(), 1500);
  EXPECT_EQ(s.node(a).pods.size(), 2u);
  EXPECT_EQ(s.node(b).requested.cpu_milli(), 0);
  EXPECT_EQ(s.node_of_pod("default/p1"), a);
  EXPECT_EQ(s.find_node("c"), kNoNode);
}

TEST(Snapshot, QueryCountsFollowPodsThroughForkAndRevert) {
  ClusterSnapshot s;
  NodeId a = s.add_node(make_node("a", 4000, 16 * kGi));
  s.add_pod(make_pod("w1", 100, 0, "web"), a);
  PodMatcher web;
  web.selector = app_selector("web");
  web.namespaces = {"default"};
  QueryId q = s.query(web);
  EXPECT_EQ(s.count(q, a), 1);
  s.fork();
  s.add_pod(make_pod("w2", 100, 0, "web"), a);
  s.add_pod(make_pod("db", 100, 0, "db"), a);
  EXPECT_EQ(s.count(q, a), 2);
  s.revert();
  EXPECT_EQ(s.count(q, a), 1);
}

TEST(Snapshot, NestedForksCommitIntoTheOuterLayer) {
  ClusterSnapshot s;
  NodeId a = s.add_node(make_node("a", 4000, 16 * kGi));
  s.fork();
  s.add_pod(make_pod("outer", 100, 0), a);
  s.fork();
  s.add_pod(make_pod("inner", 100, 0), a);
  s.commit();  // inner change now belongs to the outer layer
  EXPECT_EQ(s.node(a).pods.size(), 2u);
  s.revert();
  EXPECT_EQ(s.node(a).pods.size(), 0u);
}

TEST(DaemonSets, PlacedOnEveryNodeTheySelectAndTolerate) {
  ClusterSnapshot s;
  s.add_node(make_node("n1", 4000, 16 * kGi));
  Node tainted = make_node("gpu", 4000, 16 * kGi);
  tainted.taints.push_back({"nvidia.com/gpu", "true", TaintEffect::NoSchedule});
  s.add_node(tainted);
  Node cordoned = make_node("cordoned", 4000, 16 * kGi);
  cordoned.unschedulable = true;  // the controller's own toleration lets daemons run on cordoned nodes
  s.add_node(cordoned);

  Workload ds;
  ds.kind = WorkloadKind::DaemonSet;
  ds.meta.name = "node-exporter";
  ds.meta.namespace_ = "monitoring";
  ds.pod_template = make_pod("template", 100, 64 * kMi, "node-exporter");
  auto placements = place_daemon_pods(s, Scheduler(), {ds});
  std::vector<std::string> nodes;
  for (const Placement& p : placements) {
    ASSERT_TRUE(p.result.scheduled()) << p.result.reason;
    nodes.push_back(s.node(p.result.chosen).name());
  }
  EXPECT_EQ(nodes, (std::vector<std::string>{"n1", "cordoned"}));
  EXPECT_EQ(s.node(0).requested.cpu_milli(), 100);
}

}  // namespace
}  // namespace scalewright::scheduling
