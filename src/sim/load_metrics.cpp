#include "sim/load_metrics.h"

#include <cmath>

#include <fmt/format.h>

#include "api/saturating.h"
#include "prometheus/prometheus_client.h"
#include "prometheus/prometheus_trigger_reader.h"
#include "sim/promql_subset.h"

namespace scalewright::sim {

// metrics.k8s.io as metrics-server would answer it from the load model's latest scrape. A container's usage is
// the pod's on its first container (the one serving the load) and nothing on the others.
class LoadModelMetrics::PodMetrics : public workloads::MetricsSource {
 public:
  PodMetrics(const controllers::AutoscalingView& view, const LoadModel& load) : view_(view), load_(load) {}

  Result<std::map<std::string, workloads::PodMetricSample>> pod_resource_usage(
      const std::string& namespace_, const std::string& resource, const std::string& container,
      const LabelSelector& selector) const override {
    if (resource != "cpu" && resource != "memory") {
      return Error{fmt::format("the simulator measures cpu and memory, not {}", resource)};
    }
    std::map<std::string, workloads::PodMetricSample> samples;
    for (const controllers::ObservedPod& observed : view_.pods(namespace_, selector)) {
      const PodUsage* usage = load_.usage(observed.key);
      if (usage == nullptr) continue;
      const bool first =
          container.empty() || (!observed.pod.containers.empty() && observed.pod.containers.front().name == container);
      std::int64_t value = resource == "cpu" ? usage->cpu_milli : saturating_mul(usage->memory_bytes, 1000);
      samples[observed.pod.name] = {first ? value : 0, usage->timestamp, LoadModel::kScrapeInterval};
    }
    if (samples.empty()) return Error{"no metrics returned from resource metrics API"};
    return samples;
  }
  // custom.metrics.k8s.io for pods: the request rate each pod served, as prometheus-adapter's usual rule turns
  // http_requests_total into http_requests_per_second.
  Result<std::map<std::string, workloads::PodMetricSample>> pod_metric(const std::string& namespace_,
                                                                       const MetricIdentifier& metric,
                                                                       const LabelSelector& selector) const override {
    if (metric.name != LoadModel::kPodRequestRate) {
      return Error{
          fmt::format("the simulator serves the pods metric {}, not {}", LoadModel::kPodRequestRate, metric.name)};
    }
    std::map<std::string, workloads::PodMetricSample> samples;
    for (const controllers::ObservedPod& observed : view_.pods(namespace_, selector)) {
      if (const PodUsage* usage = load_.usage(observed.key)) {
        samples[observed.pod.name] = {saturate_cast<std::int64_t>(std::round(usage->requests_per_second * 1000)),
                                      usage->timestamp, LoadModel::kScrapeInterval};
      }
    }
    if (samples.empty()) return Error{"no metrics returned from custom metrics API"};
    return samples;
  }
  Result<std::int64_t> object_metric(const std::string&, const MetricIdentifier& metric,
                                     const CrossVersionObjectReference&) const override {
    return Error{fmt::format("the simulator serves no object metric {}", metric.name)};
  }
  Result<std::vector<std::int64_t>> external_metric(const std::string&, const MetricIdentifier& metric) const override {
    return Error{fmt::format("the simulator serves no external metric {} outside KEDA", metric.name)};
  }

 private:
  const controllers::AutoscalingView& view_;
  const LoadModel& load_;
};

// KEDA's prometheus scaler answered from the load model's request counters, with KEDA's single-value rule.
class LoadModelMetrics::TriggerReader : public workloads::TriggerReader {
 public:
  TriggerReader(const LoadModel& load, const std::vector<OutageWindow>& outages, const Instant& now)
      : load_(load), outages_(outages), now_(now) {}

  Result<double> read(const ScaledObject& scaled_object, std::size_t index) const override {
    const ScaledObjectTrigger& trigger = scaled_object.triggers.at(index);
    if (trigger.type != "prometheus") {
      return Error{fmt::format("trigger type {} is not simulated", trigger.type)};
    }
    auto query = trigger.metadata.find("query");
    if (query == trigger.metadata.end()) return Error{"prometheus trigger without a query"};
    for (const OutageWindow& outage : outages_) {
      if (outage.at <= now_ && now_ < outage.at + outage.duration) {
        auto server = trigger.metadata.find("serverAddress");
        return Error{fmt::format("prometheus {} did not answer: connection refused (simulated outage)",
                                 server == trigger.metadata.end() ? "" : server->second)};
      }
    }
    Result<PromQuery> parsed = parse_promql(query->second);
    if (!parsed) return parsed.error();
    Result<std::vector<double>> values = evaluate(*parsed, load_.request_series(), now_);
    if (!values) return values.error();
    prometheus::PrometheusQueryData data;
    for (double v : *values) data.samples.push_back({{{"series", std::to_string(data.samples.size())}}, 0, v});
    return prometheus::prometheus_single_value(data, prometheus::ignore_null_values(trigger));
  }

 private:
  const LoadModel& load_;
  const std::vector<OutageWindow>& outages_;
  const Instant& now_;  // the simulation's clock
};

LoadModelMetrics::LoadModelMetrics(const controllers::AutoscalingView& view, const LoadModel& load,
                                   std::vector<OutageWindow> outages, const Instant& now)
    : outages_(std::move(outages)),
      pod_metrics_(std::make_unique<PodMetrics>(view, load)),
      triggers_(std::make_unique<TriggerReader>(load, outages_, now)) {}

LoadModelMetrics::~LoadModelMetrics() = default;

const workloads::MetricsSource& LoadModelMetrics::pod_metrics() const {
  return *pod_metrics_;
}
const workloads::TriggerReader& LoadModelMetrics::triggers() const {
  return *triggers_;
}

}  // namespace scalewright::sim
