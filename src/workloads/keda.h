#pragma once
// KEDA's two halves for a ScaledObject, as pure logic:
//  - the operator: the HPA it generates (keda_hpa) and its polling loop (poll_scaled_object), which decides
//    activation (0 <-> minReplicaCount, or idleReplicaCount) and leaves everything between min and max to the HPA;
//  - the metrics adapter (ScaledObjectMetrics): the External metrics that HPA reads, with fallback.
//
// Reading and failure counting, shared the way KEDA shares them:
//  - The poll reads every trigger once per pollingInterval (TriggerReader::read, or the cron schedule) to decide
//    activity. A failing trigger is not active, makes the poll an error poll and records a KEDAScalerFailed event,
//    but the poll does NOT count it in ScaledObjectState::health (KEDA's scale loop never touches status.health).
//  - The adapter reads a trigger each time the HPA asks for its metric and counts there, once per HPA read: a failure
//    adds one to health[metric].number_of_failures, a success resets it to 0 (pkg/fallback GetMetricsWithFallback).
//    With useCachedMetrics the adapter takes the poll's last reading instead of reading again, and still counts it
//    once per HPA read, as KEDA counts its cached error.
//  - Failures are counted only when fallback is enabled and valid: KEDA skips the status patch otherwise.
// So the poll and the adapter share one ScaledObjectState: the poll owns last_active_time and the Active condition,
// the adapter owns health and fallback_active, and the poll stores the readings the adapter may reuse.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/autoscaling.h"
#include "api/instant.h"
#include "api/time_zone.h"
#include "api/duration.h"
#include "api/result.h"
#include "workloads/hpa.h"

namespace scalewright::workloads {

// KEDA's words.
inline constexpr std::string_view kCompositeMetricName = "composite-metric";
inline constexpr std::string_view kScaledObjectNameLabel = "scaledobject.keda.sh/name";
inline constexpr std::int32_t kDefaultPollingIntervalSeconds = 30;
inline constexpr std::int32_t kDefaultCooldownPeriodSeconds = 300;
inline constexpr std::int32_t kDefaultMaxReplicaCount = 100;

// Where the value of a trigger that is not computed here comes from (prometheus and every other external scaler):
// the simulator's load model, or a Prometheus query. An error is the scaler's error (unreachable server, empty
// result, ...) and counts as a failure.
class TriggerReader {
 public:
  virtual ~TriggerReader();
  virtual Result<double> read(const ScaledObject& scaled_object, std::size_t trigger_index) const = 0;
};

// One trigger as KEDA's scaler for it understands the metadata.
struct KedaTrigger {
  enum class Kind { Resource, Cron, External };
  Kind kind = Kind::External;
  std::size_t index = 0;
  std::string type;         // "prometheus", "cron", "cpu", ...
  std::string name;         // trigger name: the formula's variable; may be empty
  std::string metric_name;  // External: "s0-prometheus"; Resource: "cpu"/"memory"
  MetricTarget::Type target_type = MetricTarget::Type::AverageValue;
  double target = 0;      // External: threshold (cron: 1); Resource: percent or per-pod value
  double activation = 0;  // activationThreshold; External only
  std::string container;  // Resource: containerName (makes it a ContainerResource metric)
  Quantity average_value;  // Resource with AverageValue: metadata.value as written
  // Cron: the raw metadata; the schedules are parsed where they are read, the zone once here.
  std::string cron_start, cron_end, cron_timezone;
  std::shared_ptr<const TimeZone> cron_zone;
  double cron_desired_replicas = 0;
};

// KEDA's reading of trigger `index` (the scaler's metadata parse). Errors quote the trigger and the key.
Result<KedaTrigger> keda_trigger(const ScaledObject& scaled_object, std::size_t index);
// "s<index>-<name>" with KEDA's NormalizeString, e.g. "s0-prometheus", "s1-cron-etc-utc-0x8xxx-0x18xxx".
std::string keda_metric_name(std::size_t index, std::string_view name);
// Every problem KEDA's admission and scaler construction would report (bad metadata, a scalingModifiers formula
// that does not parse or names no trigger, fallback with a Value metric or cpu/memory trigger, idle >= min,
// min > max); empty when none.
std::vector<std::string> scaled_object_problems(const ScaledObject& scaled_object);

// The HPA KEDA creates for the ScaledObject (controllers/keda/hpa.go): keda-hpa-<name> in its namespace, owned by it,
// labelled app.kubernetes.io/{name,part-of,managed-by} plus the ScaledObject's labels, annotations copied; min =
// minReplicaCount if > 0 else 1, max = maxReplicaCount (100); metrics sorted by type (ContainerResource, External,
// Resource) as KEDA sorts them; External metrics carry the scaledobject.keda.sh/name selector. With scalingModifiers
// (target > 0) the triggers' External metrics are replaced by one "composite-metric". A trigger whose metadata
// does not parse contributes no metric (scaled_object_problems says why).
HorizontalPodAutoscaler keda_hpa(const ScaledObject& scaled_object);

// One trigger's reading.
struct TriggerReading {
  std::optional<double> value;  // absent when it failed
  bool active = false;
  std::string error;
  Instant at{};
};

// keda_trigger of every trigger of one ScaledObject, kept in its ScaledObjectState so that the poll and the adapter
// do not parse the same metadata on every read. It remembers what it parsed from (the ScaledObject's namespace and
// name, which errors quote, and its triggers) and parses again whenever asked about a ScaledObject that differs.
class ParsedTriggers {
 public:
  using Parsed = std::vector<Result<KedaTrigger>>;  // by trigger index
  // keda_trigger(scaled_object, i) for every i; the last parse when it was made from the same ScaledObject.
  const std::shared_ptr<const Parsed>& of(const ScaledObject& scaled_object);

 private:
  std::string namespace_;
  std::string name_;
  std::vector<ScaledObjectTrigger> triggers_;
  std::shared_ptr<const Parsed> parsed_;  // shared with adapters, which keep it while they live; never modified
};

// status.health[metric]: consecutive failures as the adapter counted them.
struct TriggerHealth {
  std::int32_t number_of_failures = 0;
  bool failing = false;  // HealthStatus Failing / Happy
};

struct ScaledObjectState {
  std::optional<Instant> created;       // metadata.creationTimestamp; the first poll sets it when unset
  std::optional<Instant> last_active;   // status.lastActiveTime; unset until a trigger was seen active
  std::optional<bool> active;           // the Active condition; unset: Unknown
  std::string active_reason;            // ScalerActive, ScalerNotActive, ScalerCooldown
  std::map<std::string, TriggerHealth> health;    // by metric name; written by the adapter
  bool fallback_active = false;                   // the Fallback condition (FallbackExists)
  std::map<std::string, TriggerReading> cached;   // the poll's readings by metric name, for useCachedMetrics
  ParsedTriggers parsed_triggers;                 // not status: a cache of the triggers' metadata parse
};

struct KedaEvent {
  bool warning = false;
  std::string reason;  // KEDAScaleTargetActivated, KEDAScaleTargetDeactivated, KEDAScalerFailed, ...
  std::string message;
};

struct KedaTriggerResult {
  std::string type;
  std::string metric_name;  // "s0-prometheus"; the resource name for cpu/memory
  std::optional<double> value;
  bool active = false;
  std::string error;
};

struct KedaPoll {
  std::int32_t current_replicas = 0;
  std::int32_t desired_replicas = 0;  // what the operator sets; == current when it leaves the scale alone
  bool scale = false;                 // the operator itself changes the scale
  bool active = false;                // the ScaledObject's activity after every rule (formula, cpu/memory-only)
  bool error = false;                 // some trigger failed
  std::string reason;                 // "prometheus s0-prometheus value 12.5 above activation threshold 0; ..."
  std::vector<KedaTriggerResult> triggers;  // in spec order
  std::vector<KedaEvent> events;
  Instant next_poll{};  // now + pollingInterval
};

// One pass of KEDA's scale loop (scale_handler checkScalers + executor RequestScale) at `now` (engine clock, ms);
// `wall_clock` only places cron windows. Activity: any trigger's value strictly above its activationThreshold (cron:
// inside its window; cpu/memory: no say), or with scalingModifiers the formula strictly above activationTarget, and
// always active when every trigger is cpu/memory and none failed. Then, as RequestScale does:
//   active: replicas 0 (or idleReplicaCount set and replicas < min) -> max(min, 1), KEDAScaleTargetActivated;
//           some trigger failed -> nothing (lastActiveTime NOT refreshed); else lastActiveTime = now;
//   not active: a failure and fallback with replicas != 0 -> nothing (the HPA falls back); a failure and no
//           fallback -> nothing; idleReplicaCount set and replicas > idle, or replicas > 0 and min == 0 -> to idle
//           (or min) once lastActiveTime + cooldownPeriod < now, or when never active once creation +
//           initialCooldownPeriod < now (strictly: at exactly cooldownPeriod it still waits),
//           KEDAScaleTargetDeactivated; replicas < min without idleReplicaCount -> min.
KedaPoll poll_scaled_object(const ScaledObject& scaled_object, ScaledObjectState& state, std::int32_t current_replicas,
                            const TriggerReader& reader, Instant now, std::chrono::sys_seconds wall_clock);

// KEDA's metrics adapter for one ScaledObject: serves external.metrics.k8s.io for the metrics keda_hpa generated
// (values in milli-units, truncated as KEDA's GenerateMetricInMili does) and hands resource, pod and object metrics
// to `resources` (the cluster's metrics APIs). It counts failures in `state` (see the top of this file) and falls
// back as pkg/fallback does: once a metric has failed MORE than failureThreshold times in a row (failures >
// threshold, so threshold 3 falls back from the 4th failed read), it reads int(target AverageValue) x
// fallback.replicas, from which the HPA computes fallback.replicas; with scalingModifiers the composite reads
// int(scalingModifiers.target) x fallback.replicas. Only AverageValue metrics fall back: a Value metric keeps
// failing (KEDA rejects fallback with Value triggers). Below the threshold a failure is an error to the HPA.
// `state`, `reader` and `resources` must outlive the adapter.
class ScaledObjectMetrics : public MetricsSource {
 public:
  ScaledObjectMetrics(ScaledObject scaled_object, ScaledObjectState& state, const TriggerReader& reader,
                      const MetricsSource* resources = nullptr);

  // Cron triggers read this wall clock; the caller moves it forward before each HPA sync.
  void set_wall_clock(std::chrono::sys_seconds wall_clock) { wall_clock_ = wall_clock; }
  // The engine time recorded on readings.
  void set_now(Instant now) { now_ = now; }

  Result<std::map<std::string, PodMetricSample>> pod_resource_usage(const std::string& namespace_,
                                                                    const std::string& resource,
                                                                    const std::string& container,
                                                                    const LabelSelector& pods) const override;
  Result<std::map<std::string, PodMetricSample>> pod_metric(const std::string& namespace_,
                                                            const MetricIdentifier& metric,
                                                            const LabelSelector& pods) const override;
  Result<std::int64_t> object_metric(const std::string& namespace_, const MetricIdentifier& metric,
                                     const CrossVersionObjectReference& object) const override;
  Result<std::vector<std::int64_t>> external_metric(const std::string& namespace_,
                                                    const MetricIdentifier& metric) const override;

 private:
  struct Sample;
  Sample read_trigger(const KedaTrigger& trigger) const;
  Result<double> with_fallback(const KedaTrigger& trigger, const Sample& sample, bool& fell_back) const;

  ScaledObject scaled_object_;
  std::shared_ptr<const ParsedTriggers::Parsed> triggers_;  // scaled_object_'s, parsed once
  Labels owner_;  // scaledobject.keda.sh/name=<name>, what the HPA's External metric selectors ask for
  ScaledObjectState* state_;  // written from const reads: the adapter patches status.health as KEDA's does
  const TriggerReader* reader_;
  const MetricsSource* resources_;
  std::chrono::sys_seconds wall_clock_{};
  Instant now_{};
};

}  // namespace scalewright::workloads
