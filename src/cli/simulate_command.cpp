#include "cli/simulate_command.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "manifest/manifest.h"
#include "sim/cluster_autoscaler.h"
#include "sim/default_scenario.h"
#include "sim/simulator.h"
#include "sim/workload_autoscaling.h"

namespace scalewright::cli {
namespace {

namespace fs = std::filesystem;

// Where the instance-type data lives: the --data-dir flag, $SCALEWRIGHT_DATA_DIR, beside an installed binary
// (<prefix>/share/scalewright/data), or the source tree it was built from.
Result<fs::path> find_data_dir(const std::string& flag) {
  std::vector<fs::path> candidates;
  if (!flag.empty()) {
    candidates.emplace_back(flag);
  } else {
    if (const char* env = std::getenv("SCALEWRIGHT_DATA_DIR")) candidates.emplace_back(env);
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) candidates.push_back(self.parent_path().parent_path() / "share" / "scalewright" / "data");
    candidates.emplace_back(SCALEWRIGHT_SOURCE_DATA_DIR);
  }
  for (const fs::path& dir : candidates) {
    if (fs::exists(dir / "aws" / "instance-types.csv")) return dir / "aws";
  }
  return Error{"cannot find the instance-type data (aws/instance-types.csv) in " +
               (flag.empty() ? std::string("$SCALEWRIGHT_DATA_DIR or ") + SCALEWRIGHT_SOURCE_DATA_DIR : flag) +
               "; pass --data-dir"};
}

Result<ManifestSet> load_scenario_files(const std::vector<std::string>& files) {
  if (!files.empty()) return load_manifest_files(files);
  return decode_manifests(sim::default_scenario_text(), sim::kDefaultScenarioName);
}

}  // namespace

int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err) {
  Result<ManifestSet> loaded = load_scenario_files(options.files);
  if (!loaded) {
    err << "error: " << loaded.error().message << "\n";
    return 1;
  }
  ManifestSet objects = std::move(*loaded);
  for (const std::string& warning : objects.warnings) err << "warning: " << warning << "\n";
  if (objects.scenarios.size() > 1) {
    err << "error: " << objects.scenarios.size() << " Scenario objects given (" << objects.scenarios[0].meta.name
        << ", " << objects.scenarios[1].meta.name << "); a run takes one\n";
    return 1;
  }
  Scenario scenario;
  if (objects.scenarios.empty()) {
    scenario.meta.name = fs::path(options.files.front()).stem().string();
    err << "note: no Scenario in the input; running " << format_duration(scenario.duration) << " with seed "
        << scenario.seed << " and the default cloud\n";
  } else {
    scenario = std::move(objects.scenarios.front());
    objects.scenarios.clear();
  }
  if (objects.nodepools.empty() && objects.nodes.empty() && scenario.cloud.auto_scaling_groups.empty()) {
    err << "warning: no NodePool, Node or Auto Scaling group in the input: nothing can run\n";
  }

  Result<fs::path> data_dir = find_data_dir(options.data_dir);
  if (!data_dir) {
    err << "error: " << data_dir.error().message << "\n";
    return 1;
  }
  cloud::CatalogOptions catalog_options;
  catalog_options.region = scenario.cloud.region;
  catalog_options.instance_types = scenario.cloud.instance_types;
  catalog_options.spot_fraction = scenario.cloud.spot_price_fraction;
  if (scenario.cloud.spot_price_fraction) catalog_options.use_spot_snapshot = false;
  Result<cloud::Catalog> catalog = cloud::load_catalog(*data_dir, catalog_options);
  if (!catalog) {
    err << "error: Scenario/" << scenario.meta.name << ": spec.cloud: " << catalog.error().message << "\n";
    return 1;
  }

  if (scenario.cluster_autoscaler) {
    Result<sim::ClusterAutoscalerLoop> loop = sim::ClusterAutoscalerLoop::create(scenario, *catalog);
    if (!loop) {
      err << "error: Scenario/" << scenario.meta.name << ": " << loop.error().message << "\n";
      return 1;
    }
  }
  if (std::vector<std::string> problems = sim::simulation_problems(objects); !problems.empty()) {
    for (const std::string& problem : problems) err << "error: " << problem << "\n";
    return 1;
  }
  sim::SimulationReport report = sim::simulate({std::move(scenario), std::move(objects), std::move(*catalog)});
  if (!options.quiet) sim::print_timeline(report, out);
  sim::print_summary(report, out);
  if (!options.output_json.empty()) {
    std::ofstream file(options.output_json);
    file << sim::to_json(report).dump(2) << "\n";
    if (!file) {
      err << "error: cannot write " << options.output_json << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace scalewright::cli
