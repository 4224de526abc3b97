#include "cli/simulate_command.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <nlohmann/json.hpp>

#include "cli/data_dir.h"
#include "cloud/aws/instance_types.h"
#include "cli/explain_command.h"
#include "cli/timeline_printer.h"
#include "cli/validation.h"
#include "manifest/manifest.h"
#include "manifest/references.h"
#include "sim/cluster_autoscaler_setup.h"
#include "sim/default_scenario.h"
#include "sim/html_report.h"
#include "sim/simulator.h"
#include "controllers/workload_autoscaler_loop.h"

namespace scalewright::cli {
namespace {

namespace fs = std::filesystem;

Result<ManifestSet> load_scenario_files(const std::vector<std::string>& files, FieldValidation validate) {
  if (!files.empty()) return load_manifest_files(files, validate);
  return decode_manifests(sim::default_scenario_text(), sim::kDefaultScenarioName);
}

// Writes `path` (nothing when empty) with `write`; a file that cannot be written is an error on `err`.
int write_file(const std::string& path, const std::function<void(std::ostream&)>& write, std::ostream& err) {
  if (path.empty()) return 0;
  std::ofstream file(path);
  write(file);
  if (!file) {
    err << "error: cannot write " << path << "\n";
    return 1;
  }
  return 0;
}

int write_json(const std::string& path, const nlohmann::json& json, std::ostream& err) {
  return write_file(path, [&](std::ostream& file) { file << json.dump(2) << "\n"; }, err);
}

int write_html(const std::string& path, const std::vector<sim::SimulationReport>& runs,
               const std::vector<std::string>& names, std::ostream& err) {
  return write_file(path, [&](std::ostream& file) { sim::write_html_report(runs, names, file); }, err);
}

}  // namespace

std::optional<PreparedRun> prepare_run(ManifestSet objects, const std::string& name, const std::string& data_dir_flag,
                                       std::ostream& err) {
  for (const std::string& warning : objects.warnings) err << "warning: " << warning << "\n";
  if (objects.scenarios.size() > 1) {
    err << "error: " << objects.locate("Scenario", objects.scenarios[1].meta, "") << ": a second Scenario (after "
        << objects.locate("Scenario", objects.scenarios[0].meta, "") << "); a run takes one\n";
    return std::nullopt;
  }
  // Everything the files refer to by name, and what KEDA would refuse, before any data is read.
  std::optional<Error> invalid = check_run_size(objects, sim::SimulationLimits{});
  if (!invalid) invalid = check_scaled_objects(objects, /*simulated=*/true);
  const Scenario* given = objects.scenarios.empty() ? nullptr : &objects.scenarios[0];
  if (!invalid) invalid = check_references(objects, given);
  if (!invalid) invalid = check_autoscaler_targets(objects, given);
  if (invalid) {
    err << "error: " << invalid->message << "\n";
    return std::nullopt;
  }
  for (const std::string& hpa : take_out_keda_hpas(objects)) {
    err << "note: " << hpa << " is a ScaledObject's (KEDA's own, or taken over): the simulator makes it itself\n";
  }
  Scenario scenario;
  std::string scenario_origin;  // "s.yaml doc 1 Scenario/s", to name the file in errors about the Scenario
  if (objects.scenarios.empty()) {
    scenario.meta.name = name;
    err << "note: no Scenario in the input; running " << format_duration(scenario.duration) << " with seed "
        << scenario.seed << " and the default cloud\n";
  } else {
    scenario_origin = objects.locate("Scenario", objects.scenarios.front().meta, "");
    scenario = std::move(objects.scenarios.front());
    objects.scenarios.clear();
  }
  Result<std::optional<std::string>> adopted =
      sim::adopt_cluster_autoscaler_deployment(scenario, objects.cluster_autoscaler_deployments);
  if (!adopted) {  // more than one Deployment runs Cluster Autoscaler: name the file of the last one
    const ClusterAutoscalerDeployment& last = objects.cluster_autoscaler_deployments.back();
    err << "error: " << objects.locate("Deployment", last.meta, "") << ": " << adopted.error().message << "\n";
    return std::nullopt;
  }
  if (*adopted) err << "note: " << **adopted << "\n";
  if (scenario_origin.empty()) scenario_origin = "Scenario/" + scenario.meta.name;
  if (objects.nodepools.empty() && objects.nodes.empty() && scenario.cloud.node_groups.empty() &&
      objects.cluster_api_objects.empty()) {
    err << "warning: no NodePool, Node, Auto Scaling group or Cluster API MachineDeployment in the input: nothing can "
           "run\n";
  }

  Result<fs::path> data_dir = find_data_dir(data_dir_flag);
  if (!data_dir) {
    err << "error: " << data_dir.error().message << "\n";
    return std::nullopt;
  }
  if (std::optional<Error> region = cloud::aws::check_region(*data_dir, scenario.cloud.region)) {
    err << "error: " << scenario_origin << ": spec.cloud.region: " << region->message << "\n";
    return std::nullopt;
  }
  cloud::aws::CatalogOptions catalog_options;
  catalog_options.region = scenario.cloud.region;
  catalog_options.instance_types = scenario.cloud.instance_types;
  catalog_options.spot_fraction = scenario.cloud.spot_price_fraction;
  if (scenario.cloud.spot_price_fraction) catalog_options.use_spot_snapshot = false;
  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(*data_dir, catalog_options);
  if (!catalog) {
    err << "error: " << scenario_origin << ": spec.cloud: " << catalog.error().message << "\n";
    return std::nullopt;
  }

  if (scenario.cluster_autoscaler) {
    Result<controllers::ClusterAutoscalerLoop> loop =
        sim::cluster_autoscaler_loop(scenario, *catalog, objects.config_maps, objects.cluster_api_objects);
    if (!loop) {
      err << "error: " << scenario_origin << ": " << loop.error().message << "\n";
      return std::nullopt;
    }
  }
  if (std::optional<Error> nodepool = check_nodepools(objects, *catalog)) {
    err << "error: " << nodepool->message << "\n";
    return std::nullopt;
  }
  return PreparedRun{std::move(scenario), std::move(objects), std::move(*catalog)};
}

namespace {

// Loads, checks and runs one scenario made of `files`; nullopt after an error line on `err`.
// `status_required`: --status-at without Cluster Autoscaler in the scenario is an error (not in a comparison);
// `object_records`: keep where every pod ran and the Events on objects (for the JSON report, --explain and the
// HTML page's Events).
std::optional<sim::SimulationReport> simulate_files(const std::vector<std::string>& files, FieldValidation validate,
                                                    const std::string& data_dir_flag,
                                                    const std::vector<Instant>& status_at, bool status_required,
                                                    bool object_records, sim::TimelineSink& sink, std::ostream& err) {
  Result<ManifestSet> loaded = load_scenario_files(files, validate);
  if (!loaded) {
    err << "error: " << loaded.error().message << "\n";
    return std::nullopt;
  }
  std::string name;  // of a scenario without a Scenario document: "examples/podinfo/" is named podinfo
  if (!files.empty()) {
    fs::path first(files.front());
    if (!first.has_filename()) first = first.parent_path();
    name = first.stem().string();
  }
  std::optional<PreparedRun> run = prepare_run(std::move(*loaded), name, data_dir_flag, err);
  if (!run) return std::nullopt;
  Scenario& scenario = run->scenario;
  if (!status_at.empty() && !scenario.cluster_autoscaler && status_required) {
    err << "error: --status-at: Scenario/" << scenario.meta.name
        << " runs no Cluster Autoscaler (spec.clusterAutoscaler), so there is no status to print\n";
    return std::nullopt;
  }
  for (Instant at : status_at) {
    if (since_start(at) > scenario.duration) {
      err << "error: --status-at " << format_duration(since_start(at)) << ": after the end of Scenario/"
          << scenario.meta.name << " (spec.duration " << format_duration(scenario.duration) << ")\n";
      return std::nullopt;
    }
  }
  return sim::simulate({std::move(scenario), std::move(run->objects), std::move(run->catalog), status_at, &sink, {},
                        object_records});
}

// The input file a report file (--output, --html) would overwrite, named as the flag and the input give them (one
// file however spelt: fs::equivalent); "" when none. A directory input stands for its manifest files.
std::optional<std::string> report_over_input(const SimulateOptions& options) {
  std::vector<fs::path> inputs;
  for (const std::vector<std::string>* list : {&options.files, &options.compare}) {
    for (const std::string& file : *list) {
      std::error_code ignored;
      if (!fs::is_directory(file, ignored)) {
        inputs.emplace_back(file);
      } else if (Result<std::vector<fs::path>> listed = manifest_files_in(file)) {
        inputs.insert(inputs.end(), listed->begin(), listed->end());
      }
    }
  }
  for (const auto& [flag, report] : {std::pair{"--output", &options.output_json}, std::pair{"--html", &options.html}}) {
    if (report->empty()) continue;
    for (const fs::path& input : inputs) {
      std::error_code unrelated;  // a report that does not exist yet is no input
      if (!fs::equivalent(*report, input, unrelated) || unrelated) continue;
      return std::string(flag) + " " + *report + ": is the input file " + input.string() +
             ", which writing the report would overwrite";
    }
  }
  return std::nullopt;
}

// A run that hit a limit has printed (and written) the report so far; it still fails, saying why.
bool report_stopped(const sim::SimulationReport& report, const std::string& name, std::ostream& err) {
  if (report.stopped.empty()) return false;
  err << "error: " << name << ": run stopped at " << format_time(Instant(report.duration)) << ": " << report.stopped
      << "\n";
  return true;
}

}  // namespace

int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err) {
  std::vector<Instant> status_at;
  for (const std::string& text : options.status_at) {
    // A time of the run: a bad one is a usage error, as CLI11 reports the flags it checks itself.
    Result<Duration> at = parse_duration(text);
    if (!at) {
      err << "error: --status-at " << text << ": " << at.error().message << "\n";
      return 2;
    }
    if (at->count() < 0) {
      err << "error: --status-at " << text << ": must not be negative\n";
      return 2;
    }
    status_at.push_back(Instant(*at));
  }
  if (std::optional<std::string> over = report_over_input(options)) {
    err << "error: " << *over << "\n";
    return 2;
  }
  // Objects to explain are checked before the run, not after it.
  const std::optional<std::vector<sim::ObjectRef>> explained = parse_objects(options.explain, err);
  if (!explained) return 2;
  const bool object_records = !options.output_json.empty() || !explained->empty() || !options.html.empty();
  if (!options.compare.empty()) {
    // The shared files with each compared file in turn, then their summaries side by side.
    std::vector<sim::SimulationReport> reports;
    nlohmann::json json = nlohmann::json::array();
    for (const std::string& side : options.compare) {
      std::vector<std::string> files = options.files;
      files.push_back(side);
      // A compared run without Cluster Autoscaler (the NodePools side) simply has no status to print.
      TimelinePrinter printer(options.quiet ? nullptr : &out, options.progress);
      printer.set_header("== " + side + "\n");
      printer.set_progress_label(fs::path(side).filename().string() + ": ");
      std::optional<sim::SimulationReport> report =
          simulate_files(files, options.validate, options.data_dir, status_at, /*status_required=*/false,
                         object_records, printer, err);
      if (!report) return 1;
      printer.finish();
      sim::print_requested_statuses(*report, out);
      if (object_records) json.push_back(sim::to_json(*report));
      reports.push_back(std::move(*report));
    }
    std::vector<std::string> names;
    for (const std::string& side : options.compare) names.push_back(fs::path(side).filename().string());
    sim::print_comparison(reports, names, out);
    int written = std::max(write_json(options.output_json, json, err), write_html(options.html, reports, names, err));
    if (!explained->empty()) {
      out << "\n";
      written = std::max(written, explain_objects(json, *explained, "the runs", out, err));
    }
    bool stopped = false;
    for (std::size_t i = 0; i < reports.size(); ++i) stopped |= report_stopped(reports[i], names[i], err);
    return stopped ? 1 : written;
  }
  TimelinePrinter printer(options.quiet ? nullptr : &out, options.progress);
  std::optional<sim::SimulationReport> report =
      simulate_files(options.files, options.validate, options.data_dir, status_at, /*status_required=*/true,
                     object_records, printer, err);
  if (!report) return 1;
  printer.finish();
  sim::print_summary(*report, out);
  // The JSON of a large run is large: built only when it is written or explained from.
  int written = 0;
  if (object_records) {
    const nlohmann::json json = sim::to_json(*report);
    written = write_json(options.output_json, json, err);
    if (!explained->empty()) {
      out << "\n";
      written = std::max(written, explain_objects(json, *explained, "the run", out, err));
    }
  }
  const std::string name = "Scenario/" + report->scenario;
  const std::vector<sim::SimulationReport> runs{std::move(*report)};
  written = std::max(written, write_html(options.html, runs, {runs.front().scenario}, err));
  return report_stopped(runs.front(), name, err) ? 1 : written;
}

}  // namespace scalewright::cli
