// `scalewright simulate` as a user runs it: the built-in default and every example in examples/.
#include "cli/simulate_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

#include "cloud/catalog.h"

namespace scalewright::cli {
namespace {

const std::string kSource = SCALEWRIGHT_SOURCE_DIR;

nlohmann::json simulate_json(const std::vector<std::string>& files) {
  SimulateOptions options;
  options.files = files;
  options.quiet = true;
  options.output_json = (std::filesystem::temp_directory_path() / ("scalewright-simulate-" + std::to_string(::getpid()) + ".json")).string();
  std::ostringstream out, err;
  EXPECT_EQ(run_simulate(options, out, err), 0) << err.str();
  std::ifstream file(options.output_json);
  nlohmann::json report = nlohmann::json::parse(file);
  std::filesystem::remove(options.output_json);
  return report;
}

std::vector<nlohmann::json> entries(const nlohmann::json& report, const std::string& kind) {
  std::vector<nlohmann::json> out;
  for (const auto& e : report["timeline"]) {
    if (e["kind"] == kind) out.push_back(e);
  }
  return out;
}

// The cheapest spot offering, over the types the inflate NodePool allows (amd64, c/m/r, generation > 2), whose
// allocatable holds `pods` pods of 1 cpu and 1 GiB: worked out here from the catalog, independently of the
// provisioner.
std::string cheapest_type_for_inflate_pods(int pods) {
  Result<cloud::Catalog> catalog = cloud::load_catalog(kSource + "/data/aws");
  EXPECT_TRUE(catalog.ok());
  std::string best;
  double best_price = std::numeric_limits<double>::max();
  for (const cloud::InstanceType& t : catalog->instance_types()) {
    const cloud::InstanceHardware& h = t.hardware;
    if (h.arch != "amd64" || (h.category != "c" && h.category != "m" && h.category != "r")) continue;
    if (!h.generation || *h.generation <= 2) continue;
    if (t.allocatable.cpu_milli() < pods * 1000 || t.allocatable.memory() < pods * (std::int64_t{1} << 30) ||
        t.allocatable.pods() < pods) {
      continue;
    }
    std::optional<double> spot = t.cheapest(cloud::CapacityType::Spot);
    if (spot && *spot < best_price) {
      best_price = *spot;
      best = t.name;
    }
  }
  return best;
}

TEST(Simulate, DefaultRunIsTheInflateDemo) {
  nlohmann::json report = simulate_json({});
  EXPECT_EQ(report["scenario"], "inflate");
  std::vector<nlohmann::json> launches = entries(report, "launch");
  ASSERT_GE(launches.size(), 2u);
  // Scaled to 5 at 10 s: one node, of the cheapest type that holds five 1-cpu/1-GiB pods.
  const std::string first = launches[0]["message"];
  EXPECT_EQ(launches[0]["at_seconds"], 11.0);  // pending at 10 s, batch closed after 1 s idle
  EXPECT_NE(first.find(" " + cheapest_type_for_inflate_pods(5) + " "), std::string::npos) << first;
  EXPECT_NE(first.find("for 5 pods"), std::string::npos) << first;
  // Scaled to 50: a few well-packed nodes, every pod bound; back to 0: every node removed.
  EXPECT_LE(launches.size(), 4u);
  EXPECT_EQ(report["summary"]["pod_wait"]["pods_bound"], 50);
  EXPECT_EQ(report["summary"]["pod_wait"]["pods_pending_at_end"], 0);
  EXPECT_EQ(report["summary"]["nodes_at_end"], 0);
  EXPECT_EQ(entries(report, "removed").size(), launches.size());
}

TEST(Simulate, InflateExampleFileGivesTheSameReportAsTheBuiltInDefault) {
  nlohmann::json builtin = simulate_json({});
  nlohmann::json file = simulate_json({kSource + "/examples/inflate/inflate.yaml"});
  EXPECT_EQ(builtin.dump(), file.dump());
}

TEST(Simulate, NginxOneHundredFiftyReplicasAllRun) {
  nlohmann::json report = simulate_json({kSource + "/examples/nginx/nginx.yaml"});
  EXPECT_EQ(report["summary"]["pod_wait"]["pods_bound"], 150);
  EXPECT_EQ(report["summary"]["pod_wait"]["pods_pending_at_end"], 0);
  // 150 × 250m = 37.5 cpu: the NodePool's 200-cpu limit is never near.
  EXPECT_LE(report["summary"]["peak_nodes"].get<int>(), 4);
}

TEST(Simulate, DedicatedDatabaseNodesTakeOnlyThePodsThatTolerateThem) {
  nlohmann::json report = simulate_json({kSource + "/examples/dedicated-databases/dedicated-databases.yaml"});
  int postgres = 0, nginx = 0;
  std::set<std::string> postgres_nodes;
  for (const auto& p : report["pods"]) {
    const std::string pod = p["pod"];
    ASSERT_TRUE(p["node"].is_string()) << pod << " never ran";
    if (pod.rfind("shop/postgres-", 0) == 0) {
      ++postgres;
      EXPECT_EQ(p["nodepool"], "databases") << pod;
      postgres_nodes.insert(p["node"].get<std::string>());
    } else if (pod.rfind("shop/nginx-", 0) == 0) {
      ++nginx;
      EXPECT_EQ(p["nodepool"], "general") << pod << ": nginx does not tolerate dedicated=databases";
    }
  }
  EXPECT_EQ(postgres, 2);
  EXPECT_EQ(nginx, 6);
  EXPECT_EQ(postgres_nodes.size(), 2u);  // hostname anti-affinity: one replica per node
}

TEST(Simulate, InvalidScenarioIsOneErrorLine) {
  const std::string path = (std::filesystem::temp_directory_path() / "scalewright-bad-scenario.yaml").string();
  std::ofstream(path) << "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: bad}\n"
                         "spec:\n  timeline:\n  - {at: soon, scale: {kind: Deployment, name: x, replicas: 1}}\n";
  SimulateOptions options;
  options.files = {path};
  std::ostringstream out, err;
  EXPECT_EQ(run_simulate(options, out, err), 1);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(err.str(), "error: " + path + " doc 1 Scenario/bad: spec.timeline[0].at: invalid duration \"soon\"\n");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace scalewright::cli
