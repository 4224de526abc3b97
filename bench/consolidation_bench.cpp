// Issue [8], two benchmarks.
//
// BM_ConsolidationPass/5000: one full consolidation pass over 5,000 nodes / 150,000 pods, every candidate considered (Karpenter
// caps multi-node consolidation at 100 candidates and gives up after 1 minute, single-node after 3). The cluster is
// peer workload (c) (../shared/bench/PEER-WORKLOADS.md): 5,000 m5.xlarge on-demand nodes of one NodePool, 30 pods
// each, every fourth node lightly used. Every node is a candidate; the replacement is searched over the us-east-1
// catalog's c, m and r types, on-demand. The pass is what the disruption controller asks: multi-node, single-node
// and a repack, each on a fork of the same snapshot.
#include <benchmark/benchmark.h>

#include <map>
#include <regex>
#include <string>

#include <algorithm>
#include <iostream>
#include <set>

#include "cloud/aws/labels.h"
#include "cloud/catalog.h"
#include "disruption/consolidation.h"
#include "ec2nodeclass.h"
#include "manifest/manifest.h"
#include "sim/simulator.h"
#include "peer_workloads.h"
#include "us_east_1.h"
#include "process_memory.h"

namespace scalewright::bench {
namespace {


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
                       in(cloud::aws::labels::instance_category, {"c", "m", "r"}), in(well_known::arch, {"amd64"})};
  return pool;
}

void BM_ConsolidationPass(benchmark::State& state) {
  reset_peak_rss();
  const auto nodes = static_cast<std::size_t>(state.range(0));
  const cloud::Catalog& catalog = us_east_1();
  const cloud::InstanceType* m5 = catalog.find("m5.xlarge");
  double price = 0;
  for (const cloud::Offering& o : m5->offerings) {
    if (o.capacity_type == cloud::CapacityType::OnDemand) price = o.price_per_hour;
  }
  scheduling::ClusterSnapshot snapshot;
  disruption::ConsolidationInput input;
  {
    ScaleDownCluster cluster = scale_down_cluster(nodes);
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
        c.add_pod(std::move(shared));
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
  input.allowed["default"] = static_cast<std::int32_t>(nodes);  // the budget aside: every candidate may go

  disruption::ConsolidationResult multi, single, repack;
  for (auto _ : state) {  // the three questions the disruption controller asks in one pass
    multi = disruption::consolidate_multi_node(input);
    single = disruption::consolidate_single_node(input);
    repack = disruption::consolidate_repack(input);
    benchmark::DoNotOptimize(multi);
    benchmark::DoNotOptimize(single);
    benchmark::DoNotOptimize(repack);
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
  state.counters["repack_tries"] = static_cast<double>(repack.tries);
  state.counters["repack_saves_per_h"] = repack.command ? repack.command->savings() : 0;
  state.counters["peak_rss_MiB"] = peak_rss_since_reset_mib();
}
// 1,000 and 5,000 nodes: the scaling guard (scripts/bench.sh --guard) compares the two.
BENCHMARK(BM_ConsolidationPass)->Arg(1000)->Arg(5000)->Unit(benchmark::kMillisecond)->Iterations(1)->Repetitions(3);


// BM_ScaleIn_1000Nodes: a scale-in in the simulator. 10 Deployments (500m–1250m cpu, 1–3 GiB) grow to 885 replicas
// each on a NodePool of 8-vcpu on-demand types (m, c and r, generation > 4, 2xlarge), about 1,000 nodes; at 1h each
// shrinks by 30 % (to 620). Consolidation (WhenEmptyOrUnderutilized, consolidateAfter 1m, the default 10 % budget)
// then runs until 4h. Reported: the cluster's $/h at the end (the spend of the last hour, which a run one hour
// shorter tells apart), a lower bound on the $/h of any set of these types that holds the pods left (the LP
// relaxation of covering their cpu, memory and pod count, solved exactly: cost_lower_bound), the evictions
// consolidation caused and the commands it took.
constexpr int kScaleInDeployments = 10;
constexpr int kBefore = 885;
constexpr int kAfter = 620;

std::string scale_in_text(const std::string& duration, bool as_karpenter) {
  std::string text = std::string("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default") +
                     (as_karpenter ? ", annotations: {scalewright.dev/consolidate-as-karpenter: \"true\"}" : "") +
                     "}\n" + R"(spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["4"]}
      - {key: karpenter.k8s.aws/instance-size, operator: In, values: [2xlarge]}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 1m}
---
)" + kEc2NodeClass;
  for (int k = 0; k < kScaleInDeployments; ++k) {
    const std::string name = "web-" + std::to_string(k);
    const std::string cpu = std::to_string(250 * (k % 4 + 2)) + "m";
    const std::string memory = std::to_string(k % 3 + 1) + "Gi";
    text += "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: default}\nspec:\n"
            "  replicas: " + std::to_string(kBefore) + "\n  selector: {matchLabels: {app: " + name + "}}\n"
            "  template:\n    metadata: {labels: {app: " + name + "}}\n    spec:\n      containers:\n"
            "      - {name: main, image: app, resources: {requests: {cpu: " + cpu + ", memory: " + memory +
            "}}}\n---\n";
  }
  text += "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: scale-in}\nspec:\n  duration: " +
          duration + "\n  seed: 3\n  cloud: {region: us-east-1, launchLatency: {min: 45s, max: 75s}}\n  timeline:\n";
  for (int k = 0; k < kScaleInDeployments; ++k) {
    text += "  - {at: 1h, scale: {kind: Deployment, name: web-" + std::to_string(k) +
            ", replicas: " + std::to_string(kAfter) + "}}\n";
  }
  return text;
}

sim::SimulationReport run_scale_in(const std::string& duration, bool as_karpenter) {
  Result<ManifestSet> objects = decode_manifests(scale_in_text(duration, as_karpenter), "consolidation_bench");
  if (!objects) throw std::runtime_error(objects.error().message);
  ManifestSet set = std::move(objects).value();
  Scenario scenario = set.scenarios.at(0);
  set.scenarios.clear();
  return sim::simulate({std::move(scenario), std::move(set), us_east_1(), {}, nullptr, {}, false});
}

// The scale-in, consolidated as Scalewright does it, or (`as_karpenter`) as Karpenter itself does: the same
// scenario with the NodePool annotated scalewright.dev/consolidate-as-karpenter.
void scale_in(benchmark::State& state, bool as_karpenter) {
  sim::SimulationReport shorter, report;
  for (auto _ : state) {
    shorter = run_scale_in("3h", as_karpenter);
    report = run_scale_in("4h", as_karpenter);
  }
  // The pods left: their requests, as the Deployments above ask.
  double cpu = 0, memory = 0;
  for (int k = 0; k < kScaleInDeployments; ++k) {
    cpu += kAfter * 250.0 * (k % 4 + 2);
    memory += kAfter * (k % 3 + 1) * 1024.0 * 1024 * 1024;
  }
  NodePool pool;
  {
    Result<ManifestSet> objects = decode_manifests(scale_in_text("4h", false), "consolidation_bench");
    pool = objects->nodepools.at(0);
  }
  const RequirementSet requirements = pool.requirement_set();
  std::vector<const cloud::InstanceType*> types;
  std::vector<double> prices;
  for (const cloud::InstanceType& type : us_east_1().instance_types()) {
    if (!requirements.compatible(RequirementSet::from_labels(type.labels))) continue;
    double price = std::numeric_limits<double>::max();
    for (const cloud::Offering& o : type.offerings) {
      if (o.capacity_type == cloud::CapacityType::OnDemand && o.available) price = std::min(price, o.price_per_hour);
    }
    if (price == std::numeric_limits<double>::max()) continue;
    types.push_back(&type);
    prices.push_back(price);
  }
  const double bound = cost_lower_bound({cpu, memory, kScaleInDeployments * kAfter}, types, prices).per_hour;
  const double per_hour_at_end = report.summary.total_cost - shorter.summary.total_cost;
  std::size_t commands = 0, emptied = 0;
  for (const sim::TimelineEntry& e : report.timeline) {
    if (e.kind == "consolidation") ++commands;
    if (e.kind == "removed") ++emptied;
  }
  state.counters["peak_nodes"] = report.summary.peak_nodes;
  state.counters["nodes_at_end"] = report.summary.nodes_at_end;
  state.counters["cost_per_h_at_end"] = per_hour_at_end;
  state.counters["lower_bound_per_h"] = bound;
  state.counters["ratio_to_bound"] = per_hour_at_end / bound;
  state.counters["consolidation_commands"] = static_cast<double>(commands);
  state.counters["empty_removed"] = static_cast<double>(emptied);
  state.counters["evictions"] = static_cast<double>(report.summary.evictions);
  state.counters["pending_at_end"] = static_cast<double>(report.summary.pod_wait.pods_pending_at_end);
}
void BM_ScaleIn_1000Nodes(benchmark::State& state) { scale_in(state, false); }
void BM_ScaleIn_1000Nodes_AsKarpenter(benchmark::State& state) { scale_in(state, true); }
BENCHMARK(BM_ScaleIn_1000Nodes)->Unit(benchmark::kSecond)->Iterations(1);
BENCHMARK(BM_ScaleIn_1000Nodes_AsKarpenter)->Unit(benchmark::kSecond)->Iterations(1);

// The cluster's $/h after each line of a run's timeline, and the pods evicted since the scale-in, read from the
// lines that say so: a NodeClaim launched (its price), a drained node removed (how many pods it evicted), an empty
// node removed.
struct CostPoint {
  Instant at{};
  double per_hour = 0;
  long evictions = 0;
};
std::vector<CostPoint> cost_curve(const sim::SimulationReport& report) {
  static const std::regex launched(R"(NodeClaim (\S+) launched \S+ \S+ \S+ \$([0-9.]+)/h)");
  static const std::regex drained(R"(drained node (\S+) of \S+ removed \((\d+) pods? evicted)");
  static const std::regex emptied(R"(node (\S+) empty, removed)");
  std::map<std::string, double> running;
  std::vector<CostPoint> curve;
  long evictions = 0;
  double per_hour = 0;
  for (const sim::TimelineEntry& e : report.timeline) {
    std::smatch m;
    if (e.kind == "launch" && std::regex_search(e.message, m, launched)) {
      running[m[1]] = std::stod(m[2]);
    } else if (e.kind == "scale-down" && std::regex_search(e.message, m, drained)) {
      running.erase(m[1]);
      if (e.at >= Instant(Duration(3'600'000))) evictions += std::stol(m[2]);
    } else if (e.kind == "removed" && std::regex_search(e.message, m, emptied)) {
      running.erase(m[1]);
    } else {
      continue;
    }
    per_hour = 0;
    for (const auto& [node, price] : running) per_hour += price;
    curve.push_back({e.at, per_hour, evictions});
  }
  return curve;
}

// Churn for the same saving: Karpenter's method order runs the 4-hour scale-in to its end; how long Scalewright's
// takes to bring the cluster to that $/h, and with how many evictions, against Karpenter's.
void BM_ScaleIn_EvictionsForKarpentersEndCost(benchmark::State& state) {
  sim::SimulationReport ours, karpenters;
  for (auto _ : state) {
    ours = run_scale_in("4h", false);
    karpenters = run_scale_in("4h", true);
  }
  const std::vector<CostPoint> k = cost_curve(karpenters);
  const CostPoint target = k.back();
  state.counters["karpenter_end_per_h"] = target.per_hour;
  state.counters["karpenter_evictions"] = static_cast<double>(target.evictions);
  for (const CostPoint& p : cost_curve(ours)) {
    if (p.at < Instant(Duration(3'600'000)) || p.per_hour > target.per_hour) continue;
    state.counters["ours_reaches_it_after_s"] =
        static_cast<double>((p.at - Instant(Duration(3'600'000))).count()) / 1000;
    state.counters["ours_evictions_by_then"] = static_cast<double>(p.evictions);
    break;
  }
}
BENCHMARK(BM_ScaleIn_EvictionsForKarpentersEndCost)->Unit(benchmark::kSecond)->Iterations(1);
}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
