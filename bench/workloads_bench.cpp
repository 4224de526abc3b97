// The HPA controller at scale: one reconcile pass (one sync of every HPA, as kube-controller-manager's workers do
// within a 15 s sync period) over 10,000 HPAs, each targeting its own workload of 3-10 pods, on cpu Utilization;
// every other HPA has `behavior` (scale-down 10 % per 60 s, scale-up defaults). Metrics come from memory, so the
// figure is the controller's own cost. Target: under 50 ms a pass.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "workloads/hpa.h"

namespace scalewright::bench {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using workloads::HpaPod;
using workloads::HpaState;
using workloads::HpaTarget;
using workloads::PodMetricSample;

constexpr std::size_t kHpas = 10'000;

// cpu samples per namespace, as a metrics-server cache would hold them.
class InMemoryMetrics : public workloads::MetricsSource {
 public:
  std::unordered_map<std::string, std::map<std::string, PodMetricSample>> cpu;

  Result<std::map<std::string, PodMetricSample>> pod_resource_usage(const std::string& namespace_, const std::string&,
                                                                    const std::string&,
                                                                    const LabelSelector&) const override {
    auto found = cpu.find(namespace_);
    if (found == cpu.end()) return std::map<std::string, PodMetricSample>{};
    return found->second;
  }
  Result<std::map<std::string, PodMetricSample>> pod_metric(const std::string&, const MetricIdentifier&,
                                                            const LabelSelector&) const override {
    return Error{"not served"};
  }
  Result<std::int64_t> object_metric(const std::string&, const MetricIdentifier&,
                                     const CrossVersionObjectReference&) const override {
    return Error{"not served"};
  }
  Result<std::vector<std::int64_t>> external_metric(const std::string&, const MetricIdentifier&) const override {
    return Error{"not served"};
  }
};

struct Fleet {
  std::vector<HorizontalPodAutoscaler> hpas;
  std::vector<HpaTarget> targets;
  std::vector<HpaState> states;
  InMemoryMetrics metrics;
};

Fleet make_fleet(Duration now) {
  Fleet fleet;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pod_count(3, 10);
  std::uniform_int_distribution<std::int64_t> usage(50, 950);  // of a 500m request: 10 % to 190 %
  for (std::size_t i = 0; i < kHpas; ++i) {
    HorizontalPodAutoscaler hpa;
    hpa.meta.namespace_ = "team-" + std::to_string(i);
    hpa.meta.name = "web";
    hpa.scale_target_ref = {"Deployment", "web", "apps/v1"};
    hpa.min_replicas = 2;
    hpa.max_replicas = 30;
    MetricSpec cpu;
    cpu.resource = "cpu";
    cpu.target.average_utilization = 60;
    hpa.metrics = {cpu};
    if (i % 2 == 1) {
      HpaScalingRules down;
      down.policies = {{HpaScalingPolicy::Type::Percent, 10, 60}};
      hpa.behavior = HpaBehavior{std::nullopt, down};
    }
    HpaTarget target;
    const int pods = pod_count(rng);
    target.spec_replicas = pods;
    auto& samples = fleet.metrics.cpu[hpa.meta.namespace_];
    for (int p = 0; p < pods; ++p) {
      HpaPod pod;
      pod.name = "web-" + std::to_string(p);
      pod.ready = true;
      pod.start_time = Duration(0);
      pod.containers.push_back({"app", 500});
      samples[pod.name] = {usage(rng), now, seconds(60)};
      target.pods.push_back(std::move(pod));
    }
    fleet.hpas.push_back(std::move(hpa));
    fleet.targets.push_back(std::move(target));
  }
  fleet.states.resize(kHpas);
  return fleet;
}

void BM_ReconcilePass10kHpas(benchmark::State& state) {
  Duration now = hours(1);
  Fleet fleet = make_fleet(now);
  std::size_t rescales = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < kHpas; ++i) {
      const workloads::HpaDecision decision =
          workloads::reconcile_hpa(fleet.hpas[i], fleet.states[i], fleet.targets[i], fleet.metrics, now);
      // Carried out, as the controller's scale update would be; the pods stay, as if new ones were still starting.
      fleet.targets[i].spec_replicas = decision.desired_replicas;
      rescales += decision.rescale ? 1 : 0;
      benchmark::DoNotOptimize(decision.desired_replicas);
    }
    now += seconds(15);  // the next pass is the next sync period; histories keep growing as in the controller
  }
  state.counters["hpas"] = static_cast<double>(kHpas);
  state.counters["rescales_per_pass"] = static_cast<double>(rescales) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ReconcilePass10kHpas)->Unit(benchmark::kMillisecond)->Repetitions(5)->DisplayAggregatesOnly(true);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
