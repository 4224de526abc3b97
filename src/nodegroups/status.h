#pragma once
// Cluster Autoscaler's status report, the `status` key of the kube-system/cluster-autoscaler-status ConfigMap, in
// the YAML format CA writes since 1.30 (clusterstate/api ClusterAutoscalerStatus, marshalled with struct field
// order and omitempty as Go's yaml.v2 does); the older "Cluster-autoscaler status at ...:" text is not written by
// current releases. Tools that read the ConfigMap (dashboards, kubectl plugins, runbooks) read ours unchanged.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"

namespace scalewright::nodegroups {

inline constexpr std::string_view kStatusConfigMapName = "cluster-autoscaler-status";
// Annotation on the ConfigMap holding the same time as the report's `time:`.
inline constexpr std::string_view kStatusLastUpdatedAnnotation = "cluster-autoscaler.kubernetes.io/last-updated";

enum class HealthConditionStatus { Healthy, Unhealthy };
enum class ScaleUpConditionStatus { Needed, NotNeeded, InProgress, NoActivity, Backoff };
enum class ScaleDownConditionStatus { CandidatesPresent, NoCandidates };
enum class AutoscalerState { Initializing, Running };

std::string_view to_string(HealthConditionStatus status);
std::string_view to_string(ScaleUpConditionStatus status);
std::string_view to_string(ScaleDownConditionStatus status);
std::string_view to_string(AutoscalerState state);

// Times are engine time (since the run began); the renderer turns them into wall-clock times. Absent: never.
struct ConditionTimes {
  std::optional<Instant> last_probe;
  std::optional<Instant> last_transition;
};

struct NodeCounts {
  std::int32_t registered = 0;        // nodes the API server knows of
  std::int32_t ready = 0;             // of those
  std::int32_t not_started = 0;       // registered, unready, still within their startup time
  std::int32_t being_deleted = 0;     // registered, being removed (not in the target size)
  std::int32_t unready = 0;           // registered, unready past their startup time
  std::int32_t resource_unready = 0;  // of the unready: ready but a resource (a GPU) not yet advertised
  std::int32_t long_unregistered = 0;  // instances that have not registered within --max-node-provision-time
  std::int32_t unregistered = 0;       // instances not (yet) registered
};

struct HealthCondition {
  HealthConditionStatus status = HealthConditionStatus::Healthy;
  NodeCounts counts;
  ConditionTimes times;
};

struct ScaleUpCondition {
  ScaleUpConditionStatus status = ScaleUpConditionStatus::NoActivity;
  std::string backoff_error_code;     // Backoff: why ("QUOTA_EXCEEDED", "OutOfResource")
  std::string backoff_error_message;
  ConditionTimes times;
};

struct ScaleDownCondition {
  ScaleDownConditionStatus status = ScaleDownConditionStatus::NoCandidates;
  std::int32_t candidates = 0;
  ConditionTimes times;
};

struct NodeGroupStatus {
  std::string name;
  HealthCondition health;
  std::int32_t cloud_provider_target = 0;
  std::int32_t min_size = 0;
  std::int32_t max_size = 0;
  ScaleUpCondition scale_up;
  ScaleDownCondition scale_down;
};

struct ClusterAutoscalerStatus {
  Instant time{};  // when the report was written
  AutoscalerState state = AutoscalerState::Running;
  std::string message;
  HealthCondition health;
  ScaleUpCondition scale_up;  // cluster-wide: no backoff info
  ScaleDownCondition scale_down;
  std::vector<NodeGroupStatus> node_groups;
};

using WallClock = std::chrono::sys_time<std::chrono::milliseconds>;

// `base + at` as RFC 3339 in UTC with Go's RFC3339Nano trimming: "2024-01-01T00:10:00Z", "2024-01-01T00:10:00.25Z".
std::string format_rfc3339(WallClock base, Instant at);
// `base + at` as CA's last-updated time (Go's "2006-01-02 15:04:05.999999999 -0700 MST"):
// "2024-01-01 00:10:00.25 +0000 UTC".
std::string format_last_updated(WallClock base, Instant at);

// The report, with engine times placed on the wall clock at `base` (the simulator's start, or the real clock's
// reading when the engine's time was zero).
std::string render_status(const ClusterAutoscalerStatus& status, WallClock base);

}  // namespace scalewright::nodegroups
