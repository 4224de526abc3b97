#include "nodegroups/expander.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "config/priority_expander.h"
#include "units.h"

namespace scalewright::nodegroups {
namespace {

NodeGroup group(const std::string& id, std::int64_t cpu, std::int64_t memory_mi, double price = 0) {
  NodeGroup g;
  g.id = id;
  g.max_size = 100;
  g.price_per_hour = price;
  g.template_node.meta.name = "template-node-for-" + id;
  g.template_node.capacity.set(resource_names::cpu(), cpu);
  g.template_node.capacity.set(resource_names::memory(), memory_mi * kMi);
  g.template_node.capacity.set(resource_names::pods(), 110);
  g.template_node.allocatable = g.template_node.capacity;
  return g;
}

std::vector<std::shared_ptr<const Pod>> pods(int n, std::int64_t cpu, std::int64_t memory_mi) {
  std::vector<std::shared_ptr<const Pod>> out;
  for (int i = 0; i < n; ++i) {
    Pod p;
    p.meta.name = "p-" + std::to_string(i);
    p.meta.namespace_ = "default";
    Container c;
    c.requests.set(resource_names::cpu(), cpu);
    c.requests.set(resource_names::memory(), memory_mi * kMi);
    p.spec.containers.push_back(c);
    out.push_back(std::make_shared<const Pod>(std::move(p)));
  }
  return out;
}

std::vector<std::size_t> all(const std::vector<Option>& options) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < options.size(); ++i) out.push_back(i);
  return out;
}

TEST(Expanders, MostPodsKeepsTies) {
  NodeGroup a = group("a", 2000, 8192), b = group("b", 2000, 8192), c = group("c", 2000, 8192);
  std::vector<Option> options{{&a, 1, pods(10, 100, 100), ""}, {&b, 1, pods(12, 100, 100), ""},
                              {&c, 2, pods(12, 100, 100), ""}};
  EXPECT_EQ(most_pods(options, all(options)), (std::vector<std::size_t>{1, 2}));
}

TEST(Expanders, LeastNodes) {
  NodeGroup a = group("a", 2000, 8192), b = group("b", 4000, 16384);
  std::vector<Option> options{{&a, 3, pods(10, 100, 100), ""}, {&b, 2, pods(10, 100, 100), ""}};
  EXPECT_EQ(least_nodes(options, all(options)), (std::vector<std::size_t>{1}));
}

TEST(Expanders, LeastWasteByCapacity) {
  // Ten pods of 300m / 1Gi: 3000m and 10Gi requested.
  //   a: 2 x (2000m, 8Gi):  cpu (4000 - 3000) / 4000 = 0.25, memory (16 - 10) / 16 = 0.375  -> 0.625
  //   b: 1 x (4000m, 32Gi): cpu 0.25, memory (32 - 10) / 32 = 0.6875                          -> 0.9375
  NodeGroup a = group("a", 2000, 8192), b = group("b", 4000, 32768);
  std::vector<Option> options{{&a, 2, pods(10, 300, 1024), ""}, {&b, 1, pods(10, 300, 1024), ""}};
  EXPECT_DOUBLE_EQ(waste_score(options[0]), 0.625);
  EXPECT_DOUBLE_EQ(waste_score(options[1]), 0.9375);
  EXPECT_EQ(least_waste(options, all(options)), (std::vector<std::size_t>{0}));
  // 2 x (2000m, 8Gi) and 1 x (4000m, 16Gi) waste the same: both stay for the next expander.
  NodeGroup c = group("c", 4000, 16384);
  options.push_back({&c, 1, pods(10, 300, 1024), ""});
  EXPECT_EQ(least_waste(options, all(options)), (std::vector<std::size_t>{0, 2}));
}

TEST(Expanders, PriceFavoursThePreferredNodeSize) {
  // 10 nodes in the cluster: the preferred node has 4 cores. Ten pods of 500m / 1Gi are worth
  // 10 x (0.5 x 0.033174 + 1 x 0.004446) = $0.21033/h; the stabilization pod (500m, 500Mi) $0.0187579/h.
  //   a: 4 x m5.large  ($0.096, 2 cores) = $0.384; ratio (0.384 + 0.0187579) / (0.21033 + 0.0187579) = 1.758093;
  //      unfitness max(4/2, 2/4) = 2, suppressed (2 - 1)(1 - tanh(3/15)) + 1 = 1.802625  -> 3.169182
  //   b: 2 x m5.xlarge ($0.192, 4 cores) = $0.384; same ratio; unfitness 1                  -> 1.758093
  NodeGroup a = group("a", 2000, 8192, 0.096), b = group("b", 4000, 16384, 0.192);
  std::vector<Option> options{{&a, 4, pods(10, 500, 1024), ""}, {&b, 2, pods(10, 500, 1024), ""}};
  ExpanderContext context{10};
  EXPECT_NEAR(price_score(options[0], context), 3.169182, 1e-6);
  EXPECT_NEAR(price_score(options[1], context), 1.758093, 1e-6);
  EXPECT_EQ(cheapest(options, all(options), context), (std::vector<std::size_t>{1}));
  // A GPU group's unfitness is pinned at 1000: 1758.09.
  NodeGroup gpu = b;
  gpu.gpu = true;
  Option gpu_option{&gpu, 2, pods(10, 500, 1024), ""};
  EXPECT_NEAR(price_score(gpu_option, context), 1758.093296, 1e-5);
}

TEST(Expanders, LeastCostPerWorthOfThePodsTaken) {
  // Four pods of 1000m / 1Gi. A pod's worth is its largest share of a node times the node's price, on the group
  // that prices it best:
  //   a: 2000m / 8Gi,  $0.125:   max(0.5, 0.125) x 0.125 = 0.0625
  //   b: 4000m / 16Gi, $0.1875:  max(0.25, 0.0625) x 0.1875 = 0.046875
  //   c: 2000m / 4Gi,  $0.09375: max(0.5, 0.25) x 0.09375 = 0.046875  -> worth 0.046875, 0.1875 for the four
  // Per worth: a, 2 nodes: 0.25 / 0.1875 = 1.333; b, 1 node: 0.1875 / 0.1875 = 1; c, 2 nodes: 0.1875 / 0.1875 = 1.
  NodeGroup a = group("a", 2000, 8192, 0.125), b = group("b", 4000, 16384, 0.1875), c = group("c", 2000, 4096, 0.09375);
  std::vector<Option> options{{&a, 2, pods(4, 1000, 1024), ""}, {&b, 1, pods(4, 1000, 1024), ""},
                              {&c, 2, pods(4, 1000, 1024), ""}};
  EXPECT_DOUBLE_EQ(cost_per_worth(options[0], options), 0.25 / 0.1875);
  EXPECT_DOUBLE_EQ(cost_per_worth(options[1], options), 1.0);
  EXPECT_DOUBLE_EQ(cost_per_worth(options[2], options), 1.0);
  EXPECT_EQ(least_cost(options, all(options)), (std::vector<std::size_t>{1, 2}));
  // As a chain, least-nodes breaks the tie.
  Result<ExpanderConfig> config = make_expander_config({"least-cost", "least-nodes"});
  ASSERT_TRUE(config) << config.error().message;
  std::mt19937_64 rng(1);
  EXPECT_EQ(choose_option(options, *config, ExpanderContext{}, rng), std::optional<std::size_t>(1));
  // An option that takes no pod is never the cheapest.
  options.push_back({&b, 1, {}, ""});
  EXPECT_EQ(least_cost(options, all(options)), (std::vector<std::size_t>{1, 2}));
}

constexpr const char* kPriorities = R"(10:
  - .*
50:
  - ng-spot-.*
)";

TEST(PriorityExpander, HighestMatchingPriorityWins) {
  Result<PriorityConfig> config = config::parse_priority_config(kPriorities);
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->tiers.size(), 2u);
  EXPECT_EQ(config->tiers[0].priority, 50);
  NodeGroup on_demand = group("ng-ondemand-a", 2000, 8192), spot_a = group("ng-spot-a", 2000, 8192),
            spot_b = group("ng-spot-b", 4000, 16384);
  std::vector<Option> options{{&on_demand, 1, pods(1, 100, 100), ""}, {&spot_a, 1, pods(1, 100, 100), ""},
                              {&spot_b, 1, pods(1, 100, 100), ""}};
  EXPECT_EQ(highest_priority(options, all(options), *config), (std::vector<std::size_t>{1, 2}));
  // Without the spot groups, the catch-all tier takes the on-demand one.
  EXPECT_EQ(highest_priority(options, {0}, *config), (std::vector<std::size_t>{0}));
}

TEST(PriorityExpander, WithoutItsPrioritiesOrUnknownTheChainIsRefused) {
  EXPECT_FALSE(make_expander_config({"priority"}).ok());
  EXPECT_NE(make_expander_config({"cheapest"}).error().message.find("unknown expander \"cheapest\""),
            std::string::npos);
}

TEST(ExpanderChain, PriorityThenLeastWaste) {
  Result<ExpanderConfig> config = make_expander_config({"priority", "least-waste"}, *config::parse_priority_config(kPriorities));
  ASSERT_TRUE(config.ok()) << config.error().message;
  // Both spot groups have priority 50; least-waste then prefers spot-a: 2 x (2000m, 8Gi) for 3000m / 10Gi wastes
  // 0.625 against spot-b's 1 x (4000m, 32Gi) 0.9375. The on-demand group wastes nothing but has priority 10.
  NodeGroup on_demand = group("ng-ondemand", 3000, 10240), spot_a = group("ng-spot-a", 2000, 8192),
            spot_b = group("ng-spot-b", 4000, 32768);
  std::vector<Option> options{{&on_demand, 1, pods(10, 300, 1024), ""}, {&spot_a, 2, pods(10, 300, 1024), ""},
                              {&spot_b, 1, pods(10, 300, 1024), ""}};
  std::mt19937_64 rng(1);
  EXPECT_EQ(choose_option(options, *config, {}, rng), std::optional<std::size_t>(1));
  // Least-waste alone takes the on-demand group (waste 0).
  Result<ExpanderConfig> waste_only = make_expander_config({"least-waste"});
  EXPECT_EQ(choose_option(options, *waste_only, {}, rng), std::optional<std::size_t>(0));
}

TEST(ExpanderChain, PriorityDropsGroupsNoRegexNames) {
  Result<ExpanderConfig> config = make_expander_config({"priority"}, *config::parse_priority_config("50:\n  - ng-spot-.*\n"));
  ASSERT_TRUE(config.ok());
  NodeGroup on_demand = group("ng-ondemand", 2000, 8192);
  std::vector<Option> options{{&on_demand, 1, pods(1, 100, 100), ""}};
  std::mt19937_64 rng(1);
  EXPECT_EQ(choose_option(options, *config, {}, rng), std::nullopt);
}

TEST(ExpanderChain, RandomTieBreakIsSeeded) {
  Result<ExpanderConfig> config = make_expander_config({"random"});
  ASSERT_TRUE(config.ok());
  NodeGroup a = group("a", 2000, 8192), b = group("b", 2000, 8192), c = group("c", 2000, 8192);
  std::vector<Option> options{{&a, 1, pods(1, 100, 100), ""}, {&b, 1, pods(1, 100, 100), ""},
                              {&c, 1, pods(1, 100, 100), ""}};
  std::set<std::size_t> seen;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 first(seed), second(seed);
    const auto x = choose_option(options, *config, {}, first);
    ASSERT_TRUE(x.has_value());
    EXPECT_EQ(x, choose_option(options, *config, {}, second));  // the same seed, the same choice
    seen.insert(*x);
  }
  EXPECT_EQ(seen.size(), 3u);  // and every option gets chosen for some seed
}

}  // namespace
}  // namespace scalewright::nodegroups
