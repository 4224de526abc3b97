#pragma once
// The metrics the workload autoscalers read, answered from the simulator's load model: metrics-server's resource
// metrics and prometheus-adapter's request rate per pod from its latest scrape, and KEDA's Prometheus triggers
// from its request counters (silent during the scenario's Prometheus outages).
#include <vector>

#include "api/instant.h"
#include "api/scenario.h"
#include "controllers/workload_autoscaler_loop.h"
#include "sim/load_model.h"

namespace scalewright::sim {

class LoadModelMetrics : public controllers::AutoscalingMetrics {
 public:
  // `now` is the simulation's clock, read when a trigger is.
  LoadModelMetrics(const controllers::AutoscalingView& view, const LoadModel& load, std::vector<OutageWindow> outages,
                   const Instant& now);
  ~LoadModelMetrics() override;
  const workloads::MetricsSource& pod_metrics() const override;
  const workloads::TriggerReader& triggers() const override;

 private:
  class PodMetrics;
  class TriggerReader;
  std::vector<OutageWindow> outages_;
  std::unique_ptr<PodMetrics> pod_metrics_;
  std::unique_ptr<TriggerReader> triggers_;
};

}  // namespace scalewright::sim
