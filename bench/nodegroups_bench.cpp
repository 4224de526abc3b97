// Cluster Autoscaler's scale-up decision at the size of upstream's scale tests: a 1,000-node cluster with 30
// pods per node and 500 pending pods, five node groups. Target: under 100 ms for one full decision.
//
// The cluster: 1,000 m5.xlarge-shaped nodes (4 vCPU / 16 GiB, 110 pods), 200 per group, each running 30 pods of
// 120m / 500Mi (3600m used, 400m left). Groups: ng-general-{a,b,c} (m5.xlarge in three zones, similar, so the
// decision balances across them), ng-compute (c5.2xlarge, 8 vCPU / 16 GiB) and ng-memory (r5.xlarge, 4 vCPU /
// 32 GiB); each at 200 of max 400.
// The pending batch: ten Deployments of 50 pods, none of which fits the 400m left on any node: eight plain
// (500m..1200m, 1..2 GiB), one with hostname anti-affinity to itself (a node per pod), one with zone spread
// (maxSkew 1). Expanders: least-waste (the default), balancing on.
// BM_ScaleUpDecision_1kNodes_500Pending times decide_scale_up, Scheduler construction included (so its per-node
// caches start cold, as after a restart); the snapshot is built once and left unchanged by every decision.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "nodegroups/scale_up.h"
#include "peer_workloads.h"

namespace scalewright::bench {
namespace {

using nodegroups::NodeGroup;
using nodegroups::PendingPod;
using nodegroups::ScaleUpInput;

constexpr std::int64_t kMi = 1024LL * 1024;
constexpr int kNodesPerGroup = 200;

NodeGroup make_group(const std::string& id, const std::string& type, const std::string& zone, std::int64_t cpu,
                     std::int64_t memory_gib) {
  NodeGroup g;
  g.id = id;
  g.instance_type = type;
  g.max_size = 400;
  g.target_size = kNodesPerGroup;
  Node& n = g.template_node;
  n.meta.name = "template-node-for-" + id;
  n.meta.labels = {{"node.kubernetes.io/instance-type", type}, {"topology.kubernetes.io/zone", zone}};
  n.capacity.set(resource_names::cpu(), cpu);
  n.capacity.set(resource_names::memory(), memory_gib * 1024 * kMi);
  n.capacity.set(resource_names::pods(), 110);
  n.allocatable = n.capacity;
  n.conditions.push_back({"Ready", "True", ""});
  return g;
}

Pod make_pod(const std::string& name, const std::string& app, std::int64_t cpu, std::int64_t memory_mi) {
  Pod p;
  p.meta.name = name;
  p.meta.namespace_ = "default";
  p.meta.labels.set(Symbol("app"), Symbol(app));
  p.meta.owner_references.push_back({"apps/v1", "ReplicaSet", app, app + "-uid", true});
  Container c;
  c.name = "app";
  c.requests.set(resource_names::cpu(), cpu);
  c.requests.set(resource_names::memory(), memory_mi * kMi);
  p.spec.containers.push_back(c);
  return p;
}

LabelSelector app_selector(const std::string& app) {
  return LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol(app)}}}};
}

struct Cluster {
  scheduling::ClusterSnapshot snapshot;
  ScaleUpInput input;
  nodegroups::AutoscalerOptions options;
};

Cluster build_cluster() {
  Cluster c;
  c.options.balance_similar_node_groups = true;
  c.input.now = Instant(Duration{3'600'000});
  c.input.groups = {make_group("ng-general-a", "m5.xlarge", "us-east-1a", 4000, 16),
                    make_group("ng-general-b", "m5.xlarge", "us-east-1b", 4000, 16),
                    make_group("ng-general-c", "m5.xlarge", "us-east-1c", 4000, 16),
                    make_group("ng-compute", "c5.2xlarge", "us-east-1a", 8000, 16),
                    make_group("ng-memory", "r5.xlarge", "us-east-1b", 4000, 32)};
  const char* zones[] = {"us-east-1a", "us-east-1b", "us-east-1c", "us-east-1a", "us-east-1b"};
  for (std::size_t g = 0; g < c.input.groups.size(); ++g) {
    const NodeGroup& group = c.input.groups[g];
    c.input.registered_nodes[group.id] = kNodesPerGroup;
    for (int i = 0; i < kNodesPerGroup; ++i) {
      // Running nodes are m5.xlarge-shaped whatever their group, so every node ends up equally full.
      Node node = c.input.groups[0].template_node;
      node.meta.name = group.id + "-" + std::to_string(i);
      node.meta.labels.set(Symbol("kubernetes.io/hostname"), Symbol(node.meta.name));
      node.meta.labels.set(Symbol("topology.kubernetes.io/zone"), Symbol(zones[g]));
      const scheduling::NodeId id = c.snapshot.add_node(node);
      for (int p = 0; p < 30; ++p) {
        const std::string app = "svc-" + std::to_string((g * kNodesPerGroup + i + p) % 200);
        c.snapshot.add_pod(make_pod(node.meta.name + "-" + std::to_string(p), app, 120, 500), id);
      }
    }
  }
  for (int d = 0; d < 10; ++d) {
    const std::string app = "pending-" + std::to_string(d);
    for (int r = 0; r < 50; ++r) {
      Pod p = make_pod(app + "-" + std::to_string(r), app, 500 + 100 * (d % 8), 1024 + 128 * d);
      if (d == 8) {
        PodAffinityTerm term;
        term.label_selector = app_selector(app);
        term.topology_key = Symbol("kubernetes.io/hostname");
        p.spec.affinity.required_pod_anti_affinity.push_back(term);
      } else if (d == 9) {
        TopologySpreadConstraint spread;
        spread.max_skew = 1;
        spread.topology_key = Symbol("topology.kubernetes.io/zone");
        spread.label_selector = app_selector(app);
        p.spec.topology_spread_constraints.push_back(spread);
      }
      c.input.unschedulable.push_back({std::make_shared<const Pod>(std::move(p)), Instant{}});
    }
  }
  return c;
}

void BM_ScaleUpDecision_1kNodes_500Pending(benchmark::State& state) {
  Cluster cluster = build_cluster();
  const nodegroups::ExpanderConfig expander;
  const nodegroups::NodeGroupBackoff backoff(cluster.options);
  std::size_t new_nodes = 0;
  std::size_t events = 0;
  std::size_t triggered = 0;
  for (auto _ : state) {
    const scheduling::Scheduler scheduler;
    nodegroups::ScaleUpDecision decision =
        nodegroups::decide_scale_up(cluster.snapshot, cluster.input, cluster.options, expander, backoff, scheduler);
    new_nodes = 0;
    for (const auto& info : decision.scale_ups) {
      new_nodes += static_cast<std::size_t>(info.new_size - info.current_size);
    }
    events = decision.events.size();
    triggered = static_cast<std::size_t>(std::count_if(decision.pods.begin(), decision.pods.end(), [](const auto& p) {
      return p.outcome == nodegroups::PodOutcome::TriggeredScaleUp;
    }));
    benchmark::DoNotOptimize(decision);
  }
  state.counters["new_nodes"] = static_cast<double>(new_nodes);
  state.counters["events"] = static_cast<double>(events);
  state.counters["triggered_pods"] = static_cast<double>(triggered);
}
BENCHMARK(BM_ScaleUpDecision_1kNodes_500Pending)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(9)
    ->ReportAggregatesOnly(true);

// Peer workload (b) of shared/bench/PEER-WORKLOADS.md, exactly: 1,000 m5.xlarge-like nodes in ng-0..ng-4 (200
// each, min 0, max 5000), 30 pods of 133m / 512Mi on each (no pending pod fits anywhere), 500 pending pods drawn
// with seed 2. Cluster Autoscaler 1.26 takes 177-194 ms for one scale-up call on this input.
void BM_ScaleUpDecision_PeerWorkloadB(benchmark::State& state) {
  ScaleUpCluster peer = scale_up_cluster();
  scheduling::ClusterSnapshot snapshot;
  ScaleUpInput input;
  for (std::size_t g = 0; g < 5; ++g) {
    NodeGroup group;
    group.id = "ng-" + std::to_string(g);
    group.min_size = 0;
    group.max_size = 5000;
    group.target_size = 200;
    group.instance_type = "m5.xlarge";
    group.template_node = template_node("template-node-for-" + group.id, group.id);
    input.groups.push_back(std::move(group));
    input.registered_nodes["ng-" + std::to_string(g)] = 200;
  }
  for (std::size_t j = 0; j < peer.nodes.size(); ++j) {
    const scheduling::NodeId id = snapshot.add_node(peer.nodes[j]);
    for (Pod& pod : peer.pods_by_node[j]) snapshot.add_pod(std::move(pod), id);
  }
  std::int64_t cpu = 0;
  for (Pod& pod : peer.pending) {
    cpu += pod.effective_requests().cpu_milli();
    input.unschedulable.push_back({std::make_shared<const Pod>(std::move(pod)), Instant{}});
  }
  if (cpu != 402'750) state.SkipWithError("peer workload (b) differs from PEER-WORKLOADS.md (cpu sum)");
  input.now = Instant(Duration(60'000));
  const nodegroups::AutoscalerOptions options;
  const nodegroups::ExpanderConfig expander;
  const nodegroups::NodeGroupBackoff backoff(options);
  std::size_t new_nodes = 0;
  for (auto _ : state) {
    const scheduling::Scheduler scheduler;
    nodegroups::ScaleUpDecision decision =
        nodegroups::decide_scale_up(snapshot, input, options, expander, backoff, scheduler);
    new_nodes = 0;
    for (const auto& info : decision.scale_ups) new_nodes += static_cast<std::size_t>(info.new_size - info.current_size);
    benchmark::DoNotOptimize(decision);
  }
  state.counters["new_nodes"] = static_cast<double>(new_nodes);
}
BENCHMARK(BM_ScaleUpDecision_PeerWorkloadB)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(9)
    ->ReportAggregatesOnly(true);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
