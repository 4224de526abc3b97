#pragma once
// Cluster Autoscaler's per-node-group options (config.NodeGroupAutoscalingOptions): a group may override some of
// CA's flags for its own nodes. AWS reads them from the Auto Scaling group's tags
// k8s.io/cluster-autoscaler/node-template/autoscaling-options/<name>, Cluster API from the scalable object's
// annotations <group>/autoscaling-options-<name>; each provider reads only the names its CA provider reads, and an
// option the group does not set keeps the flag's value. One parser for every provider, so a value means the same
// wherever it is written; the engine reads the effective value through the helpers below, per node per scan, so
// they are plain field reads.
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/duration.h"
#include "nodegroups/options.h"

namespace scalewright::nodegroups {

struct GroupAutoscalingOptions {
  std::optional<double> scale_down_utilization_threshold;      // scaledownutilizationthreshold
  std::optional<double> scale_down_gpu_utilization_threshold;  // scaledowngpuutilizationthreshold
  std::optional<Duration> scale_down_unneeded_time;            // scaledownunneededtime
  std::optional<Duration> scale_down_unready_time;             // scaledownunreadytime
  std::optional<Duration> max_node_provision_time;             // maxnodeprovisiontime
  // maxnodestartuptime: read and checked as CA's clusterapi provider reads it; Scalewright accepts CA's
  // --max-node-startup-time without acting on it (a registered node counts as starting until its provision time),
  // so this has no effect either.
  std::optional<Duration> max_node_startup_time;
  std::optional<bool> ignore_daemonsets_utilization;  // ignoredaemonsetsutilization (CA's AWS provider only)
  bool empty() const { return *this == GroupAutoscalingOptions{}; }
  friend bool operator==(const GroupAutoscalingOptions&, const GroupAutoscalingOptions&) = default;
};

// The options by CA's names (the part after the provider's prefix).
enum class GroupOption {
  ScaleDownUtilizationThreshold,     // scaledownutilizationthreshold: a fraction from 0 to 1
  ScaleDownGpuUtilizationThreshold,  // scaledowngpuutilizationthreshold: a fraction from 0 to 1
  ScaleDownUnneededTime,             // scaledownunneededtime: a duration, not negative
  ScaleDownUnreadyTime,              // scaledownunreadytime: a duration, not negative
  MaxNodeProvisionTime,              // maxnodeprovisiontime: a duration, not negative
  MaxNodeStartupTime,                // maxnodestartuptime: a duration, not negative
  IgnoreDaemonSetsUtilization,       // ignoredaemonsetsutilization: true or false (Go's strconv.ParseBool)
};
std::string_view to_string(GroupOption option);

// The names each of CA's providers reads (its GetOptions); others are passed over, as CA passes them over.
// AWS (aws_manager.go GetAsgOptions): the scale-down ones and ignoredaemonsetsutilization, no provision time.
inline constexpr GroupOption kAwsGroupOptions[] = {
    GroupOption::ScaleDownUtilizationThreshold, GroupOption::ScaleDownGpuUtilizationThreshold,
    GroupOption::ScaleDownUnneededTime,         GroupOption::ScaleDownUnreadyTime,
    GroupOption::IgnoreDaemonSetsUtilization,
};
// Cluster API (clusterapi_nodegroup.go GetOptions): the scale-down ones and both node times.
inline constexpr GroupOption kClusterApiGroupOptions[] = {
    GroupOption::ScaleDownUtilizationThreshold, GroupOption::ScaleDownGpuUtilizationThreshold,
    GroupOption::ScaleDownUnneededTime,         GroupOption::ScaleDownUnreadyTime,
    GroupOption::MaxNodeProvisionTime,          GroupOption::MaxNodeStartupTime,
};

// Reads option `name` = `value` into `options` when `name` is one of `reads`; a name it does not list, and an empty
// value, are passed over (nullopt, `options` unchanged). A bad value is the problem in words, for the provider to
// say with the group and the tag or annotation: "not a number", "not between 0 and 1", "not a duration (\"10m\",
// \"1h30m\")", "negative", "not true or false". Values are taken as written (Cluster API lowercases them first, as
// CA's clusterapi provider does).
std::optional<std::string> read_group_option(std::string_view name, std::string_view value,
                                             std::span<const GroupOption> reads, GroupAutoscalingOptions& options);

// The value that applies to a node of a group with `group`'s options: the group's where it sets one, else the flag.
inline double scale_down_utilization_threshold(const GroupAutoscalingOptions& group, const AutoscalerOptions& flags,
                                               bool gpu_node) {
  return gpu_node ? group.scale_down_gpu_utilization_threshold.value_or(flags.scale_down_gpu_utilization_threshold)
                  : group.scale_down_utilization_threshold.value_or(flags.scale_down_utilization_threshold);
}
inline Duration scale_down_unneeded_time(const GroupAutoscalingOptions& group, const AutoscalerOptions& flags) {
  return group.scale_down_unneeded_time.value_or(flags.scale_down_unneeded_time);
}
inline Duration scale_down_unready_time(const GroupAutoscalingOptions& group, const AutoscalerOptions& flags) {
  return group.scale_down_unready_time.value_or(flags.scale_down_unready_time);
}
inline Duration max_node_provision_time(const GroupAutoscalingOptions& group, const AutoscalerOptions& flags) {
  return group.max_node_provision_time.value_or(flags.max_node_provision_time);
}
inline bool ignore_daemonsets_utilization(const GroupAutoscalingOptions& group, const AutoscalerOptions& flags) {
  return group.ignore_daemonsets_utilization.value_or(flags.ignore_daemonsets_utilization);
}

}  // namespace scalewright::nodegroups
