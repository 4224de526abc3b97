// Karpenter's NodePool and v1alpha5 Provisioner, and our Scenario kind, read from the files users write.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "decode_helpers.h"

namespace scalewright::testing {
namespace {

TEST(NodePool, V1FieldsAsKarpenterDocumentsThem) {
  ManifestSet set = decode_ok(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    metadata: {labels: {team: web}}
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      taints: [{key: dedicated, value: web, effect: NoSchedule}]
      startupTaints: [{key: node.cilium.io/agent-not-ready, value: "true", effect: NoExecute}]
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5, r5], minValues: 2}
      expireAfter: Never
  limits: {cpu: 1000, memory: 1000Gi}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 1m30s
    budgets: [{nodes: "20%"}, {nodes: "3", reasons: [Drifted]}]
  weight: 10
)");
  ASSERT_EQ(set.nodepools.size(), 1u);
  const NodePool& p = set.nodepools[0];
  EXPECT_EQ(p.meta.name, "default");
  EXPECT_EQ(p.meta.namespace_, "");  // cluster-scoped
  EXPECT_EQ(*p.template_labels.find(Symbol("team")), Symbol("web"));
  ASSERT_EQ(p.taints.size(), 1u);
  EXPECT_EQ(p.taints[0].describe(), "{dedicated: web}");
  ASSERT_EQ(p.startup_taints.size(), 1u);
  EXPECT_EQ(p.startup_taints[0].effect, TaintEffect::NoExecute);
  ASSERT_EQ(p.requirements.size(), 2u);
  EXPECT_EQ(p.requirements[1].min_values, 2);
  EXPECT_FALSE(p.expire_after.has_value());  // Never
  EXPECT_EQ(p.consolidation_policy, ConsolidationPolicy::WhenEmpty);
  EXPECT_EQ(p.consolidate_after, Duration(90'000));
  ASSERT_EQ(p.budgets.size(), 2u);
  EXPECT_EQ(p.budgets[0].nodes, (IntOrPercent{20, true}));  // "20%"
  EXPECT_EQ(p.budgets[1].nodes, (IntOrPercent{3, false}));  // "3"
  EXPECT_EQ(p.budgets[1].reasons, std::vector<std::string>{"Drifted"});
  EXPECT_EQ(p.limits.cpu_milli(), 1'000'000);
  EXPECT_EQ(p.limits.memory(), 1000 * kGi);
  EXPECT_EQ(p.limited_resources.size(), 2u);
  EXPECT_EQ(p.weight, 10);
  // The requirement set joins template labels, requirements and the NodePool's own label.
  RequirementSet r = p.requirement_set();
  EXPECT_TRUE(r.allows("karpenter.k8s.aws/instance-family", "c5"));
  EXPECT_FALSE(r.allows("karpenter.k8s.aws/instance-family", "t3"));
  EXPECT_FALSE(r.allows("team", "db"));
  EXPECT_TRUE(r.allows("karpenter.sh/nodepool", "default"));
}

TEST(NodePool, BalancedIsAConsolidationPolicy) {
  ManifestSet set = decode_ok(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: balanced}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption: {consolidationPolicy: Balanced, consolidateAfter: 5m}
)");
  EXPECT_EQ(set.nodepools.at(0).consolidation_policy, ConsolidationPolicy::Balanced);
}

TEST(NodePool, DefaultsAreKarpentersV1Defaults) {
  ManifestSet set = decode_ok(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: minimal}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
)");
  const NodePool& p = set.nodepools.at(0);
  EXPECT_EQ(p.consolidation_policy, ConsolidationPolicy::WhenEmptyOrUnderutilized);
  EXPECT_EQ(p.consolidate_after, Duration(0));
  EXPECT_EQ(p.expire_after, Duration(720LL * 3600 * 1000));  // 720h
  ASSERT_EQ(p.budgets.size(), 1u);
  EXPECT_EQ(p.budgets[0].nodes, (IntOrPercent{10, true}));  // "10%"
  EXPECT_TRUE(p.limited_resources.empty());
  EXPECT_EQ(p.weight, 0);
}

TEST(NodePool, V1beta1DisruptionIsReadAsKarpentersConversionToV1ReadsIt) {
  // v1beta1 kept expireAfter under spec.disruption (default 720h); the conversion moves it to the template's spec.
  // WhenUnderutilized, v1beta1's default policy, converts to WhenEmptyOrUnderutilized with consolidateAfter 0s.
  const std::string head = R"(
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: old}
spec:
  template:
    spec:
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}
)";
  struct Case {
    std::string disruption;
    std::optional<Duration> expire_after;
    ConsolidationPolicy policy;
    std::optional<Duration> consolidate_after;
  };
  const Case cases[] = {
      {"", Duration(720LL * 3600 * 1000), ConsolidationPolicy::WhenEmptyOrUnderutilized, Duration(0)},
      {"  disruption: {expireAfter: 24h}\n", Duration(24LL * 3600 * 1000),
       ConsolidationPolicy::WhenEmptyOrUnderutilized, Duration(0)},
      {"  disruption: {expireAfter: Never, consolidationPolicy: WhenUnderutilized, consolidateAfter: Never}\n",
       std::nullopt, ConsolidationPolicy::WhenEmptyOrUnderutilized, Duration(0)},
      {"  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s, expireAfter: 10m}\n",
       Duration(600'000), ConsolidationPolicy::WhenEmpty, Duration(30'000)},
  };
  for (const Case& c : cases) {
    ManifestSet set = decode_ok(head + c.disruption);
    const NodePool& p = set.nodepools.at(0);
    EXPECT_EQ(p.expire_after, c.expire_after) << c.disruption;
    EXPECT_EQ(p.consolidation_policy, c.policy) << c.disruption;
    EXPECT_EQ(p.consolidate_after, c.consolidate_after) << c.disruption;
    EXPECT_EQ(p.node_class, (NodeClassReference{"karpenter.k8s.aws", "EC2NodeClass", "default"}));
  }
  // v1beta1's CRD rules on consolidateAfter.
  EXPECT_EQ(decode_error(head + "  disruption: {consolidationPolicy: WhenUnderutilized, consolidateAfter: 30s}\n"),
            "test.yaml doc 1 NodePool/old: spec.disruption.consolidateAfter: cannot be combined with "
            "consolidationPolicy=WhenUnderutilized");
  EXPECT_EQ(decode_error(head + "  disruption: {consolidationPolicy: WhenEmpty}\n"),
            "test.yaml doc 1 NodePool/old: spec.disruption.consolidateAfter: must be specified with "
            "consolidationPolicy=WhenEmpty");
}

TEST(NodePool, AStaticNodePoolTakesOnlyWhatKarpentersCrdAllowsIt) {
  const std::string head = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n"
                           "  template: {spec: {}}\n";
  const NodePool p = decode_ok(head + "  replicas: 3\n  limits: {nodes: 5}\n").nodepools.at(0);
  EXPECT_EQ(p.replicas, 3);
  EXPECT_TRUE(p.is_static());
  EXPECT_EQ(p.limits.get(nodes_resource()), 5);
  EXPECT_FALSE(decode_ok(head).nodepools.at(0).is_static());
  // Karpenter's CRD: replicas at least 0; on a static NodePool only limits.nodes, and no weight.
  EXPECT_EQ(decode_error(head + "  replicas: -1\n"),
            "test.yaml doc 1 NodePool/np: spec.replicas: must be at least 0, got -1");
  EXPECT_EQ(decode_error(head + "  replicas: 3\n  limits: {nodes: 5, cpu: 100}\n"),
            "test.yaml doc 1 NodePool/np: spec.limits.cpu: only 'limits.nodes' is supported on static NodePools");
  EXPECT_EQ(decode_error(head + "  replicas: 3\n  weight: 10\n"),
            "test.yaml doc 1 NodePool/np: spec.weight: 'weight' is not supported on static NodePools");
}

TEST(NodePool, ProvisionerWithTtlSecondsAfterEmptyFromTheSeedArticles) {
  ManifestSet set = decode_ok(R"(
apiVersion: karpenter.sh/v1alpha5
kind: Provisioner
metadata: {name: default}
spec:
  requirements:
  - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  limits:
    resources: {cpu: 1000}
  ttlSecondsAfterEmpty: 30
)");
  const NodePool& p = set.nodepools.at(0);
  EXPECT_EQ(p.consolidation_policy, ConsolidationPolicy::WhenEmpty);
  EXPECT_EQ(p.consolidate_after, Duration(30'000));
  EXPECT_EQ(p.limits.cpu_milli(), 1'000'000);
  EXPECT_FALSE(p.expire_after.has_value());
}

TEST(NodePool, InvalidFieldsNameTheirPath) {
  const std::string head = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n";
  EXPECT_EQ(decode_error(head + "  template:\n    spec:\n      requirements:\n"
                                "      - {key: kubernetes.io/hostname, operator: In, values: [a]}\n"),
            "test.yaml doc 1 NodePool/np: spec.template.spec.requirements[0].key: label \"kubernetes.io/hostname\" "
            "is restricted: Karpenter sets it on every node");
  EXPECT_EQ(decode_error(head + "  template: {spec: {}}\n  disruption: {consolidateAfter: soon}\n"),
            "test.yaml doc 1 NodePool/np: spec.disruption.consolidateAfter: invalid duration \"soon\"");
  EXPECT_EQ(decode_error(head + "  template: {spec: {}}\n  weight: 101\n"),
            "test.yaml doc 1 NodePool/np: spec.weight: must be between 1 and 100, got 101");
  EXPECT_EQ(decode_error(head + "  template: {spec: {}}\n  disruption: {consolidationPolicy: Sometimes}\n"),
            "test.yaml doc 1 NodePool/np: spec.disruption.consolidationPolicy: unknown consolidation policy "
            "\"Sometimes\" (expected WhenEmpty, WhenEmptyOrUnderutilized, Balanced, WhenUnderutilized)");
  EXPECT_EQ(decode_error(head + "  template: {spec: {}}\n  disruption: {budgets: [{nodes: \"150%\"}]}\n"),
            "test.yaml doc 1 NodePool/np: spec.disruption.budgets[0].nodes: expected a number of nodes or a "
            "percentage, got \"150%\"");
  EXPECT_EQ(decode_error(head + "  template: {spec: {}}\n  disruption: {budgets: [{nodes: \"99999999999\"}]}\n"),
            "test.yaml doc 1 NodePool/np: spec.disruption.budgets[0].nodes: expected a number of nodes or a "
            "percentage, got \"99999999999\"");
  EXPECT_EQ(decode_error(head + "  template: {spec: {}}\n  limits: {cpu: lots}\n"),
            "test.yaml doc 1 NodePool/np: spec.limits.cpu: invalid quantity \"lots\"");
  // Karpenter's CEL rule: an In requirement lists at least minValues values (3 asked of 2 here). NotIn has no such
  // rule: it leaves every other value.
  EXPECT_EQ(decode_error(head + "  template:\n    spec:\n      requirements:\n"
                                "      - {key: karpenter.k8s.aws/instance-family, operator: In, values: [m5, c5], "
                                "minValues: 3}\n"),
            "test.yaml doc 1 NodePool/np: spec.template.spec.requirements[0].minValues: requirements with "
            "'minValues' must have at least that many values specified in the 'values' field (minValues 3, 2 "
            "values)");
  EXPECT_EQ(decode_ok(head + "  template:\n    spec:\n      requirements:\n"
                             "      - {key: karpenter.k8s.aws/instance-family, operator: NotIn, values: [m5], "
                             "minValues: 3}\n")
                .nodepools.size(),
            1u);
}

TEST(NodePool, BudgetSchedulesAreParsedWhenDecoded) {
  ManifestSet set = decode_ok(R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template: {spec: {}}
  disruption:
    budgets:
    - {nodes: "0", schedule: "0 9 * * mon-fri", duration: 8h30m, reasons: [Underutilized, Drifted]}
    - {nodes: "1", schedule: "@daily", duration: 10m0s}
    - {nodes: "10%"}
)");
  const NodePool& p = set.nodepools.at(0);
  ASSERT_EQ(p.budgets.size(), 3u);
  ASSERT_TRUE(p.budgets[0].window.has_value());
  EXPECT_EQ(p.budgets[0].window->schedule.spec(), "0 9 * * mon-fri");
  EXPECT_EQ(p.budgets[0].window->duration, Duration((8 * 60 + 30) * 60'000));
  EXPECT_EQ(p.budgets[0].reasons, (std::vector<std::string>{"Underutilized", "Drifted"}));
  // Parsed: from Saturday 2024-03-09 the next weekday 09:00 is Monday's.
  using namespace std::chrono;
  const sys_seconds saturday{sys_days{2024y / March / 9}};
  EXPECT_EQ(p.budgets[0].window->schedule.next(saturday, 0s), sys_days{2024y / March / 11} + 9h);
  ASSERT_TRUE(p.budgets[1].window.has_value());
  EXPECT_EQ(p.budgets[1].window->duration, Duration(10 * 60'000));  // Go's "10m0s" spelling
  EXPECT_FALSE(p.budgets[2].window.has_value());                    // no schedule: always active
}

TEST(NodePool, InvalidBudgetsNameTheirField) {
  const std::string head = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: np}\nspec:\n"
                           "  template: {spec: {}}\n  disruption:\n    budgets:\n";
  const std::string at = "test.yaml doc 1 NodePool/np: spec.disruption.budgets[0].";
  EXPECT_EQ(decode_error(head + "    - {nodes: \"0\", schedule: \"@daily\"}\n"),
            at + "duration: required when schedule is set");
  EXPECT_EQ(decode_error(head + "    - {nodes: \"0\", duration: 1h}\n"),
            at + "schedule: required when duration is set");
  EXPECT_EQ(decode_error(head + "    - {nodes: \"0\", schedule: \"0 25 * * *\", duration: 1h}\n"),
            at + "schedule: invalid cron schedule \"0 25 * * *\": hour field \"25\": out of range 0-23");
  EXPECT_EQ(decode_error(head + "    - {nodes: \"0\", schedule: \"0 9 * *\", duration: 1h}\n"),
            at + "schedule: invalid cron schedule \"0 9 * *\": expected 5 fields (minute hour day-of-month month "
                 "day-of-week), found 4");
  // Cron fires on whole minutes: Karpenter's CRD takes hours and minutes only.
  EXPECT_EQ(decode_error(head + "    - {nodes: \"0\", schedule: \"@daily\", duration: 90s}\n"),
            at + "duration: expected hours and minutes such as \"8h\", \"30m\" or \"1h30m\", got \"90s\"");
  EXPECT_EQ(decode_error(head + "    - {nodes: \"0\", schedule: \"@daily\", duration: 30m1h}\n"),
            at + "duration: expected hours and minutes such as \"8h\", \"30m\" or \"1h30m\", got \"30m1h\"");
  EXPECT_EQ(decode_error(head + "    - {nodes: \"1\", reasons: [Empty, Expired]}\n"),
            at + "reasons[1]: unknown disruption reason \"Expired\" (expected Empty, Drifted, Underutilized)");
}

TEST(Scenario, EveryFieldAndTheTimelineInTimeOrder) {
  ManifestSet set = decode_ok(R"(
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: demo}
spec:
  duration: 2h
  seed: 99
  cloud:
    region: us-east-1
    instanceTypes: [m5.large, c5.2xlarge]
    launchLatency: {min: 30s, max: 1m}
    spotPriceFraction: 0.4
    faults:
      insufficientCapacityRate: 0.25
      insufficientCapacity: [{at: 1m, duration: 10m, instanceType: c5.2xlarge, zone: us-east-1a, capacityType: spot}]
      neverReadyRate: 0.1
      spotInterruptions: [{at: 30m, count: 2}]
  provisioning: {batchIdleDuration: 2s, batchMaxDuration: 20s, featureGates: {nodeRepair: true, nodeOverlay: false}}
  timeline:
  - {at: 10m, delete: {kind: Deployment, name: web, namespace: shop}}
  - {at: 1m, scale: {kind: Deployment, name: web, namespace: shop, replicas: 7}}
  - {at: 5m, cordon: {node: n1}}
  - at: 6m
    apply:
    - {apiVersion: v1, kind: Namespace, metadata: {name: extra}}
)");
  ASSERT_EQ(set.scenarios.size(), 1u);
  const Scenario& s = set.scenarios[0];
  EXPECT_EQ(s.duration, Duration(7'200'000));
  EXPECT_EQ(s.seed, 99u);
  EXPECT_EQ(s.cloud.instance_types, (std::vector<std::string>{"m5.large", "c5.2xlarge"}));
  EXPECT_EQ(s.cloud.launch_latency_min, Duration(30'000));
  EXPECT_EQ(s.cloud.launch_latency_max, Duration(60'000));
  EXPECT_EQ(s.cloud.spot_price_fraction, 0.4);
  EXPECT_EQ(s.cloud.faults.insufficient_capacity_rate, 0.25);
  ASSERT_EQ(s.cloud.faults.insufficient_capacity.size(), 1u);
  EXPECT_EQ(s.cloud.faults.insufficient_capacity[0].duration, Duration(600'000));
  EXPECT_EQ(s.cloud.faults.insufficient_capacity[0].capacity_type, "spot");
  EXPECT_EQ(s.cloud.faults.never_ready_rate, 0.1);
  ASSERT_EQ(s.cloud.faults.spot_interruptions.size(), 1u);
  EXPECT_EQ(s.cloud.faults.spot_interruptions[0].count, 2);
  EXPECT_EQ(s.batching.idle, Duration(2'000));
  EXPECT_EQ(s.batching.max, Duration(20'000));
  EXPECT_TRUE(s.feature_gates.node_repair);
  ASSERT_EQ(s.timeline.size(), 4u);
  EXPECT_EQ(s.timeline[0].action, TimelineStep::Action::Scale);  // sorted by time: 1m, 5m, 6m, 10m
  EXPECT_EQ(s.timeline[0].replicas, 7);
  EXPECT_EQ(s.timeline[0].target.namespace_, "shop");
  EXPECT_EQ(s.timeline[1].action, TimelineStep::Action::Cordon);
  EXPECT_EQ(s.timeline[1].node, "n1");
  EXPECT_EQ(s.timeline[2].action, TimelineStep::Action::Apply);
  EXPECT_NE(s.timeline[2].apply_source.find("Namespace"), std::string::npos);
  EXPECT_EQ(s.timeline[3].action, TimelineStep::Action::Delete);
}

TEST(Scenario, InvalidStepsNameTheirPath) {
  const std::string head = "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n";
  EXPECT_EQ(decode_error(head + "  timeline:\n  - {at: 1m, scale: {kind: Deployment, name: a, replicas: 1}, "
                                "cordon: {node: n}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0]: needs exactly one of scale, apply, delete, cordon, uncordon, load");
  EXPECT_EQ(decode_error(head + "  timeline:\n  - {at: 1m, scale: {kind: Deployment, name: a, replicas: -1}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].scale.replicas: must not be negative");
  EXPECT_EQ(decode_error(head + "  timeline:\n  - {at: 1m, scale: {kind: deployment, name: a, replicas: 1}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].scale.kind: unsupported kind \"deployment\" (expected "
            "Deployment, ReplicaSet, StatefulSet, Job, NodePool)");
  EXPECT_EQ(decode_error(head + "  cloud: {faults: {neverReadyRate: 2}}\n"),
            "test.yaml doc 1 Scenario/s: spec.cloud.faults.neverReadyRate: must be between 0 and 1, got 2");
  EXPECT_EQ(decode_error(head + "  cloud: {launchLatency: {min: 2m, max: 1m}}\n"),
            "test.yaml doc 1 Scenario/s: spec.cloud.launchLatency.max: must not be less than min");
  // An applied object is checked when the scenario loads, not halfway through the run.
  EXPECT_EQ(decode_error(head + "  timeline:\n  - at: 1m\n    apply:\n    - {apiVersion: v1, kind: Node, metadata: "
                                "{name: n}, status: {capacity: {cpu: abc}}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].apply: apply doc 1 Node/n: status.capacity.cpu: invalid "
            "quantity \"abc\"");
}

TEST(Scenario, LoadStepsEveryShapeAndCost) {
  ManifestSet set = decode_ok(R"yaml(
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: load}
spec:
  cloud:
    faults:
      prometheusOutages: [{at: 8m, duration: 2m}]
  timeline:
  - at: 0s
    load: {kind: Deployment, name: web, requestsPerSecond: 20, cpuPerRequest: 10m, idleCpu: 5m, memory: 64Mi}
  - {at: 1m, load: {kind: Deployment, name: web, ramp: {from: 20, to: 80, over: 2m}}}
  - {at: 2m, load: {kind: Deployment, name: web, step: {from: 80, to: 10, after: 30s}}}
  - {at: 3m, load: {kind: StatefulSet, name: db, namespace: shop, sine: {mean: 50, amplitude: 20, period: 10m}}}
  - {at: 4m, load: {kind: Deployment, name: web, points: [{after: 0s, requestsPerSecond: 1}, {after: 1m, requestsPerSecond: 3}]}}
  - at: 5m
    load:
      kind: Deployment
      name: web
      csv: |
        after,requestsPerSecond
        0s,5
        30s,15
        2m,0
)yaml");
  const Scenario& s = set.scenarios.at(0);
  ASSERT_EQ(s.timeline.size(), 6u);
  ASSERT_EQ(s.cloud.faults.prometheus_outages.size(), 1u);
  EXPECT_EQ(s.cloud.faults.prometheus_outages[0].at, Instant(std::chrono::minutes(8)));
  EXPECT_EQ(s.cloud.faults.prometheus_outages[0].duration, std::chrono::minutes(2));
  const TimelineStep& constant = s.timeline[0];
  EXPECT_EQ(constant.action, TimelineStep::Action::Load);
  EXPECT_EQ(constant.target.name, "web");
  EXPECT_EQ(constant.load.kind, LoadShape::Kind::Constant);
  EXPECT_EQ(constant.load.requests_per_second, 20);
  ASSERT_TRUE(constant.cost.has_value());
  EXPECT_EQ(constant.cost->cpu_per_request_milli, 10);
  EXPECT_EQ(constant.cost->idle_cpu_milli, 5);
  EXPECT_EQ(constant.cost->memory_bytes, 64 << 20);
  EXPECT_FALSE(s.timeline[1].cost.has_value());  // later steps keep the cost
  EXPECT_EQ(s.timeline[1].load.kind, LoadShape::Kind::Ramp);
  EXPECT_EQ(s.timeline[1].load.over, std::chrono::minutes(2));
  EXPECT_EQ(s.timeline[2].load.kind, LoadShape::Kind::Step);
  EXPECT_EQ(s.timeline[2].load.to, 10);
  EXPECT_EQ(s.timeline[3].target.namespace_, "shop");
  EXPECT_EQ(s.timeline[3].load.period, std::chrono::minutes(10));
  EXPECT_EQ(s.timeline[4].load.points.size(), 2u);
  const LoadShape& csv = s.timeline[5].load;
  ASSERT_EQ(csv.points.size(), 3u);
  EXPECT_EQ(csv.points[1], (std::pair<Duration, double>{std::chrono::seconds(30), 15}));
  EXPECT_EQ(csv.at(std::chrono::seconds(15)), 10);  // halfway from 5 to 15
}

TEST(Scenario, InvalidLoadStepsNameTheirPath) {
  const std::string head = "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  timeline:\n";
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, requestsPerSecond: 5, ramp: {from: 1, to: 2, over: 1m}}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load: needs exactly one of requestsPerSecond, ramp, step, sine, "
            "points, csv");
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, requestsPerSecond: -5}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.requestsPerSecond: must be a number of at least 0, got -5");
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, ramp: {from: 1, to: 2, over: 0s}}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.ramp.over: must be positive");
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Job, name: a, requestsPerSecond: 1}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.kind: unsupported kind \"Job\" (expected Deployment, "
            "ReplicaSet, StatefulSet)");
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, points: [{after: 1m, requestsPerSecond: 1}, "
                                "{after: 1m, requestsPerSecond: 2}]}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.points: points must be in increasing time order");
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, csv: \"when,rps\\n0s,1\\n\"}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.csv: csv:1: missing column \"after\" in the header");
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, requestsPerSecond: 1, cpuPerRequest: -1m}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.cpuPerRequest: must not be negative");
  // At most 1e8 requests per second, in a field and in a CSV cell alike (the counter stays exact for a year).
  const std::string most = "must be at most 100000000 requests per second (1e8, the most a load step may offer), got ";
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, requestsPerSecond: 1e308}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.requestsPerSecond: " + most + "1e308");
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, sine: {mean: 5, amplitude: 2e8, "
                                "period: 1m}}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.sine.amplitude: " + most + "2e8");
  EXPECT_EQ(decode_error(head + "  - {at: 1m, load: {kind: Deployment, name: a, csv: \"after,requestsPerSecond\\n"
                                "0s,1\\n1m,1e9\\n\"}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[0].load.csv: csv:3: column 2 \"requestsPerSecond\": " + most +
                "1e9");
  EXPECT_EQ(decode_ok(head + "  - {at: 1m, load: {kind: Deployment, name: a, requestsPerSecond: 1e8}}\n")
                .scenarios.at(0).timeline.at(0).load.requests_per_second,
            1e8);
}

// A scenario file beside its CSV files, in a fresh folder under the temp directory; removed by the caller.
std::filesystem::path scenario_folder(const std::string& name, const std::string& load,
                                      const std::vector<std::pair<std::string, std::string>>& files) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "data");
  std::ofstream(dir / "scenario.yaml") << "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\n"
                                          "spec:\n  timeline:\n  - {at: 1m, load: {kind: Deployment, name: web, " +
                                              load + "}}\n";
  for (const auto& [file, text] : files) std::ofstream(dir / file) << text;
  return dir;
}

TEST(Scenario, LoadCsvOnOneLineIsAFileBesideTheScenarioFile) {
  // Relative to the scenario file's folder, not to the working directory.
  std::filesystem::path dir = scenario_folder("scalewright-csv-file", "csv: data/spike.csv",
                                              {{"data/spike.csv", "after,requestsPerSecond\n0s,5\n30s,15\n2m,0\n"}});
  Result<ManifestSet> set = load_manifest_file(dir / "scenario.yaml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  const LoadShape& load = set->scenarios.at(0).timeline.at(0).load;
  EXPECT_EQ(load.kind, LoadShape::Kind::Points);
  ASSERT_EQ(load.points.size(), 3u);
  EXPECT_EQ(load.points[1], (std::pair<Duration, double>{std::chrono::seconds(30), 15}));
  EXPECT_EQ(load.points[2], (std::pair<Duration, double>{std::chrono::minutes(2), 0}));
  EXPECT_EQ(load.at(std::chrono::seconds(15)), 10);  // halfway from 5 to 15
  std::filesystem::remove_all(dir);
}

TEST(Scenario, LoadCsvFileThatCannotBeReadOrParsedIsAnErrorNamingFileAndField) {
  std::filesystem::path dir =
      scenario_folder("scalewright-csv-missing", "csv: missing.csv", {{"bad.csv", "when,rps\n0s,1\n"}});
  const std::string scenario = (dir / "scenario.yaml").string();
  Result<ManifestSet> missing = load_manifest_file(scenario);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, scenario + " doc 1 Scenario/s: spec.timeline[0].load.csv: CSV file " +
                                         (dir / "missing.csv").string() + ": cannot read: No such file or directory");
  std::ofstream(scenario) << "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"
                             "  timeline:\n  - {at: 1m, load: {kind: Deployment, name: web, csv: bad.csv}}\n";
  Result<ManifestSet> bad = load_manifest_file(scenario);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, scenario + " doc 1 Scenario/s: spec.timeline[0].load.csv: " +
                                     (dir / "bad.csv").string() + ":1: missing column \"after\" in the header");
  std::filesystem::remove_all(dir);
}

// A csv: file is capped as the manifest naming it is, and only a regular file is read: /dev/zero, which has no end,
// is refused unread (it was read until the kernel killed the process).
TEST(Scenario, LoadCsvFileIsCappedAsManifestsAreAndMustBeARegularFile) {
  std::filesystem::path dir = scenario_folder("scalewright-csv-capped", "csv: /dev/zero", {});
  const std::string scenario = (dir / "scenario.yaml").string();
  Result<ManifestSet> device = load_manifest_file(scenario);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.error().message, scenario + " doc 1 Scenario/s: spec.timeline[0].load.csv: CSV file /dev/zero: "
                                               "cannot read: not a regular file");
  // 1,000 rows of "9m,1\n" (5 bytes) after the 24-byte header: 5,024 bytes, over a limit of 4,096 that the
  // scenario file itself (under 200 bytes) is within.
  std::string rows = "after,requestsPerSecond\n";
  for (int i = 0; i < 1000; ++i) rows += "9m,1\n";
  std::ofstream(dir / "big.csv") << rows;
  std::ofstream(scenario) << "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"
                             "  timeline:\n  - {at: 1m, load: {kind: Deployment, name: web, csv: big.csv}}\n";
  Result<ManifestSet> big = load_manifest_file(scenario, ManifestLimits{4096, 1000});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message, scenario + " doc 1 Scenario/s: spec.timeline[0].load.csv: CSV file " +
                                     (dir / "big.csv").string() +
                                     ": 5024 bytes is over the limit of 4096 bytes for a CSV file");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace scalewright::testing
