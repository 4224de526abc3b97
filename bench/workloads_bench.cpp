// The workload autoscalers at scale. Target: under 50 ms a pass over 10,000 autoscaled workloads (the /10000 runs;
// the scaling guard, scripts/bench.sh --guard, compares them with /50000).
// - BM_ReconcilePassHpas: one reconcile pass (one sync of every HPA, as kube-controller-manager's workers do
//   within a 15 s sync period) over 10,000 HPAs, each targeting its own workload of 3-10 pods, on cpu
//   Utilization; every other HPA has `behavior` (scale-down 10 % per 60 s, scale-up defaults).
// - BM_EvaluationPassScaledObjects: 10,000 ScaledObjects with a prometheus trigger (threshold 10, 1 to 30
//   replicas): KEDA's poll of each, then a sync of the HPA it generated, reading the External metric through
//   KEDA's metrics adapter.
// Metrics and trigger values come from memory, so the figures are the engine's own cost.
#include <benchmark/benchmark.h>

#include <charconv>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "workloads/hpa.h"
#include "workloads/keda.h"

namespace scalewright::bench {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using workloads::HpaPod;
using workloads::HpaState;
using workloads::HpaTarget;
using workloads::PodMetricSample;

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

Fleet make_fleet(Instant now, std::size_t count) {
  Fleet fleet;
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> pod_count(3, 10);
  std::uniform_int_distribution<std::int64_t> usage(50, 950);  // of a 500m request: 10 % to 190 %
  for (std::size_t i = 0; i < count; ++i) {
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
      pod.start_time = Instant{};
      pod.containers.push_back({"app", {{"cpu", 500}}});
      samples[pod.name] = {usage(rng), now, seconds(60)};
      target.pods.push_back(std::move(pod));
    }
    fleet.hpas.push_back(std::move(hpa));
    fleet.targets.push_back(std::move(target));
  }
  fleet.states.resize(count);
  return fleet;
}

void BM_ReconcilePassHpas(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  Instant now(hours(1));
  Fleet fleet = make_fleet(now, count);
  std::size_t rescales = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < count; ++i) {
      const workloads::HpaDecision decision =
          workloads::reconcile_hpa(fleet.hpas[i], fleet.states[i], fleet.targets[i], fleet.metrics, now);
      // Carried out, as the controller's scale update would be; the pods stay, as if new ones were still starting.
      fleet.targets[i].spec_replicas = decision.desired_replicas;
      rescales += decision.rescale ? 1 : 0;
      benchmark::DoNotOptimize(decision.desired_replicas);
    }
    now += seconds(15);  // the next pass is the next sync period; histories keep growing as in the controller
  }
  state.counters["hpas"] = static_cast<double>(count);
  state.counters["rescales_per_pass"] = static_cast<double>(rescales) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ReconcilePassHpas)->Arg(10'000)->Arg(50'000)->Unit(benchmark::kMillisecond)->Iterations(40)->Repetitions(5)
    ->DisplayAggregatesOnly(true);

// Each ScaledObject's trigger value, as a Prometheus answering instantly would give it, found by the number in
// the ScaledObject's namespace ("team-<i>") so that the lookup costs next to nothing.
class InMemoryTriggers : public workloads::TriggerReader {
 public:
  std::vector<double> values;

  Result<double> read(const ScaledObject& so, std::size_t) const override {
    std::size_t i = 0;
    const std::string& ns = so.meta.namespace_;
    std::from_chars(ns.data() + 5, ns.data() + ns.size(), i);
    return values[i];
  }
};

void BM_EvaluationPassScaledObjects(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  Instant now(hours(1));
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> requests(0, 300);  // requests/s: 0 to 30 replicas' worth
  InMemoryTriggers triggers;
  std::vector<ScaledObject> objects(count);
  std::vector<HorizontalPodAutoscaler> hpas(count);
  std::vector<workloads::ScaledObjectState> so_states(count);
  std::vector<HpaState> hpa_states(count);
  std::vector<HpaTarget> targets(count);
  for (std::size_t i = 0; i < count; ++i) {
    ScaledObject& so = objects[i];
    so.meta.namespace_ = "team-" + std::to_string(i);
    so.meta.name = "web";
    so.scale_target_ref = {"Deployment", "web", "apps/v1"};
    so.min_replica_count = 1;
    so.max_replica_count = 30;
    so.fallback = ScaledObjectFallback{3, 2};
    ScaledObjectTrigger trigger;
    trigger.type = "prometheus";
    trigger.metadata = {{"serverAddress", "http://prometheus:9090"},
                        {"query", "sum(rate(http_requests_total[2m]))"},
                        {"threshold", "10"}};
    so.triggers = {trigger};
    hpas[i] = workloads::keda_hpa(so);
    triggers.values.push_back(requests(rng));
    targets[i].spec_replicas = 1 + static_cast<std::int32_t>(i % 10);
  }
  std::vector<workloads::ScaledObjectMetrics> adapters;
  adapters.reserve(count);
  for (std::size_t i = 0; i < count; ++i) adapters.emplace_back(objects[i], so_states[i], triggers);
  const std::chrono::sys_seconds wall_clock{std::chrono::sys_days{std::chrono::year{2024} / 1 / 1}};
  for (auto _ : state) {
    for (std::size_t i = 0; i < count; ++i) {
      workloads::KedaPoll poll =
          workloads::poll_scaled_object(objects[i], so_states[i], targets[i].spec_replicas, triggers, now, wall_clock);
      if (poll.scale) targets[i].spec_replicas = poll.desired_replicas;
      adapters[i].set_now(now);
      workloads::HpaDecision decision = workloads::reconcile_hpa(hpas[i], hpa_states[i], targets[i], adapters[i], now);
      targets[i].spec_replicas = decision.desired_replicas;
      benchmark::DoNotOptimize(decision.desired_replicas);
    }
    now += seconds(15);
  }
  state.counters["scaled_objects"] = static_cast<double>(count);
}
BENCHMARK(BM_EvaluationPassScaledObjects)->Arg(10'000)->Arg(50'000)->Unit(benchmark::kMillisecond)->Iterations(40)->Repetitions(5)
    ->DisplayAggregatesOnly(true);

}  // namespace
}  // namespace scalewright::bench

BENCHMARK_MAIN();
