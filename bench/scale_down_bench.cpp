// Cluster Autoscaler's scale-down evaluation at scale (peer workload (c)): one ScaleDownPlanner::update over every
// node of a 5,000-node / 150,000-pod cluster in five node groups, every fourth node under 0.5 utilization. The
// scan checks each node's utilization, then simulates removing each candidate (drain rules, PDBs, placing its
// 30 pods elsewhere with the scheduler). Target: under 2 s.
#include <benchmark/benchmark.h>

#include <string>

#include "nodegroups/scale_down.h"
#include "peer_workloads.h"
#include "process_memory.h"

namespace scalewright::bench {
namespace {

using nodegroups::AutoscalerOptions;
using nodegroups::ScaleDownInput;
using nodegroups::ScaleDownPlanner;
using nodegroups::ScaleDownResult;
using scheduling::ClusterSnapshot;
using scheduling::NodeId;

void BM_ScaleDownEvaluation_5kNodes(benchmark::State& state) {
  reset_peak_rss();
  double rss_before = current_rss_mib();
  constexpr std::size_t kNodes = 5000;
  ClusterSnapshot snapshot;
  ScaleDownInput input;
  {
    ScaleDownCluster cluster = scale_down_cluster(kNodes);
    for (std::size_t j = 0; j < cluster.nodes.size(); ++j) {
      input.group_of_node[cluster.nodes[j].meta.name] = "ng-" + std::to_string(j % 5);
      const std::string node_name = cluster.nodes[j].meta.name;
      NodeId id = snapshot.add_node(std::move(cluster.nodes[j]));
      for (Pod& pod : cluster.pods_by_node[j]) {
        pod.spec.node_name = node_name;  // bound, as running pods are: the removal simulation unbinds its copies
        snapshot.add_pod(std::move(pod), id);
      }
    }
  }
  for (int g = 0; g < 5; ++g) {
    nodegroups::NodeGroup group;
    group.id = "ng-" + std::to_string(g);
    group.min_size = 1;
    group.max_size = 2000;
    group.target_size = static_cast<std::int32_t>(kNodes / 5);
    input.groups.push_back(group);
  }
  double snapshot_mib = current_rss_mib() - rss_before;
  AutoscalerOptions options;
  ScaleDownResult result;
  for (auto _ : state) {
    ScaleDownPlanner planner;  // a cold scan: no node known as unneeded yet
    result = planner.update(snapshot, input, options, Instant{});
    benchmark::DoNotOptimize(result);
  }
  std::size_t pods_moved = 0;
  for (const auto& u : result.unneeded) pods_moved += u.pods_to_move.size();
  state.counters["nodes"] = static_cast<double>(snapshot.live_node_count());
  state.counters["pods"] = static_cast<double>(snapshot.pod_count());
  state.counters["unneeded"] = static_cast<double>(result.unneeded.size());
  state.counters["unremovable"] = static_cast<double>(result.unremovable.size());
  state.counters["pods_moved"] = static_cast<double>(pods_moved);
  state.counters["snapshot_MiB"] = snapshot_mib;
  state.counters["peak_rss_MiB"] = peak_rss_since_reset_mib();
}
BENCHMARK(BM_ScaleDownEvaluation_5kNodes)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(5);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
