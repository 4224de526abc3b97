// The configuration LP's bound on instances small enough to solve by hand, each beside the per-resource bound it
// replaces (cost_lower_bound: pods split across nodes, cpu and memory bought apart).
#include "configuration_lp.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "peer_workloads.h"

namespace scalewright::bench {
namespace {

constexpr std::int64_t kGiB = 1024 * kMiB;

ResourceList resources(std::int64_t cpu_milli, std::int64_t memory_gib, std::int64_t pods, std::int64_t gpus = 0) {
  ResourceList list;
  list.set(Symbol("cpu"), cpu_milli);
  list.set(Symbol("memory"), memory_gib * kGiB);
  list.set(Symbol("pods"), pods);
  if (gpus > 0) list.set(Symbol("nvidia.com/gpu"), gpus);
  return list;
}

PodClass pods(std::int64_t cpu_milli, std::int64_t memory_gib, std::int64_t count, std::int64_t gpus = 0) {
  return {std::to_string(cpu_milli) + "m/" + std::to_string(memory_gib) + "Gi", resources(cpu_milli, memory_gib, 1, gpus),
          count};
}

// The bound this one replaces, on the same instance: the sums of cpu, memory and pods, covered by fractional nodes.
double per_resource_bound(const std::vector<PodClass>& classes, const std::vector<NodeOption>& options) {
  Demand demand;
  for (const PodClass& c : classes) {
    demand.cpu_milli += static_cast<double>(c.requests.cpu_milli() * c.count);
    demand.memory += static_cast<double>(c.requests.memory() * c.count);
    demand.pods += static_cast<double>(c.count);
  }
  std::vector<cloud::InstanceType> types;
  for (const NodeOption& o : options) {
    cloud::InstanceType type;
    type.name = o.name;
    type.allocatable = o.allocatable;
    types.push_back(type);
  }
  std::vector<const cloud::InstanceType*> pointers;
  std::vector<double> prices;
  for (std::size_t i = 0; i < types.size(); ++i) {
    pointers.push_back(&types[i]);
    prices.push_back(options[i].price);
  }
  return cost_lower_bound(demand, pointers, prices).per_hour;
}

struct Case {
  std::string what;
  std::vector<PodClass> classes;
  std::vector<NodeOption> options;
  double per_resource;  // the old bound
  double bound;         // the configuration LP's optimum
  std::vector<std::pair<std::string, double>> mix;
  double integer;  // the integer optimum
};

TEST(ConfigurationLp, BoundsHandComputedInstancesAtTheirLpOptimumAndFindsTheirBestPlans) {
  const std::vector<Case> cases = {
      // x: 4 cpu, 4 GiB holds 2 of A (2 cpu/1 GiB) or 1 of B (1 cpu/4 GiB), never both (3 cpu, 5 GiB).
      // y: 2 cpu, 8 GiB holds 1 of A or 2 of B (2 cpu, 8 GiB), never both (3 cpu). Both $2: the cheapest is $1 per
      // pod for either class (A on x, B on y), so the LP is 3 + 3 = $6 (1.5 x + 1.5 y; duals 1 and 1 prove it).
      // Whole nodes: A needs two nodes, B two more (any mix), $8. The old bound covers 9 cpu and 15 GiB:
      // 4x + 2y = 9 and 4x + 8y = 15 give y = 1, x = 1.75, $5.50.
      {"cpu and memory types",
       {pods(2000, 1, 3), pods(1000, 4, 3)},
       {{"x", resources(4000, 4, 110), {}, 2.0}, {"y", resources(2000, 8, 110), {}, 2.0}},
       5.5,
       6.0,
       {{"x", 1.5}, {"y", 1.5}},
       8.0},
      // One node of 4 cpu holds one 2500m pod and one 1500m pod, exactly full: 10 such nodes at $0.50, and no
      // node holds two of the 2500m pods, so 10 nodes is also the LP's least (dual 0.5 on the 2500m pods). The
      // old bound agrees here: 40 cpu on 4-cpu nodes.
      {"the LP bound is the integer optimum",
       {pods(2500, 1, 10), pods(1500, 1, 10)},
       {{"m", resources(4000, 16, 110), {}, 0.5}},
       5.0,
       5.0,
       {{"m", 10.0}},
       5.0},
      // Pods of 3 cpu on 4-cpu nodes cannot share one: 3 nodes, $3. The old bound splits them: 9 / 4 = 2.25.
      {"pods of one class cannot share a node",
       {pods(3000, 1, 3)},
       {{"m", resources(4000, 16, 110), {}, 1.0}},
       2.25,
       3.0,
       {{"m", 3.0}},
       3.0},
      // An extended resource: the 3 gpu pods (1 cpu, 1 GiB, 1 gpu) need the $3 gpu node (4 cpu, 2 gpus), two per
      // node; the 4 plain pods (1 cpu) go on $1 4-cpu nodes or fill a gpu node's other 2 cpu. LP: 1.5 gpu nodes of
      // (2 gpu pods, 2 plain) and a quarter plain node for the last plain pod, 4.5 + 0.25 = $4.75 (duals 1.25 and
      // 0.25: 2·1.25 + 2·0.25 = 3 on the gpu node, 4·0.25 = 1 on the plain one). Whole nodes: two gpu nodes hold
      // everything, $6. The old bound sees no gpu: 7 cpu on $1 4-cpu nodes, $1.75.
      {"an extended resource",
       {pods(1000, 1, 3, 1), pods(1000, 1, 4)},
       {{"plain", resources(4000, 16, 110), {}, 1.0}, {"gpu", resources(4000, 16, 110, 2), {}, 3.0}},
       1.75,
       4.75,
       {{"gpu", 1.5}, {"plain", 0.25}},
       6.0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    EXPECT_NEAR(per_resource_bound(c.classes, c.options), c.per_resource, 1e-9);
    const ConfigurationLpResult result = solve_configuration_lp(c.classes, c.options);
    EXPECT_TRUE(result.converged);
    EXPECT_NEAR(result.lower_bound, c.bound, 1e-4);
    EXPECT_LE(result.lower_bound, c.bound);  // never above the true optimum
    const std::map<std::string, double> mix(result.mix.begin(), result.mix.end());
    ASSERT_EQ(mix.size(), c.mix.size());
    for (const auto& [type, count] : c.mix) {
      ASSERT_TRUE(mix.contains(type)) << type;
      EXPECT_NEAR(mix.at(type), count, 1e-6) << type;
    }
    EXPECT_NEAR(result.integer_cost, c.integer, 1e-9);
    EXPECT_TRUE(result.integer_proven);
    EXPECT_TRUE(result.unplaceable.empty());
  }
}

// The gpu instance above, stopped after its first master: the start's columns are each class alone (2 gpu pods on
// a gpu node, $3; 4 plain pods on a plain node, $1), so 1.5 + 1 nodes, $5.50, duals π = (1.5, 0.25). Pricing the
// gpu node finds 2 gpu pods and 2 plain ones, worth 3.5 for its $3; the plain node's best is worth 1 for $1.
// Farley's bound: 5.50 / (3.5 / 3) = 33/7 ≈ 4.714, below the LP's 4.75 as it must be.
TEST(ConfigurationLp, StoppedEarlyItReportsFarleysBound) {
  const std::vector<PodClass> classes = {pods(1000, 1, 3, 1), pods(1000, 1, 4)};
  const std::vector<NodeOption> options = {{"plain", resources(4000, 16, 110), {}, 1.0},
                                           {"gpu", resources(4000, 16, 110, 2), {}, 3.0}};
  ConfigurationLpOptions settings;
  settings.max_iterations = 1;
  const ConfigurationLpResult result = solve_configuration_lp(classes, options, settings);
  EXPECT_FALSE(result.converged);
  EXPECT_EQ(result.iterations, 1u);
  EXPECT_NEAR(result.master_cost, 5.5, 1e-9);
  EXPECT_NEAR(result.lower_bound, 33.0 / 7.0, 1e-4);
  EXPECT_LE(result.lower_bound, 33.0 / 7.0);
}

// A class no type holds (8 cpu on 4-cpu nodes) is named and left out; the bound is the rest's. DaemonSet overhead
// comes off each node: 1 cpu of it leaves 3, so the 2-cpu pods go one to a node ($1 each, 3 of them).
// A type that is dearer and no larger than another ("worse") is never used.
TEST(ConfigurationLp, LeavesOutAClassNoTypeHoldsAndSubtractsDaemonSetOverhead) {
  const std::vector<PodClass> classes = {pods(8000, 1, 2), pods(2000, 1, 3)};
  const std::vector<NodeOption> options = {{"m", resources(4000, 16, 110), resources(1000, 0, 1), 1.0},
                                           {"worse", resources(3000, 8, 110), {}, 1.5}};
  const ConfigurationLpResult result = solve_configuration_lp(classes, options);
  EXPECT_EQ(result.unplaceable, std::vector<std::size_t>{0});
  EXPECT_EQ(result.options_priced, 1u);
  EXPECT_TRUE(result.converged);
  EXPECT_NEAR(result.lower_bound, 3.0, 1e-4);
  EXPECT_NEAR(result.integer_cost, 3.0, 1e-9);
  EXPECT_EQ(result.integer_plan_text(), "3 m");
}

}  // namespace
}  // namespace scalewright::bench
