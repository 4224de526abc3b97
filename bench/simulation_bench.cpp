// The simulator at scale (issue: "a 24-hour simulation of a 1,000-node cluster with hourly load swings: target
// under 10 s"), on the real us-east-1 catalog from data/aws.
//
// One NodePool (WhenEmpty after 30 s) limited to 8-vcpu/32-GiB general-purpose types (m, generation > 4,
// 2xlarge, amd64; spot or on-demand), so that the node count follows the load predictably; a DaemonSet of
// 100m/128Mi on every node; and 10 Deployments whose replicas swing every hour between kLow and kHigh (all
// together: low for even hours, high for odd ones). Requests are 500m–1250m cpu and 1–3 GiB memory, so nodes
// are cpu-bound at 6–15 pods; kHigh is chosen so that the peak is about 1,000 nodes (reported as peak_nodes).
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"
#include "ec2nodeclass.h"
#include "manifest/manifest.h"
#include "process_memory.h"
#include "sim/simulator.h"

namespace scalewright::bench {
namespace {

constexpr int kDeployments = 10;
constexpr int kHours = 24;
constexpr int kLow = 177;   // replicas per Deployment in even hours (a fifth of kHigh)
constexpr int kHigh = 885;  // in odd hours: about 1,000 nodes

const std::string kNodePool = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [m]}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}
      - {key: karpenter.k8s.aws/instance-size, operator: In, values: [2xlarge]}
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s}
---
)" + kEc2NodeClass + R"(apiVersion: apps/v1
kind: DaemonSet
metadata: {name: node-agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: node-agent}}
  template:
    metadata: {labels: {app: node-agent}}
    spec:
      containers:
      - {name: agent, image: agent, resources: {requests: {cpu: 100m, memory: 128Mi}}}
---
)";

std::string deployment(int k) {
  const std::string name = "web-" + std::to_string(k);
  const std::string cpu = std::to_string(250 * (k % 4 + 2)) + "m";  // 500m, 750m, 1000m, 1250m
  const std::string memory = std::to_string(k % 3 + 1) + "Gi";       // 1, 2, 3 GiB
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: default}\nspec:\n"
         "  replicas: " + std::to_string(kLow) + "\n  selector: {matchLabels: {app: " + name + "}}\n"
         "  template:\n    metadata: {labels: {app: " + name + "}}\n    spec:\n      containers:\n"
         "      - {name: main, image: app, resources: {requests: {cpu: " + cpu + ", memory: " + memory + "}}}\n---\n";
}

std::string scenario() {
  std::string text =
      "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: swing-24h}\nspec:\n"
      "  duration: " + std::to_string(kHours) + "h\n  seed: 7\n"
      "  cloud: {region: us-east-1, launchLatency: {min: 45s, max: 75s}}\n  timeline:\n";
  for (int hour = 1; hour < kHours; ++hour) {
    const int replicas = hour % 2 == 1 ? kHigh : kLow;
    for (int k = 0; k < kDeployments; ++k) {
      text += "  - {at: " + std::to_string(hour) + "h, scale: {kind: Deployment, name: web-" + std::to_string(k) +
              ", replicas: " + std::to_string(replicas) + "}}\n";
    }
  }
  return text;
}

// The scenario in `text` (its manifests and one Scenario) as the simulator's input.
sim::SimulationInput simulation_input(const std::string& text, const cloud::Catalog& catalog, bool object_records) {
  Result<ManifestSet> objects = decode_manifests(text, "simulation_bench");
  if (!objects) {
    std::cerr << objects.error().message << "\n";
    std::exit(1);
  }
  ManifestSet set = std::move(objects).value();
  Scenario s = set.scenarios.at(0);
  set.scenarios.clear();
  return {std::move(s), std::move(set), catalog, {}, nullptr, {}, object_records};
}

sim::SimulationInput swing_input(const cloud::Catalog& catalog) {
  std::string text = kNodePool;
  for (int k = 0; k < kDeployments; ++k) text += deployment(k);
  text += scenario();
  return simulation_input(text, catalog, /*object_records=*/true);
}

void BM_Simulate24Hours_1000Nodes(benchmark::State& state) {
  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(std::string(SCALEWRIGHT_SOURCE_DIR) + "/data/aws");
  if (!catalog) {
    state.SkipWithError(catalog.error().message.c_str());
    return;
  }
  reset_peak_rss();
  sim::SimulationReport report;
  for (auto _ : state) {
    state.PauseTiming();
    sim::SimulationInput input = swing_input(*catalog);
    state.ResumeTiming();
    sim::SimulationReport fresh = sim::simulate(std::move(input));
    benchmark::DoNotOptimize(fresh);
    state.PauseTiming();
    report = std::move(fresh);
    state.ResumeTiming();
  }
  const sim::Summary& s = report.summary;
  state.counters["peak_nodes"] = s.peak_nodes;
  state.counters["launches"] = s.launches;
  state.counters["pods_bound"] = static_cast<double>(s.pod_wait.pods_bound);
  state.counters["pods_pending_at_end"] = static_cast<double>(s.pod_wait.pods_pending_at_end);
  state.counters["peak_pods"] = kDeployments * kHigh;
  state.counters["simulated_hours"] = static_cast<double>(report.duration.count()) / 3'600'000.0;
  state.counters["timeline_entries"] = static_cast<double>(report.timeline.size());
  state.counters["p99_wait_s"] = static_cast<double>(s.pod_wait.p99.count()) / 1000.0;
  state.counters["cost_usd"] = s.total_cost;
  state.counters["peak_rss_MiB"] = peak_rss_since_reset_mib();
}
BENCHMARK(BM_Simulate24Hours_1000Nodes)->Unit(benchmark::kSecond)->Iterations(1);

// Issue [5]'s scaling run: one Deployment of N replicas (100m cpu, 128Mi each) under one NodePool (the inflate
// demo's, limit raised out of the way), all created at t=0, over one simulated hour. The simulator's cost must grow
// linearly (or n log n) with the pods: 1,000,000 replicas in under 30 s and 2 GiB. `scalewright simulate` of the
// same scenario without --output keeps no per-pod record either.
sim::SimulationInput one_deployment_input(const cloud::Catalog& catalog, std::int64_t replicas) {
  const std::string text = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: kubernetes.io/os, operator: In, values: [linux]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"]}
  limits: {cpu: 10000000}
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s}
---
)" + kEc2NodeClass + R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: )" + std::to_string(replicas) + R"(
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: c, image: pause, resources: {requests: {cpu: 100m, memory: 128Mi}}}
---
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: one-deployment}
spec: {duration: 1h, seed: 1}
)";
  return simulation_input(text, catalog, /*object_records=*/false);
}

void BM_OneDeploymentOneHour(benchmark::State& state) {
  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(std::string(SCALEWRIGHT_SOURCE_DIR) + "/data/aws");
  if (!catalog) {
    state.SkipWithError(catalog.error().message.c_str());
    return;
  }
  sim::Summary summary;
  double peak_mib = 0;
  for (auto _ : state) {
    state.PauseTiming();
    sim::SimulationInput input = one_deployment_input(*catalog, state.range(0));
    malloc_trim(0);
    reset_peak_rss();
    const double before_mib = current_rss_mib();
    state.ResumeTiming();
    sim::SimulationReport report = sim::simulate(std::move(input));
    state.PauseTiming();
    summary = report.summary;
    peak_mib = peak_rss_since_reset_mib();
    state.counters["rss_before_MiB"] = before_mib;
    state.ResumeTiming();
  }
  state.counters["pods_bound"] = static_cast<double>(summary.pod_wait.pods_bound);
  state.counters["pods_pending_at_end"] = static_cast<double>(summary.pod_wait.pods_pending_at_end);
  state.counters["peak_nodes"] = summary.peak_nodes;
  state.counters["peak_rss_MiB"] = peak_mib;
}
BENCHMARK(BM_OneDeploymentOneHour)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(400'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kSecond)
    ->Iterations(1);

// Issue [10]: one Deployment of 10m/16Mi pods (pod slots, not cpu or memory, fill the nodes) scaled from 0 to N at
// 1m, one simulated hour, under each consolidation policy of one NodePool, or under Cluster Autoscaler with one
// Auto Scaling group. The cost per pod must be flat under every policy: with the v1 default NodePool
// (WhenEmptyOrUnderutilized, consolidateAfter 0s) it grew quadratic (97 s for 200,000 where WhenEmpty took 4.5 s).
// scripts/bench.sh --guard compares two sizes of each (the scaling guard).
enum class Burst { WhenEmpty, V1Defaults, Balanced, NodeGroups };

sim::SimulationInput burst_input(const cloud::Catalog& catalog, Burst burst, std::int64_t replicas) {
  std::string text;
  if (burst != Burst::NodeGroups) {
    text = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"]}
)";
    // The v1 defaults are what a NodePool without a disruption block gets.
    if (burst == Burst::WhenEmpty) text += "  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s}\n";
    if (burst == Burst::Balanced) text += "  disruption: {consolidationPolicy: Balanced, consolidateAfter: 0s}\n";
    text += "---\n";
  }
  text += R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: small, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: small}}
  template:
    metadata: {labels: {app: small}}
    spec:
      containers:
      - {name: c, image: pause, resources: {requests: {cpu: 10m, memory: 16Mi}}}
---
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: burst}
spec:
  duration: 1h
  seed: 1
)";
  if (burst == Burst::NodeGroups) {
    text += R"(  cloud:
    autoScalingGroups:
    - {name: ng, instanceType: m5.24xlarge, zones: [us-east-1a, us-east-1b, us-east-1c], minSize: 0, maxSize: 5000,
       desiredCapacity: 0}
  clusterAutoscaler: {args: [./cluster-autoscaler, --nodes=0:5000:ng]}
)";
  }
  text += "  timeline:\n  - {at: 1m, scale: {kind: Deployment, name: small, namespace: default, replicas: " +
          std::to_string(replicas) + "}}\n";
  return simulation_input(text, catalog, /*object_records=*/false);
}

void BM_Burst(benchmark::State& state, Burst burst) {
  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(std::string(SCALEWRIGHT_SOURCE_DIR) + "/data/aws");
  if (!catalog) {
    state.SkipWithError(catalog.error().message.c_str());
    return;
  }
  sim::Summary summary;
  double peak_mib = 0;
  for (auto _ : state) {
    state.PauseTiming();
    sim::SimulationInput input = burst_input(*catalog, burst, state.range(0));
    malloc_trim(0);
    reset_peak_rss();
    state.ResumeTiming();
    sim::SimulationReport report = sim::simulate(std::move(input));
    state.PauseTiming();
    summary = report.summary;
    peak_mib = peak_rss_since_reset_mib();
    state.ResumeTiming();
  }
  state.counters["pods_bound"] = static_cast<double>(summary.pod_wait.pods_bound);
  state.counters["peak_nodes"] = summary.peak_nodes;
  state.counters["peak_rss_MiB"] = peak_mib;
}
BENCHMARK_CAPTURE(BM_Burst, WhenEmpty, Burst::WhenEmpty)
    ->Arg(10'000)->Arg(20'000)->Arg(50'000)->Arg(100'000)->Arg(200'000)->Arg(1'000'000)
    ->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Burst, V1Defaults, Burst::V1Defaults)
    ->Arg(10'000)->Arg(20'000)->Arg(50'000)->Arg(100'000)->Arg(200'000)->Arg(1'000'000)
    ->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Burst, Balanced, Burst::Balanced)
    ->Arg(20'000)->Arg(100'000)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Burst, NodeGroups, Burst::NodeGroups)
    ->Arg(20'000)->Arg(100'000)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
