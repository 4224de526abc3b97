#pragma once
// Where KEDA's ScaledObjects read their triggers in a real cluster: the trigger's own source (a Prometheus server
// over HTTP; cron triggers need none). The resource and custom metrics APIs (metrics.k8s.io, for cpu and memory
// triggers) are not read yet: such a trigger reports an error, which KEDA's fallback then answers as configured.
#include <memory>

#include "controllers/workload_autoscaling.h"
#include "workloads/prometheus_trigger_reader.h"

namespace scalewright::cluster {

class ClusterAutoscalingMetrics final : public controllers::AutoscalingMetrics {
 public:
  ClusterAutoscalingMetrics();
  ~ClusterAutoscalingMetrics() override;
  const workloads::MetricsSource& pod_metrics() const override { return *pod_metrics_; }
  const workloads::TriggerReader& triggers() const override { return triggers_; }

 private:
  class UnreadMetricsApis;
  std::unique_ptr<workloads::MetricsSource> pod_metrics_;
  workloads::PrometheusTriggerReader triggers_;
};

}  // namespace scalewright::cluster
