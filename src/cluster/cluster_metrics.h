#pragma once
// Where KEDA's ScaledObjects read their triggers in a real cluster: the trigger's own source (a Prometheus server
// over HTTP; cron triggers need none), and for cpu and memory triggers the resource metrics API (metrics.k8s.io, as
// metrics-server serves it), read as kube-controller-manager's HPA controller reads it. The custom and external
// metrics APIs are not read: such a metric reports an error, which KEDA's fallback then answers as configured.
#include <memory>

#include "cluster/api_objects.h"
#include "controllers/workload_autoscaler_loop.h"
#include "kube/api_client.h"
#include "prometheus/prometheus_trigger_reader.h"

namespace scalewright::cluster {

// metrics.k8s.io/v1beta1 PodMetrics of a namespace: each pod whose labels the selector matches, with its usage of
// a resource summed over its containers (or of the one container named), its sample's time and window.
class ResourceMetricsReader final : public workloads::MetricsSource {
 public:
  ResourceMetricsReader(const kube::ApiClient& client, const TimeBase& time) : client_(client), time_(time) {}

  Result<std::map<std::string, workloads::PodMetricSample>> pod_resource_usage(
      const std::string& namespace_, const std::string& resource, const std::string& container,
      const LabelSelector& pods) const override;
  Result<std::map<std::string, workloads::PodMetricSample>> pod_metric(const std::string&,
                                                                       const MetricIdentifier& metric,
                                                                       const LabelSelector&) const override;
  Result<std::int64_t> object_metric(const std::string&, const MetricIdentifier& metric,
                                     const CrossVersionObjectReference&) const override;
  Result<std::vector<std::int64_t>> external_metric(const std::string&,
                                                    const MetricIdentifier& metric) const override;

 private:
  const kube::ApiClient& client_;
  const TimeBase& time_;
};

class ClusterAutoscalingMetrics final : public controllers::AutoscalingMetrics {
 public:
  ClusterAutoscalingMetrics(const kube::ApiClient& client, const TimeBase& time) : pod_metrics_(client, time) {}
  const workloads::MetricsSource& pod_metrics() const override { return pod_metrics_; }
  const workloads::TriggerReader& triggers() const override { return triggers_; }

 private:
  ResourceMetricsReader pod_metrics_;
  prometheus::PrometheusTriggerReader triggers_;
};

}  // namespace scalewright::cluster
