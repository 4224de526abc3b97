#include "sim/load_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "api/saturating.h"

namespace scalewright::sim {
namespace {

// Prometheus keeps far more, but no query the simulator answers reaches back further than this.
constexpr Duration kCounterRetention{3600'000};

}  // namespace

std::string describe(const LoadShape& shape) {
  switch (shape.kind) {
    case LoadShape::Kind::Constant: return fmt::format("{:g} requests/s", shape.requests_per_second);
    case LoadShape::Kind::Ramp:
      return fmt::format("ramp {:g} -> {:g} requests/s over {}", shape.from, shape.to, format_duration(shape.over));
    case LoadShape::Kind::Step:
      return fmt::format("{:g} requests/s, {:g} after {}", shape.from, shape.to, format_duration(shape.over));
    case LoadShape::Kind::Sine:
      return fmt::format("{:g} ± {:g} requests/s every {}", shape.mean, shape.amplitude, format_duration(shape.period));
    case LoadShape::Kind::Points:
      return fmt::format("{} points, {:g} -> {:g} requests/s over {}", shape.points.size(), shape.points.front().second,
                         shape.points.back().second, format_duration(shape.points.back().first));
  }
  return "";
}

void LoadModel::set_load(const std::string& workload, std::vector<std::pair<std::string, std::string>> labels,
                         const LoadShape& shape, const std::optional<LoadCost>& cost, Instant now) {
  auto [it, inserted] = loads_.try_emplace(workload);
  Load& load = it->second;
  if (inserted) {
    load.last_scrape = now;
    load.counter.emplace_back(now, 0.0);
  }
  load.labels = std::move(labels);
  load.shape = shape;
  load.since = now;
  if (cost) load.cost = *cost;
}

double LoadModel::offered(const std::string& workload, Instant now) const {
  auto it = loads_.find(workload);
  return it == loads_.end() ? 0 : it->second.shape.at(now - it->second.since);
}

void LoadModel::scrape(Instant now, const std::map<std::string, std::vector<RunningPod>>& pods_by_workload) {
  std::map<std::string, PodUsage> usage;
  auto sample = [&](const RunningPod& pod, double cpu_milli, std::int64_t memory, double served) {
    if (pod.started + kScrapeInterval > now) return;
    usage[pod.key] = PodUsage{saturate_cast<std::int64_t>(std::round(cpu_milli)), memory, served, now};
  };
  for (const auto& [workload, pods] : pods_by_workload) {
    if (loads_.count(workload)) continue;
    for (const RunningPod& pod : pods) sample(pod, 0, 0, 0);  // no load given: idle
  }
  for (auto& [workload, load] : loads_) {
    static const std::vector<RunningPod> kNone;
    auto found = pods_by_workload.find(workload);
    const std::vector<RunningPod>& pods = found == pods_by_workload.end() ? kNone : found->second;
    const double offered = load.shape.at(now - load.since);
    const double per_pod = pods.empty() ? 0 : offered / static_cast<double>(pods.size());
    const auto cpr = static_cast<double>(load.cost.cpu_per_request_milli);
    const auto idle = static_cast<double>(load.cost.idle_cpu_milli);
    double served = 0;
    for (const RunningPod& pod : pods) {
      double capacity = std::numeric_limits<double>::infinity();
      if (pod.cpu_limit_milli > 0 && cpr > 0) {
        capacity = std::max(0.0, (static_cast<double>(pod.cpu_limit_milli) - idle) / cpr);
      }
      const double pod_served = std::min(per_pod, capacity);
      served += pod_served;
      double cpu = idle + pod_served * cpr;
      if (pod.cpu_limit_milli > 0) cpu = std::min(cpu, static_cast<double>(pod.cpu_limit_milli));
      sample(pod, cpu, load.cost.memory_bytes, pod_served);
    }
    const double seconds = static_cast<double>((now - load.last_scrape).count()) / 1000.0;
    load.served_total += served * seconds;
    dropped_ += (offered - served) * seconds;
    load.last_scrape = now;
    load.counter.emplace_back(now, load.served_total);
    auto keep = std::find_if(load.counter.begin(), load.counter.end(),
                             [&](const auto& s) { return s.first >= now - kCounterRetention; });
    load.counter.erase(load.counter.begin(), keep);
  }
  usage_ = std::move(usage);
}

const PodUsage* LoadModel::usage(const std::string& pod_key) const {
  auto it = usage_.find(pod_key);
  return it == usage_.end() ? nullptr : &it->second;
}

std::vector<Series> LoadModel::request_series() const {
  std::vector<Series> series;
  for (const auto& [workload, load] : loads_) {
    Series s;
    s.labels.emplace_back("__name__", "http_requests_total");
    s.labels.insert(s.labels.end(), load.labels.begin(), load.labels.end());
    s.samples = &load.counter;
    series.push_back(std::move(s));
  }
  return series;
}

}  // namespace scalewright::sim
