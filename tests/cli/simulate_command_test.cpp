// `scalewright simulate` as a user runs it: the built-in default and every example in examples/.
#include "cli/simulate_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"
#include "sim/report.h"
#include "scenario_files.h"
#include "source_dir.h"

namespace scalewright::cli {
namespace {

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
  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(kSource + "/data/aws");
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

TEST(Simulate, StreamedTimelineIsByteForByteThePrintedTimelineThenTheSummary) {
  // The timeline is printed as the run goes; it must read exactly as print_timeline prints the finished report.
  SimulateOptions options;  // the built-in inflate demo, timeline on
  options.output_json = (std::filesystem::temp_directory_path() / "scalewright-streamed.json").string();
  std::ostringstream out, err;
  ASSERT_EQ(run_simulate(options, out, err), 0) << err.str();
  nlohmann::json json;
  std::ifstream(options.output_json) >> json;
  std::filesystem::remove(options.output_json);
  sim::SimulationReport report;
  for (const nlohmann::json& e : json["timeline"]) {
    report.timeline.push_back(
        {Instant(Duration(std::llround(e["at_seconds"].get<double>() * 1000))), e["kind"], e["message"]});
  }
  std::ostringstream printed;
  sim::print_timeline(report, printed);
  const std::string text = out.str();
  ASSERT_GT(text.size(), printed.str().size());
  EXPECT_EQ(text.substr(0, printed.str().size()), printed.str());
  EXPECT_EQ(text.substr(printed.str().size(), 19), "\nScenario inflate (");
  // The first lines as the README shows them.
  EXPECT_EQ(text.rfind("t=10s        scale Deployment default/inflate 0 -> 5\n"
                       "t=10s        5 pods pending: no node fits them\n", 0), 0u) << text;
  EXPECT_EQ(err.str(), "");  // no progress line: not a terminal
}

TEST(Simulate, InflateExampleFileGivesTheSameReportAsTheBuiltInDefault) {
  nlohmann::json builtin = simulate_json({});
  nlohmann::json file = simulate_json({kSource + "/examples/inflate/inflate.yaml"});
  EXPECT_EQ(builtin.dump(), file.dump());
}

TEST(Simulate, ExampleDirectoryGivesTheSameReportAsItsFile) {
  // examples/inflate holds inflate.yaml alone; the Scenario inside names the run, not the directory.
  nlohmann::json directory = simulate_json({kSource + "/examples/inflate"});
  nlohmann::json file = simulate_json({kSource + "/examples/inflate/inflate.yaml"});
  EXPECT_EQ(directory.dump(), file.dump());
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

// "t=2m15s hpa/php-apache 4 -> 5: ..." lines of one kind.
std::vector<std::string> timeline_lines(const nlohmann::json& report, const std::string& kind) {
  std::vector<std::string> out;
  for (const nlohmann::json& e : entries(report, kind)) {
    out.push_back(format_time(Instant(Duration(static_cast<std::int64_t>(e["at_seconds"].get<double>() * 1000)))) +
                  " " + e["message"].get<std::string>());
  }
  return out;
}

TEST(Simulate, PhpApacheWalkthroughClimbsToFiveAndReturnsToOneAfterTheWindow) {
  // 50 requests/s x 10 ms = 500m of work. One pod runs at its 500m limit, 250 % of its 200m request:
  // ceil(1 x 250 / 50) = 5, limited to max(2 x 1, 4) = 4. Four pods at 125m = 62 %: ceil(4 x 1.24) = 5. Five at
  // 100m = 50 %: stays. The loop stops at 8m and the sync at 8m0 already reads 0 %; the last recommendation of 5,
  // made at 7m45, stays in the 5-minute window through the sync at 12m45 and is older than it at 13m0: 5 -> 1.
  nlohmann::json report = simulate_json({kSource + "/examples/php-apache/php-apache.yaml"});
  EXPECT_EQ(timeline_lines(report, "autoscale"), (std::vector<std::string>{
                                                     "t=2m0s hpa/php-apache 1 -> 4: cpu 250% of 50% target",
                                                     "t=2m15s hpa/php-apache 4 -> 5: cpu 62% of 50% target",
                                                     "t=13m0s hpa/php-apache 5 -> 1: cpu 0% of 50% target",
                                                 }));
  const nlohmann::json& hpa = report["summary"]["autoscalers"].at(0);
  EXPECT_EQ(hpa["name"], "hpa/php-apache");
  EXPECT_EQ(hpa["max_replicas"], 5);
  EXPECT_EQ(report["summary"]["pod_wait"]["pods_pending_at_end"], 0);
}

TEST(Simulate, PodinfoScaledObjectFollowsTheRequestRateAndFallsBackDuringTheOutage) {
  nlohmann::json report = simulate_json({kSource + "/examples/podinfo/podinfo.yaml"});
  std::vector<std::string> scales = timeline_lines(report, "autoscale");
  ASSERT_FALSE(scales.empty());
  // Up one replica at a time behind the 2-minute rate, to 4 as the walkthrough reports: the load settles at 35
  // requests/s, ceil(35 / 10) = 4 (8.75 each). At 5m15s the rate over the last 2 minutes of the ramp reads 23.75
  // requests/s, 11.875 per replica against 10: 2 -> 3; at 6m45s 4.
  EXPECT_EQ(scales.front().substr(scales.front().find(' ') + 1), "hpa/keda-hpa-podinfo 2 -> 3: s0-prometheus 11875m of 10 target");
  EXPECT_EQ(scales.at(1).substr(0, scales.at(1).find(':')), "t=6m45s hpa/keda-hpa-podinfo 3 -> 4");
  const nlohmann::json& so = report["summary"]["autoscalers"].at(0);
  EXPECT_EQ(so["name"], "scaledobject/podinfo");
  EXPECT_EQ(so["min_replicas"], 2);
  EXPECT_EQ(so["max_replicas"], 4);
  // ... and back to minReplicaCount 2, never below.
  EXPECT_NE(scales.back().find("-> 2:"), std::string::npos) << scales.back();
  // Prometheus is down from 8m to 10m: failures at 8m0, 8m15, 8m30, 8m45 (the HPA's reads); more than 3 is fallback.
  std::vector<std::string> warnings = timeline_lines(report, "autoscaler-warning");
  EXPECT_NE(std::find(warnings.begin(), warnings.end(),
                      "t=8m45s scaledobject/podinfo: fallback: its metrics failed more than 3 times in a row; they "
                      "read as 2 replicas' worth until they answer again"),
            warnings.end());
  EXPECT_NE(std::find(warnings.begin(), warnings.end(), "t=10m0s scaledobject/podinfo: its metrics answer again; fallback over"),
            warnings.end());
  // The outage changed no replica count (the downscale window held them): nothing scaled from 8m to 15m.
  for (const nlohmann::json& e : entries(report, "autoscale")) {
    const double at = e["at_seconds"];
    EXPECT_TRUE(at < 480 || at >= 900) << e["message"];
  }
}

TEST(Simulate, NodeGroupWalkthroughGrowsFrom25To29AndShrinksBack) {
  // 25 full m5.large nodes; 50 nginx pods of 140m: floor(1930 / 140) = 13 per new node, 13 + 13 + 13 + 11 = 4
  // nodes. The pods exist after the scale at 1m settles, so the scan at 1m10s triggers the scale-up. nginx is
  // deleted at 8m; the scan at 8m0s finds the 4 nodes empty, and the first scan more than 10 minutes later,
  // 18m10s, removes them.
  nlohmann::json report = simulate_json({kSource + "/examples/node-groups/nginx-node-group.yaml"});
  EXPECT_EQ(timeline_lines(report, "scale-up"),
            std::vector<std::string>{
                "t=1m10s TriggeredScaleUp: pod triggered scale-up: [{ng-general 25->29 (max: 80)}] (50 pods)"});
  std::vector<std::string> removed = timeline_lines(report, "scale-down");
  ASSERT_EQ(removed.size(), 4u);
  for (const std::string& line : removed) EXPECT_TRUE(line.starts_with("t=18m10s empty node ")) << line;
  EXPECT_EQ(report["summary"]["pod_wait"]["pods_bound"], 75);
  EXPECT_EQ(report["summary"]["peak_nodes"], 29);
  EXPECT_EQ(report["summary"]["nodes_at_end"], 25);
  const std::string status = report["cluster_autoscaler_status"];
  EXPECT_NE(status.find("cloudProviderTarget: 25\n"), std::string::npos) << status;
  EXPECT_NE(status.find("maxSize: 80\n"), std::string::npos) << status;
}

TEST(Simulate, MaxSizeWalkthroughConfiguredByCasOwnDeploymentLeavesTheExcessPending) {
  // CA's flags come from its kube-system Deployment. 2 empty m5.large nodes hold 13 nginx pods of 140m each (26);
  // the other 124 would need 10 nodes, the group may add 3 (39 pods): 2 -> 5, and 85 stay pending with the reason.
  SimulateOptions options;
  options.files = {kSource + "/examples/node-groups/nginx-max-size.yaml"};
  options.quiet = true;
  options.output_json = (std::filesystem::temp_directory_path() / "scalewright-max-size.json").string();
  std::ostringstream out, err;
  ASSERT_EQ(run_simulate(options, out, err), 0) << err.str();
  EXPECT_NE(err.str().find("note: Cluster Autoscaler runs with the flags of Deployment kube-system/cluster-autoscaler "
                           "(container cluster-autoscaler)\n"),
            std::string::npos)
      << err.str();
  nlohmann::json report;
  std::ifstream(options.output_json) >> report;
  std::filesystem::remove(options.output_json);
  EXPECT_EQ(timeline_lines(report, "scale-up"),
            std::vector<std::string>{
                "t=1m10s TriggeredScaleUp: pod triggered scale-up: [{ng-capped 2->5 (max: 5)}] (39 pods)"});
  EXPECT_EQ(timeline_lines(report, "not-triggered-scale-up"),
            std::vector<std::string>{
                "t=1m10s NotTriggerScaleUp: 85 pods didn't trigger scale-up: 1 max node group size reached"});
  EXPECT_EQ(report["summary"]["pod_wait"]["pods_bound"], 65);
  EXPECT_EQ(report["summary"]["pod_wait"]["pods_pending_at_end"], 85);
  EXPECT_EQ(report["summary"]["nodes_at_end"], 5);
}

TEST(Simulate, CompareRunsTheWorkloadUnderNodeGroupsAndUnderNodePoolsSideBySide) {
  SimulateOptions options;
  options.files = {kSource + "/examples/compare-nginx/workload.yaml"};
  options.compare = {kSource + "/examples/compare-nginx/node-groups.yaml",
                     kSource + "/examples/compare-nginx/nodepools.yaml"};
  options.quiet = true;
  const std::string json_path = (std::filesystem::temp_directory_path() / "scalewright-compare.json").string();
  options.output_json = json_path;
  std::ostringstream out, err;
  ASSERT_EQ(run_simulate(options, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("node-groups.yaml"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("nodepools.yaml"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("pod wait p99"), std::string::npos) << out.str();
  nlohmann::json runs;
  std::ifstream(json_path) >> runs;
  std::filesystem::remove(json_path);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0]["scenario"], "node-groups");
  EXPECT_EQ(runs[1]["scenario"], "nodepools");
  // 150 nginx pods of 250m on m5.large (1930m allocatable): 7 per node, ceil(150 / 7) = 22 nodes at the peak, the
  // group's first node included.
  EXPECT_EQ(runs[0]["summary"]["peak_nodes"], 22);
  EXPECT_EQ(runs[0]["summary"]["launches"], 21);
  for (const nlohmann::json& run : runs) EXPECT_EQ(run["summary"]["pod_wait"]["pods_pending_at_end"], 0);
  // Karpenter packs the same pods onto a few large spot nodes: fewer nodes, a smaller bill.
  EXPECT_LT(runs[1]["summary"]["peak_nodes"].get<int>(), 22);
  EXPECT_LT(runs[1]["summary"]["total_cost_usd"].get<double>(), runs[0]["summary"]["total_cost_usd"].get<double>());
}

// A Windows NodePool and EC2NodeClass as Karpenter's examples/v1/windows-20XX.yaml set them up (on-demand c, m and r
// of generation 3 or later, amd64, the family's alias), three IIS pods of 1 cpu and 2Gi, in `region`.
std::string windows_scenario(const std::string& family, const std::string& region = "us-east-1") {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: windows}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: windows}
      requirements:
      - {key: kubernetes.io/os, operator: In, values: [windows]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: windows}
spec:
  role: KarpenterNodeRole-demo
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  amiSelectorTerms: [{alias: )" + family + R"(@latest}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: iis, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: iis}}
  template:
    metadata: {labels: {app: iis}}
    spec:
      nodeSelector: {kubernetes.io/os: windows}
      containers:
      - {name: iis, image: iis, resources: {requests: {cpu: "1", memory: 2Gi}}}
---
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: windows}
spec:
  duration: 5m
  cloud: {region: )" + region + R"(, launchLatency: {min: 60s, max: 60s}}
  timeline: []
)";
}

TEST(Simulate, KarpentersWindowsNodePoolsLaunchWindowsNodesAtTheirWindowsPrice) {
  // Windows nodes: 110 pods, kube-reserved for 110 (1465 MiB), so a 4-vCPU c type of 8 GiB keeps 7577 − 1465 − 100 =
  // 6012 MiB, too little for three 2Gi pods; the cheapest 4-vCPU m type by its Windows price in us-east-1
  // (prices-on-demand-windows.csv) is m5a.xlarge at $0.356/h (its Linux price is $0.172/h).
  testing::ScenarioFiles files;
  for (const std::string family : {"windows2019", "windows2022", "windows2025"}) {
    nlohmann::json report = simulate_json({files.write(family + ".yaml", windows_scenario(family))});
    const std::vector<nlohmann::json> launches = entries(report, "launch");
    ASSERT_EQ(launches.size(), 1u) << family;
    EXPECT_NE(launches[0]["message"].get<std::string>().find("m5a.xlarge us-east-1a on-demand $0.3560/h for 3 pods"),
              std::string::npos)
        << launches[0]["message"];
    EXPECT_EQ(report["summary"]["pod_wait"]["pods_bound"], 3) << family;
    const std::vector<nlohmann::json> notes = entries(report, "catalog");
    ASSERT_EQ(notes.size(), 1u) << family;
    EXPECT_NE(notes[0]["message"].get<std::string>().find("923 of the region's 970 amd64 types have a Windows price"),
              std::string::npos)
        << notes[0]["message"];
  }
  // Karpenter's windows-custom-userdata example names its node class's group with a version ("karpenter.k8s.aws/v1"),
  // which the NodePool CRD's pattern refuses.
  std::string versioned = windows_scenario("windows2022");
  const std::string group = "group: karpenter.k8s.aws,";
  versioned.replace(versioned.find(group), group.size(), "group: karpenter.k8s.aws/v1,");
  const std::string path = files.write("versioned.yaml", versioned);
  const testing::CommandRun run = testing::ScenarioFiles::simulate({path});
  EXPECT_EQ(run.status, 1);
  EXPECT_EQ(run.err, "error: " + path + " doc 1 NodePool/windows: spec.template.spec.nodeClassRef.group: must be an "
                       "API group without a version (the CRD's pattern ^[^/]*$), got \"karpenter.k8s.aws/v1\"\n");
}

TEST(Simulate, ARegionWithoutSpotPricesLaunchesOnDemandAndSaysWhy) {
  // af-south-1 has on-demand prices and three zones but no spot observation: spot is not offered there, and the
  // NodePool that allows both launches on demand: for three 1-cpu pods, c5a.xlarge at $0.206/h (the cheapest c, m or
  // r of generation 3 or later that holds 3 cpu in af-south-1).
  std::string text = windows_scenario("al2023", "af-south-1");
  auto swap = [&text](const std::string& from, const std::string& to) {
    text.replace(text.find(from), from.size(), to);
  };
  swap("values: [windows]", "values: [linux]");
  swap("values: [on-demand]", "values: [spot, on-demand]");
  swap("{kubernetes.io/os: windows}", "{kubernetes.io/os: linux}");
  swap("memory: 2Gi", "memory: 1Gi");
  testing::ScenarioFiles files;
  nlohmann::json report = simulate_json({files.write("af.yaml", text)});
  const std::vector<nlohmann::json> launches = entries(report, "launch");
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_NE(launches[0]["message"].get<std::string>().find("c5a.xlarge af-south-1a on-demand $0.2060/h"),
            std::string::npos)
      << launches[0]["message"];
  const std::vector<nlohmann::json> notes = entries(report, "catalog");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0]["message"], "spot prices are not known for region af-south-1 (prices-spot-2022-05.csv has no "
                                 "observation there): its types are offered on demand only "
                                 "(spec.cloud.spotPriceFraction estimates them)");
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

TEST(Simulate, StatusAtPrintsTheClusterAutoscalerStatusAsItStoodThen) {
  // The node-group walk-through: the scan at 1m10s asks for 4 nodes, which are Ready 60-ish seconds later. At
  // 1m30s they are upcoming (unregistered) and the scale-up is in progress; at 30m0s (the end) the group is back at
  // 25 with no activity.
  SimulateOptions options;
  options.files = {kSource + "/examples/node-groups/nginx-node-group.yaml"};
  options.quiet = true;
  options.status_at = {"30m", "1m30s"};
  std::ostringstream out, err;
  ASSERT_EQ(run_simulate(options, out, err), 0) << err.str();
  const std::string text = out.str();
  const std::size_t early = text.find("cluster-autoscaler-status (kube-system ConfigMap) at t=1m30s:\n");
  const std::size_t late = text.find("cluster-autoscaler-status (kube-system ConfigMap) at t=30m0s:\n");
  const std::size_t end = text.find("cluster-autoscaler-status (kube-system ConfigMap) at the end:\n");
  ASSERT_NE(early, std::string::npos) << text;
  ASSERT_NE(late, std::string::npos) << text;
  ASSERT_NE(end, std::string::npos) << text;
  EXPECT_LT(early, late);  // in time order, whatever order they were asked in
  const std::string at_early = text.substr(early, late - early);
  EXPECT_NE(at_early.find("time: 2024-01-01 00:01:30 +0000 UTC\n"), std::string::npos) << at_early;
  EXPECT_NE(at_early.find("      unregistered: 4\n"), std::string::npos) << at_early;
  EXPECT_NE(at_early.find("  scaleUp:\n    status: InProgress\n"), std::string::npos) << at_early;
  EXPECT_NE(at_early.find("    cloudProviderTarget: 29\n"), std::string::npos) << at_early;
  const std::string at_late = text.substr(late, end - late);
  EXPECT_NE(at_late.find("    cloudProviderTarget: 25\n"), std::string::npos) << at_late;
  EXPECT_EQ(at_late.find("InProgress"), std::string::npos) << at_late;
}

TEST(Simulate, StatusAtIsRefusedWithoutClusterAutoscalerOrAfterTheEnd) {
  // A time that is no duration is a usage error (2); one the scenario cannot print, invalid input (1).
  auto error_of = [](const std::string& file, const std::string& at, int status = 1) {
    SimulateOptions options;
    options.files = {kSource + file};
    options.status_at = {at};
    std::ostringstream out, err;
    EXPECT_EQ(run_simulate(options, out, err), status);
    EXPECT_EQ(out.str(), "");
    return err.str();
  };
  EXPECT_EQ(error_of("/examples/inflate/inflate.yaml", "1m"),
            "error: --status-at: Scenario/inflate runs no Cluster Autoscaler (spec.clusterAutoscaler), so there is no "
            "status to print\n");
  EXPECT_EQ(error_of("/examples/node-groups/nginx-node-group.yaml", "31m"),
            "error: --status-at 31m0s: after the end of Scenario/nginx-node-group (spec.duration 30m0s)\n");
  EXPECT_EQ(error_of("/examples/node-groups/nginx-node-group.yaml", "soon", 2),
            "error: --status-at soon: invalid duration \"soon\"\n");
}

}  // namespace
}  // namespace scalewright::cli
