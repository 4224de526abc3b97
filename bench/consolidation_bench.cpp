// Issue [8]: one full consolidation pass over 5,000 nodes / 150,000 pods, every candidate considered (Karpenter
// caps multi-node consolidation at 100 candidates and gives up after 1 minute, single-node after 3). The cluster is
// peer workload (c) (../shared/bench/PEER-WORKLOADS.md): 5,000 m5.xlarge on-demand nodes of one NodePool, 30 pods
// each, every fourth node lightly used. Every node is a candidate; the replacement is searched over the us-east-1
// catalog's c, m and r types, on-demand. The pass is what the disruption controller asks: multi-node, then
// single-node, each on a fork of the same snapshot.
#include <benchmark/benchmark.h>

#include <string>

#include "cloud/catalog.h"
#include "disruption/consolidation.h"
#include "peer_workloads.h"
#include "process_memory.h"

namespace scalewright::bench {
namespace {

const cloud::Catalog& us_east_1() {
  static const cloud::Catalog catalog = [] {
    Result<cloud::Catalog> loaded = cloud::load_catalog(std::string(SCALEWRIGHT_SOURCE_DIR) + "/data/aws");
    if (!loaded) throw std::runtime_error(loaded.error().message);
    return std::move(*loaded);
  }();
  return catalog;
}

NodePool on_demand_cmr() {
  NodePool pool;
  pool.meta.name = "default";
  auto in = [](std::string_view key, std::set<std::string> values) {
    LabelRequirement r;
    r.key = Symbol(key);
    r.op = SelectorOperator::In;
    for (const std::string& v : values) r.values.emplace_back(v);
    return NodePoolRequirement{r, std::nullopt};
  };
  pool.requirements = {in(karpenter_labels::capacity_type, {"on-demand"}),
                       in(karpenter_labels::instance_category, {"c", "m", "r"}), in(well_known::arch, {"amd64"})};
  return pool;
}

void BM_ConsolidationPass_5kNodes(benchmark::State& state) {
  reset_peak_rss();
  constexpr std::size_t kNodes = 5000;
  const cloud::Catalog& catalog = us_east_1();
  const cloud::InstanceType* m5 = catalog.find("m5.xlarge");
  double price = 0;
  for (const cloud::Offering& o : m5->offerings) {
    if (o.capacity_type == cloud::CapacityType::OnDemand) price = o.price_per_hour;
  }
  scheduling::ClusterSnapshot snapshot;
  disruption::ConsolidationInput input;
  {
    ScaleDownCluster cluster = scale_down_cluster(kNodes);
    for (std::size_t j = 0; j < cluster.nodes.size(); ++j) {
      Node& node = cluster.nodes[j];
      node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol("default"));
      node.meta.labels.set(Symbol(karpenter_labels::capacity_type), Symbol("on-demand"));
      disruption::Candidate c;
      c.node = node.meta.name;
      c.nodepool = "default";
      c.instance_type = "m5.xlarge";
      c.price_per_hour = price;
      c.capacity = node.capacity;
      c.id = snapshot.add_node(std::move(node));
      for (Pod& pod : cluster.pods_by_node[j]) {
        pod.spec.node_name = c.node;
        auto shared = std::make_shared<const Pod>(std::move(pod));
        snapshot.add_pod(shared, c.id);
        c.disruption_cost += disruption::eviction_cost(*shared);
        c.pods.push_back(std::move(shared));
      }
      input.pool_cost["default"] += c.price_per_hour;
      input.pool_disruption_cost["default"] += c.disruption_cost;
      input.candidates.push_back(std::move(c));
    }
  }
  disruption::order_candidates(input.candidates);
  provisioning::UnavailableOfferings unavailable;
  input.cluster = &snapshot;
  input.catalog = &catalog;
  input.unavailable = &unavailable;
  input.nodepools = {on_demand_cmr()};
  input.allowed["default"] = static_cast<std::int32_t>(kNodes);  // the budget aside: every candidate may go

  disruption::ConsolidationResult multi, single;
  for (auto _ : state) {
    multi = disruption::consolidate_multi_node(input);
    single = disruption::consolidate_single_node(input);
    benchmark::DoNotOptimize(multi);
    benchmark::DoNotOptimize(single);
  }
  state.counters["nodes"] = static_cast<double>(snapshot.live_node_count());
  state.counters["pods"] = static_cast<double>(snapshot.pod_count());
  state.counters["candidates"] = static_cast<double>(input.candidates.size());
  state.counters["multi_tries"] = static_cast<double>(multi.tries);
  state.counters["multi_nodes"] = multi.command ? static_cast<double>(multi.command->candidates.size()) : 0;
  state.counters["multi_saves_per_h"] = multi.command ? multi.command->savings() : 0;
  state.counters["multi_pods"] = multi.command ? static_cast<double>(multi.command->pods) : 0;
  state.counters["multi_replace"] =
      multi.command && multi.command->decision == disruption::Decision::Replace ? 1 : 0;
  state.counters["single_tries"] = static_cast<double>(single.tries);
  state.counters["single_saves_per_h"] = single.command ? single.command->savings() : 0;
  state.counters["peak_rss_MiB"] = peak_rss_since_reset_mib();
}
BENCHMARK(BM_ConsolidationPass_5kNodes)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
