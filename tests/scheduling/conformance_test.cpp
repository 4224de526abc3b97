// Every case recorded from a real kube-scheduler v1.26.1 (tests/scheduling/conformance/kube-scheduler-1.26, a
// copy of the shared set): for each pod to place, alone, the simulation must report exactly the feasible nodes
// and the reason, and choose a node the real scheduler chose.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/check_command.h"

namespace scalewright {
namespace {

namespace fs = std::filesystem;

const fs::path kCases = fs::path(SCALEWRIGHT_SOURCE_DIR) / "tests/scheduling/conformance/kube-scheduler-1.26";

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kCases)) {
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class KubeSchedulerConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(KubeSchedulerConformance, AgreesWithRecordedKubeScheduler) {
  const std::string name = GetParam();
  std::ifstream expected_file(kCases / (name + ".expected.json"));
  ASSERT_TRUE(expected_file) << "missing expectations for " << name;
  nlohmann::json expected = nlohmann::json::parse(expected_file);

  cli::CheckOptions options;
  options.files = {(kCases / (name + ".yaml")).string()};
  options.output = "json";
  options.independent = true;
  std::ostringstream out, err;
  ASSERT_EQ(cli::run_check(options, out, err), 0) << err.str();
  nlohmann::json actual = nlohmann::json::parse(out.str());

  std::map<std::string, nlohmann::json> by_pod;
  for (const auto& item : actual) by_pod[item["pod"].get<std::string>()] = item;
  ASSERT_EQ(by_pod.size(), expected.size()) << out.str();

  for (const auto& [pod, want] : expected.items()) {
    SCOPED_TRACE(name + " " + pod);
    ASSERT_TRUE(by_pod.count(pod)) << "no answer for " << pod;
    const nlohmann::json& got = by_pod[pod];
    std::vector<std::string> feasible = got["feasible"].get<std::vector<std::string>>();
    std::sort(feasible.begin(), feasible.end());
    std::vector<std::string> want_feasible = want["feasible"].get<std::vector<std::string>>();
    std::sort(want_feasible.begin(), want_feasible.end());
    EXPECT_EQ(feasible, want_feasible);
    EXPECT_EQ(got["reason"].get<std::string>(), want["reason"].get<std::string>());
    std::vector<std::string> chosen_any_of = want["chosen_any_of"].get<std::vector<std::string>>();
    if (chosen_any_of.empty()) {
      EXPECT_TRUE(got["node"].is_null()) << got.dump();
    } else {
      ASSERT_TRUE(got["node"].is_string()) << got.dump();
      EXPECT_NE(std::find(chosen_any_of.begin(), chosen_any_of.end(), got["node"].get<std::string>()),
                chosen_any_of.end())
          << "chose " << got["node"] << ", kube-scheduler chose one of " << want["chosen_any_of"].dump();
    }
  }
}

TEST(KubeSchedulerConformanceSet, EveryRecordedCaseIsRun) {
  // The set has eight clusters; a missing copy must fail rather than silently test nothing.
  EXPECT_EQ(case_names().size(), 8u);
}

INSTANTIATE_TEST_SUITE_P(Recorded, KubeSchedulerConformance, ::testing::ValuesIn(case_names()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '-', '_');
                           return n;
                         });

}  // namespace
}  // namespace scalewright
