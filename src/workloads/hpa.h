#pragma once
// The HorizontalPodAutoscaler controller's reconcile of one HPA, as kube-controller-manager's horizontal
// controller does it: read every metric, take the largest proposal, clamp to min/max, stabilize and limit the
// change (with or without `behavior`), and say why. Pure: pods, metrics and `now` come in as values; what the
// controller must remember between syncs lives in HpaState, which the caller keeps per HPA.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/autoscaling.h"
#include "api/duration.h"
#include "api/instant.h"
#include "api/labels.h"
#include "api/result.h"
#include "workloads/replica_calculator.h"

namespace scalewright::workloads {

// Where metric values come from: the simulator's load model, the metrics APIs of a cluster, or KEDA's metrics
// adapter for External metrics. Values are milli-units, as upstream's metrics client hands them over.
class MetricsSource {
 public:
  virtual ~MetricsSource() = default;
  // metrics.k8s.io: each pod's usage of `resource`, summed over its containers, or of the one container named
  // `container` when it is not empty. Pods without a sample are absent from the map.
  virtual Result<std::map<std::string, PodMetricSample>> pod_resource_usage(const std::string& namespace_,
                                                                            const std::string& resource,
                                                                            const std::string& container,
                                                                            const LabelSelector& pods) const = 0;
  // custom.metrics.k8s.io for every pod the selector matches.
  virtual Result<std::map<std::string, PodMetricSample>> pod_metric(const std::string& namespace_,
                                                                    const MetricIdentifier& metric,
                                                                    const LabelSelector& pods) const = 0;
  // custom.metrics.k8s.io for one object.
  virtual Result<std::int64_t> object_metric(const std::string& namespace_, const MetricIdentifier& metric,
                                             const CrossVersionObjectReference& object) const = 0;
  // external.metrics.k8s.io: the value of every series the metric's selector matches.
  virtual Result<std::vector<std::int64_t>> external_metric(const std::string& namespace_,
                                                            const MetricIdentifier& metric) const = 0;
};

// kube-controller-manager's --horizontal-pod-autoscaler-* flags.
struct HpaControllerConfig {
  ReplicaCalculatorConfig calculator;            // tolerance, cpu initialization period, readiness delay
  Duration sync_period{15'000};                  // --horizontal-pod-autoscaler-sync-period
  Duration downscale_stabilization{300'000};     // --horizontal-pod-autoscaler-downscale-stabilization
};

struct TimestampedRecommendation {
  std::int32_t replicas = 0;
  Instant at{};
};

// A rescale the controller made, kept for the scaling policies' periods (upstream's timestampedScaleEvent).
struct ScaleEvent {
  std::int32_t change = 0;  // replicas added (scale-up list) or removed (scale-down list), positive
  Instant at{};
  bool outdated = false;
};

// status.conditions entries: AbleToScale, ScalingActive, ScalingLimited, with upstream's reasons.
struct HpaCondition {
  std::string type;
  bool status = false;
  std::string reason;
  std::string message;
};

// One metric as this sync read it, for status.currentMetrics and the simulator's timeline
// ("cpu 188% of 50% target").
struct MetricReading {
  std::string name;     // "cpu", "memory", the metric's name for Pods/Object/External
  std::string current;  // as kubectl shows it: "188%" for Utilization, a quantity ("12500m", "3") otherwise
  std::string target;   // "50%", "10", ...
  std::optional<std::int32_t> proposal;  // the replica count this metric asked for; absent when it failed
  std::optional<double> usage_ratio;     // current ÷ target, as held against the tolerance; absent when it failed
  std::string error;                     // why it failed, when it did
};

struct HpaEvent {
  bool warning = false;  // type Warning, else Normal
  std::string reason;    // SuccessfulRescale, FailedGetResourceMetric, FailedComputeMetricsReplicas, ...
  std::string message;   // "New size: 4; reason: cpu resource utilization (percentage of request) above target"
};

// What the controller remembers of one HPA between syncs: its status and the in-memory histories upstream keeps
// (recommendations for stabilization, scale events for the policies).
struct HpaState {
  std::int32_t current_replicas = 0;
  std::int32_t desired_replicas = 0;
  std::optional<Instant> last_scale_time;
  std::vector<TimestampedRecommendation> recommendations;
  std::vector<ScaleEvent> scale_up_events;
  std::vector<ScaleEvent> scale_down_events;
  std::vector<HpaCondition> conditions;
  std::vector<MetricReading> current_metrics;
};

struct HpaDecision {
  std::int32_t current_replicas = 0;  // the target's spec.replicas at this sync
  std::int32_t desired_replicas = 0;  // what the target is scaled to (== current when no rescale)
  bool rescale = false;
  std::string reason;                         // upstream's rescale reason, empty when no rescale
  std::vector<MetricReading> metrics;         // every metric, in spec order
  std::optional<std::size_t> deciding_metric; // index in `metrics` of the largest proposal
  std::vector<HpaEvent> events;
  // How the count was reached, for an explanation: the metrics' (or min/max's) count, what stabilization made of
  // it, and the tolerance the ratios were held against. Set when the metrics were read.
  std::optional<std::int32_t> recommended_replicas;
  std::int32_t stabilized_replicas = 0;
  Tolerances tolerances;
  // What stabilization and the limits (rate policies, min/max) made of the recommendation, in upstream's fixed
  // words (the AbleToScale and ScalingLimited conditions' reason and message); empty where they changed nothing.
  std::string_view stabilization_reason;
  std::string_view stabilization_message;
  std::string_view limit_reason;
  std::string_view limit_message;
};

struct HpaTarget {
  std::int32_t spec_replicas = 0;  // the scale subresource's spec.replicas
  // The scale subresource's status.replicas, which the AverageValue targets of Object and External metrics divide
  // their total by; unset: spec_replicas.
  std::optional<std::int32_t> status_replicas;
  LabelSelector selector;          // the scale subresource's selector
  std::vector<HpaPod> pods;        // the pods the selector matches
};

// One sync of one HPA at `now`. Updates `state` as upstream updates the HPA's status and its in-memory histories,
// assuming the rescale it returns is carried out.
HpaDecision reconcile_hpa(const HorizontalPodAutoscaler& hpa, HpaState& state, const HpaTarget& target,
                          const MetricsSource& metrics, Instant now, const HpaControllerConfig& config = {});

}  // namespace scalewright::workloads
