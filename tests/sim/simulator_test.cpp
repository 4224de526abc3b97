// The simulator end to end on a small catalog with round numbers (tests/provisioning/fixtures.h):
//
//   type       arch   cpu  memory  on-demand  spot      (allocatable == capacity, 110 pods, zones zone-a, zone-b)
//   c.large    amd64   2    4Gi      0.10     0.04
//   c.xlarge   amd64   4    8Gi      0.20     0.08
//   g.xlarge   arm64   4    8Gi      0.16     0.06
//   c.2xlarge  amd64   8   16Gi      0.40     0.16
//   r.2xlarge  amd64   8   64Gi      0.50     0.20
//   m.4xlarge  amd64  16   64Gi      0.80     0.32
//
// Every scenario launches nodes exactly 60 s after the launch call, so times can be worked out by hand.
#include "sim/simulator.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <nlohmann/json.hpp>

#include "cloud/aws/instance_types.h"
#include "run_scenario.h"
#include "manifest/manifest.h"

namespace scalewright::sim {
namespace {

constexpr double kHour = 3600.0;


std::string scenario(const std::string& timeline, const std::string& faults = "", const std::string& duration = "10m",
                     int seed = 1) {
  return "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: test}\nspec:\n  duration: " + duration +
         "\n  seed: " + std::to_string(seed) +
         "\n  cloud:\n    launchLatency: {min: 60s, max: 60s}\n    faults: {" + faults + "}\n  timeline:\n" + timeline;
}

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using testing::deployment;
using testing::messages;
using testing::nodepool;
using testing::run;
using testing::run_on;

const std::string kScaleTo5At10s = "  - {at: 10s, scale: {kind: Deployment, name: inflate, replicas: 5}}\n";
const std::string kScaleTo0At5m = "  - {at: 5m, scale: {kind: Deployment, name: inflate, replicas: 0}}\n";

TEST(Simulator, NodeRepairReplacesANodeThatStoppedReportingOnceTheCloudsTolerationRunsOut) {
  // Five pods at 10 s land on one node, Ready at 71 s. At 5 m its kubelet stops reporting: Ready Unknown, tainted
  // unreachable; the pods are deleted when their 300 s toleration ends (10 m) and come back on a new node. Empty,
  // the failed node is no consolidation candidate and keeps billing. With the NodeRepair gate, the simulated cloud's
  // (AWS's) policy gives it up after Ready has been Unknown for 30 min: deleted at 35 m.
  auto run_with = [](const std::string& gates) {
    return run(nodepool() + deployment("inflate", 0, "1") +
               "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: test}\nspec:\n"
               "  duration: 1h\n  provisioning: {featureGates: {" + gates + "}}\n"
               "  cloud:\n    launchLatency: {min: 60s, max: 60s}\n"
               "    faults: {nodeFailures: [{at: 5m, nodePool: default}]}\n"
               "  timeline:\n" + kScaleTo5At10s);
  };
  SimulationReport repaired = run_with("nodeRepair: true");
  ASSERT_THAT(messages(repaired, "repair"), SizeIs(1));
  EXPECT_THAT(messages(repaired, "repair")[0],
              AllOf(HasSubstr("t=35m0s node default-"),
                    HasSubstr("repaired: its Ready condition has been Unknown for 30m0s")));
  EXPECT_EQ(repaired.summary.nodes_at_end, 1);
  EXPECT_EQ(repaired.summary.pod_wait.pods_pending_at_end, 0u);

  SimulationReport kept = run_with("nodeRepair: false");  // upstream's default
  EXPECT_THAT(messages(kept, "repair"), ::testing::IsEmpty());
  EXPECT_EQ(kept.summary.nodes_at_end, 2);
  // The failed node's 25 minutes after 35 m are what repair saves: c.2xlarge spot at $0.16/h.
  EXPECT_NEAR(kept.summary.total_cost - repaired.summary.total_cost, 25 * 60 / kHour * 0.16, 1e-9);
}

TEST(Simulator, TheCapOnNodesStopsTheRunWhenTheCloudIsAskedForOneMore) {
  // 3 pods x 10 cpu: each needs an m.4xlarge (16 cpu) of its own, 3 launches at 11 s. With a cap of 2 nodes the
  // simulated cloud launches two and refuses the third (as an account's quota would): the run stops there, saying
  // why.
  SimulationLimits limits;
  limits.max_nodes = 2;
  const std::string scale = "  - {at: 10s, scale: {kind: Deployment, name: inflate, replicas: 3}}\n";
  SimulationReport r = run(nodepool() + deployment("inflate", 0, "10") + scenario(scale), 2, {}, nullptr, limits);
  EXPECT_EQ(r.stopped, "the simulation holds at most 2 nodes; more were to be launched");
  EXPECT_EQ(r.summary.launches, 2);
  EXPECT_EQ(r.duration, std::chrono::seconds(11));
}

TEST(Simulator, FivePodsLaunchOneNodeOfTheCheapestFittingTypeAndItGoesAwayWhenEmpty) {
  // 5 pods × 1 cpu need 5 cpu: c.2xlarge (8 cpu) spot at $0.16 is the cheapest type that holds them (r.2xlarge
  // $0.20, m.4xlarge $0.32). The pods are pending at 10 s, the batch closes 1 s later (idle), the node is Ready
  // 60 s after that: each pod waits 71 - 10 = 61 s. At 5 m the Deployment goes to 0; the empty node is removed
  // 30 s later. Cost: (330 - 11) s at $0.16/h.
  SimulationReport r = run(nodepool() + deployment("inflate", 0, "1") + scenario(kScaleTo5At10s + kScaleTo0At5m));
  ASSERT_EQ(r.summary.cost_lines.size(), 1u);
  const CostLine& line = r.summary.cost_lines[0];
  EXPECT_EQ(line.instance_type, "c.2xlarge");
  EXPECT_EQ(line.capacity_type, "spot");
  EXPECT_EQ(line.nodes, 1);
  EXPECT_NEAR(line.node_hours, 319 / kHour, 1e-9);
  EXPECT_NEAR(r.summary.total_cost, 319 / kHour * 0.16, 1e-9);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 5u);
  EXPECT_EQ(r.summary.pod_wait.p50, Duration(61'000));
  EXPECT_EQ(r.summary.pod_wait.max, Duration(61'000));
  EXPECT_EQ(r.summary.nodes_at_end, 0);
  ASSERT_EQ(messages(r, "launch").size(), 1u);
  EXPECT_EQ(messages(r, "launch")[0].substr(0, 6), "t=11s ");
  EXPECT_NE(messages(r, "launch")[0].find("c.2xlarge zone-a spot $0.1600/h for 5 pods"), std::string::npos);
  ASSERT_EQ(messages(r, "removed").size(), 1u);
  EXPECT_NE(messages(r, "removed")[0].find("t=5m30s node default-"), std::string::npos);
  EXPECT_NE(messages(r, "removed")[0].find("empty, removed after 30s"), std::string::npos);
}

TEST(Simulator, SpotShortageFallsBackToOnDemandAfterTryingEverySpotOfferingThatFits) {
  // Types that hold 5 cpu on amd64: c.2xlarge, r.2xlarge, m.4xlarge, each in two zones: six spot offerings, each
  // answering insufficient capacity once; then the cheapest on-demand offering, c.2xlarge at $0.40 in zone-a.
  SimulationReport r = run(nodepool() + deployment("inflate", 0, "1") +
                           scenario(kScaleTo5At10s, "insufficientCapacity: [{at: 0s, duration: 1h, capacityType: spot}]"));
  EXPECT_EQ(r.summary.insufficient_capacity_errors, 6);
  EXPECT_EQ(r.summary.launches, 1);
  ASSERT_EQ(r.summary.cost_lines.size(), 1u);
  EXPECT_EQ(r.summary.cost_lines[0].instance_type, "c.2xlarge");
  EXPECT_EQ(r.summary.cost_lines[0].capacity_type, "on-demand");
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 5u);
}

TEST(Simulator, NodePoolLimitsHoldUnderABurstOfAThousandPods) {
  // limits cpu 16: the first NodeClaim takes 16 one-cpu pods on m.4xlarge (the only type with 16 cpu); every
  // further claim would exceed the limit, so 984 pods stay pending and nothing else launches.
  SimulationReport r =
      run(nodepool("  limits: {cpu: 16}") + deployment("burst", 0, "1") +
          scenario("  - {at: 10s, scale: {kind: Deployment, name: burst, replicas: 1000}}\n"));
  EXPECT_EQ(r.summary.launches, 1);
  EXPECT_EQ(r.summary.peak_nodes, 1);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 16u);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 984u);
  ASSERT_EQ(r.summary.cost_lines.size(), 1u);
  EXPECT_EQ(r.summary.cost_lines[0].instance_type, "m.4xlarge");
}

TEST(Simulator, ALimitOnNodesStopsTheNodePoolAtThatManyNodes) {
  // limits.nodes 2, pods that will not share a node (required anti-affinity on the hostname). One replica at 10 s
  // launches one node; three at 3 m launch one more (the second node of two) and leave the third pending.
  const std::string anti_affinity =
      "      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: "
      "{matchLabels: {app: web}}, topologyKey: kubernetes.io/hostname}]}}\n";
  SimulationReport r = run(nodepool("  limits: {nodes: 2}") + deployment("web", 0, "1", "1Gi", anti_affinity) +
                           scenario("  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 1}}\n"
                                    "  - {at: 3m, scale: {kind: Deployment, name: web, replicas: 3}}\n"));
  EXPECT_EQ(r.summary.launches, 2);
  EXPECT_EQ(r.summary.peak_nodes, 2);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 2u);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 1u);
  const std::vector<std::string> unschedulable = messages(r, "unschedulable");
  ASSERT_FALSE(unschedulable.empty());
  EXPECT_NE(unschedulable.back().find("nodepool \"default\": limits exceeded (nodes)"), std::string::npos)
      << unschedulable.back();
}

TEST(Simulator, AV1beta1NodePoolsDisruptionExpireAfterExpiresItsNodes) {
  // karpenter.sh/v1beta1 kept expireAfter under spec.disruption. The node launched at 11 s expires 5 m later,
  // at 5m11s; its pod is replaced on a new node.
  const std::string v1beta1 = R"(
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s, expireAfter: 5m}
---
)";
  SimulationReport r = run(v1beta1 + deployment("inflate", 0, "1") +
                           scenario("  - {at: 10s, scale: {kind: Deployment, name: inflate, replicas: 1}}\n"));
  const std::vector<std::string> expired = messages(r, "expired");
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0].rfind("t=5m11s node default-", 0), 0u) << expired[0];
  EXPECT_NE(expired[0].find("its NodePool's expireAfter is 5m0s"), std::string::npos) << expired[0];
}

// A StatefulSet "db" of pods that will not share a node, with the given podManagementPolicy line.
std::string statefulset(const std::string& policy) {
  return R"(
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 0
)" + policy + R"(
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      terminationGracePeriodSeconds: 10
      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [
        {labelSelector: {matchLabels: {app: db}}, topologyKey: kubernetes.io/hostname}]}}
      containers:
      - {name: db, image: postgres, resources: {requests: {cpu: "1", memory: 1Gi}}}
---
)";
}

// When each pod of `r` was created, by name.
std::map<std::string, Instant> created_at(const SimulationReport& r) {
  std::map<std::string, Instant> out;
  for (const PodOutcome& p : r.pods) out[p.pod] = p.created;
  return out;
}

TEST(Simulator, AnOrderedReadyStatefulSetMakesEachPodOnceTheOneBeforeRunsAndRemovesThemHighestFirst) {
  // Each pod needs a node of its own. Scaled 0 -> 3 at 10 s: db-0 is made then, its node launched at 11 s and
  // Ready at 71 s; only then is db-1 made (node at 72 s, Ready 132 s), then db-2 (node 133 s, Ready 193 s).
  // Scaled 3 -> 1 at 5 m: db-2 is deleted and stops 10 s later (its grace period), then db-1 goes, 5m10s to
  // 5m20s; their empty nodes are removed 30 s after each: 5m40s, 5m50s.
  const std::string timeline = "  - {at: 10s, scale: {kind: StatefulSet, name: db, replicas: 3}}\n"
                               "  - {at: 5m, scale: {kind: StatefulSet, name: db, replicas: 1}}\n";
  SimulationReport ordered = run(nodepool() + statefulset("") + scenario(timeline));
  std::map<std::string, Instant> created = created_at(ordered);
  EXPECT_EQ(created["default/db-0"], Instant(Duration(10'000)));
  EXPECT_EQ(created["default/db-1"], Instant(Duration(71'000)));
  EXPECT_EQ(created["default/db-2"], Instant(Duration(132'000)));
  EXPECT_THAT(messages(ordered, "launch"), ElementsAre(HasSubstr("t=11s "), HasSubstr("t=1m12s "),
                                                       HasSubstr("t=2m13s ")));
  EXPECT_THAT(messages(ordered, "removed"), ElementsAre(AllOf(HasSubstr("t=5m40s "), HasSubstr("after 30s")),
                                                        AllOf(HasSubstr("t=5m50s "), HasSubstr("after 30s"))));

  // Parallel: the three pods at once, three nodes launched together; both pods deleted at 5 m, at once, so both
  // nodes are empty from 5 m (the budget, 10% of 3 nodes, lets one go at a time: the second at the next pass).
  SimulationReport parallel =
      run(nodepool() + statefulset("  podManagementPolicy: Parallel") + scenario(timeline));
  created = created_at(parallel);
  EXPECT_EQ(created["default/db-0"], Instant(Duration(10'000)));
  EXPECT_EQ(created["default/db-2"], Instant(Duration(10'000)));
  EXPECT_THAT(messages(parallel, "launch"),
              ElementsAre(HasSubstr("t=11s "), HasSubstr("t=11s "), HasSubstr("t=11s ")));
  EXPECT_THAT(messages(parallel, "removed"), ElementsAre(AllOf(HasSubstr("t=5m30s "), HasSubstr("after 30s")),
                                                         AllOf(HasSubstr("t=5m40s "), HasSubstr("after 40s"))));
}

TEST(Simulator, AStaticNodePoolKeepsItsReplicasWithinLimitsNodesAndIsNeverConsolidated) {
  // replicas 3, no pod at all: three nodes of the cheapest type the NodePool allows (c.large spot, $0.04) launch at
  // 0 s, and stay though empty (consolidateAfter 30s is ignored). Scaled to 5 at 5 m: limits.nodes 4 leaves room
  // for one more. Scaled to 1 at 10 m: three of the four go at once (empty).
  SimulationReport r = run(nodepool("  replicas: 3\n  limits: {nodes: 4}") +
                           scenario("  - {at: 5m, scale: {kind: NodePool, name: default, replicas: 5}}\n"
                                    "  - {at: 10m, scale: {kind: NodePool, name: default, replicas: 1}}\n",
                                    "", "15m"));
  const std::vector<std::string> launches = messages(r, "launch");
  ASSERT_EQ(launches.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(launches[static_cast<std::size_t>(i)].rfind("t=0s ", 0), 0u) << launches[static_cast<std::size_t>(i)];
    EXPECT_NE(launches[static_cast<std::size_t>(i)].find("c.large zone-a spot $0.0400/h for static NodePool default (" +
                                                         std::to_string(i + 1) + " of 3 replicas)"),
              std::string::npos)
        << launches[static_cast<std::size_t>(i)];
  }
  EXPECT_NE(launches[3].find("t=5m0s "), std::string::npos) << launches[3];
  EXPECT_NE(launches[3].find("(4 of 5 replicas)"), std::string::npos) << launches[3];
  EXPECT_THAT(messages(r, "static-limit"),
              ElementsAre("t=5m0s static NodePool default: its limits.nodes of 4 keeps it below its 5 replicas"));
  EXPECT_THAT(messages(r, "static-scale-down"), ElementsAre(HasSubstr("t=10m0s "), HasSubstr("t=10m0s "),
                                                            HasSubstr("t=10m0s ")));
  EXPECT_THAT(messages(r, "removed"), ::testing::IsEmpty());  // never consolidated
  EXPECT_EQ(r.summary.peak_nodes, 4);
  EXPECT_EQ(r.summary.nodes_at_end, 1);
}

TEST(Simulator, AStaticNodePoolsDriftedNodesAreReplacedOneForOneFromItsTemplate) {
  // replicas 2; at 2 m the template gains a label: both nodes drift. The budget (10% of 2, rounded up: 1) takes one
  // at a time, oldest first: its replacement launches, is Ready 60 s later, and the drifted node is then drained.
  const std::string applied = R"(  - at: 2m
    apply:
    - apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: default}
      spec:
        replicas: 2
        template:
          metadata: {labels: {team: web}}
          spec:
            requirements:
            - {key: kubernetes.io/arch, operator: In, values: [amd64]}
)";
  SimulationReport r = run(nodepool("  replicas: 2") + scenario(applied, "", "10m"));
  EXPECT_EQ(messages(r, "drift").size(), 2u);
  EXPECT_EQ(r.summary.launches, 4);
  EXPECT_EQ(r.summary.peak_nodes, 3);  // never more than one replacement beside the two
  EXPECT_EQ(r.summary.nodes_at_end, 2);
}

TEST(Simulator, PodsRunOnAStaticNodePoolsNodesButNeverMakeItLaunch) {
  // Two c.large nodes (2 cpu each) of a static NodePool, the only NodePool: of five 1-cpu pods at 2 m, four fill
  // them and the fifth waits, since a static NodePool launches only its replicas.
  SimulationReport r = run(nodepool("  replicas: 2", "      - {key: node.kubernetes.io/instance-type, operator: In, "
                                                     "values: [c.large]}\n") +
                           deployment("web", 0, "1") +
                           scenario("  - {at: 2m, scale: {kind: Deployment, name: web, replicas: 5}}\n"));
  EXPECT_EQ(r.summary.launches, 2);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 4u);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 1u);
}

// Two types with their hardware, priced on demand only (spot at the same price): what an EC2NodeClass shapes.
//   m5.large   2 vCPU  8 GiB  29 pods  $0.096   default allocatable 1930m, 6903Mi, 29 pods, 17Gi ephemeral
//   m5.xlarge  4 vCPU 16 GiB  58 pods  $0.192
cloud::Catalog two_aws_types() {
  auto hw = [](std::int64_t vcpu, std::int64_t memory_mib, std::int64_t pods) {
    cloud::InstanceHardware h;
    h.vcpu = vcpu;
    h.memory_mib = memory_mib;
    h.max_pods = pods;
    return h;
  };
  const std::vector<cloud::Zone> zones{{"zone-a", "az1"}};
  std::vector<cloud::InstanceType> types{cloud::aws::make_instance_type("m5.large", hw(2, 8192, 29)),
                                         cloud::aws::make_instance_type("m5.xlarge", hw(4, 16384, 58))};
  cloud::aws::add_offerings(types[0], zones, 0.096, 0.096);
  cloud::aws::add_offerings(types[1], zones, 0.192, 0.192);
  return cloud::Catalog::from_instance_types("test-region", zones, std::move(types));
}

// EC2NodeClass "default", AL2023, with `extra` in its spec.
std::string ec2nodeclass(const std::string& extra = "") {
  return R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-demo
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
)" + extra + "---\n";
}

const std::string kNamesDefaultClass =
    "      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}\n";

TEST(Simulator, ANodePoolWhoseEC2NodeClassIsMissingIsNotReadyUntilItComes) {
  // The files hold EC2NodeClass "gpu", and the NodePool names "default", which comes only with the apply step at 2 m:
  // until then the NodePool is not Ready and launches nothing, and the pods say why; then one m5.large holds the pod.
  std::string other = ec2nodeclass();
  other.replace(other.find("{name: default}"), 15, "{name: gpu}");
  const std::string apply = R"(  - at: 2m
    apply:
    - apiVersion: karpenter.k8s.aws/v1
      kind: EC2NodeClass
      metadata: {name: default}
      spec:
        role: KarpenterNodeRole-demo
        amiSelectorTerms: [{alias: al2023@latest}]
        subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
        securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
)";
  SimulationReport r = run_on(two_aws_types(), other + nodepool("", kNamesDefaultClass) + deployment("web", 1, "1") +
                                                   scenario(apply));
  EXPECT_THAT(messages(r, "nodepool-not-ready"),
              ElementsAre("t=0s NodePool default is not ready: NodeClassNotFound, EC2NodeClass \"default\" not "
                          "found; it launches nothing"));
  const std::vector<std::string> unschedulable = messages(r, "unschedulable");
  ASSERT_FALSE(unschedulable.empty());
  EXPECT_NE(unschedulable[0].find("nodepool \"default\": not ready: NodeClassNotFound"), std::string::npos)
      << unschedulable[0];
  EXPECT_THAT(messages(r, "nodepool-ready"), ElementsAre(HasSubstr("t=2m0s NodePool default is ready")));
  EXPECT_THAT(messages(r, "launch"), ElementsAre(HasSubstr("m5.large")));
  EXPECT_EQ(r.summary.launches, 1);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 1u);
}

TEST(Simulator, NodePoolsWithoutAnyEC2NodeClassTakeTheGettingStartedOne) {
  // Files of a NodePool alone, as a NodePool is often tried: its EC2NodeClass "default" is taken to be Karpenter's
  // getting-started one, said once, and the pod launches an m5.large at once.
  SimulationReport r = run_on(two_aws_types(), nodepool("", kNamesDefaultClass) + deployment("web", 1, "1") +
                                                   scenario(""));
  EXPECT_THAT(messages(r, "catalog"),
              ElementsAre("t=0s NodePool default names EC2NodeClass default, which the files do not hold: its nodes "
                          "take the getting-started EC2NodeClass's shape (AL2023, 20 GiB root volume, Karpenter's "
                          "kubelet defaults)"));
  EXPECT_THAT(messages(r, "nodepool-not-ready"), ::testing::IsEmpty());
  EXPECT_THAT(messages(r, "launch"), ElementsAre(HasSubstr("m5.large")));
}

TEST(Simulator, AnEC2NodeClassesKubeletAndRootVolumeShapeTheNodesLaunched) {
  const std::string pools = nodepool("", kNamesDefaultClass);
  // Five 100m pods: one m5.large (29 pods) holds them; with maxPods 2 each node takes two: three m5.large.
  const std::string five = deployment("web", 5, "100m", "128Mi") + scenario("");
  EXPECT_EQ(run_on(two_aws_types(), ec2nodeclass() + pools + five).summary.launches, 1);
  EXPECT_EQ(run_on(two_aws_types(), ec2nodeclass("  kubelet: {maxPods: 2}\n") + pools + five).summary.launches, 3);
  // A pod asking 30Gi of ephemeral storage fits no node of a 20Gi root volume (17Gi allocatable), and an m5.large
  // of a 100Gi one (89Gi).
  const std::string storage =
      "apiVersion: v1\nkind: Pod\nmetadata: {name: scratch, namespace: default}\nspec:\n  containers:\n"
      "  - {name: c, image: busybox, resources: {requests: {cpu: 100m, ephemeral-storage: 30Gi}}}\n---\n" +
      scenario("");
  SimulationReport small = run_on(two_aws_types(), ec2nodeclass() + pools + storage);
  EXPECT_EQ(small.summary.launches, 0);
  EXPECT_EQ(small.summary.pod_wait.pods_pending_at_end, 1u);
  SimulationReport large = run_on(two_aws_types(), ec2nodeclass("  blockDeviceMappings:\n"
                                                                "  - {deviceName: /dev/xvda, rootVolume: true, "
                                                                "ebs: {volumeSize: 100Gi}}\n") +
                                                       pools + storage);
  EXPECT_EQ(large.summary.launches, 1);
  EXPECT_THAT(messages(large, "launch"), ElementsAre(HasSubstr("m5.large")));
  EXPECT_EQ(large.summary.pod_wait.pods_bound, 1u);
}

TEST(Simulator, DaemonSetRequestsCountOnEveryNewNode) {
  // 3 pods × 1 cpu fit c.xlarge (4 cpu, spot $0.08) alone; with a 1500m DaemonSet pod on the node they need
  // 4.5 cpu, so the next type up, c.2xlarge, is launched.
  const std::string daemonset = R"(
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - {name: agent, image: agent, resources: {requests: {cpu: 1500m, memory: 100Mi}}}
---
)";
  const std::string timeline = "  - {at: 10s, scale: {kind: Deployment, name: web, replicas: 3}}\n";
  SimulationReport alone = run(nodepool() + deployment("web", 0, "1") + scenario(timeline));
  SimulationReport with_daemon = run(nodepool() + daemonset + deployment("web", 0, "1") + scenario(timeline));
  ASSERT_EQ(alone.summary.cost_lines.size(), 1u);
  EXPECT_EQ(alone.summary.cost_lines[0].instance_type, "c.xlarge");
  ASSERT_EQ(with_daemon.summary.cost_lines.size(), 1u);
  EXPECT_EQ(with_daemon.summary.cost_lines[0].instance_type, "c.2xlarge");
  EXPECT_EQ(with_daemon.summary.pod_wait.pods_bound, 3u);  // daemon pods are not counted as waiting pods
}

TEST(Simulator, APodNoTypeCanHoldLaunchesNothingAndSaysWhy) {
  SimulationReport r = run(nodepool() + deployment("huge", 0, "32") +
                           scenario("  - {at: 10s, scale: {kind: Deployment, name: huge, replicas: 1}}\n"));
  EXPECT_EQ(r.summary.launches, 0);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 1u);
  ASSERT_EQ(messages(r, "unschedulable").size(), 1u);  // said once, not at every batch
  EXPECT_NE(messages(r, "unschedulable")[0].find("cannot be provisioned"), std::string::npos);
}

TEST(Simulator, APodDisplacedFromItsPlannedNodeGetsCapacityAtTheNextBatch) {
  // Only c.large (2 cpu, spot $0.04) and c.xlarge (4 cpu, spot $0.08). At 10 s `b-big` (3 cpu) is planned onto a
  // c.xlarge launched at 11 s. At 30 s two 1-cpu pods of higher priority (1000) come: one fits the in-flight c.xlarge
  // beside `b-big` (planned there), the other gets a c.large launched at 31 s. At 71 s the c.xlarge is Ready and
  // kube-scheduler takes its queue in priority order: both 1-cpu pods bind there, leaving 2 cpu, and `b-big` no
  // longer fits. Its nomination ends with the node Ready: the batch closing at 72 s finds it fits neither Ready
  // node nor the c.large in flight (2 cpu), and launches a c.xlarge, Ready at 132 s: `b-big` waits 122 s. (It
  // used to stay nominated to the Ready node and pending to the end.)
  SimulationReport r =
      run(nodepool("", "      - {key: node.kubernetes.io/instance-type, operator: In, values: [c.large, c.xlarge]}\n") +
          deployment("a-small", 0, "1", "1Gi", "      priority: 1000\n") + deployment("b-big", 0, "3") +
          scenario("  - {at: 10s, scale: {kind: Deployment, name: b-big, replicas: 1}}\n"
                   "  - {at: 30s, scale: {kind: Deployment, name: a-small, replicas: 2}}\n"));
  const std::vector<std::string> launches = messages(r, "launch");
  ASSERT_EQ(launches.size(), 3u);
  EXPECT_NE(launches[0].find("t=11s NodeClaim"), std::string::npos);
  EXPECT_NE(launches[0].find("c.xlarge zone-a spot $0.0800/h for 1 pod"), std::string::npos);
  EXPECT_NE(launches[1].find("t=31s NodeClaim"), std::string::npos);
  EXPECT_NE(launches[1].find("c.large zone-a spot $0.0400/h for 1 pod"), std::string::npos);
  EXPECT_NE(launches[2].find("t=1m12s NodeClaim"), std::string::npos);
  EXPECT_NE(launches[2].find("c.xlarge zone-a spot $0.0800/h for 1 pod"), std::string::npos);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 3u);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
  EXPECT_EQ(r.summary.pod_wait.max, Duration(122'000));
}

TEST(Simulator, SameSeedSameReportAndTheSeedDrawsLaunchLatency) {
  const std::string text = nodepool() + deployment("inflate", 0, "1");
  auto with_seed = [&](int seed) {
    std::string s = scenario(kScaleTo5At10s, "", "10m", seed);
    std::string::size_type at = s.find("{min: 60s, max: 60s}");
    s.replace(at, 20, "{min: 45s, max: 75s}");
    return run(text + s);
  };
  EXPECT_EQ(to_json(with_seed(7)).dump(), to_json(with_seed(7)).dump());
  // Seeds 7 and 8 draw different boot times within [45 s, 75 s], hence different waits.
  SimulationReport a = with_seed(7), b = with_seed(8);
  EXPECT_NE(a.summary.pod_wait.max, b.summary.pod_wait.max);
  for (const SimulationReport* r : {&a, &b}) {
    EXPECT_GE(r->summary.pod_wait.max, Duration(1'000 + 45'000));  // batch 1 s + boot
    EXPECT_LE(r->summary.pod_wait.max, Duration(1'000 + 75'000));
  }
}

TEST(Simulator, SpotInterruptionDrainsTheNodeAndLaunchesItsReplacementAtOnce) {
  // The node launched at 11 s is Ready at 71 s. At 3 m it gets the two-minute notice: in that instant a
  // replacement is launched for its 5 pods (Ready at 4 m) and the pods are evicted; their replacements are nominated
  // to the new NodeClaim and bind at 4 m, a wait of 60 s. The old node goes once its pods have run out their 30 s
  // grace period, at 3m30s, before the cloud would reclaim it at 5 m.
  SimulationReport r = run(nodepool() + deployment("inflate", 0, "1") +
                           scenario(kScaleTo5At10s, "spotInterruptions: [{at: 3m, count: 1}]"));
  EXPECT_EQ(r.summary.spot_interruptions, 1);
  EXPECT_EQ(r.summary.launches, 2);
  EXPECT_EQ(r.summary.evictions, 5);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 10u);  // 5 first, 5 replacements
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
  EXPECT_EQ(r.summary.nodes_at_end, 1);
  const std::vector<std::string> launched = messages(r, "launch");
  ASSERT_EQ(launched.size(), 2u);
  EXPECT_TRUE(launched[1].starts_with("t=3m0s NodeClaim ")) << launched[1];
  EXPECT_NE(launched[1].find("for the pods of interrupted node"), std::string::npos) << launched[1];
  const std::vector<std::string> bound = messages(r, "bound");
  ASSERT_EQ(bound.size(), 2u);
  EXPECT_TRUE(bound[1].starts_with("t=4m0s 5 pods bound")) << bound[1];
  ASSERT_EQ(messages(r, "scale-down").size(), 1u);
  EXPECT_TRUE(messages(r, "scale-down")[0].starts_with("t=3m30s drained node ")) << messages(r, "scale-down")[0];
  EXPECT_TRUE(messages(r, "reclaimed").empty());
}

// A c.2xlarge node (8 cpu) that came with the manifests, in zone-a.
const std::string kStaticNode = R"(
apiVersion: v1
kind: Node
metadata:
  name: static-1
  labels: {node.kubernetes.io/instance-type: c.2xlarge, topology.kubernetes.io/zone: zone-a, kubernetes.io/arch: amd64}
status:
  capacity: {cpu: "8", memory: 16Gi, pods: "110"}
---
)";

TEST(Simulator, ExistingNodesTakePodsFirstAndAreBilledAtTheirOnDemandPrice) {
  // A c.2xlarge node (8 cpu) that came with the manifests takes all 5 pods the moment they exist: nothing is
  // launched and nobody waits. It is billed on-demand in its zone, $0.40/h, for the whole 10 minutes.
  SimulationReport r = run(kStaticNode + nodepool() + deployment("inflate", 0, "1") + scenario(kScaleTo5At10s));
  EXPECT_EQ(r.summary.launches, 0);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 5u);
  EXPECT_EQ(r.summary.pod_wait.max, Duration(0));
  ASSERT_EQ(r.summary.cost_lines.size(), 1u);
  EXPECT_EQ(r.summary.cost_lines[0].nodepool, "");
  EXPECT_EQ(r.summary.cost_lines[0].capacity_type, "on-demand");
  EXPECT_NEAR(r.summary.total_cost, 0.40 * 10 / 60, 1e-9);
}

TEST(Simulator, SummaryCountsEveryRowsNodesOneWayAndTheTotalIsTheirSum) {
  // The static c.2xlarge (8 cpu) takes 8 of 13 one-cpu pods; the other 5 get one c.2xlarge spot NodeClaim. Each row
  // counts the nodes that ran in it (1 and 1), and the total row their sum, 2, though only 1 was launched (the
  // total used to print the launches: 1). Hours: the static node 600 s at $0.40/h = $0.0667, the NodeClaim from its
  // launch at 11 s, 589 s at $0.16/h = $0.0262; together 0.33 h and $0.0928.
  SimulationReport r = run(kStaticNode + nodepool() + deployment("inflate", 0, "1") +
                           scenario("  - {at: 10s, scale: {kind: Deployment, name: inflate, replicas: 13}}\n"));
  EXPECT_EQ(r.summary.launches, 1);
  std::ostringstream out;
  print_summary(r, out);
  const std::string text = out.str();
  EXPECT_NE(text.find("NODEPOOL         INSTANCE TYPE        CAPACITY   NODES RUN  NODE-HOURS       COST\n"
                      "(static)         c.2xlarge            on-demand          1        0.17    $0.0667\n"
                      "default          c.2xlarge            spot               1        0.16    $0.0262\n"
                      "total                                                    2        0.33    $0.0928\n"),
            std::string::npos)
      << text;
}

TEST(Simulator, TimelineAppliesDeletesAndCordons) {
  // 1 m: a Deployment of 3 one-cpu pods is applied (batch closes at 1m1s, c.xlarge Ready at 2m1s);
  // 3 m: its node is cordoned, then the Deployment is deleted at 4 m: the node is empty and goes at 4m30s.
  const std::string apply = R"(  - at: 1m
    apply:
    - apiVersion: apps/v1
      kind: Deployment
      metadata: {name: late, namespace: default}
      spec:
        replicas: 3
        selector: {matchLabels: {app: late}}
        template:
          metadata: {labels: {app: late}}
          spec:
            containers: [{name: c, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
  - {at: 4m, delete: {kind: Deployment, name: late, namespace: default}}
)";
  SimulationReport first = run(nodepool() + scenario(apply));
  ASSERT_EQ(messages(first, "launch").size(), 1u);
  const std::string launch = messages(first, "launch")[0];
  EXPECT_EQ(launch.substr(0, 9), "t=1m1s No") << launch;
  const std::string node = launch.substr(launch.find("default-"), 13);  // default-xxxxx
  SimulationReport r =
      run(nodepool() + scenario(apply + "  - {at: 3m, cordon: {node: " + node + "}}\n"));
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 3u);
  EXPECT_EQ(r.summary.pod_wait.max, Duration(61'000));
  ASSERT_EQ(messages(r, "cordon").size(), 1u);
  EXPECT_EQ(messages(r, "cordon")[0], "t=3m0s cordon node " + node);
  ASSERT_EQ(messages(r, "removed").size(), 1u);
  EXPECT_EQ(messages(r, "removed")[0].substr(0, 8), "t=4m30s ");
  EXPECT_EQ(r.summary.nodes_at_end, 0);
}

TEST(Simulator, ANodeThatNeverBecomesReadyIsReplacedAfterTheRegistrationTimeout) {
  // Every launch hangs (neverReadyRate 1). The claim launched at 11 s is given up at 15m11s (15 minutes), its
  // pods go back to pending, and the next batch (closing 1 s later) launches a second claim, which hangs too.
  SimulationReport r = run(nodepool() + deployment("inflate", 0, "1") +
                           scenario(kScaleTo5At10s, "neverReadyRate: 1", "20m"));
  EXPECT_EQ(r.summary.launches, 2);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 0u);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 5u);
  ASSERT_EQ(messages(r, "registration-timeout").size(), 1u);
  EXPECT_EQ(messages(r, "registration-timeout")[0].substr(0, 10), "t=15m11s N");
  std::vector<std::string> launches = messages(r, "launch");
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[1].substr(0, 9), "t=15m12s ");
}

}  // namespace
}  // namespace scalewright::sim
