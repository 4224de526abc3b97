// Group-less provisioning at scale (issue: "the provisioning decision for 1,000, 10,000 and 50,000 pending pods:
// target under 1 s for 50,000 on one core"), on the workload of Karpenter's own scheduling benchmark
// (kubernetes-sigs/karpenter, pkg/controllers/provisioning/scheduling/scheduling_benchmark_test.go) so that the
// figures compare: an empty cluster, one NodePool that allows everything, at least 400 instance types, pods
// asking for 100–1500m cpu and 100–4096Mi memory, and an even mix of constraint kinds.
//
// The pending batch, 20 % of each kind (Karpenter draws its label values at random; here every kind is made of
// Deployments whose pods share an `app` label, so that spread and affinity always have peers):
//   generic          no constraint; Deployments of 50
//   zone-spread      topologySpreadConstraints maxSkew 1 on topology.kubernetes.io/zone, DoNotSchedule,
//                    selecting its own Deployment; Deployments of 50
//   host-spread      the same on kubernetes.io/hostname; Deployments of 50
//   affinity         required podAffinity to its own Deployment: even Deployments on topology.kubernetes.io/zone
//                    (50 pods: one zone for all), odd ones on kubernetes.io/hostname (10 pods: one node for all,
//                    small enough that the group fits one node)
//   anti-affinity    required podAntiAffinity to its own Deployment on kubernetes.io/hostname; Deployments of 50
// Requests are drawn uniformly (SplitMix64, seed 42): cpu 100..1500 m, memory 100..4096 Mi, so nearly every pod
// has requests of its own (harder on equivalence classes than Karpenter's five cpu and six memory sizes).
// Expect `unschedulable` to be 0: a hostname-affinity group is planned as a unit (its largest pod reserves room
// for all ten), so other pods cannot fill its claim before the group's smaller pods come. Before that, 24 of
// 1,000, 295 of 10,000 and 1,493 of 50,000 were left pending (as Karpenter, packing largest first, leaves them).
//
// BM_Provision/<pods> uses a synthetic catalog of 432 types (synthetic_catalog below); BM_ProvisionFullCatalog/
// <pods> the real us-east-1 catalog from data/aws; BM_ProvisionKarpenterSizes/<pods> the synthetic catalog with
// requests drawn from Karpenter's own five cpu and six memory sizes instead.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "api/nodepool.h"
#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"
#include "peer_workloads.h"
#include "us_east_1.h"
#include "process_memory.h"
#include "provisioning/nodeclaim_builder.h"
#include "provisioning/provisioner.h"
#include "scheduling/snapshot.h"

namespace scalewright::bench {
namespace {

using provisioning::ProvisioningInput;
using provisioning::ProvisioningPlan;

// ---- the synthetic catalog ----

struct Size {
  std::int64_t vcpu;
  const char* name;
};
constexpr Size kSizes[] = {{1, "medium"},   {2, "large"},     {4, "xlarge"},    {8, "2xlarge"},
                           {12, "3xlarge"}, {16, "4xlarge"},  {24, "6xlarge"},  {32, "8xlarge"},
                           {48, "12xlarge"}, {64, "16xlarge"}, {72, "18xlarge"}, {96, "24xlarge"}};

struct Category {
  const char* name;
  std::int64_t gib_per_vcpu;
  double usd_per_vcpu_hour;  // on-demand, before the variant's and the noise's factors
};
constexpr Category kCategories[] = {{"c", 2, 0.0425}, {"m", 4, 0.048}, {"r", 8, 0.063}};

struct Variant {
  const char* suffix;
  const char* arch;
  const char* cpu_manufacturer;
  double price_factor;
  bool local_nvme;
};
constexpr Variant kVariants[] = {{"i", "amd64", "intel", 1.0, false},
                                 {"a", "amd64", "amd", 0.9, false},
                                 {"g", "arm64", "aws", 0.8, false},
                                 {"d", "amd64", "intel", 1.13, true}};

constexpr std::int64_t kGenerations[] = {5, 6, 7};

// 3 categories (2, 4, 8 GiB per vcpu) × 3 generations × 4 variants (intel, amd, arm64, intel with NVMe) = 36
// families, × 12 sizes from 1 to 96 vcpu = 432 types. Offered on-demand and spot in 3 zones; the on-demand price
// is proportional to size (± 5 % noise per type), spot is 30–70 % of it, drawn per zone.
cloud::Catalog synthetic_catalog() {
  const std::vector<cloud::Zone> zones{{"bench-1a", "bench1-az1"}, {"bench-1b", "bench1-az2"}, {"bench-1c", "bench1-az3"}};
  SplitMix64 rng(400);
  auto uniform = [&rng] { return static_cast<double>(rng.next() >> 11) / static_cast<double>(1ULL << 53); };
  std::vector<cloud::InstanceType> types;
  for (const Category& category : kCategories) {
    for (std::int64_t generation : kGenerations) {
      for (const Variant& variant : kVariants) {
        const std::string family = category.name + std::to_string(generation) + variant.suffix;
        for (const Size& size : kSizes) {
          cloud::InstanceHardware hw;
          hw.category = category.name;
          hw.family = family;
          hw.generation = generation;
          hw.size = size.name;
          hw.vcpu = size.vcpu;
          hw.memory_mib = size.vcpu * category.gib_per_vcpu * 1024;
          hw.arch = variant.arch;
          hw.cpu_manufacturer = variant.cpu_manufacturer;
          hw.hypervisor = "nitro";
          hw.max_pods = size.vcpu == 1 ? 8 : size.vcpu == 2 ? 29 : size.vcpu == 4 ? 58 : 110;
          hw.network_bandwidth_mbps = 750 * size.vcpu;
          if (variant.local_nvme) hw.local_nvme_gib = 75 * size.vcpu;
          cloud::InstanceType type =
              cloud::aws::make_instance_type(family + "." + size.name, std::move(hw), {}, "bench-1");
          const double on_demand = static_cast<double>(size.vcpu) * category.usd_per_vcpu_hour *
                                   variant.price_factor * (1.0 + static_cast<double>(generation - 5) * 0.02) *
                                   (0.95 + 0.1 * uniform());
          for (const cloud::Zone& zone : zones) {
            type.offerings.push_back({zone.name, zone.zone_id, cloud::CapacityType::OnDemand, on_demand,
                                      cloud::PriceSource::OnDemandList, true});
            type.offerings.push_back({zone.name, zone.zone_id, cloud::CapacityType::Spot,
                                      on_demand * (0.3 + 0.4 * uniform()), cloud::PriceSource::SpotEstimate, true});
          }
          types.push_back(std::move(type));
        }
      }
    }
  }
  return cloud::Catalog::from_instance_types("bench-1", zones, std::move(types));
}


// ---- the pending pods ----

enum class Kind { Generic, ZoneSpread, HostSpread, Affinity, AntiAffinity };
constexpr Kind kKinds[] = {Kind::Generic, Kind::ZoneSpread, Kind::HostSpread, Kind::Affinity, Kind::AntiAffinity};
constexpr const char* kKindNames[] = {"generic", "zone-spread", "host-spread", "affinity", "anti-affinity"};

LabelSelector app_selector(const std::string& app) {
  return LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol(app)}}}};
}

PodAffinityTerm app_term(const std::string& app, std::string_view topology_key) {
  PodAffinityTerm term;
  term.label_selector = app_selector(app);
  term.topology_key = Symbol(topology_key);
  return term;
}

TopologySpreadConstraint app_spread(const std::string& app, std::string_view topology_key) {
  TopologySpreadConstraint spread;
  spread.max_skew = 1;
  spread.topology_key = Symbol(topology_key);
  spread.when_unsatisfiable = UnsatisfiableConstraintAction::DoNotSchedule;
  spread.label_selector = app_selector(app);
  return spread;
}

// How requests are drawn: uniformly over the ranges (the workload), or from the five cpu and six memory
// sizes Karpenter's benchmark picks from (randomCPU, randomMemory), which gives equivalence classes many members.
enum class Requests { Uniform, KarpenterSizes };

std::vector<Pod> diverse_pods(std::size_t count, Requests requests = Requests::Uniform) {
  static constexpr std::int64_t kKarpenterCpu[] = {100, 250, 500, 1000, 1500};
  static constexpr std::int64_t kKarpenterMemMi[] = {100, 256, 512, 1024, 2048, 4096};
  SplitMix64 rng(42);
  auto between = [&rng](std::int64_t lo, std::int64_t hi) {
    return lo + static_cast<std::int64_t>(rng.next() % static_cast<std::uint64_t>(hi - lo + 1));
  };
  auto cpu = [&] { return requests == Requests::Uniform ? between(100, 1500) : kKarpenterCpu[rng.next() % 5]; };
  auto memory = [&] {
    return (requests == Requests::Uniform ? between(100, 4096) : kKarpenterMemMi[rng.next() % 6]) * kMiB;
  };
  std::vector<Pod> pods;
  pods.reserve(count);
  for (std::size_t k = 0; k < 5; ++k) {
    const Kind kind = kKinds[k];
    // An even split; the remainder goes to the generic kind, as Karpenter does.
    const std::size_t n = count / 5 + (k == 0 ? count % 5 : 0);
    std::size_t group = 0;
    std::size_t in_group = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const bool host_affinity = kind == Kind::Affinity && group % 2 == 1;
      const std::size_t group_size = host_affinity ? 10 : 50;
      const std::string app = std::string(kKindNames[k]) + "-" + std::to_string(group);
      const std::int64_t cpu_milli = cpu();
      Pod pod = pod_with(app + "-" + std::to_string(in_group), cpu_milli, memory(), "ReplicaSet", app);
      pod.meta.uid = pod.meta.name;
      pod.meta.labels.set(Symbol("app"), Symbol(app));
      switch (kind) {
        case Kind::Generic: break;
        case Kind::ZoneSpread:
          pod.spec.topology_spread_constraints.push_back(app_spread(app, well_known::zone));
          break;
        case Kind::HostSpread:
          pod.spec.topology_spread_constraints.push_back(app_spread(app, well_known::hostname));
          break;
        case Kind::Affinity:
          pod.spec.affinity.required_pod_affinity.push_back(
              app_term(app, host_affinity ? well_known::hostname : well_known::zone));
          break;
        case Kind::AntiAffinity:
          pod.spec.affinity.required_pod_anti_affinity.push_back(app_term(app, well_known::hostname));
          break;
      }
      pods.push_back(std::move(pod));
      if (++in_group == group_size) {
        in_group = 0;
        ++group;
      }
    }
  }
  return pods;
}

NodePool allow_everything() {
  NodePool pool;
  pool.meta.name = "default";
  return pool;
}

// ---- the benchmarks ----

enum class Packing { Priced, AsKarpenter };

void run_provisioning(benchmark::State& state, const cloud::Catalog& catalog, Requests requests = Requests::Uniform,
                      Packing packing = Packing::Priced) {
  const auto count = static_cast<std::size_t>(state.range(0));
  malloc_trim(0);
  const double rss_before_input = current_rss_mib();
  scheduling::ClusterSnapshot empty;
  provisioning::UnavailableOfferings unavailable;
  ProvisioningInput input;
  input.cluster = &empty;
  input.catalog = &catalog;
  input.unavailable = &unavailable;
  input.nodepools.push_back(allow_everything());
  if (packing == Packing::AsKarpenter) {
    input.nodepools.back().meta.annotations[std::string(provisioning::kPackAsKarpenterAnnotation)] = "true";
  }
  input.pending = diverse_pods(count, requests);
  const double input_mib = current_rss_mib() - rss_before_input;
  reset_peak_rss();

  ProvisioningPlan plan;
  for (auto _ : state) {
    // plan_provisioning reads its input through a const reference: the same input serves every iteration.
    ProvisioningPlan fresh = provisioning::plan_provisioning(input);
    benchmark::DoNotOptimize(fresh);
    state.PauseTiming();
    plan = std::move(fresh);  // the previous plan is freed outside the timed region
    state.ResumeTiming();
  }

  std::size_t on_claims = 0;
  for (const auto& claim : plan.new_claims) on_claims += claim.pods.size();
  // Each claim at the offering its launch would take first.
  state.counters["cost_per_h"] = plan.price_per_hour;
  state.counters["catalog_types"] = static_cast<double>(catalog.size());
  state.counters["pods"] = static_cast<double>(count);
  state.counters["new_claims"] = static_cast<double>(plan.new_claims.size());
  state.counters["pods_scheduled"] = static_cast<double>(plan.existing.size() + on_claims);
  state.counters["unschedulable"] = static_cast<double>(plan.unschedulable.size());
  state.counters["pods_per_s"] = benchmark::Counter(static_cast<double>(count), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["input_MiB"] = input_mib;  // the pending pods themselves, built before the peak is reset
  state.counters["peak_rss_MiB"] = peak_rss_since_reset_mib();
  if (!plan.unschedulable.empty() && std::getenv("SCALEWRIGHT_BENCH_VERBOSE")) {
    std::cerr << count << " pods: first unschedulable: pod " << input.pending[plan.unschedulable[0].pod].meta.name
              << ": " << plan.unschedulable[0].reason << "\n";
  }
}

void BM_Provision(benchmark::State& state) {
  static const cloud::Catalog catalog = synthetic_catalog();
  run_provisioning(state, catalog);
}
BENCHMARK(BM_Provision)->Arg(1000)->Arg(10000)->Arg(50000)->Unit(benchmark::kMillisecond);

// data/aws's us-east-1 read into a catalog (three CSV tables, 1,366 types priced): what `simulate` and the AWS
// providers' fallback pay once at start. Target under 100 ms.
void BM_LoadCatalogUsEast1(benchmark::State& state) {
  for (auto _ : state) {
    Result<cloud::Catalog> loaded = cloud::aws::load_catalog(std::string(SCALEWRIGHT_SOURCE_DIR) + "/data/aws");
    if (!loaded) {
      state.SkipWithError(loaded.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(loaded->size());
  }
}
BENCHMARK(BM_LoadCatalogUsEast1)->Unit(benchmark::kMillisecond);

void BM_ProvisionFullCatalog(benchmark::State& state) { run_provisioning(state, us_east_1()); }
// Arg 1: what every provisioning pass pays whatever its size (scalewright run without a batch window makes a pass
// of nearly every pod that arrives).
BENCHMARK(BM_ProvisionFullCatalog)->Arg(1)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// The same batches packed as Karpenter packs them (the NodePool annotated scalewright.dev/pack-as-karpenter):
// NodeClaims grow while any type holds them, whatever it costs (cost_per_h against the default's).
void BM_ProvisionAsKarpenter(benchmark::State& state) {
  static const cloud::Catalog catalog = synthetic_catalog();
  run_provisioning(state, catalog, Requests::Uniform, Packing::AsKarpenter);
}
BENCHMARK(BM_ProvisionAsKarpenter)->Arg(10000)->Unit(benchmark::kMillisecond);
void BM_ProvisionFullCatalogAsKarpenter(benchmark::State& state) {
  run_provisioning(state, us_east_1(), Requests::Uniform, Packing::AsKarpenter);
}
BENCHMARK(BM_ProvisionFullCatalogAsKarpenter)->Arg(10000)->Unit(benchmark::kMillisecond);

// The same batch with Karpenter's own request sizes (30 combinations): how much of BM_Provision's cost comes from
// pods whose requests are all different.
void BM_ProvisionKarpenterSizes(benchmark::State& state) {
  static const cloud::Catalog catalog = synthetic_catalog();
  run_provisioning(state, catalog, Requests::KarpenterSizes);
}
BENCHMARK(BM_ProvisionKarpenterSizes)->Arg(10000)->Arg(50000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
