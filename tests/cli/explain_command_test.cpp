// `scalewright explain REPORT OBJECT...` and `simulate --explain OBJECT`, as a user runs them on an example.
#include "cli/explain_command.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "cli/simulate_command.h"
#include "source_dir.h"

namespace scalewright::cli {
namespace {

const std::string kPhpApache = kSource + "/examples/php-apache/php-apache.yaml";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("scalewright-" + std::to_string(::getpid()) + "-" + name)).string();
}

// php-apache's HPA, explained: one pod at 250 % of its request against a 50 % target asks for 5, the scale-up limit
// without behavior (max(2 x 1, 4)) gives 4; four pods at 62 % ask for 5 (see simulate_command_test.cpp for the
// whole walkthrough).
TEST(Explain, SimulateExplainAndExplainFromTheReportSayTheSame) {
  SimulateOptions simulate;
  simulate.files = {kPhpApache};
  simulate.quiet = true;
  simulate.output_json = temp_path("php-apache.json");
  simulate.explain = {"hpa/php-apache"};
  std::ostringstream simulated, err;
  ASSERT_EQ(run_simulate(simulate, simulated, err), 0) << err.str();
  const std::string text = simulated.str();
  const std::size_t at = text.find("HorizontalPodAutoscaler default/php-apache\n");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NE(text.find("  t=2m0s       SuccessfulRescale: New size: 4\n"
                      "               reason: cpu resource utilization (percentage of request) above target\n"
                      "               cpu 250% of 50% target: ratio 5.00, outside the tolerance 0.90–1.10, asks for 5\n"
                      "               ScaleUpLimit (the desired replica count is increasing faster than the maximum "
                      "scale rate): 4\n"
                      "               scaled 1 → 4\n"
                      "  t=2m15s      SuccessfulRescale: New size: 5\n"),
            std::string::npos)
      << text;

  ExplainOptions explain{simulate.output_json, {"hpa/php-apache"}};
  std::ostringstream out;
  EXPECT_EQ(run_explain(explain, out, err), 0) << err.str();
  EXPECT_EQ(out.str(), text.substr(at));
  EXPECT_EQ(err.str(), "");
  std::filesystem::remove(simulate.output_json);
}

TEST(Explain, BadInputIsOneErrorLineNamingTheFileAndObject) {
  const std::string report = temp_path("report.json");
  std::ofstream(report) << R"({"timeline": [], "pods": [{"pod": "default/web-1", "node": null}]})";
  std::ostringstream out, err;
  EXPECT_EQ(run_explain({report, {"pod/web-2"}}, out, err), 1);
  EXPECT_EQ(err.str(), "error: " + report + ": no Pod default/web-2 in the report; it has default/web-1\n");

  err.str("");
  EXPECT_EQ(run_explain({report, {"deployment/web"}}, out, err), 2);
  EXPECT_EQ(err.str(), "error: \"deployment/web\": unknown kind \"deployment\"; explain knows pod, node, nodeclaim, "
                       "nodepool, hpa and scaledobject\n");

  std::ofstream(report) << "timeline: []\n";
  err.str("");
  EXPECT_EQ(run_explain({report, {"pod/web-1"}}, out, err), 1);
  EXPECT_EQ(err.str(), "error: " + report + ": not JSON; explain reads the report `simulate --output` writes\n");
  EXPECT_EQ(out.str(), "");
  std::filesystem::remove(report);

  // simulate checks what it is to explain before it runs anything.
  SimulateOptions simulate;
  simulate.files = {kPhpApache};
  simulate.explain = {"web-1"};
  err.str("");
  EXPECT_EQ(run_simulate(simulate, out, err), 2);
  EXPECT_EQ(out.str(), "");
  EXPECT_TRUE(err.str().starts_with("error: \"web-1\": name an object as KIND/NAME")) << err.str();
}

}  // namespace
}  // namespace scalewright::cli
