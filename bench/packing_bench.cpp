// Issue [9]: packing quality, side by side with Cluster Autoscaler, on peer workload (a)
// (../shared/bench/PEER-WORKLOADS.md): N pending pods of 25 shapes (seed 1), an empty cluster, N = 1,000, 10,000
// and 50,000. How many nodes each model launches against the file's lower bound (200, 1,946, 9,655), and how long
// deciding takes. Cluster Autoscaler 1.26 needs 2,117–2,121 nodes in 8.3–8.6 s for 10,000 pods and 10,562 nodes in
// 337 s for 50,000. Goal: at most 1.04 × the bound (≤ 2,020 and ≤ 10,040) in under 100 ms and 1 s.
//
// BM_Packing_NodeGroupEstimator/N: Cluster Autoscaler's model, the node group's binpacking estimator on the
//   m5.xlarge-like template (4000m, 16 GiB, 110 pods).
// BM_Packing_NodePoolOneType/N: Karpenter's model, the provisioner with a NodePool whose only instance type is
//   that template.
// BM_Packing_NodePoolFullCatalog/N: the provisioner over us-east-1's whole catalog (a NodePool of on-demand amd64
//   types): the $/h of what it launches against a lower bound on the cheapest on-demand capacity that holds the
//   pods (the LP relaxation of covering their cpu, memory and pod count with the catalog's types, fractional
//   counts; see cost_lower_bound).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cloud/catalog.h"
#include "nodegroups/estimator.h"
#include "peer_workloads.h"
#include "provisioning/provisioner.h"
#include "scheduling/scheduler.h"
#include "scheduling/snapshot.h"
#include "us_east_1.h"

namespace scalewright::bench {
namespace {

// (a)'s N pending pods, in the order they are drawn. No owner, as the file says.
std::vector<Pod> workload_a(std::size_t count) {
  SplitMix64 rng(1);
  std::vector<Pod> pods;
  pods.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const PendingShape shape = next_pending_shape(rng);
    Pod pod = pod_with("pending-" + std::to_string(i), shape.cpu_milli, shape.memory, "ReplicaSet", "");
    pod.meta.owner_references.clear();
    pod.meta.uid = pod.meta.name;
    pods.push_back(std::move(pod));
  }
  return pods;
}

// The file's bound: no node holds more than its cpu, its memory or its 110 pods.
std::int64_t nodes_lower_bound(const std::vector<Pod>& pods) {
  std::int64_t cpu = 0, memory = 0;
  for (const Pod& pod : pods) {
    const ResourceList requests = pod.effective_requests();
    cpu += requests.cpu_milli();
    memory += requests.memory();
  }
  const auto n = static_cast<std::int64_t>(pods.size());
  auto ceil_div = [](std::int64_t a, std::int64_t b) { return (a + b - 1) / b; };
  return std::max({ceil_div(cpu, 4000), ceil_div(memory, 16 * 1024 * kMiB), ceil_div(n, 110)});
}

void report_nodes(benchmark::State& state, std::size_t nodes, std::int64_t bound) {
  state.counters["pods"] = static_cast<double>(state.range(0));
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["lower_bound"] = static_cast<double>(bound);
  state.counters["ratio_to_bound"] = static_cast<double>(nodes) / static_cast<double>(bound);
}

void BM_Packing_NodeGroupEstimator(benchmark::State& state) {
  const std::vector<Pod> pods = workload_a(static_cast<std::size_t>(state.range(0)));
  std::vector<std::shared_ptr<const Pod>> shared;
  for (const Pod& pod : pods) shared.push_back(std::make_shared<const Pod>(pod));
  nodegroups::NodeGroup group;
  group.id = "ng-0";
  group.max_size = 100000;
  group.template_node = template_node("template-node-for-ng-0", "ng-0");
  group.instance_type = "m5.xlarge";
  scheduling::ClusterSnapshot empty;
  nodegroups::Estimate estimate;
  for (auto _ : state) {
    // Grouping is part of the decision, as upstream's scale-up groups pods before it estimates.
    const std::vector<nodegroups::PodGroup> groups = nodegroups::group_pending_pods(shared);
    const scheduling::Scheduler scheduler;
    estimate = nodegroups::estimate_nodes(groups, group, empty, scheduler, group.max_size);
    benchmark::DoNotOptimize(estimate);
  }
  report_nodes(state, static_cast<std::size_t>(estimate.node_count), nodes_lower_bound(pods));
  state.counters["pods_placed"] = static_cast<double>(estimate.pods.size());
}
BENCHMARK(BM_Packing_NodeGroupEstimator)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMillisecond);

// The template as an instance type: allocatable exactly the template's (no kubelet reservations), on-demand in one
// zone at m5.xlarge's list price.
cloud::Catalog one_type_catalog() {
  cloud::InstanceHardware hw;
  hw.category = "m";
  hw.family = "m5";
  hw.generation = 5;
  hw.size = "xlarge";
  hw.vcpu = 4;
  hw.memory_mib = 16 * 1024;
  hw.arch = "amd64";
  hw.max_pods = 110;
  cloud::InstanceType type = cloud::make_instance_type("m5.xlarge", std::move(hw), {}, "bench-1");
  const Node node = template_node("m5.xlarge", "");
  type.capacity = node.capacity;
  type.allocatable = node.allocatable;
  type.overhead = ResourceList();
  type.offerings.push_back({"bench-1a", "bench1-az1", cloud::CapacityType::OnDemand, 0.192,
                            cloud::PriceSource::OnDemandList, true});
  return cloud::Catalog::from_instance_types("bench-1", {{"bench-1a", "bench1-az1"}}, {std::move(type)});
}

NodePool nodepool(std::vector<NodePoolRequirement> requirements) {
  NodePool pool;
  pool.meta.name = "default";
  pool.requirements = std::move(requirements);
  return pool;
}

NodePoolRequirement in(std::string_view key, const std::vector<std::string>& values) {
  LabelRequirement r;
  r.key = Symbol(key);
  r.op = SelectorOperator::In;
  for (const std::string& v : values) r.values.emplace_back(v);
  return NodePoolRequirement{r, std::nullopt};
}

provisioning::ProvisioningPlan provision(benchmark::State& state, const cloud::Catalog& catalog, const NodePool& pool,
                                         const std::vector<Pod>& pods) {
  scheduling::ClusterSnapshot empty;
  provisioning::UnavailableOfferings unavailable;
  provisioning::ProvisioningInput input;
  input.cluster = &empty;
  input.catalog = &catalog;
  input.unavailable = &unavailable;
  input.nodepools.push_back(pool);
  input.pending = pods;
  provisioning::ProvisioningPlan plan;
  for (auto _ : state) {
    plan = provisioning::plan_provisioning(input);
    benchmark::DoNotOptimize(plan);
  }
  state.counters["unschedulable"] = static_cast<double>(plan.unschedulable.size());
  return plan;
}

void BM_Packing_NodePoolOneType(benchmark::State& state) {
  static const cloud::Catalog catalog = one_type_catalog();
  const std::vector<Pod> pods = workload_a(static_cast<std::size_t>(state.range(0)));
  const provisioning::ProvisioningPlan plan = provision(state, catalog, nodepool({}), pods);
  report_nodes(state, plan.new_claims.size(), nodes_lower_bound(pods));
}
BENCHMARK(BM_Packing_NodePoolOneType)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMillisecond);

void BM_Packing_NodePoolFullCatalog(benchmark::State& state) {
  const cloud::Catalog& catalog = us_east_1();
  const NodePool pool = nodepool({in(karpenter_labels::capacity_type, {"on-demand"}), in(well_known::arch, {"amd64"}),
                                  in(well_known::os, {"linux"})});
  const std::vector<Pod> pods = workload_a(static_cast<std::size_t>(state.range(0)));
  const provisioning::ProvisioningPlan plan = provision(state, catalog, pool, pods);
  // What was launched: each claim at the cheapest offering of its cheapest type, as the launch would pick it.
  double launched = 0;
  for (const provisioning::NewNodeClaim& claim : plan.new_claims) {
    double cheapest = 0;
    for (const cloud::InstanceType* type : claim.instance_types) {
      if (std::optional<double> price = type->cheapest(cloud::CapacityType::OnDemand)) {
        if (cheapest == 0 || *price < cheapest) cheapest = *price;
      }
    }
    launched += cheapest;
  }
  double cpu = 0, memory = 0;
  for (const Pod& pod : pods) {
    const ResourceList requests = pod.effective_requests();
    cpu += static_cast<double>(requests.cpu_milli());
    memory += static_cast<double>(requests.memory());
  }
  const RequirementSet requirements = pool.requirement_set();
  std::vector<const cloud::InstanceType*> types;
  std::vector<double> prices;
  for (const cloud::InstanceType& type : catalog.instance_types()) {
    if (!requirements.compatible(RequirementSet::from_labels(type.labels))) continue;
    if (std::optional<double> price = type.cheapest(cloud::CapacityType::OnDemand)) {
      types.push_back(&type);
      prices.push_back(*price);
    }
  }
  const CostBound bound = cost_lower_bound({cpu, memory, static_cast<double>(pods.size())}, types, prices);
  state.counters["pods"] = static_cast<double>(pods.size());
  state.counters["nodes"] = static_cast<double>(plan.new_claims.size());
  state.counters["cost_per_h"] = launched;
  state.counters["lower_bound_per_h"] = bound.per_hour;
  state.counters["ratio_to_bound"] = launched / bound.per_hour;
  std::map<std::string, int> by_type;  // what was launched, by the type the launch would pick
  for (const provisioning::NewNodeClaim& claim : plan.new_claims) {
    if (!claim.instance_types.empty()) ++by_type[claim.instance_types.front()->name];
  }
  std::string launched_types;
  for (const auto& [type, count] : by_type) launched_types += " " + std::to_string(count) + " " + type;
  state.SetLabel("launched:" + launched_types + "; bound: " + bound.mix);
}
BENCHMARK(BM_Packing_NodePoolFullCatalog)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
