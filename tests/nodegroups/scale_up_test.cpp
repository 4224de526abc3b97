#include "nodegroups/scale_up.h"

#include <gtest/gtest.h>

#include "config/priority_expander.h"
#include "fixtures.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace scalewright::nodegroups {
namespace {

using scheduling::ClusterSnapshot;
using scheduling::Scheduler;

using fixtures::m5_large;
constexpr Instant kNow{Duration(3'600'000)};

Pod app_pod(const std::string& name, std::int64_t cpu, std::int64_t memory_mi, const std::string& app) {
  return fixtures::replica_pod(name, cpu, memory_mi, app);
}

std::vector<PendingPod> pending(const std::string& app, int n, std::int64_t cpu, std::int64_t memory_mi,
                                Instant created = Instant{}) {
  std::vector<PendingPod> out;
  for (int i = 0; i < n; ++i) {
    auto pod = std::make_shared<const Pod>(app_pod(app + "-" + std::to_string(i), cpu, memory_mi, app));
    out.push_back({std::move(pod), created});
  }
  return out;
}

// `count` registered nodes of `group`, each with a 1800m filler pod: 130m left, less than one nginx (140m).
void add_full_nodes(ClusterSnapshot& snapshot, const NodeGroup& group, int count) {
  for (int i = 0; i < count; ++i) {
    Node node = group.template_node;
    node.meta.name = group.id + "-node-" + std::to_string(i);
    node.meta.labels.set(Symbol("kubernetes.io/hostname"), Symbol(node.meta.name));
    snapshot.add_pod(app_pod(node.meta.name + "-filler", 1800, 1024, "filler"), snapshot.add_node(node));
  }
}

struct Fixture {
  ClusterSnapshot snapshot;
  Scheduler scheduler;
  AutoscalerOptions options;
  NodeGroupBackoff backoff{AutoscalerOptions{}};
  ScaleUpInput input;

  Fixture() { input.now = kNow; }
  ScaleUpDecision decide(const ExpanderConfig& expander = {}) {
    return decide_scale_up(snapshot, input, options, expander, backoff, scheduler);
  }
  void add_group(const NodeGroup& g, int registered_full_nodes) {
    input.groups.push_back(g);
    input.registered_nodes[g.id] = registered_full_nodes;
    add_full_nodes(snapshot, g, registered_full_nodes);
  }
};

int count_events(const ScaleUpDecision& d, const std::string& reason, const std::string& message) {
  return static_cast<int>(std::count_if(d.events.begin(), d.events.end(), [&](const Event& e) {
    return e.reason == reason && e.message == message;
  }));
}

int count_outcome(const ScaleUpDecision& d, PodOutcome outcome) {
  return static_cast<int>(
      std::count_if(d.pods.begin(), d.pods.end(), [&](const PodDecision& p) { return p.outcome == outcome; }));
}

// The seed walkthrough: ng-a has 25 full m5.large nodes (max 80); 50 nginx replicas (140m / 256Mi) are pending.
// A node takes floor(1930 / 140) = 13 of them, so 50 need ceil(50 / 13) = 4 nodes: 25 -> 29.
TEST(ScaleUp, FiftyNginxGrowTheGroupFrom25To29) {
  Fixture f;
  f.add_group(m5_large("ng-a", 25, 80), 25);
  f.input.unschedulable = pending("nginx", 50, 140, 256);
  const std::size_t pods_before = f.snapshot.pod_count();
  ScaleUpDecision d = f.decide();
  ASSERT_EQ(d.scale_ups.size(), 1u);
  EXPECT_EQ(to_string(d.scale_ups), "[{ng-a 25->29 (max: 80)}]");
  EXPECT_EQ(count_events(d, "TriggeredScaleUp", "pod triggered scale-up: [{ng-a 25->29 (max: 80)}]"), 50);
  EXPECT_EQ(count_outcome(d, PodOutcome::TriggeredScaleUp), 50);
  EXPECT_EQ(d.pods[0].pod, "default/nginx-0");
  EXPECT_EQ(d.pods[0].node_group, "ng-a");
  // The snapshot is left as it came.
  EXPECT_EQ(f.snapshot.live_node_count(), 25u);
  EXPECT_EQ(f.snapshot.pod_count(), pods_before);
  EXPECT_EQ(f.snapshot.fork_depth(), 0u);
}

TEST(ScaleUp, UpcomingNodesTakePodsFirst) {
  // Target 27 with 25 registered: two nodes are on their way and take 2 x 13 = 26 pods; the other 24 need
  // two more: 27 -> 29.
  Fixture f;
  f.add_group(m5_large("ng-a", 27, 80), 25);
  f.input.unschedulable = pending("nginx", 50, 140, 256);
  ScaleUpDecision d = f.decide();
  EXPECT_EQ(to_string(d.scale_ups), "[{ng-a 27->29 (max: 80)}]");
  EXPECT_EQ(count_outcome(d, PodOutcome::FitsUpcomingNode), 26);
  EXPECT_EQ(count_outcome(d, PodOutcome::TriggeredScaleUp), 24);
}

TEST(ScaleUp, PodsThatFitExistingNodesNeedNoScaleUp) {
  Fixture f;
  f.add_group(m5_large("ng-a", 1, 80), 0);
  Node roomy = f.input.groups[0].template_node;
  roomy.meta.name = "roomy";
  f.snapshot.add_node(roomy);
  f.input.registered_nodes["ng-a"] = 1;
  f.input.unschedulable = pending("nginx", 5, 140, 256);
  ScaleUpDecision d = f.decide();
  EXPECT_FALSE(d.scaled_up());
  EXPECT_EQ(count_outcome(d, PodOutcome::FitsExistingNode), 5);
  EXPECT_EQ(d.pods[0].node, "roomy");
  EXPECT_TRUE(d.events.empty());
}

TEST(ScaleUp, NewPodsWaitForTheScaleUpDelay) {
  Fixture f;
  f.options.new_pod_scale_up_delay = Duration{30'000};
  f.add_group(m5_large("ng-a", 25, 80), 25);
  f.input.unschedulable = pending("nginx", 13, 140, 256, kNow - Duration{10'000});    // 10 s old: waits
  auto older = pending("old", 13, 140, 256, kNow - Duration{30'000});                 // 30 s old: counts
  f.input.unschedulable.insert(f.input.unschedulable.end(), older.begin(), older.end());
  ScaleUpDecision d = f.decide();
  EXPECT_EQ(to_string(d.scale_ups), "[{ng-a 25->26 (max: 80)}]");
  EXPECT_EQ(count_outcome(d, PodOutcome::TooNew), 13);
  EXPECT_EQ(count_outcome(d, PodOutcome::TriggeredScaleUp), 13);
}

TEST(ScaleUp, ExcessBeyondMaxSizeStaysPendingWithTheMaxSizeReason) {
  // 150 replicas against a group at 2 of max 5: three more nodes take 3 x 13 = 39; 111 stay pending.
  Fixture f;
  f.add_group(m5_large("ng-small", 2, 5), 2);
  f.input.unschedulable = pending("nginx", 150, 140, 256);
  ScaleUpDecision d = f.decide();
  EXPECT_EQ(to_string(d.scale_ups), "[{ng-small 2->5 (max: 5)}]");
  EXPECT_EQ(count_events(d, "TriggeredScaleUp", "pod triggered scale-up: [{ng-small 2->5 (max: 5)}]"), 39);
  EXPECT_EQ(count_events(d, "NotTriggerScaleUp", "pod didn't trigger scale-up: 1 max node group size reached"), 111);
  EXPECT_EQ(count_outcome(d, PodOutcome::NoScaleUp), 111);
}

TEST(ScaleUp, GroupAtMaxSizeTriggersNothing) {
  Fixture f;
  f.add_group(m5_large("ng-a", 25, 25), 25);
  f.input.unschedulable = pending("nginx", 3, 140, 256);
  ScaleUpDecision d = f.decide();
  EXPECT_FALSE(d.scaled_up());
  EXPECT_EQ(count_events(d, "NotTriggerScaleUp", "pod didn't trigger scale-up: 1 max node group size reached"), 3);
  EXPECT_EQ(d.pods[0].reason, "1 max node group size reached");
}

// Scale from zero: the groups have no nodes, only templates with labels and taints.
struct FromZero : Fixture {
  FromZero() {
    add_group(m5_large("ng-general", 3, 3), 3);  // at its max
    NodeGroup db = m5_large("ng-db", 0, 10);
    db.template_node.meta.labels.set(Symbol("workload"), Symbol("db"));
    add_group(db, 0);
    NodeGroup gpu = m5_large("ng-gpu", 0, 4);
    gpu.gpu = true;
    gpu.template_node.taints.push_back({"nvidia.com/gpu", "true", TaintEffect::NoSchedule});
    add_group(gpu, 0);
  }
};

TEST(ScaleUp, FromZeroNodeSelectorPicksTheLabelledTemplate) {
  FromZero f;
  Pod p = app_pod("postgres-0", 1000, 2048, "postgres");
  p.spec.node_selector.set(Symbol("workload"), Symbol("db"));
  f.input.unschedulable = {{std::make_shared<const Pod>(p), Instant{}}};
  ScaleUpDecision d = f.decide();
  EXPECT_EQ(to_string(d.scale_ups), "[{ng-db 0->1 (max: 10)}]");
  EXPECT_EQ(count_events(d, "TriggeredScaleUp", "pod triggered scale-up: [{ng-db 0->1 (max: 10)}]"), 1);
}

TEST(ScaleUp, FromZeroTaintedTemplateTakesOnlyToleratingPods) {
  FromZero f;
  f.input.groups.erase(f.input.groups.begin() + 1);  // no ng-db: the general group is full, the GPU one tainted
  f.input.unschedulable = pending("web", 1, 500, 512);
  ScaleUpDecision d = f.decide();
  EXPECT_FALSE(d.scaled_up());
  EXPECT_EQ(count_events(d, "NotTriggerScaleUp",
                         "pod didn't trigger scale-up: 1 max node group size reached, "
                         "1 node(s) had untolerated taint {nvidia.com/gpu: true}"),
            1);

  Pod trainer = app_pod("trainer-0", 1000, 2048, "trainer");
  trainer.spec.tolerations.push_back({"nvidia.com/gpu", TolerationOperator::Exists, "", std::nullopt, std::nullopt});
  f.input.unschedulable = {{std::make_shared<const Pod>(trainer), Instant{}}};
  ScaleUpDecision tolerated = f.decide();
  EXPECT_EQ(to_string(tolerated.scale_ups), "[{ng-gpu 0->1 (max: 4)}]");
}

TEST(ScaleUp, BackedOffGroupIsSkipped) {
  Fixture f;
  f.add_group(m5_large("ng-a", 25, 80), 25);
  f.backoff.record_failure("ng-a", kNow - Duration{60'000}, "timeout");  // backed off until kNow + 4 min
  f.input.unschedulable = pending("nginx", 2, 140, 256);
  ScaleUpDecision d = f.decide();
  EXPECT_FALSE(d.scaled_up());
  EXPECT_EQ(count_events(d, "NotTriggerScaleUp", "pod didn't trigger scale-up: 1 in backoff after failed scale-up"),
            2);
  // Another group takes over while ng-a is backed off.
  f.input.groups.push_back(m5_large("ng-b", 0, 10, "us-east-1b"));
  f.input.registered_nodes["ng-b"] = 0;
  EXPECT_EQ(to_string(f.decide().scale_ups), "[{ng-b 0->1 (max: 10)}]");
}

TEST(ScaleUp, MaxNodesTotalCapsTheCount) {
  // 25 nodes, --max-nodes-total=27: the 4 nodes the pods need are capped at 2.
  Fixture f;
  f.options.max_nodes_total = 27;
  f.add_group(m5_large("ng-a", 25, 80), 25);
  f.input.unschedulable = pending("nginx", 50, 140, 256);
  EXPECT_EQ(to_string(f.decide().scale_ups), "[{ng-a 25->27 (max: 80)}]");
  // At 25 of 25 nothing grows; upstream records no event, the pod's reason says why.
  f.options.max_nodes_total = 25;
  ScaleUpDecision d = f.decide();
  EXPECT_FALSE(d.scaled_up());
  EXPECT_TRUE(d.events.empty());
  EXPECT_EQ(d.pods[0].reason, "max total nodes in cluster reached (--max-nodes-total=25)");
}

TEST(ScaleUp, CoresTotalCapsTheCount) {
  // 25 nodes x 2 cores = 50 cores. --cores-total max 54 leaves 4000m: two 2000m nodes.
  Fixture f;
  f.options.cores_total_max = 54;
  f.add_group(m5_large("ng-a", 25, 80), 25);
  f.input.unschedulable = pending("nginx", 50, 140, 256);
  EXPECT_EQ(to_string(f.decide().scale_ups), "[{ng-a 25->27 (max: 80)}]");
  // Max 51 cores: one more node (52) is already too many.
  f.options.cores_total_max = 51;
  ScaleUpDecision d = f.decide();
  EXPECT_FALSE(d.scaled_up());
  EXPECT_EQ(count_events(d, "NotTriggerScaleUp", "pod didn't trigger scale-up: 1 max cluster cpu limit reached"), 50);
  // --cores-total=0:9223372036854775807 and --memory-total likewise: no limit. In millicores and bytes the
  // products saturate; they wrapped to -1000m and -1Gi, and every scale-up hit the limit.
  f.options.cores_total_max = std::numeric_limits<std::int64_t>::max();
  f.options.memory_total_max_gib = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(to_string(f.decide().scale_ups), "[{ng-a 25->29 (max: 80)}]");
}

TEST(ScaleUp, PriorityExpanderPicksTheGroup) {
  // Both groups could take the pods and waste the same; the ConfigMap puts ng-spot above everything else.
  Fixture f;
  f.add_group(m5_large("ng-ondemand", 0, 10), 0);
  f.add_group(m5_large("ng-spot", 0, 10, "us-east-1b"), 0);
  f.input.unschedulable = pending("nginx", 20, 140, 256);
  Result<ExpanderConfig> config =
      make_expander_config({"priority", "least-waste"}, *config::parse_priority_config("10:\n  - .*\n50:\n  - ^ng-spot$\n"));
  ASSERT_TRUE(config.ok()) << config.error().message;
  EXPECT_EQ(to_string(f.decide(*config).scale_ups), "[{ng-spot 0->2 (max: 10)}]");
}

TEST(ScaleUp, SpreadPodsThatNoNewNodeTakesWaitWithoutAnEvent) {
  // An existing node in us-east-1b has no web pod; ng-a's nodes land in us-east-1a. maxSkew 1 on zone lets one
  // web pod into 1a this loop; the other three have no upstream reason, so no event, and say why.
  Fixture f;
  f.add_group(m5_large("ng-a", 0, 10), 0);
  add_full_nodes(f.snapshot, m5_large("ng-b", 1, 1, "us-east-1b"), 1);
  std::vector<PendingPod> pods;
  for (int i = 0; i < 4; ++i) {
    Pod p = app_pod("web-" + std::to_string(i), 200, 128, "web");  // more than the 130m left on the 1b node
    TopologySpreadConstraint c;
    c.max_skew = 1;
    c.topology_key = Symbol("topology.kubernetes.io/zone");
    c.label_selector = LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol("web")}}}};
    p.spec.topology_spread_constraints.push_back(c);
    pods.push_back({std::make_shared<const Pod>(std::move(p)), Instant{}});
  }
  f.input.unschedulable = pods;
  ScaleUpDecision d = f.decide();
  EXPECT_EQ(to_string(d.scale_ups), "[{ng-a 0->1 (max: 10)}]");
  EXPECT_EQ(d.events.size(), 1u);
  EXPECT_EQ(count_outcome(d, PodOutcome::TriggeredScaleUp), 1);
  EXPECT_EQ(d.pods[1].outcome, PodOutcome::NoScaleUp);
  EXPECT_EQ(d.pods[1].reason,
            "no new node of this scale-up can take it next to the pods placed before it; considered again next loop");
}

TEST(BalanceScaleUp, SmallestGroupFirst) {
  // Sizes 1, 3 and 5, ten new nodes: 1 -> 3, then 3 and 3 -> 5 and 5, then one each to 6, 6, 6, and the last
  // to the first of the equal groups: 7, 6, 6.
  std::vector<ScaleUpInfo> groups{{"ng-5", 5, 5, 10}, {"ng-1", 1, 1, 10}, {"ng-3", 3, 3, 10}};
  EXPECT_EQ(to_string(balance_scale_up(groups, 10)),
            "[{ng-1 1->7 (max: 10)} {ng-3 3->6 (max: 10)} {ng-5 5->6 (max: 10)}]");
}

TEST(BalanceScaleUp, RespectsEachMaxAndTheTotalRoom) {
  // a can take 2: a 0 -> 2, and b, c share the other 7: 4 and 3.
  std::vector<ScaleUpInfo> groups{{"a", 0, 0, 2}, {"b", 0, 0, 10}, {"c", 0, 0, 10}};
  EXPECT_EQ(to_string(balance_scale_up(groups, 9)), "[{a 0->2 (max: 2)} {b 0->4 (max: 10)} {c 0->3 (max: 10)}]");
  // 30 asked, 22 of room: every group to its max. A group already full is left out.
  groups.push_back({"full", 10, 10, 10});
  EXPECT_EQ(to_string(balance_scale_up(groups, 30)),
            "[{a 0->2 (max: 2)} {b 0->10 (max: 10)} {c 0->10 (max: 10)}]");
}

// Three similar groups, one per zone, all empty; each pod (1500m) needs a node of its own.
struct ThreeZones : Fixture {
  ThreeZones() {
    options.balance_similar_node_groups = true;
    for (const char* zone : {"us-east-1a", "us-east-1b", "us-east-1c"}) {
      add_group(m5_large(std::string("ng-") + zone, 0, 80, zone), 0);
    }
  }
};

std::vector<std::int32_t> new_sizes(const ScaleUpDecision& d) {
  std::vector<std::int32_t> out;
  for (const ScaleUpInfo& info : d.scale_ups) out.push_back(info.new_size);
  return out;
}

TEST(ScaleUp, BalancesNineNodesAcrossThreeZonesAsThreeEach) {
  ThreeZones f;
  f.input.unschedulable = pending("worker", 9, 1500, 1024);
  ScaleUpDecision d = f.decide();
  EXPECT_EQ(new_sizes(d), (std::vector<std::int32_t>{3, 3, 3}));
}

TEST(ScaleUp, BalancesTenNodesAsFourThreeThreeWithTheChosenGroupFirst) {
  ThreeZones f;
  f.input.unschedulable = pending("worker", 10, 1500, 1024);
  ScaleUpDecision d = f.decide();
  ASSERT_EQ(new_sizes(d), (std::vector<std::int32_t>{4, 3, 3}));
  ASSERT_TRUE(d.chosen_option.has_value());
  EXPECT_EQ(d.scale_ups[0].group, d.options[*d.chosen_option].group->id);
  EXPECT_EQ(count_outcome(d, PodOutcome::TriggeredScaleUp), 10);
}

TEST(ScaleUp, WithoutBalancingOneGroupTakesAll) {
  ThreeZones f;
  f.options.balance_similar_node_groups = false;
  f.input.unschedulable = pending("worker", 9, 1500, 1024);
  EXPECT_EQ(new_sizes(f.decide()), (std::vector<std::int32_t>{9}));
}

}  // namespace
}  // namespace scalewright::nodegroups
