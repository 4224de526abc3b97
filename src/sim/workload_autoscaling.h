#pragma once
// Workload autoscaling in the simulator: the HPA controller's 15-second sync over every HorizontalPodAutoscaler
// (those KEDA generates included) and KEDA's polling of every ScaledObject, fed by the load model. The decisions
// come from the same engine code (workloads::reconcile_hpa, workloads::poll_scaled_object) a real cluster's
// controller runs; this file is only the observe side (metrics from the load model, pods from the simulation)
// and the bookkeeping the report needs.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/autoscaling.h"
#include "api/duration.h"
#include "api/labels.h"
#include "manifest/manifest.h"
#include "sim/load_model.h"
#include "sim/report.h"
#include "workloads/hpa.h"
#include "workloads/keda.h"

namespace scalewright::sim {

// A scale target as the scale subresource shows it.
struct ScaleTarget {
  std::string workload;  // the simulation's key for it
  std::int32_t replicas = 0;
  LabelSelector selector;
};

// A pod as the autoscalers observe it.
struct ObservedPod {
  std::string key;  // namespace/name
  workloads::HpaPod pod;
};

// The cluster as the workload autoscalers observe it; the simulation implements it.
class AutoscalingView {
 public:
  virtual ~AutoscalingView() = default;
  virtual std::optional<ScaleTarget> scale_target(const std::string& namespace_,
                                                  const CrossVersionObjectReference& ref) const = 0;
  // The pods of `namespace_` that `selector` matches (Failed and deleted pods are gone from the simulation).
  virtual std::vector<ObservedPod> pods(const std::string& namespace_, const LabelSelector& selector) const = 0;
};

// A scale the autoscalers ask for.
struct ScaleChange {
  std::string workload;
  std::int32_t replicas = 0;
};

class WorkloadAutoscaling {
 public:
  // Prometheus answers no query during `outages`.
  WorkloadAutoscaling(const LoadModel& load, std::chrono::sys_seconds wall_clock_at_start,
                      std::vector<OutageWindow> outages = {});
  ~WorkloadAutoscaling();

  void add(HorizontalPodAutoscaler hpa, Duration now);
  void add(ScaledObject scaled_object, Duration now);
  bool empty() const { return hpas_.empty() && scaled_objects_.empty(); }

  // One sync of the HPA controller over every HPA; timeline lines go to `timeline`.
  std::vector<ScaleChange> sync_hpas(Duration now, const AutoscalingView& view, std::vector<TimelineEntry>& timeline);
  // KEDA's polls due at `now`.
  std::vector<ScaleChange> poll_scaled_objects(Duration now, const AutoscalingView& view,
                                               std::vector<TimelineEntry>& timeline);
  // When the next KEDA poll is due, if any ScaledObject exists.
  std::optional<Duration> next_poll() const;

  // Brings the replica-seconds and time-above-target tallies up to `now`.
  void account(Duration now, const AutoscalingView& view);
  std::vector<AutoscalerSummary> summary() const;

 private:
  struct Hpa;
  struct Scaled;
  std::vector<ScaleChange> reconcile(Hpa& hpa, const workloads::MetricsSource& metrics, Duration now,
                                     const AutoscalingView& view, std::vector<TimelineEntry>& timeline);

  const LoadModel* load_;
  std::chrono::sys_seconds wall_clock_at_start_;
  std::vector<OutageWindow> outages_;
  std::vector<std::unique_ptr<Hpa>> hpas_;  // HPAs from the manifests, then KEDA's, in the order added
  std::vector<std::unique_ptr<Scaled>> scaled_objects_;
};

}  // namespace scalewright::sim
