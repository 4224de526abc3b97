// `scalewright check` as a user runs it: through run_check, and through the built binary for exit statuses.
#include "cli/check_command.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "scenario_files.h"
#include "source_dir.h"

namespace scalewright::cli {
namespace {

using testing::BinaryRun;
using testing::run_binary;

const std::string kExample = kSource + "/examples/check/cluster.yaml";

nlohmann::json run_json(const std::vector<std::string>& files, std::string* err_out = nullptr) {
  CheckOptions options;
  options.files = files;
  options.output = "json";
  std::ostringstream out, err;
  EXPECT_EQ(run_check(options, out, err), 0) << err.str();
  if (err_out) *err_out = err.str();
  return nlohmann::json::parse(out.str());
}

std::map<std::string, nlohmann::json> by_pod(const nlohmann::json& array) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& item : array) out[item["pod"].get<std::string>()] = item;
  return out;
}

TEST(CheckCommand, ExampleClusterPlacesDaemonsWebReplicasAndTheDatabase) {
  // Hand-worked: node-exporter tolerates everything, so it runs on all three nodes (100m each). The web
  // replicas must sit one per node and cannot use the database node (untolerated taint): two of them fit on the
  // m5.large nodes, the third fits nowhere. postgres selects and tolerates the database node. The 6-cpu report
  // is larger than the 1830m left on each m5.large and cannot use the database node.
  std::string err;
  nlohmann::json result = run_json({kExample}, &err);
  ASSERT_EQ(result.size(), 8u);  // 3 daemon pods, 3 web replicas, postgres-0, nightly-report
  int daemons = 0;
  std::vector<std::string> web_nodes;
  std::vector<std::string> web_reasons;
  for (const auto& item : result) {
    std::string pod = item["pod"];
    if (pod.rfind("monitoring/node-exporter-", 0) == 0) {
      ++daemons;
      EXPECT_TRUE(item["node"].is_string()) << item.dump();
    } else if (pod.rfind("shop/web-", 0) == 0) {
      if (item["node"].is_string()) {
        web_nodes.push_back(item["node"]);
      } else {
        web_reasons.push_back(item["reason"]);
      }
    }
  }
  EXPECT_EQ(daemons, 3);
  EXPECT_EQ(web_nodes, (std::vector<std::string>{"ip-10-0-1-17.ec2.internal", "ip-10-0-2-44.ec2.internal"}));
  EXPECT_EQ(web_reasons, (std::vector<std::string>{
                             "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: databases}, "
                             "2 node(s) didn't match pod anti-affinity rules."}));
  auto pods = by_pod(result);
  ASSERT_TRUE(pods.count("shop/postgres-0"));
  EXPECT_EQ(pods["shop/postgres-0"]["node"], "ip-10-0-3-91.ec2.internal");
  EXPECT_EQ(pods["shop/postgres-0"]["feasible"], nlohmann::json::array({"ip-10-0-3-91.ec2.internal"}));
  ASSERT_TRUE(pods.count("shop/nightly-report"));
  EXPECT_TRUE(pods["shop/nightly-report"]["node"].is_null());
  EXPECT_EQ(pods["shop/nightly-report"]["reason"],
            "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: databases}, 2 Insufficient cpu.");
  EXPECT_NE(err.find("Service"), std::string::npos) << "the skipped Service is named in a warning: " << err;
}

TEST(CheckCommand, IndependentModeBindsNothing) {
  CheckOptions options;
  options.files = {kExample};
  options.output = "json";
  options.independent = true;
  std::ostringstream out, err;
  ASSERT_EQ(run_check(options, out, err), 0);
  // Alone, every web replica fits on both m5.large nodes: no replica sees another.
  for (const auto& item : nlohmann::json::parse(out.str())) {
    if (item["pod"].get<std::string>().rfind("shop/web-", 0) == 0) {
      EXPECT_EQ(item["feasible"].size(), 2u);
    }
  }
}

TEST(CheckCommand, TextOutputNamesNodeAndReason) {
  CheckOptions options;
  options.files = {kExample};
  std::ostringstream out, err;
  ASSERT_EQ(run_check(options, out, err), 0);
  EXPECT_NE(out.str().find("shop/postgres-0"), std::string::npos);
  EXPECT_NE(out.str().find("-> ip-10-0-3-91.ec2.internal"), std::string::npos);
  EXPECT_NE(out.str().find("unschedulable: 0/3 nodes are available"), std::string::npos);
  EXPECT_NE(out.str().find("8 pod(s) without a node: 6 placed, 2 unschedulable"), std::string::npos) << out.str();
}

TEST(CheckCommand, InvalidManifestIsOneErrorLineAndExitOne) {
  CheckOptions options;
  std::string file = kSource + "/tests/cli/testdata/bad-quantity.yaml";
  options.files = {file};
  std::ostringstream out, err;
  EXPECT_EQ(run_check(options, out, err), 1);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(err.str(), "error: " + file +
                           " doc 2 Deployment/web: spec.template.spec.containers[0].resources.requests.cpu: "
                           "invalid quantity \"1.5.3\"\n");
}

TEST(CheckCommand, TextOutputListsAutoscalersAndWarnsAboutMissingTargets) {
  CheckOptions options;
  std::string file = kSource + "/tests/cli/testdata/autoscalers.yaml";
  options.files = {file};
  std::ostringstream out, err;
  ASSERT_EQ(run_check(options, out, err), 0) << err.str();
  // KEDA's default maxReplicaCount is 100.
  EXPECT_NE(out.str().find("1 pod(s) without a node: 1 placed, 0 unschedulable\n"
                           "HorizontalPodAutoscaler/default/php-apache scales Deployment/php-apache between 1 and 10 "
                           "replicas\n"
                           "ScaledObject/default/podinfo scales Deployment/podinfo between 2 and 100 replicas\n"
                           "2 autoscaler(s)\n"),
            std::string::npos)
      << out.str();
  EXPECT_EQ(err.str(),
            "warning: " + file +
                " doc 4 ScaledObject/podinfo: spec.triggers[1]: trigger type kafka is not simulated\n"
            "warning: ScaledObject/default/podinfo scales Deployment/podinfo, which is not in the input\n");
}

// A fresh directory under the temp directory holding `files` (name -> content); removed by the caller.
std::filesystem::path make_directory(const std::string& name, const std::map<std::string, std::string>& files) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const auto& [file, text] : files) {
    std::filesystem::create_directories((dir / file).parent_path());
    std::ofstream(dir / file) << text;
  }
  return dir;
}

TEST(CheckCommand, DirectoryReadsItsYamlYmlAndJsonFilesByNameAndNothingElse) {
  // One node with 2 cpu, and one pod of 1 cpu in a JSON file: the pod fits on the node. The text file and the
  // subdirectory hold invalid YAML; they are not read, as `kubectl apply -f DIR` would not read them.
  std::filesystem::path dir = make_directory(
      "scalewright-check-dir",
      {{"10-node.yml", "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n"
                       "status:\n  allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\"}\n"
                       "  conditions: [{type: Ready, status: \"True\"}]\n"},
       {"20-pod.json", R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "shop"},
                          "spec": {"containers": [{"name": "web", "image": "nginx",
                                   "resources": {"requests": {"cpu": "1"}}}]}})"},
       {"notes.txt", "{{{ not yaml"},
       {"nested/30-broken.yaml", "{{{ not yaml"}});
  CheckOptions options;
  options.files = {dir.string()};
  std::ostringstream out, err;
  EXPECT_EQ(run_check(options, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), "shop/web  -> node-a  (fits on node-a)\n1 pod(s) without a node: 1 placed, 0 unschedulable\n");
  EXPECT_EQ(err.str(), "");
  std::filesystem::remove_all(dir);
}

TEST(CheckCommand, DirectoryFilesAreReadInNameOrderSoTheFirstBadFileByNameIsTheOneNamed) {
  std::filesystem::path dir = make_directory("scalewright-check-order",
                                             {{"b.yaml", "{{{"}, {"a.json", "{{{"}, {"c.yml", "{{{"}});
  CheckOptions options;
  options.files = {dir.string()};
  std::ostringstream out, err;
  EXPECT_EQ(run_check(options, out, err), 1);
  EXPECT_EQ(err.str().rfind("error: " + (dir / "a.json").string() + ": invalid YAML", 0), 0u) << err.str();
  std::filesystem::remove_all(dir);
}

TEST(CheckCommand, DirectoryWithoutManifestFilesIsAnErrorNamingIt) {
  std::filesystem::path dir = make_directory("scalewright-check-empty", {{"README.md", "# nothing to apply"}});
  CheckOptions options;
  options.files = {dir.string()};
  std::ostringstream out, err;
  EXPECT_EQ(run_check(options, out, err), 1);
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(err.str(), "error: " + dir.string() +
                           ": no manifest files in this directory (it reads *.yaml, *.yml and *.json, not "
                           "subdirectories)\n");
  std::filesystem::remove_all(dir);
}

TEST(ScalewrightBinary, ExitStatusesForValidInvalidAndMisusedInput) {
  EXPECT_EQ(run_binary("check " + kExample).status, 0);
  BinaryRun bad = run_binary("check " + kSource + "/tests/cli/testdata/bad-quantity.yaml");
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.output.find("invalid quantity \"1.5.3\""), std::string::npos) << bad.output;
  EXPECT_EQ(run_binary("check --output yaml " + kExample).status, 2);
  EXPECT_EQ(run_binary("check /no/such/file.yaml").status, 2);
  // A directory is its manifest files (CLI11 used to refuse it: "File is actually a directory").
  EXPECT_EQ(run_binary("check " + kSource + "/examples/check").status, 0);
  EXPECT_EQ(run_binary("simulate --quiet " + kSource + "/examples/inflate").status, 0);
  EXPECT_EQ(run_binary("explain " + kSource + "/tests/golden/examples/inflate.json node/default-52cfd").status, 0);
  EXPECT_EQ(run_binary("explain " + kSource + "/tests/golden/examples/inflate.json node/default-zzzzz").status, 1);
  EXPECT_EQ(run_binary("explain /no/such/report.json pod/web-1").status, 2);
}

TEST(ScalewrightBinary, HelpGivesTheExitStatuses) {
  BinaryRun top = run_binary("--help");
  EXPECT_EQ(top.status, 0);
  EXPECT_NE(top.output.find("Exit status:\n  0  done (check: the input is valid, whether or not every pod fits; "
                            "simulate: the scenario ran)\n"),
            std::string::npos)
      << top.output;
  for (const std::string command : {"check", "simulate"}) {
    BinaryRun help = run_binary(command + " --help");
    EXPECT_EQ(help.status, 0) << command;
    EXPECT_NE(help.output.find("Exit status:\n  0  "), std::string::npos) << help.output;
    EXPECT_NE(help.output.find("\n  1  invalid input: a file cannot be read or decoded"), std::string::npos)
        << help.output;
    EXPECT_NE(help.output.find("\n  2  usage error: an unknown option, a bad option value, or a file or directory "
                               "that does not exist"),
              std::string::npos)
        << help.output;
  }
  // What the help says of 2, checked: an unknown option, and a file that does not exist.
  EXPECT_EQ(run_binary("simulate --no-such-flag").status, 2);
  EXPECT_EQ(run_binary("simulate /no/such/scenario.yaml").status, 2);
  EXPECT_EQ(run_binary("").status, 2);  // no subcommand
}

}  // namespace
}  // namespace scalewright::cli
