#include "cli/check_command.h"

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/validation.h"
#include "manifest/manifest.h"
#include "scheduling/placement.h"
#include "scheduling/scheduler.h"

namespace scalewright::cli {
namespace {

using scheduling::ClusterSnapshot;
using scheduling::NodeId;
using scheduling::Placement;

struct Cluster {
  ClusterSnapshot snapshot;
  std::vector<Pod> pending;
  std::vector<std::string> warnings;
};

// Builds the snapshot a scheduler would see: nodes, the pods already bound to them, and the pods still to place
// (bare pods without a node, and the pods the workloads create).
Cluster build_cluster(ManifestSet manifests) {
  Cluster cluster;
  cluster.warnings = std::move(manifests.warnings);
  for (const Namespace& ns : manifests.namespaces) cluster.snapshot.set_namespace_labels(ns.meta.name, ns.meta.labels);
  for (Node& node : manifests.nodes) cluster.snapshot.add_node(std::move(node));  // each once: refused when loaded
  for (Pod& pod : manifests.pods) {
    if (pod.is_terminal()) continue;
    if (!pod.is_bound()) {
      cluster.pending.push_back(std::move(pod));
      continue;
    }
    NodeId node = cluster.snapshot.find_node(pod.spec.node_name);
    if (node == scheduling::kNoNode) {
      cluster.warnings.push_back("Pod/" + pod.meta.key() + " is bound to node " + pod.spec.node_name +
                                 ", which is not in the input; the pod is ignored");
      continue;
    }
    cluster.snapshot.add_pod(std::move(pod), node);
  }
  for (const Workload& workload : manifests.workloads) {
    for (Pod& pod : workload.expand_pods()) cluster.pending.push_back(std::move(pod));
  }
  return cluster;
}

// One line per HorizontalPodAutoscaler and ScaledObject, and a warning for each one whose target workload is not
// in the input (the autoscaler would have nothing to scale).
struct Autoscalers {
  std::vector<std::string> lines;
  std::vector<std::string> warnings;
};

Autoscalers describe_autoscalers(const ManifestSet& manifests) {
  Autoscalers out;
  auto add = [&](std::string_view kind, const ObjectMeta& meta, const CrossVersionObjectReference& target,
                 std::int32_t min, std::int32_t max) {
    std::string name = std::string(kind) + "/" + meta.key();
    std::string target_name = target.kind + "/" + target.name;
    out.lines.push_back(name + " scales " + target_name + " between " + std::to_string(min) + " and " +
                        std::to_string(max) + " replicas");
    const bool found = std::any_of(manifests.workloads.begin(), manifests.workloads.end(), [&](const Workload& w) {
      return to_string(w.kind) == target.kind && w.meta.name == target.name && w.meta.namespace_ == meta.namespace_;
    });
    if (!found) out.warnings.push_back(name + " scales " + target_name + ", which is not in the input");
  };
  // The bounds the controllers apply when the object leaves them out: HPA min 1; KEDA min 0, max 100.
  for (const HorizontalPodAutoscaler& hpa : manifests.horizontal_pod_autoscalers) {
    add("HorizontalPodAutoscaler", hpa.meta, hpa.scale_target_ref, hpa.min_replicas.value_or(1), hpa.max_replicas);
  }
  for (const ScaledObject& so : manifests.scaled_objects) {
    add("ScaledObject", so.meta, so.scale_target_ref, so.min_replica_count.value_or(0),
        so.max_replica_count.value_or(100));
  }
  return out;
}

nlohmann::json to_json(const ClusterSnapshot& snapshot, const Placement& p) {
  nlohmann::json feasible = nlohmann::json::array();
  for (NodeId id : p.result.feasible) feasible.push_back(snapshot.node(id).name());
  nlohmann::json node = p.result.scheduled() ? nlohmann::json(snapshot.node(p.result.chosen).name()) : nullptr;
  return {{"pod", p.pod->meta.key()}, {"node", node}, {"feasible", feasible}, {"reason", p.result.reason}};
}

void print_text(const ClusterSnapshot& snapshot, const std::vector<Placement>& placements, std::ostream& out) {
  std::size_t width = 3;
  for (const Placement& p : placements) width = std::max(width, p.pod->meta.key().size());
  std::size_t placed = 0;
  for (const Placement& p : placements) {
    std::string key = p.pod->meta.key();
    out << key << std::string(width - key.size() + 2, ' ');
    if (p.result.scheduled()) {
      ++placed;
      out << "-> " << snapshot.node(p.result.chosen).name() << "  (fits on ";
      for (std::size_t i = 0; i < p.result.feasible.size(); ++i) {
        out << (i ? ", " : "") << snapshot.node(p.result.feasible[i]).name();
      }
      out << ")\n";
    } else {
      out << "unschedulable: " << p.result.reason << "\n";
    }
  }
  out << placements.size() << " pod(s) without a node: " << placed << " placed, " << placements.size() - placed
      << " unschedulable\n";
}

}  // namespace

int run_check(const CheckOptions& options, std::ostream& out, std::ostream& err) {
  Result<ManifestSet> loaded = load_manifest_files(options.files, options.validate);
  if (!loaded) {
    err << "error: " << loaded.error().message << "\n";
    return 1;
  }
  // Past the simulator's limits, the pods to place would not fit in memory either; and the ScaledObjects simulate
  // would refuse, refused here too (a target missing from the input stays a warning: check may be given part of a
  // cluster).
  std::optional<Error> invalid = check_run_size(*loaded, sim::SimulationLimits{});
  if (!invalid) invalid = check_scaled_objects(*loaded, /*simulated=*/false);
  if (!invalid) invalid = check_autoscaler_targets(*loaded, nullptr);
  if (invalid) {
    err << "error: " << invalid->message << "\n";
    return 1;
  }
  std::vector<Workload> daemonsets;
  for (const Workload& w : loaded->workloads) {
    if (w.kind == WorkloadKind::DaemonSet) daemonsets.push_back(w);
  }
  Autoscalers autoscalers = describe_autoscalers(*loaded);
  Cluster cluster = build_cluster(std::move(*loaded));
  for (std::string& warning : autoscalers.warnings) cluster.warnings.push_back(std::move(warning));
  for (const std::string& warning : cluster.warnings) err << "warning: " << warning << "\n";

  scheduling::SchedulerOptions scheduler_options;
  scheduler_options.scoring = options.scoring == "MostAllocated" ? scheduling::ScoringStrategy::MostAllocated
                                                                 : scheduling::ScoringStrategy::LeastAllocated;
  scheduler_options.percentage_of_nodes_to_score = 100;  // the report lists every node a pod fits on
  scheduling::Scheduler scheduler(scheduler_options);
  std::vector<Placement> placements = place_daemon_pods(cluster.snapshot, scheduler, daemonsets);
  auto mode = options.independent ? scheduling::PlacementMode::Independent : scheduling::PlacementMode::Sequential;
  for (Placement& p : place_pods(cluster.snapshot, scheduler, std::move(cluster.pending), mode)) {
    placements.push_back(std::move(p));
  }

  if (options.output == "json") {
    nlohmann::json array = nlohmann::json::array();
    for (const Placement& p : placements) array.push_back(to_json(cluster.snapshot, p));
    out << array.dump(2) << "\n";
  } else {
    print_text(cluster.snapshot, placements, out);
    for (const std::string& line : autoscalers.lines) out << line << "\n";
    if (!autoscalers.lines.empty()) out << autoscalers.lines.size() << " autoscaler(s)\n";
  }
  return 0;
}

}  // namespace scalewright::cli
