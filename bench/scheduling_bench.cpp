// Scheduler simulation at scale (issue [1]):
//  - placing 10,000 pending pods (mixed sizes, some with hostname anti-affinity, some with zone spread) onto
//    1,000 existing nodes, one at a time as kube-scheduler would (target: under 200 ms);
//  - answering "where would this node's pods go" for every node of a 5,000-node / 150,000-pod snapshot
//    (peer workload (c), target: under 2 s; the snapshot under 500 MiB).
#include <benchmark/benchmark.h>

#include <string>

#include "peer_workloads.h"
#include "process_memory.h"
#include "scheduling/placement.h"
#include "scheduling/scheduler.h"

namespace scalewright::bench {
namespace {

using scheduling::ClusterSnapshot;
using scheduling::NodeId;
using scheduling::Scheduler;

ClusterSnapshot existing_cluster(std::size_t nodes) {
  ClusterSnapshot snapshot;
  static const char* kZones[] = {"zone-a", "zone-b", "zone-c"};
  for (std::size_t j = 0; j < nodes; ++j) {
    Node node = template_node("node-" + std::to_string(j), "ng-" + std::to_string(j % 5), kZones[j % 3]);
    node.capacity.set(Symbol("cpu"), 16000);  // 10 pods a node on average: m5.4xlarge-like
    node.capacity.set(Symbol("memory"), 64 * 1024 * kMiB);
    node.allocatable = node.capacity;
    snapshot.add_node(std::move(node));
  }
  return snapshot;
}

// 10,000 pods in 100 deployments of 100 replicas: sizes from the peer stream (seed 4); every tenth deployment
// spreads one-per-node by hostname anti-affinity, every fifth spreads across zones with maxSkew 1.
std::vector<Pod> pending_pods(std::size_t count) {
  SplitMix64 rng(4);
  std::vector<Pod> pods;
  pods.reserve(count);
  for (std::size_t d = 0; d * 100 < count; ++d) {
    const PendingShape shape = next_pending_shape(rng);
    std::string app = "app-" + std::to_string(d);
    for (std::size_t r = 0; r < 100 && pods.size() < count; ++r) {
      Pod pod = pod_with(app + "-" + std::to_string(r), shape.cpu_milli, shape.memory, "ReplicaSet", app);
      pod.meta.labels.set(Symbol("app"), Symbol(app));
      LabelSelector selector{{{Symbol("app"), SelectorOperator::In, {Symbol(app)}}}};
      if (d % 10 == 3) {
        PodAffinityTerm term;
        term.label_selector = selector;
        term.topology_key = Symbol("kubernetes.io/hostname");
        pod.spec.affinity.required_pod_anti_affinity.push_back(term);
      } else if (d % 5 == 1) {
        TopologySpreadConstraint spread;
        spread.topology_key = Symbol("topology.kubernetes.io/zone");
        spread.label_selector = selector;
        pod.spec.topology_spread_constraints.push_back(spread);
      }
      pods.push_back(std::move(pod));
    }
  }
  return pods;
}

void BM_Place10kPendingPodsOn1kNodes(benchmark::State& state) {
  reset_peak_rss();
  std::vector<Pod> pods = pending_pods(10000);
  std::size_t placed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ClusterSnapshot snapshot = existing_cluster(1000);
    Scheduler scheduler;
    state.ResumeTiming();
    auto placements = scheduling::place_pods(snapshot, scheduler, pods, scheduling::PlacementMode::Sequential);
    placed = 0;
    for (const auto& p : placements) placed += p.result.scheduled() ? 1 : 0;
    benchmark::DoNotOptimize(placements);
  }
  state.counters["pods_placed"] = static_cast<double>(placed);
  state.counters["peak_rss_MiB"] = peak_rss_since_reset_mib();
}
BENCHMARK(BM_Place10kPendingPodsOn1kNodes)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_WhereWouldEachNodesPodsGo_5kNodes_150kPods(benchmark::State& state) {
  reset_peak_rss();
  double rss_before = current_rss_mib();
  ClusterSnapshot snapshot;
  {
    ScaleDownCluster cluster = scale_down_cluster(5000);
    for (std::size_t j = 0; j < cluster.nodes.size(); ++j) {
      NodeId id = snapshot.add_node(std::move(cluster.nodes[j]));
      for (Pod& pod : cluster.pods_by_node[j]) snapshot.add_pod(std::move(pod), id);
    }
  }
  double snapshot_mib = current_rss_mib() - rss_before;
  Scheduler scheduler;
  std::size_t nodes_whose_pods_all_fit = 0;
  for (auto _ : state) {
    nodes_whose_pods_all_fit = 0;
    NodeId hint = 0;
    for (NodeId candidate = 0; candidate < snapshot.nodes().size(); ++candidate) {
      std::vector<std::shared_ptr<const Pod>> pods;
      for (const auto& placed : snapshot.node(candidate).pods) pods.push_back(placed.pod);
      snapshot.fork();
      snapshot.remove_node(candidate);
      bool all_fit = true;
      for (const auto& pod : pods) {
        NodeId target = scheduler.find_fit(snapshot, *pod, hint);
        if (target == scheduling::kNoNode) {
          all_fit = false;
          break;
        }
        snapshot.add_pod(pod, target);
        hint = target;
      }
      snapshot.revert();
      nodes_whose_pods_all_fit += all_fit ? 1 : 0;
    }
    benchmark::DoNotOptimize(nodes_whose_pods_all_fit);
  }
  state.counters["nodes"] = static_cast<double>(snapshot.live_node_count());
  state.counters["pods"] = static_cast<double>(snapshot.pod_count());
  state.counters["nodes_drainable"] = static_cast<double>(nodes_whose_pods_all_fit);
  state.counters["snapshot_MiB"] = snapshot_mib;
  state.counters["peak_rss_MiB"] = peak_rss_since_reset_mib();
}
BENCHMARK(BM_WhereWouldEachNodesPodsGo_5kNodes_150kPods)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
