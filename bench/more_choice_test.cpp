// Issue [11]'s promise, checked on the real us-east-1 catalog: a NodePool over the whole catalog costs no more than
// the same NodePool narrowed to any of the subsets Karpenter's users narrow theirs to (within 2 %), on-demand and
// spot alike, for the three Deployments and for peer workload (a). Before the price rule the whole catalog
// cost 2.6 times the narrowest subset for the three Deployments (a u7i-12tb.224xlarge among three nodes).
// Beside the benchmarks, as configuration_lp_test is: it needs their workloads and the catalog in data/aws.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "api/nodepool.h"
#include "cloud/aws/labels.h"
#include "peer_workloads.h"
#include "provisioning/provisioner.h"
#include "scheduling/snapshot.h"
#include "us_east_1.h"

namespace scalewright::bench {
namespace {

NodePoolRequirement requirement(std::string_view key, SelectorOperator op, const std::vector<std::string>& values) {
  LabelRequirement r;
  r.key = Symbol(key);
  r.op = op;
  for (const std::string& v : values) r.values.emplace_back(v);
  return NodePoolRequirement{r, std::nullopt};
}

struct Choice {
  std::string name;
  std::vector<NodePoolRequirement> narrowed_by;  // beside arch, os and capacity type
};

// The whole catalog first, then the subsets.
const std::vector<Choice>& choices() {
  using enum SelectorOperator;
  static const std::vector<Choice> all = {
      {"the whole catalog", {}},
      {"c, m, r of generation > 2",
       {requirement(cloud::aws::labels::instance_category, In, {"c", "m", "r"}),
        requirement(cloud::aws::labels::instance_generation, Gt, {"2"})}},
      {"c, m, r of generation > 2, at most 64 vCPUs",
       {requirement(cloud::aws::labels::instance_category, In, {"c", "m", "r"}),
        requirement(cloud::aws::labels::instance_generation, Gt, {"2"}),
        requirement(cloud::aws::labels::instance_cpu, Lt, {"65"})}},
      {"the c6a, m6a and r6a families", {requirement(cloud::aws::labels::instance_family, In, {"c6a", "m6a", "r6a"})}},
      {"sizes large to 4xlarge",
       {requirement(cloud::aws::labels::instance_size, In, {"large", "xlarge", "2xlarge", "4xlarge"})}},
  };
  return all;
}

// What the plan's claims cost an hour, each at the offering its launch takes first.
double plan_cost(const std::vector<Pod>& pods, const std::string& capacity_type, const Choice& choice) {
  NodePool pool;
  pool.meta.name = "default";
  pool.requirements = {requirement(well_known::arch, SelectorOperator::In, {"amd64"}),
                       requirement(well_known::os, SelectorOperator::In, {"linux"}),
                       requirement(karpenter_labels::capacity_type, SelectorOperator::In, {capacity_type})};
  pool.requirements.insert(pool.requirements.end(), choice.narrowed_by.begin(), choice.narrowed_by.end());
  scheduling::ClusterSnapshot empty;
  provisioning::UnavailableOfferings unavailable;
  provisioning::ProvisioningInput input;
  input.cluster = &empty;
  input.catalog = &us_east_1();
  input.unavailable = &unavailable;
  input.nodepools.push_back(pool);
  input.pending = pods;
  const provisioning::ProvisioningPlan plan = provisioning::plan_provisioning(input);
  EXPECT_TRUE(plan.unschedulable.empty()) << choice.name;
  double cost = 0;
  for (const provisioning::NewNodeClaim& claim : plan.new_claims) {
    const auto launch = provisioning::choose_offering(claim, unavailable, Instant{});
    EXPECT_TRUE(launch.has_value()) << choice.name;
    if (launch) cost += launch->offering->price_per_hour;
  }
  return cost;
}

void expect_monotone(const std::vector<Pod>& pods, const std::string& capacity_type) {
  const double whole = plan_cost(pods, capacity_type, choices().front());
  for (std::size_t i = 1; i < choices().size(); ++i) {
    const double narrowed = plan_cost(pods, capacity_type, choices()[i]);
    EXPECT_LE(whole, narrowed * 1.02) << capacity_type << ": the whole catalog costs $" << whole << "/h, "
                                      << choices()[i].name << " $" << narrowed << "/h";
  }
}

TEST(MoreChoice, TheWholeCatalogCostsNoMoreThanAnySubsetForTheThreeDeployments) {
  const std::vector<Pod> pods = three_deployments(1000);
  expect_monotone(pods, "on-demand");
  expect_monotone(pods, "spot");
}

TEST(MoreChoice, TheWholeCatalogCostsNoMoreThanAnySubsetForPeerWorkloadA) {
  const std::vector<Pod> pods = workload_a(1000);
  expect_monotone(pods, "on-demand");
  expect_monotone(pods, "spot");
}

// Peer workload (b)'s 500 pending pods (none fits on its full nodes, so new nodes take them all). Workload (c) is a
// scale-down: it has no pending pod to place.
TEST(MoreChoice, TheWholeCatalogCostsNoMoreThanAnySubsetForPeerWorkloadB) {
  const std::vector<Pod> pods = scale_up_cluster().pending;
  expect_monotone(pods, "on-demand");
  expect_monotone(pods, "spot");
}

}  // namespace
}  // namespace scalewright::bench
