#pragma once
// Cluster Autoscaler's flags with their upstream defaults (cluster-autoscaler --help, 1.26+ names). Filled from a
// flag list (config/cluster_autoscaler_flags.h parses `--nodes=1:10:ng-a --expander=priority,least-waste ...`, as
// users pass them in CA's Deployment) or set directly by tests.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/duration.h"
#include "api/saturating.h"
#include "api/scenario.h"

namespace scalewright::nodegroups {

using scalewright::StaticNodeGroup;  // --nodes=MIN:MAX:NAME (api/scenario.h, beside the groups it names)

struct AutoscalerOptions {
  std::vector<StaticNodeGroup> nodes;
  // --node-group-auto-discovery specs as given ("asg:tag=k8s.io/cluster-autoscaler/enabled"): each provider reads
  // its own discoverer's, as CA's do.
  std::vector<std::string> auto_discovery;
  // --cloud-provider as given ("aws", "clusterapi"); empty when not given. The simulator reads its node groups from
  // what the provider names: Cluster API's objects among the files with clusterapi, the Auto Scaling groups of
  // spec.cloud otherwise (the simulated cloud is AWS's). `scalewright run` takes the provider from its own flag.
  std::string cloud_provider;
  std::vector<std::string> expanders{"least-waste"};  // --expander, a chain: each narrows the previous' choice
  Duration scan_interval{10'000};
  std::int32_t max_nodes_total = 0;  // 0: no limit
  std::int64_t cores_total_min = 0;
  std::int64_t cores_total_max = 320'000;
  std::int64_t memory_total_min_gib = 0;
  std::int64_t memory_total_max_gib = 6'400'000;
  // The totals in the engine's units, millicores and bytes: the flags may name up to int64's limit of cores or
  // GiB, so the products saturate (see ResourceList) rather than wrap below the cluster's size.
  std::int64_t cores_total_min_milli() const { return saturating_mul(cores_total_min, 1000); }
  std::int64_t cores_total_max_milli() const { return saturating_mul(cores_total_max, 1000); }
  std::int64_t memory_total_min_bytes() const { return saturating_mul(memory_total_min_gib, std::int64_t{1} << 30); }
  std::int64_t memory_total_max_bytes() const { return saturating_mul(memory_total_max_gib, std::int64_t{1} << 30); }
  bool balance_similar_node_groups = false;
  // --balancing-ignore-label: labels that do not make two groups different, beside the ones every cloud's nodes
  // differ by; the provider adds its own (CA's per-cloud comparators).
  std::vector<std::string> balancing_ignore_labels;
  Duration new_pod_scale_up_delay{0};
  Duration max_node_provision_time{15 * 60'000};
  // The cluster is unhealthy, and CA neither scales up nor down, when more than --ok-total-unready-count nodes
  // and more than --max-total-unready-percentage of all nodes are unready.
  std::int32_t ok_total_unready_count = 3;
  double max_total_unready_percentage = 45;
  Duration initial_node_group_backoff{5 * 60'000};
  Duration max_node_group_backoff{30 * 60'000};
  Duration node_group_backoff_reset_timeout{3 * 3600'000};
  std::int32_t max_nodes_per_scaleup = 1000;
  // Scale-down.
  bool scale_down_enabled = true;
  bool scale_down_unready_enabled = true;  // false: a NotReady node is never a scale-down candidate
  double scale_down_utilization_threshold = 0.5;
  double scale_down_gpu_utilization_threshold = 0.5;
  Duration scale_down_unneeded_time{10 * 60'000};
  Duration scale_down_unready_time{20 * 60'000};
  Duration scale_down_delay_after_add{10 * 60'000};
  std::optional<Duration> scale_down_delay_after_delete;  // unset: the scan interval
  Duration scale_down_delay_after_failure{3 * 60'000};
  bool skip_nodes_with_local_storage = true;
  bool skip_nodes_with_system_pods = true;
  bool skip_nodes_with_custom_controller_pods = true;
  // --ignore-daemonsets-utilization / --ignore-mirror-pods-utilization (upstream defaults: false, so those pods'
  // requests count towards a node's utilization unless turned on).
  bool ignore_daemonsets_utilization = false;
  bool ignore_mirror_pods_utilization = false;
  std::int32_t max_scale_down_parallelism = 10;
  std::int32_t max_drain_parallelism = 1;
  Duration max_graceful_termination{600'000};  // --max-graceful-termination-sec
  Duration max_pod_eviction_time{2 * 60'000};   // how long a drain retries a pod's eviction before it gives up
  std::int32_t max_empty_bulk_delete = 10;
  std::uint64_t random_seed = 1;  // the random expander's and tie-breaks' seed (the simulator's scenario seed)
  // CA flags that were given and are accepted without effect ("--v", "--cloud-provider"), in the order given, so the
  // caller can warn once; filled by parse_autoscaler_flags.
  std::vector<std::string> ignored_flags;
};

}  // namespace scalewright::nodegroups
