// Every example under examples/ reports byte for byte what its golden file under tests/golden/examples/ holds: a
// refactoring of the simulator or the controllers must not change one figure or timeline line. A change meant to
// alter a report regenerates the files with scripts/update-golden.sh and says why in its commit.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
#include <unistd.h>

#include "cli/simulate_command.h"
#include "source_dir.h"

namespace scalewright::cli {
namespace {

namespace fs = std::filesystem;


struct Example {
  std::string golden;              // tests/golden/examples/<golden>.json
  std::vector<std::string> files;  // under examples/; empty: the built-in default
  std::vector<std::string> compare;
};

void PrintTo(const Example& e, std::ostream* os) { *os << e.golden; }

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The first line where two texts differ, both sides shown, so a failure says what changed.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "the same lines, different bytes (line endings?)";
    if (la != lb || more_a != more_b) {
      return "line " + std::to_string(line) + ":\n  golden: " + (more_a ? la : "<end>") +
             "\n  now:    " + (more_b ? lb : "<end>");
    }
  }
}

class ExampleReport : public ::testing::TestWithParam<Example> {};

TEST_P(ExampleReport, IsByteForByteItsGoldenFile) {
  const Example& example = GetParam();
  SimulateOptions options;
  for (const std::string& f : example.files) options.files.push_back(kSource + "/examples/" + f);
  for (const std::string& f : example.compare) options.compare.push_back(kSource + "/examples/" + f);
  options.quiet = true;
  const fs::path output =
      fs::temp_directory_path() / ("scalewright-golden-" + std::to_string(::getpid()) + "-" + example.golden + ".json");
  options.output_json = output.string();
  std::ostringstream out, err;
  ASSERT_EQ(run_simulate(options, out, err), 0) << err.str();
  const std::string got = read_file(output);
  const std::string want = read_file(kSource + "/tests/golden/examples/" + example.golden + ".json");
  ASSERT_FALSE(want.empty()) << "no golden file for " << example.golden;
  if (got == want) {
    fs::remove(output);
    return;
  }
  ADD_FAILURE() << example.golden << ": the report differs from its golden file (kept at " << output.string()
                << "); first difference at " << first_difference(want, got);
}

INSTANTIATE_TEST_SUITE_P(
    Examples, ExampleReport,
    ::testing::Values(Example{"inflate", {}, {}},  // the built-in default is examples/inflate/inflate.yaml
                      Example{"inflate", {"inflate/inflate.yaml"}, {}},
                      Example{"nginx", {"nginx/nginx.yaml"}, {}},
                      Example{"dedicated-databases", {"dedicated-databases/dedicated-databases.yaml"}, {}},
                      Example{"php-apache", {"php-apache/php-apache.yaml"}, {}},
                      Example{"podinfo", {"podinfo/podinfo.yaml"}, {}},
                      Example{"nginx-node-group", {"node-groups/nginx-node-group.yaml"}, {}},
                      Example{"nginx-max-size", {"node-groups/nginx-max-size.yaml"}, {}},
                      Example{"check", {"check/cluster.yaml"}, {}},
                      Example{"scale-in", {"scale-in/scale-in.yaml"}, {}},
                      Example{"drift", {"drift/drift.yaml"}, {}},
                      Example{"expiry", {"expiry/expiry.yaml"}, {}},
                      Example{"spot-interruption", {"spot-interruption/spot-interruption.yaml"}, {}},
                      Example{"clusterapi", {"clusterapi"}, {}},  // a folder, as `simulate examples/clusterapi`
                      Example{"compare-nginx",
                              {"compare-nginx/workload.yaml"},
                              {"compare-nginx/node-groups.yaml", "compare-nginx/nodepools.yaml"}},
                      Example{"compare-consolidation",
                              {"compare-consolidation/workload.yaml"},
                              {"compare-consolidation/when-empty.yaml", "compare-consolidation/when-underutilized.yaml",
                               "compare-consolidation/balanced.yaml", "compare-consolidation/cluster-autoscaler.yaml"}}),
    [](const ::testing::TestParamInfo<Example>& info) {
      std::string name = info.param.files.empty() ? "default" : info.param.golden;
      std::erase(name, '-');
      return name;
    });

}  // namespace
}  // namespace scalewright::cli
