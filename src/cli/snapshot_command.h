#pragma once
// `scalewright snapshot`: the live cluster's Nodes, Pods, workloads, PodDisruptionBudgets, PriorityClasses,
// NodePools and autoscalers written as a scenario that `scalewright simulate` runs unchanged, so that a user can ask
// what autoscaling would do to their cluster before installing anything. Read-only: it lists, and writes nothing to
// the cluster.
#include <ostream>
#include <string>

namespace scalewright::cli {

struct SnapshotOptions {
  std::string kubeconfig;  // empty: $KUBECONFIG, ~/.kube/config, or the pod's service account
  std::string context;
  std::string output;             // empty or "-": standard output
  std::string duration = "1h";    // the Scenario's spec.duration
  std::string name = "snapshot";  // the Scenario's metadata.name
  std::string data_dir;           // the instance-type data; empty: found as `simulate` finds it
};

// Lists the cluster and writes the scenario to options.output (or `out`) once it is complete and loads as
// `simulate` loads it; objects left out are warning lines on `err`, and with an output file a summary line.
// Returns 0 when written; 1 when the API server cannot be reached or a list fails, the instance-type data cannot be
// found, or the file cannot be written (one error line on `err`, nothing written); 2 for a bad --duration.
int run_snapshot(const SnapshotOptions& options, std::ostream& out, std::ostream& err);

}  // namespace scalewright::cli
