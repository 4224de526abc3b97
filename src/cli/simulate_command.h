#pragma once
// `scalewright simulate [SCENARIO...]`: run a scenario (the user's manifests plus a Scenario document) in the
// embedded simulator and report what happened, what it cost and how long pods waited.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "api/scenario.h"
#include "cloud/catalog.h"
#include "manifest/manifest.h"

namespace scalewright::cli {

struct SimulateOptions {
  std::vector<std::string> files;  // empty: the built-in default scenario (examples/inflate/inflate.yaml)
  std::string output_json;         // write the report as JSON here as well
  std::string html;                // and as a self-contained HTML page here
  bool quiet = false;              // the summary only, no timeline
  std::string data_dir;            // the instance-type data; empty: found next to the binary or the sources
  // Run `files` once with each of these added, and print the summaries side by side (node groups against
  // NodePools under the same workload, say).
  std::vector<std::string> compare;
  // Also print Cluster Autoscaler's status report as it stood at these times ("5m", "12m30s").
  std::vector<std::string> status_at;
  // Where a progress line is drawn while the run goes, rewritten in place (main: the terminal behind stderr, when it
  // is one); null: none.
  std::ostream* progress = nullptr;
  // After the run, explain these objects ("pod/web-1"), as `scalewright explain` does from the report.
  std::vector<std::string> explain;
  FieldValidation validate = FieldValidation::Strict;  // --validate, as kubectl's: unknown fields refused or not
};

// The timeline goes to `out` as the run makes it (not with `quiet`), then the summary. With `compare`, the runs go
// one after another, each headed by "== FILE" and streamed as it runs, then the side-by-side comparison.
// Returns the exit status: 0 when the scenario ran; 1 for invalid input, a report that cannot be written, or a run
// stopped at the simulator's limits (one error line on `err`, after the report so far); 2 for a bad --status-at.
int run_simulate(const SimulateOptions& options, std::ostream& out, std::ostream& err);

// What `simulate` runs once its files have loaded and every check before the run has passed.
struct PreparedRun {
  Scenario scenario;
  ManifestSet objects;  // the Scenario taken out
  cloud::Catalog catalog;
};

// The checks `simulate` makes of loaded objects before it runs them: one Scenario at most (none: `name` and the
// defaults), references by name, KEDA's queries, Cluster Autoscaler's flags, the region and its catalog (found with
// `data_dir`, the --data-dir flag), every NodePool against it. Warnings and notes go to `err`; nullopt after an
// error line there. `scalewright snapshot` makes them of what it writes, so that what it writes runs.
std::optional<PreparedRun> prepare_run(ManifestSet objects, const std::string& name, const std::string& data_dir,
                                       std::ostream& err);

}  // namespace scalewright::cli
