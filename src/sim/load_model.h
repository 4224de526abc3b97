#pragma once
// The simulator's metrics: the request rate the scenario offers each workload, what its pods serve of it, and the
// cpu and memory that costs them, reported as metrics-server (per-pod usage samples) and Prometheus (a request
// counter per workload) would report it. This is the observe side of workload autoscaling in the simulator; the
// HPA and KEDA logic reading it is the same that reads a real cluster's metrics.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/scenario.h"
#include "sim/promql_subset.h"

namespace scalewright::sim {

struct PodUsage {
  std::int64_t cpu_milli = 0;
  std::int64_t memory_bytes = 0;
  double requests_per_second = 0;  // what the pod served
  Instant timestamp{};             // the scrape that measured it; the sample covers the scrape interval before it
};

// A running pod of a workload, as the scrape sees it.
struct RunningPod {
  std::string key;
  Instant started{};
  std::int64_t cpu_limit_milli = 0;  // 0: no limit
};

// "50 requests/s", "ramp 0 -> 150 requests/s over 2m", ... for the timeline.
std::string describe(const LoadShape& shape);

class LoadModel {
 public:
  // How often usage is measured and the request counter sampled (metrics-server's --metric-resolution, a common
  // Prometheus scrape interval).
  static constexpr Duration kScrapeInterval{15'000};

  // The load on `workload` from `now` on. `labels` are the series labels Prometheus would attach to its request
  // counter (namespace and the pod template's labels). An absent cost keeps the earlier one.
  void set_load(const std::string& workload, std::vector<std::pair<std::string, std::string>> labels,
                const LoadShape& shape, const std::optional<LoadCost>& cost, Instant now);
  bool has_load(const std::string& workload) const { return loads_.count(workload) > 0; }
  double offered(const std::string& workload, Instant now) const;

  // One scrape at `now` of every workload's running pods: the offered rate is spread over them, each pod's cpu
  // capped at its limit (what it cannot serve is dropped), and the served requests added to the counter. A pod
  // gets its first usage sample one scrape after it started, as metrics-server needs two readings of a counter.
  void scrape(Instant now, const std::map<std::string, std::vector<RunningPod>>& pods_by_workload);

  // The latest sample of a pod; null when it has none.
  const PodUsage* usage(const std::string& pod_key) const;
  // The custom per-pod metric the simulator serves (as prometheus-adapter would from the request counter).
  static constexpr std::string_view kPodRequestRate = "http_requests_per_second";
  // The served-requests counter of each loaded workload, named http_requests_total, for the PromQL subset.
  std::vector<Series> request_series() const;
  // Requests offered but not served since the start (no ready pod, or pods at their cpu limit).
  double dropped_requests() const { return dropped_; }

 private:
  struct Load {
    std::vector<std::pair<std::string, std::string>> labels;
    LoadShape shape;
    Instant since{};
    LoadCost cost;
    double served_total = 0;
    std::vector<std::pair<Instant, double>> counter;  // (scrape time, served requests so far)
    Instant last_scrape{};
  };
  std::map<std::string, Load> loads_;
  std::map<std::string, PodUsage> usage_;
  double dropped_ = 0;
};

}  // namespace scalewright::sim
