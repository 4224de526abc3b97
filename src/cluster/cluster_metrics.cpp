#include "cluster/cluster_metrics.h"

namespace scalewright::cluster {

class ClusterAutoscalingMetrics::UnreadMetricsApis final : public workloads::MetricsSource {
 public:
  Result<std::map<std::string, workloads::PodMetricSample>> pod_resource_usage(const std::string&,
                                                                               const std::string& resource,
                                                                               const std::string&,
                                                                               const LabelSelector&) const override {
    return Error{"unable to get metrics for resource " + resource + ": metrics.k8s.io is not read by scalewright run"};
  }
  Result<std::map<std::string, workloads::PodMetricSample>> pod_metric(const std::string&,
                                                                       const MetricIdentifier& metric,
                                                                       const LabelSelector&) const override {
    return Error{"unable to get metric " + metric.name + ": custom.metrics.k8s.io is not read by scalewright run"};
  }
  Result<std::int64_t> object_metric(const std::string&, const MetricIdentifier& metric,
                                     const CrossVersionObjectReference&) const override {
    return Error{"unable to get metric " + metric.name + ": custom.metrics.k8s.io is not read by scalewright run"};
  }
  Result<std::vector<std::int64_t>> external_metric(const std::string&,
                                                    const MetricIdentifier& metric) const override {
    return Error{"unable to get external metric " + metric.name + ": external.metrics.k8s.io is not read by "
                 "scalewright run"};
  }
};

ClusterAutoscalingMetrics::ClusterAutoscalingMetrics() : pod_metrics_(std::make_unique<UnreadMetricsApis>()) {}
ClusterAutoscalingMetrics::~ClusterAutoscalingMetrics() = default;

}  // namespace scalewright::cluster
