#pragma once
// `scalewright run`: the controller on a real cluster. It watches the Kubernetes API, keeps the cluster state, and
// runs the simulator's controllers against it (provisioning, node lifecycle, disruption, termination), acting
// through the API and a cloud provider (kwok: Node objects only). Two replicas elect one leader over a Lease; the
// other keeps its state warm and takes over within the lease. SIGTERM or SIGINT: the loop stops after its pass,
// the Lease is released, and what was under way is left for the next leader to pick up from the cluster.
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace scalewright::cli {

struct RunOptions {
  std::string kubeconfig;  // empty: $KUBECONFIG, ~/.kube/config, or the pod's service account
  std::string context;
  std::string cloud_provider = "kwok";
  std::string region = "us-east-1";
  std::string data_dir;  // the instance-type data; empty: found as `simulate` finds it
  bool leader_elect = true;
  std::string leader_election_namespace;  // empty: the pod's namespace in a cluster, else "default"
  std::string leader_election_id = "scalewright-leader";
  std::string metrics_bind_address = ":8080";  // "0": no endpoint
  std::string log_format = "text";             // or "json"
  std::string log_level = "info";
  bool dry_run = false;
  std::string feature_gates;  // Karpenter's --feature-gates: "NodeRepair=true"
  // The flags of the providers (cloud::ProviderRegistration::flags) by name, as given or defaulted:
  // {"--kwok-launch-latency", "0s"}.
  std::map<std::string, std::string> provider_flags;
  std::string batch_idle_duration = "1s";
  std::string batch_max_duration = "10s";
  // Cluster Autoscaler's own flags (--nodes=1:10:NAME, --expander, --scale-down-unneeded-time, ...), as given to
  // cluster-autoscaler: with --nodes or --node-group-auto-discovery among them, node groups run beside the
  // NodePools.
  std::vector<std::string> cluster_autoscaler_flags;
  // The Auto Scaling groups kwok plays (a file with `autoScalingGroups:` as a Scenario's spec.cloud writes them).
  std::string auto_scaling_groups;
};

// Runs until SIGTERM or SIGINT (0), or until leadership is lost (1, for the pod to restart as client-go's
// controllers do). Bad options or an unreachable configuration: one error line on `err`, 1.
int run_controller(const RunOptions& options, std::ostream& err);

}  // namespace scalewright::cli
