// The `scalewright` command.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <filesystem>
#include <iostream>
#include <string>

#include "cli/check_command.h"
#include "cli/cloud_providers.h"
#include "cli/escaped_output.h"
#include "cli/explain_command.h"
#include "cli/run_command.h"
#include "cli/simulate_command.h"
#include "cli/snapshot_command.h"
#include "sim/simulator.h"

namespace {

// What each command returns, as run_check and run_simulate return it and as main maps CLI11's parse errors.
constexpr const char* kCheckExitStatus =
    "Exit status:\n"
    "  0  the input is valid, whether or not every pod fits\n"
    "  1  invalid input: a file cannot be read or decoded, or an object is invalid (one error line naming the\n"
    "     file, document, object and field)\n"
    "  2  usage error: an unknown option, a bad option value, or a file or directory that does not exist";
// The limits named are the simulator's own (SimulationLimits), not a copy of them.
std::string simulate_exit_status() {
  const scalewright::sim::SimulationLimits limits;
  return fmt::format(
      "Exit status:\n"
      "  0  the scenario ran\n"
      "  1  invalid input: a file cannot be read or decoded, an object or the Scenario is invalid, the instance-type\n"
      "     data cannot be found, or the --output or --html file cannot be written; or the run went past the simulator's\n"
      "     limits ({} pods, {} nodes at once) and stopped there, its report so far printed\n"
      "  2  usage error: an unknown option, a bad option value, or a file or directory that does not exist\n"
      "     (a --status-at time that is not a duration, or is negative, is a bad option value)",
      limits.max_pods, limits.max_nodes);
}
constexpr const char* kSnapshotExitStatus =
    "Exit status:\n"
    "  0  the scenario was written (objects the simulator cannot read are left out, each with a warning line)\n"
    "  1  the API server cannot be reached or a list fails, the instance-type data cannot be found, or the output\n"
    "     file cannot be written (one error line; nothing is written)\n"
    "  2  usage error: an unknown option or a bad option value (a --duration that is not a positive duration)";
constexpr const char* kExplainExitStatus =
    "Exit status:\n"
    "  0  every object was explained\n"
    "  1  the report cannot be read or is not a report of `simulate --output`, or has no such object (one error\n"
    "     line naming the file and the object, and the objects of that kind it has)\n"
    "  2  usage error: an object not named as KIND/NAME, a kind explain does not know, or a file that does not exist";
// CLI11's ExistingPath (`file_only`: ExistingFile), but for a path that exists yet cannot be resolved (a symbolic
// link loop): it passes, so that reading it fails as any unreadable input does, with exit 1 and a line naming it.
CLI::Validator existing(bool file_only) {
  return CLI::Validator(
      [file_only](std::string& path) -> std::string {
        std::error_code error;
        const std::filesystem::file_status status = std::filesystem::status(path, error);
        if (error == std::errc::too_many_symbolic_link_levels) return "";
        if (!std::filesystem::exists(status)) {
          return (file_only ? "File does not exist: " : "Path does not exist: ") + path;
        }
        if (file_only && std::filesystem::is_directory(status)) return "File is actually a directory: " + path;
        return "";
      },
      file_only ? "FILE" : "PATH", file_only ? "EXISTING_FILE" : "EXISTING_PATH");
}

// kubectl's --validate, spelt as kubectl spells it.
void add_validate_option(CLI::App* command, scalewright::FieldValidation& validate) {
  command
      ->add_option_function<std::string>(
          "--validate",
          [&validate](const std::string& value) { validate = *scalewright::parse_field_validation(value); },
          "A field the kind does not have, or a key given twice, as kubectl's --validate: strict (or true, the "
          "default) refuses it naming its path, warn prints a warning, ignore (or false) drops it")
      ->check(CLI::IsMember({"strict", "warn", "ignore", "true", "false"}))
      ->default_str("strict");
}

constexpr const char* kExitStatus =
    "Exit status:\n"
    "  0  done (check: the input is valid, whether or not every pod fits; simulate: the scenario ran)\n"
    "  1  invalid input: a file cannot be read or decoded, an object is invalid, ... (one error line)\n"
    "  2  usage error: no or an unknown subcommand, an unknown option, a bad option value, or a file or directory\n"
    "     that does not exist";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Scalewright: node and workload autoscaling for Kubernetes, in one binary."};
  app.footer(kExitStatus);
  app.require_subcommand(1);
  app.set_version_flag("--version", "scalewright 0.1.0");

  scalewright::cli::CheckOptions check;
  CLI::App* check_cmd = app.add_subcommand(
      "check", "Load manifests and show, for every pod without a node, where kube-scheduler would bind it, every "
               "node it fits on, or why it fits none.");
  // A directory stands for its *.yaml, *.yml and *.json files, as with `kubectl apply -f DIR`.
  check_cmd->add_option("files", check.files,
                        "Manifest files (YAML or JSON, multi-document), or directories of them (*.yaml, *.yml, "
                        "*.json, by name, not recursive)")
      ->required()
      ->check(existing(/*file_only=*/false));
  check_cmd->add_option("-o,--output", check.output, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  check_cmd->add_option("--scoring", check.scoring, "NodeResourcesFit scoring strategy")
      ->check(CLI::IsMember({"LeastAllocated", "MostAllocated"}))
      ->capture_default_str();
  add_validate_option(check_cmd, check.validate);
  check_cmd->footer(kCheckExitStatus);
  check_cmd->add_flag("--independent", check.independent,
                      "Answer each pod alone against the cluster as given, instead of binding pods one after "
                      "another in scheduling-queue order");

  scalewright::cli::SimulateOptions simulate;
  CLI::App* simulate_cmd = app.add_subcommand(
      "simulate", "Run a scenario in the embedded simulator: a simulated cluster and cloud on a virtual clock. With no "
                  "file, runs the built-in default (examples/inflate/inflate.yaml).");
  simulate_cmd->add_option("scenario", simulate.files,
                            "Scenario and manifest files (YAML or JSON, multi-document), or directories of them "
                            "(*.yaml, *.yml, *.json, by name, not recursive)")
      ->check(existing(/*file_only=*/false));
  simulate_cmd->footer(simulate_exit_status());
  simulate_cmd->add_option("--output", simulate.output_json, "Also write the report as JSON to this file");
  simulate_cmd->add_option("--html", simulate.html,
                           "Also write the report as one self-contained HTML page (charts over time, cost, timeline) "
                           "to this file");
  simulate_cmd->add_flag("-q,--quiet", simulate.quiet, "Print only the summary, not the timeline");
  simulate_cmd->add_option("--compare", simulate.compare,
                           "Run the scenario once with each of these files added and compare the runs side by side")
      ->expected(2, -1)
      ->check(existing(/*file_only=*/true));
  simulate_cmd->add_option("--status-at", simulate.status_at,
                           "Also print the cluster-autoscaler-status report as it stood at this time of the run "
                           "(e.g. 5m, 12m30s); repeatable")
      ->allow_extra_args(false);
  add_validate_option(simulate_cmd, simulate.validate);
  simulate_cmd->add_option("--data-dir", simulate.data_dir, "Directory holding aws/instance-types.csv and prices")
      ->check(CLI::ExistingDirectory);
  simulate_cmd->add_option("--explain", simulate.explain,
                           "After the run, say why for this object, as `scalewright explain` does (pod/NAME, "
                           "node/NAME, nodeclaim/NAME, nodepool/NAME, hpa/NAME, scaledobject/NAME; NAMESPACE/NAME "
                           "for the namespaced ones); repeatable")
      ->allow_extra_args(false);

  scalewright::cli::ExplainOptions explain;
  CLI::App* explain_cmd = app.add_subcommand(
      "explain", "Why, for objects of a simulated run: for a pod, when it went pending, what each NodePool or node "
                 "group made of it, the NodeClaim it waited for and when it bound; for a NodeClaim or node, the pods "
                 "it was launched for, the instance types and prices it was chosen from and the cheaper offerings "
                 "not taken, and why it was removed or kept; for an HPA or ScaledObject, each decision's metrics, "
                 "ratio, tolerance, stabilization and limits. Reads the report `simulate --output` wrote.");
  explain_cmd->add_option("report", explain.report, "A JSON report written by `scalewright simulate --output`")
      ->required()
      ->check(existing(/*file_only=*/true));
  explain_cmd->add_option("objects", explain.objects,
                          "Objects as KIND/NAME: pod/web-1 (namespace default), pod/shop/web-1, node/NAME, "
                          "nodeclaim/NAME, nodepool/NAME, hpa/NAME, scaledobject/NAME")
      ->required();
  explain_cmd->footer(kExplainExitStatus);

  scalewright::cli::RunOptions run;
  CLI::App* run_cmd = app.add_subcommand(
      "run", "Run the controller on a real cluster: watch the Kubernetes API, provision nodes for NodePools through "
             "the cloud provider (kwok: Node objects only), and remove them when they are no longer needed.");
  run_cmd->add_option("--kubeconfig", run.kubeconfig,
                      "Path to a kubeconfig (default: $KUBECONFIG, ~/.kube/config, or the pod's service account)");
  run_cmd->add_option("--context", run.context, "The kubeconfig context to use instead of its current-context");
  const scalewright::cloud::ProviderRegistry& providers = scalewright::cli::cloud_providers();
  std::string provider_list;
  for (const scalewright::cloud::ProviderRegistration& p : providers.all()) {
    provider_list += (provider_list.empty() ? "" : "; ") + p.name + ": " + p.summary;
  }
  run_cmd->add_option("--cloud-provider", run.cloud_provider, "Where nodes come from (" + provider_list + ")")
      ->check(CLI::IsMember(providers.names()))
      ->capture_default_str();
  run_cmd->add_option("--region", run.region, "The region whose instance types and prices the catalog holds")
      ->capture_default_str();
  run_cmd->add_option("--data-dir", run.data_dir, "Directory holding aws/instance-types.csv and prices")
      ->check(CLI::ExistingDirectory);
  run_cmd->add_option("--leader-elect", run.leader_elect,
                      "Elect one leader among replicas over a Lease (false: act at once, alone)")
      ->capture_default_str();
  run_cmd->add_option("--leader-election-namespace", run.leader_election_namespace,
                      "Namespace of the leader-election Lease (default: the pod's namespace, else default)");
  run_cmd->add_option("--leader-election-id", run.leader_election_id, "Name of the leader-election Lease")
      ->capture_default_str();
  run_cmd->add_option("--metrics-bind-address", run.metrics_bind_address,
                      "Address of /metrics, /healthz and /readyz (\"0\": none)")
      ->capture_default_str();
  run_cmd->add_option("--log-format", run.log_format, "Log lines as text or one JSON object each")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  run_cmd->add_option("--log-level", run.log_level, "Least severe level logged")
      ->check(CLI::IsMember({"trace", "debug", "info", "warning", "error"}))
      ->capture_default_str();
  run_cmd->add_option("--feature-gates", run.feature_gates,
                      "Karpenter's feature gates, NAME=BOOL,...: NodeRepair=true replaces nodes the cloud provider's "
                      "repair policies give up on (off by default, as upstream)");
  run_cmd->add_flag("--dry-run", run.dry_run,
                    "Watch and log every decision (launches, deletions, evictions, replica changes) without acting");
  // Each provider's own flags, as it declares them.
  for (const scalewright::cloud::ProviderRegistration& p : providers.all()) {
    for (const scalewright::cloud::ProviderFlag& flag : p.flags) {
      std::string& value = run.provider_flags[flag.name] = flag.default_value;
      run_cmd->add_option(flag.name, value, flag.help)->capture_default_str();
    }
  }
  run_cmd->add_option("--batch-idle-duration", run.batch_idle_duration,
                      "Provisioning batch: how long without a new pending pod closes it (Karpenter's BATCH_IDLE_DURATION)")
      ->capture_default_str();
  run_cmd->add_option("--batch-max-duration", run.batch_max_duration,
                      "Provisioning batch: the longest it stays open (Karpenter's BATCH_MAX_DURATION)")
      ->capture_default_str();
  run_cmd->add_option("--auto-scaling-groups", run.auto_scaling_groups,
                      "With Cluster Autoscaler's --nodes: a file whose autoScalingGroups (a Scenario's "
                      "spec.cloud.autoScalingGroups) define the groups kwok plays; a --nodes NAME that is an instance "
                      "type needs none")
      ->check(existing(/*file_only=*/true));
  // Every other flag is Cluster Autoscaler's (--nodes=1:10:m5.large, --expander, --scale-down-*, ...), given as
  // to cluster-autoscaler; an unknown one is refused when they are read.
  run_cmd->allow_extras();
  run_cmd->footer("Cluster Autoscaler's flags are accepted as given to cluster-autoscaler: --nodes=MIN:MAX:NAME, "
                  "--node-group-auto-discovery, --expander, --scan-interval, --scale-down-*, ... With --nodes or "
                  "auto-discovery, node groups of kwok nodes are scaled beside the NodePools.");

  scalewright::cli::SnapshotOptions snapshot;
  CLI::App* snapshot_cmd = app.add_subcommand(
      "snapshot", "Write the live cluster's Nodes, Pods, workloads, PodDisruptionBudgets, PriorityClasses, NodePools "
                  "and autoscalers as a scenario that `scalewright simulate` runs unchanged. Reads only.");
  snapshot_cmd->add_option("--kubeconfig", snapshot.kubeconfig,
                           "Path to a kubeconfig (default: $KUBECONFIG, ~/.kube/config, or the pod's service "
                           "account)");
  snapshot_cmd->add_option("--context", snapshot.context,
                           "The kubeconfig context to use instead of its current-context");
  snapshot_cmd->add_option("-o,--output", snapshot.output,
                           "Write the scenario to this file (default: standard output)");
  snapshot_cmd->add_option("--duration", snapshot.duration, "How long the scenario runs (its spec.duration)")
      ->capture_default_str();
  snapshot_cmd->add_option("--name", snapshot.name, "The scenario's name (its metadata.name)")->capture_default_str();
  snapshot_cmd->add_option("--data-dir", snapshot.data_dir, "Directory holding aws/instance-types.csv and prices")
      ->check(CLI::ExistingDirectory);
  snapshot_cmd->footer(kSnapshotExitStatus);

  // Everything printed from here on, CLI11's messages included, with its control characters escaped.
  scalewright::cli::EscapedOutput escaped_out(std::cout);
  scalewright::cli::EscapedOutput escaped_err(std::cerr);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (check_cmd->parsed()) return scalewright::cli::run_check(check, std::cout, std::cerr);
  if (explain_cmd->parsed()) return scalewright::cli::run_explain(explain, std::cout, std::cerr);
  // The progress line is for a person watching; a log file or a pipe gets none. It returns to the start of its line
  // with "\r", so it is written past the escaping (its own text escaped by TimelinePrinter).
  std::ostream terminal(escaped_err.raw());
  if (::isatty(STDERR_FILENO) == 1) simulate.progress = &terminal;
  if (simulate_cmd->parsed()) return scalewright::cli::run_simulate(simulate, std::cout, std::cerr);
  if (run_cmd->parsed()) {
    run.cluster_autoscaler_flags = run_cmd->remaining();
    return scalewright::cli::run_controller(run, std::cerr);
  }
  if (snapshot_cmd->parsed()) return scalewright::cli::run_snapshot(snapshot, std::cout, std::cerr);
  return 0;
}
