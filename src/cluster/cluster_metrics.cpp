#include "cluster/cluster_metrics.h"

#include "api/duration.h"
#include "api/quantity.h"
#include "api/timestamp.h"
#include "kube/model_json.h"

namespace scalewright::cluster {

using nlohmann::json;

Result<std::map<std::string, workloads::PodMetricSample>> ResourceMetricsReader::pod_resource_usage(
    const std::string& namespace_, const std::string& resource, const std::string& container,
    const LabelSelector& pods) const {
  const std::string failed = "unable to get metrics for resource " + resource + ": ";
  // The whole namespace, matched here: PodMetrics carry their pod's labels, and a selector's expressions need no
  // writing out as a query.
  kube::KubeResult<kube::ListResult> list =
      client_.list("/apis/metrics.k8s.io/v1beta1/namespaces/" + namespace_ + "/pods");
  if (!list) return Error{failed + list.error().describe()};
  std::map<std::string, workloads::PodMetricSample> out;
  for (const json& item : list->items) {
    if (!pods.matches(kube::labels_of(item))) continue;
    const std::string name = item["metadata"].value("name", "");
    const std::optional<std::chrono::system_clock::time_point> stamp =
        parse_micro_time(item.value("timestamp", ""));
    const Result<Duration> window = parse_duration(item.value("window", ""));
    if (!stamp || !window) {
      return Error{failed + "PodMetrics " + namespace_ + "/" + name + ": bad timestamp or window"};
    }
    std::int64_t sum = 0;
    bool found = false;
    for (const json& c : item.value("containers", json::array())) {
      if (!container.empty() && c.value("name", "") != container) continue;
      const json usage = c.value("usage", json::object());
      if (!usage.contains(resource) || !usage[resource].is_string()) continue;
      const Result<Quantity> quantity = Quantity::parse(usage[resource].get<std::string>());
      if (!quantity) return Error{failed + "PodMetrics " + namespace_ + "/" + name + ": " + quantity.error().message};
      sum += quantity->milli_value();
      found = true;
    }
    // As upstream: a pod whose named container has no sample is missing, not at zero.
    if (found) out[name] = {sum, time_.at(*stamp), *window};
  }
  return out;
}

Result<std::map<std::string, workloads::PodMetricSample>> ResourceMetricsReader::pod_metric(
    const std::string&, const MetricIdentifier& metric, const LabelSelector&) const {
  return Error{"unable to get metric " + metric.name + ": custom.metrics.k8s.io is not read by scalewright run"};
}

Result<std::int64_t> ResourceMetricsReader::object_metric(const std::string&, const MetricIdentifier& metric,
                                                          const CrossVersionObjectReference&) const {
  return Error{"unable to get metric " + metric.name + ": custom.metrics.k8s.io is not read by scalewright run"};
}

Result<std::vector<std::int64_t>> ResourceMetricsReader::external_metric(const std::string&,
                                                                         const MetricIdentifier& metric) const {
  return Error{"unable to get external metric " + metric.name + ": external.metrics.k8s.io is not read by "
               "scalewright run"};
}

}  // namespace scalewright::cluster
