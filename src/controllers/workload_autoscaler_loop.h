#pragma once
// Workload autoscaling: the HPA controller's sync over every HorizontalPodAutoscaler (those KEDA generates
// included) and KEDA's polling of every ScaledObject. The decisions come from the engine
// (workloads::reconcile_hpa, workloads::poll_scaled_object); this class keeps what the controllers keep between
// passes and the tallies a report needs. Metrics come through AutoscalingMetrics (the simulator's load model, or
// metrics-server and Prometheus), the cluster through AutoscalingView.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/autoscaling.h"
#include "api/duration.h"
#include "api/instant.h"
#include "api/labels.h"
#include "controllers/ports.h"
#include "workloads/hpa.h"
#include "workloads/keda.h"

namespace scalewright::controllers {

// One workload autoscaler over the run: an HPA, or a ScaledObject (its activations and its HPA's decisions).
// An autoscaler as it stands: its target's replicas, and its metrics as its last sync read them (for a report's
// charts of replicas against metric and target).
struct AutoscalerReading {
  std::string name;  // as AutoscalerSummary::name
  std::int32_t replicas = 0;
  std::vector<workloads::MetricReading> metrics;
};

struct AutoscalerSummary {
  std::string name;    // "hpa/php-apache", "scaledobject/podinfo"
  std::string target;  // "Deployment default/php-apache"
  std::int32_t min_replicas = 0;  // the fewest and most replicas it kept the target at
  std::int32_t max_replicas = 0;
  double replica_seconds = 0;     // the target's replicas integrated over the run
  Duration above_target{0};       // time during which its metrics asked for more replicas than the target had
  std::int32_t scale_ups = 0;
  std::int32_t scale_downs = 0;
};

// A scale target as the scale subresource shows it.
struct ScaleTarget {
  std::string workload;  // the workload's key in the cluster state ("Kind/namespace/name")
  std::int32_t replicas = 0;
  LabelSelector selector;
};

// A pod as the autoscalers observe it.
struct ObservedPod {
  std::string key;  // namespace/name
  workloads::HpaPod pod;
};

// The cluster as the workload autoscalers observe it (StateAutoscalingView reads it from the cluster state).
class AutoscalingView {
 public:
  virtual ~AutoscalingView() = default;
  virtual std::optional<ScaleTarget> scale_target(const std::string& namespace_,
                                                  const CrossVersionObjectReference& ref) const = 0;
  // The pods of `namespace_` that `selector` matches (Failed and deleted pods are gone from the state).
  virtual std::vector<ObservedPod> pods(const std::string& namespace_, const LabelSelector& selector) const = 0;
};

// Where the autoscalers read metrics: the resource and custom metrics APIs (metrics-server, prometheus-adapter),
// and the sources of KEDA's triggers. The simulator answers from its load model.
class AutoscalingMetrics {
 public:
  virtual ~AutoscalingMetrics() = default;
  // metrics.k8s.io and custom.metrics.k8s.io, for the pods `view` shows.
  virtual const workloads::MetricsSource& pod_metrics() const = 0;
  // The triggers' sources (Prometheus, ...), read at the time they are asked.
  virtual const workloads::TriggerReader& triggers() const = 0;
};

// A scale the autoscalers ask for.
struct ScaleChange {
  std::string workload;
  std::int32_t replicas = 0;
};

// What a pass says: timeline lines, and the Events on the autoscalers that explain each decision (a rescale, or a
// recommendation that stabilization or a limit held back, said once while it holds).
struct AutoscalingNotes {
  std::vector<TimelineEntry> timeline;
  std::vector<ObjectEvent> events;
};

class WorkloadAutoscalerLoop {
 public:
  // Cron triggers read the wall clock: `wall_clock_at_start` at time 0.
  WorkloadAutoscalerLoop(const AutoscalingMetrics& metrics, std::chrono::sys_seconds wall_clock_at_start);
  ~WorkloadAutoscalerLoop();

  void add(HorizontalPodAutoscaler hpa, Instant now);
  void add(ScaledObject scaled_object, Instant now);
  // The ScaledObject of that namespace and name was changed: its triggers, limits and generated HPA are the new
  // spec's from now on, its history (activity, the HPA's recommendations) is kept, and it is polled at once, as
  // KEDA restarts a changed ScaledObject's loop.
  void update(ScaledObject scaled_object, Instant now);
  // The ScaledObject "namespace/name" and its HPA were deleted: nothing scales its target any more.
  void remove_scaled_object(const std::string& key);
  bool empty() const { return hpas_.empty() && scaled_objects_.empty(); }

  // One sync of the HPA controller over every HPA.
  std::vector<ScaleChange> sync_hpas(Instant now, const AutoscalingView& view, AutoscalingNotes& notes);
  // KEDA's polls due at `now`.
  std::vector<ScaleChange> poll_scaled_objects(Instant now, const AutoscalingView& view, AutoscalingNotes& notes);
  // When the next KEDA poll is due, if any ScaledObject exists.
  std::optional<Instant> next_poll() const;

  // Brings the replica-seconds and time-above-target tallies up to `now`.
  void account(Instant now, const AutoscalingView& view);
  std::vector<AutoscalerSummary> summary() const;
  std::vector<AutoscalerReading> readings(const AutoscalingView& view) const;

 private:
  struct Hpa;
  struct Scaled;
  void explain(Hpa& hpa, const workloads::HpaDecision& decision, AutoscalingNotes& notes);
  std::vector<ScaleChange> reconcile(Hpa& hpa, const workloads::MetricsSource& metrics, Instant now,
                                     const AutoscalingView& view, AutoscalingNotes& notes);

  const AutoscalingMetrics* metrics_;
  std::chrono::sys_seconds wall_clock_at_start_;
  std::vector<std::unique_ptr<Hpa>> hpas_;  // HPAs from the manifests, then KEDA's, in the order added
  std::vector<std::unique_ptr<Scaled>> scaled_objects_;
};

}  // namespace scalewright::controllers
