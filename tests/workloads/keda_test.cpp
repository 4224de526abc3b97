// KEDA's operator and metrics adapter for ScaledObjects, step by step with a fake trigger source. Unless a test says
// otherwise the ScaledObject is the seed one: default/podinfo, one prometheus trigger with threshold 10, polling
// every 10 s, cooldownPeriod 30 s, fallback failureThreshold 3 replicas 2; tests change min/max as they need.
#include "workloads/keda.h"

#include <gtest/gtest.h>

namespace scalewright::workloads {
namespace {

using namespace std::chrono;

// Values and failures per trigger index, set per step.
class FakeReader : public TriggerReader {
 public:
  Result<double> read(const ScaledObject&, std::size_t index) const override {
    ++reads;
    if (auto it = errors.find(index); it != errors.end()) return Error{it->second};
    auto it = values.find(index);
    return it == values.end() ? 0.0 : it->second;
  }
  void set(std::size_t index, double value) {
    errors.erase(index);
    values[index] = value;
  }
  void fail(std::size_t index, const std::string& message) { errors[index] = message; }

  std::map<std::size_t, double> values;
  std::map<std::size_t, std::string> errors;
  mutable int reads = 0;
};

ScaledObjectTrigger prometheus(const std::string& threshold, const std::string& name = "") {
  ScaledObjectTrigger t;
  t.type = "prometheus";
  t.name = name;
  t.metadata = {{"serverAddress", "http://prometheus.monitoring:9090"},
                {"query", "sum(rate(http_requests_total{app=\"podinfo\"}[2m]))"},
                {"threshold", threshold}};
  return t;
}

ScaledObject seed() {
  ScaledObject so;
  so.meta.name = "podinfo";
  so.meta.namespace_ = "default";
  so.meta.uid = "uid-1";
  so.scale_target_ref.name = "podinfo";
  so.polling_interval_seconds = 10;
  so.cooldown_period_seconds = 30;
  so.min_replica_count = 2;
  so.max_replica_count = 10;
  so.fallback = ScaledObjectFallback{3, 2};
  so.triggers.push_back(prometheus("10"));
  return so;
}

// The seed, able to scale to zero.
ScaledObject scale_to_zero() {
  ScaledObject so = seed();
  so.min_replica_count = 0;
  return so;
}

const sys_seconds kWall = sys_days(2024y / March / 4) + hours(9);  // a Monday, 09:00 UTC

Instant t(int s) { return Instant(seconds(s)); }

bool has_event(const KedaPoll& poll, const std::string& reason) {
  for (const KedaEvent& e : poll.events) {
    if (e.reason == reason) return true;
  }
  return false;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

MetricIdentifier metric(const std::string& name, const ScaledObject& so) {
  MetricIdentifier id;
  id.name = name;
  LabelSelector selector;
  LabelRequirement r;
  r.key = Symbol(kScaledObjectNameLabel);
  r.op = SelectorOperator::In;
  r.values.push_back(Symbol(so.meta.name));
  selector.requirements.push_back(r);
  id.selector = selector;
  return id;
}

// --- keda_hpa ---------------------------------------------------------------------------------------------------

TEST(KedaHpa, SeedScaledObject) {
  ScaledObject so = seed();
  HorizontalPodAutoscaler hpa = keda_hpa(so);
  EXPECT_EQ(hpa.meta.name, "keda-hpa-podinfo");
  EXPECT_EQ(hpa.meta.namespace_, "default");
  ASSERT_EQ(hpa.meta.owner_references.size(), 1u);
  EXPECT_EQ(hpa.meta.owner_references[0].kind, "ScaledObject");
  EXPECT_TRUE(hpa.meta.owner_references[0].controller);
  EXPECT_EQ(hpa.scale_target_ref.kind, "Deployment");
  EXPECT_EQ(hpa.scale_target_ref.api_version, "apps/v1");
  EXPECT_EQ(hpa.scale_target_ref.name, "podinfo");
  EXPECT_EQ(hpa.min_replicas, 2);
  EXPECT_EQ(hpa.max_replicas, 10);
  ASSERT_EQ(hpa.metrics.size(), 1u);
  const MetricSpec& m = hpa.metrics[0];
  EXPECT_EQ(m.type, MetricSpec::Type::External);
  EXPECT_EQ(m.metric.name, "s0-prometheus");
  EXPECT_EQ(m.target.type, MetricTarget::Type::AverageValue);
  ASSERT_TRUE(m.target.average_value.has_value());
  EXPECT_EQ(m.target.average_value->milli_value(), 10'000);
  ASSERT_TRUE(m.metric.selector.has_value());
  Labels owner{{kScaledObjectNameLabel, "podinfo"}};
  Labels other{{kScaledObjectNameLabel, "other"}};
  EXPECT_TRUE(m.metric.selector->matches(owner));
  EXPECT_FALSE(m.metric.selector->matches(other));
  EXPECT_FALSE(hpa.behavior.has_value());
  EXPECT_TRUE(scaled_object_problems(so).empty());
}

TEST(KedaHpa, DefaultsResourceCronAndValueTriggers) {
  ScaledObject so = seed();
  so.min_replica_count.reset();
  so.max_replica_count.reset();
  so.fallback.reset();
  ScaledObjectTrigger cpu;
  cpu.type = "cpu";
  cpu.metric_type = MetricTarget::Type::Utilization;
  cpu.metadata = {{"value", "60"}};
  ScaledObjectTrigger memory;
  memory.type = "memory";
  memory.metric_type = MetricTarget::Type::AverageValue;
  memory.metadata = {{"value", "512Mi"}, {"containerName", "app"}};
  ScaledObjectTrigger cron;
  cron.type = "cron";
  cron.metadata = {{"timezone", "Etc/UTC"}, {"start", "0 8 * * 1-5"}, {"end", "0 18 * * 1-5"},
                   {"desiredReplicas", "4"}};
  ScaledObjectTrigger value = prometheus("2.5");
  value.metric_type = MetricTarget::Type::Value;
  so.triggers = {cpu, so.triggers[0], memory, cron, value};
  so.hpa_behavior = HpaBehavior{};
  so.hpa_behavior->scale_down = HpaScalingRules{};
  so.hpa_behavior->scale_down->stabilization_window_seconds = 60;

  HorizontalPodAutoscaler hpa = keda_hpa(so);
  EXPECT_EQ(hpa.min_replicas, 1);   // minReplicaCount unset: 1
  EXPECT_EQ(hpa.max_replicas, 100);
  ASSERT_TRUE(hpa.behavior && hpa.behavior->scale_down);
  EXPECT_EQ(hpa.behavior->scale_down->stabilization_window_seconds, 60);
  // Sorted by type name, spec order kept within a type: ContainerResource, External..., Resource.
  ASSERT_EQ(hpa.metrics.size(), 5u);
  EXPECT_EQ(hpa.metrics[0].type, MetricSpec::Type::ContainerResource);
  EXPECT_EQ(hpa.metrics[0].resource, "memory");
  EXPECT_EQ(hpa.metrics[0].container, "app");
  EXPECT_EQ(hpa.metrics[0].target.average_value->value(), 512LL * 1024 * 1024);
  EXPECT_EQ(hpa.metrics[1].metric.name, "s1-prometheus");
  EXPECT_EQ(hpa.metrics[2].metric.name, "s3-cron-Etc-UTC-08xx1-5-018xx1-5");
  EXPECT_EQ(hpa.metrics[2].target.average_value->milli_value(), 1000);
  EXPECT_EQ(hpa.metrics[3].metric.name, "s4-prometheus");
  EXPECT_EQ(hpa.metrics[3].target.type, MetricTarget::Type::Value);
  EXPECT_EQ(hpa.metrics[3].target.value->milli_value(), 2500);
  EXPECT_FALSE(hpa.metrics[3].target.average_value.has_value());
  EXPECT_EQ(hpa.metrics[4].type, MetricSpec::Type::Resource);
  EXPECT_EQ(hpa.metrics[4].resource, "cpu");
  EXPECT_EQ(hpa.metrics[4].target.average_utilization, 60);
}

ScaledObject with_modifiers() {
  ScaledObject so = scale_to_zero();
  ScaledObjectTrigger cpu;
  cpu.type = "cpu";
  cpu.metadata = {{"value", "70"}};
  so.triggers = {prometheus("10", "rps"), prometheus("5", "queue"), cpu};
  so.fallback.reset();
  so.scaling_modifiers = ScalingModifiers{};
  so.scaling_modifiers->formula = "rps + queue";
  so.scaling_modifiers->target = Quantity::parse("20").value();
  return so;
}

TEST(KedaHpa, ScalingModifiersReplaceExternalMetricsWithTheComposite) {
  HorizontalPodAutoscaler hpa = keda_hpa(with_modifiers());
  ASSERT_EQ(hpa.metrics.size(), 2u);
  EXPECT_EQ(hpa.metrics[0].type, MetricSpec::Type::Resource);
  EXPECT_EQ(hpa.metrics[0].target.average_utilization, 70);
  EXPECT_EQ(hpa.metrics[1].type, MetricSpec::Type::External);
  EXPECT_EQ(hpa.metrics[1].metric.name, "composite-metric");
  EXPECT_EQ(hpa.metrics[1].target.average_value->milli_value(), 20'000);
}

TEST(KedaHpa, ProblemsKedaWouldReport) {
  ScaledObject so = with_modifiers();
  so.scaling_modifiers->formula = "rps + missing";
  so.min_replica_count.reset();  // unset counts as 0 (an explicit 0 would count as the HPA's 1)
  so.idle_replica_count = 0;      // must be below min
  so.fallback = ScaledObjectFallback{3, 2};
  std::vector<std::string> problems = scaled_object_problems(so);
  auto mentions = [&](const std::string& part) {
    for (const std::string& p : problems) {
      if (contains(p, part)) return true;
    }
    return false;
  };
  EXPECT_TRUE(mentions("IdleReplicaCount=0 must be less than MinReplicaCount=0"));
  EXPECT_TRUE(mentions("names \"missing\", which is no trigger's name"));
  EXPECT_TRUE(mentions("fallback is not supported by the CPU & memory scalers"));
  ScaledObject bad = seed();
  bad.triggers[0].metadata.erase("threshold");
  EXPECT_EQ(scaled_object_problems(bad),
            std::vector<std::string>{"ScaledObject default/podinfo trigger 0 (prometheus): no threshold given"});
  EXPECT_TRUE(keda_hpa(bad).metrics.empty());
}

// --- the operator's poll ----------------------------------------------------------------------------------------

TEST(KedaPoll, ActivatesOnlyStrictlyAboveActivationThreshold) {
  ScaledObject so = scale_to_zero();
  so.triggers[0].metadata["activationThreshold"] = "5";
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 5);
  KedaPoll p = poll_scaled_object(so, state, 0, reader, t(0), kWall);
  EXPECT_FALSE(p.active);
  EXPECT_FALSE(p.scale);
  EXPECT_EQ(p.desired_replicas, 0);
  EXPECT_TRUE(contains(p.reason, "prometheus s0-prometheus value 5 not above activation threshold 5")) << p.reason;
  EXPECT_EQ(p.next_poll, t(10));

  reader.set(0, 5.5);
  p = poll_scaled_object(so, state, 0, reader, t(10), kWall);
  EXPECT_TRUE(p.active);
  EXPECT_TRUE(p.scale);
  EXPECT_EQ(p.desired_replicas, 1);  // max(minReplicaCount 0, 1)
  EXPECT_TRUE(contains(p.reason, "prometheus s0-prometheus value 5.5 above activation threshold 5")) << p.reason;
  ASSERT_TRUE(has_event(p, "KEDAScaleTargetActivated"));
  EXPECT_EQ(p.events[0].message,
            "Scaled apps/v1.Deployment default/podinfo from 0 to 1, triggered by prometheusScaler");
  EXPECT_EQ(state.last_active, t(10));
  EXPECT_EQ(state.active_reason, "ScalerActive");
}

TEST(KedaPoll, DefaultActivationThresholdIsZero) {
  ScaledObject so = scale_to_zero();
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 0);
  EXPECT_FALSE(poll_scaled_object(so, state, 0, reader, t(0), kWall).active);
  reader.set(0, 0.001);
  EXPECT_TRUE(poll_scaled_object(so, state, 0, reader, t(10), kWall).active);
}

TEST(KedaPoll, DeactivatesOnlyAfterCooldownPeriodOfInactivity) {
  ScaledObject so = scale_to_zero();  // cooldownPeriod 30 s
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 12);
  EXPECT_EQ(poll_scaled_object(so, state, 0, reader, t(0), kWall).desired_replicas, 1);
  KedaPoll p = poll_scaled_object(so, state, 3, reader, t(10), kWall);  // the HPA took it to 3
  EXPECT_FALSE(p.scale);
  EXPECT_EQ(state.last_active, t(10));

  reader.set(0, 0);
  p = poll_scaled_object(so, state, 3, reader, t(20), kWall);
  EXPECT_FALSE(p.scale);
  EXPECT_TRUE(contains(p.reason, "cooling down: no trigger active for 10s of cooldownPeriod 30s")) << p.reason;
  EXPECT_EQ(state.active_reason, "ScalerCooldown");
  EXPECT_FALSE(poll_scaled_object(so, state, 3, reader, t(30), kWall).scale);
  // lastActiveTime 10 + 30 s is not before 40: still waiting.
  EXPECT_FALSE(poll_scaled_object(so, state, 3, reader, t(40), kWall).scale);
  p = poll_scaled_object(so, state, 3, reader, t(50), kWall);
  EXPECT_TRUE(p.scale);
  EXPECT_EQ(p.desired_replicas, 0);
  EXPECT_TRUE(contains(p.reason, "no trigger active for 40s (cooldownPeriod 30s): scaled from 3 to 0")) << p.reason;
  ASSERT_TRUE(has_event(p, "KEDAScaleTargetDeactivated"));
  EXPECT_EQ(p.events[0].message, "Deactivated apps/v1.Deployment default/podinfo from 3 to 0");
  EXPECT_EQ(state.active_reason, "ScalerNotActive");
}

// cooldownPeriod 0 is KEDA's "no cooldown": lastActiveTime + 0 is before the next poll, which scales to zero.
TEST(KedaPoll, ACooldownPeriodOfZeroDeactivatesAtTheFirstInactivePoll) {
  ScaledObject so = scale_to_zero();
  so.cooldown_period_seconds = 0;
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 12);
  EXPECT_FALSE(poll_scaled_object(so, state, 3, reader, t(10), kWall).scale);  // active: the HPA scales
  reader.set(0, 0);
  KedaPoll p = poll_scaled_object(so, state, 3, reader, t(20), kWall);
  EXPECT_TRUE(p.scale);
  EXPECT_EQ(p.desired_replicas, 0);
  EXPECT_TRUE(contains(p.reason, "no trigger active for 10s (cooldownPeriod 0s): scaled from 3 to 0")) << p.reason;
}

TEST(KedaPoll, ActivePollRestartsTheCooldown) {
  ScaledObject so = scale_to_zero();
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 12);
  poll_scaled_object(so, state, 2, reader, t(0), kWall);
  reader.set(0, 0);
  poll_scaled_object(so, state, 2, reader, t(10), kWall);
  reader.set(0, 12);
  poll_scaled_object(so, state, 2, reader, t(20), kWall);  // active again: lastActiveTime 20
  reader.set(0, 0);
  for (int s : {30, 40, 50}) EXPECT_FALSE(poll_scaled_object(so, state, 2, reader, t(s), kWall).scale) << s;
  EXPECT_EQ(poll_scaled_object(so, state, 2, reader, t(60), kWall).desired_replicas, 0);
}

TEST(KedaPoll, InitialCooldownPeriodHoldsANeverActiveTarget) {
  ScaledObject so = scale_to_zero();
  so.initial_cooldown_period_seconds = 60;
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 0);
  KedaPoll p = poll_scaled_object(so, state, 2, reader, t(0), kWall);  // creation stamped at 0
  EXPECT_FALSE(p.scale);
  EXPECT_TRUE(contains(p.reason, "initialCooldownPeriod 1m0s")) << p.reason;
  EXPECT_FALSE(poll_scaled_object(so, state, 2, reader, t(60), kWall).scale);
  p = poll_scaled_object(so, state, 2, reader, t(70), kWall);
  EXPECT_EQ(p.desired_replicas, 0);
  EXPECT_TRUE(contains(p.reason, "never active since creation 1m10s ago")) << p.reason;
}

TEST(KedaPoll, IdleReplicaCount) {
  ScaledObject so = seed();  // min 2
  so.idle_replica_count = 0;
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 3);
  // Active from idle: straight to minReplicaCount.
  EXPECT_EQ(poll_scaled_object(so, state, 0, reader, t(0), kWall).desired_replicas, 2);
  // Active but below min (someone scaled it to 1): back to min, as from idle.
  KedaPoll p = poll_scaled_object(so, state, 1, reader, t(10), kWall);
  EXPECT_EQ(p.desired_replicas, 2);
  EXPECT_TRUE(has_event(p, "KEDAScaleTargetActivated"));
  // Inactive at 5 replicas: to idle (0), below min, once the cooldown is over.
  reader.set(0, 0);
  EXPECT_FALSE(poll_scaled_object(so, state, 5, reader, t(40), kWall).scale);
  p = poll_scaled_object(so, state, 5, reader, t(50), kWall);
  EXPECT_EQ(p.desired_replicas, 0);
  EXPECT_TRUE(has_event(p, "KEDAScaleTargetDeactivated"));
  // At idle and inactive: nothing (not "below min").
  EXPECT_FALSE(poll_scaled_object(so, state, 0, reader, t(60), kWall).scale);
}

TEST(KedaPoll, MinAboveZeroNeverScalesToZero) {
  ScaledObject so = seed();  // min 2, no idle
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 0);
  for (int s = 0; s <= 1000; s += 10) {
    KedaPoll p = poll_scaled_object(so, state, 3, reader, t(s), kWall);
    ASSERT_FALSE(p.scale) << s;
  }
  // Below min while inactive: raised to min at once.
  KedaPoll p = poll_scaled_object(so, state, 1, reader, t(1010), kWall);
  EXPECT_EQ(p.desired_replicas, 2);
  EXPECT_TRUE(contains(p.reason, "below minReplicaCount: scaled from 1 to 2")) << p.reason;
}

TEST(KedaPoll, CpuMemoryTriggersAloneKeepTheTargetActive) {
  ScaledObject so = scale_to_zero();
  ScaledObjectTrigger cpu;
  cpu.type = "cpu";
  cpu.metadata = {{"value", "50"}};
  so.triggers = {cpu};
  so.fallback.reset();
  ScaledObjectState state;
  FakeReader reader;
  KedaPoll p = poll_scaled_object(so, state, 0, reader, t(0), kWall);
  EXPECT_TRUE(p.active);
  EXPECT_EQ(p.desired_replicas, 1);
  EXPECT_EQ(reader.reads, 0);
  // With an external trigger beside it, cpu has no say: inactive prometheus scales to zero after the cooldown.
  so.triggers.push_back(prometheus("10"));
  reader.set(1, 0);
  ScaledObjectState fresh;
  EXPECT_FALSE(poll_scaled_object(so, fresh, 3, reader, t(0), kWall).active);
  EXPECT_EQ(poll_scaled_object(so, fresh, 3, reader, t(10), kWall).desired_replicas, 0);  // never active
}

TEST(KedaPoll, FailingTriggerIsNotActiveAndIsNotCountedByThePoll) {
  ScaledObject so = scale_to_zero();
  so.fallback.reset();
  ScaledObjectState state;
  FakeReader reader;
  reader.fail(0, "prometheus query api returned error. status: 503");
  KedaPoll p = poll_scaled_object(so, state, 3, reader, t(100), kWall);
  EXPECT_FALSE(p.active);
  EXPECT_TRUE(p.error);
  EXPECT_FALSE(p.scale);  // no fallback: TriggerError, the scale is left alone
  ASSERT_TRUE(has_event(p, "KEDAScalerFailed"));
  EXPECT_TRUE(p.events[0].warning);
  EXPECT_EQ(p.events[0].message, "prometheus query api returned error. status: 503");
  EXPECT_TRUE(state.health.empty());
  EXPECT_EQ(p.triggers[0].error, "prometheus query api returned error. status: 503");
}

TEST(KedaPoll, FailingTriggerWithFallbackLeavesZeroAtZero) {
  ScaledObject so = scale_to_zero();  // fallback replicas 2
  ScaledObjectState state;
  FakeReader reader;
  reader.fail(0, "connection refused");
  KedaPoll p = poll_scaled_object(so, state, 0, reader, t(0), kWall);
  EXPECT_FALSE(p.scale);
  EXPECT_EQ(p.desired_replicas, 0);
  // At 3 replicas it does not scale in either: the HPA is to fall back to 2.
  p = poll_scaled_object(so, state, 3, reader, t(1000), kWall);
  EXPECT_FALSE(p.scale);
  EXPECT_TRUE(contains(p.reason, "falls back to 2 replicas")) << p.reason;
}

TEST(KedaPoll, PartialErrorDoesNotRefreshLastActiveTime) {
  ScaledObject so = scale_to_zero();
  so.fallback.reset();
  so.triggers.push_back(prometheus("10"));
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 50);
  reader.set(1, 1);
  poll_scaled_object(so, state, 3, reader, t(0), kWall);
  EXPECT_EQ(state.last_active, t(0));
  reader.fail(1, "timeout");
  KedaPoll p = poll_scaled_object(so, state, 3, reader, t(10), kWall);
  EXPECT_TRUE(p.active);
  EXPECT_TRUE(p.error);
  EXPECT_EQ(state.last_active, t(0));
}

TEST(KedaPoll, CronTriggerFollowsItsWindow) {
  ScaledObject so = scale_to_zero();
  so.fallback.reset();
  ScaledObjectTrigger cron;
  cron.type = "cron";
  cron.metadata = {{"timezone", "Etc/GMT-1"}, {"start", "0 8 * * *"}, {"end", "0 18 * * *"},
                   {"desiredReplicas", "4"}};
  so.triggers = {cron};
  ScaledObjectState state;
  FakeReader reader;
  // 09:00 UTC is 10:00 at UTC+1: inside.
  KedaPoll p = poll_scaled_object(so, state, 0, reader, t(0), kWall);
  EXPECT_TRUE(p.active);
  EXPECT_EQ(p.triggers[0].value, 4);
  EXPECT_EQ(p.desired_replicas, 1);
  // 17:30 UTC is 18:30 local: outside, value 1.
  p = poll_scaled_object(so, state, 4, reader, t(10), kWall + hours(8) + minutes(30));
  EXPECT_FALSE(p.active);
  EXPECT_EQ(p.triggers[0].value, 1);
  EXPECT_EQ(reader.reads, 0);
}

TEST(KedaPoll, ScalingModifiersActivateOnTheComposite) {
  ScaledObject so = with_modifiers();
  so.scaling_modifiers->activation_target = Quantity::parse("25").value();
  ScaledObjectState state;
  FakeReader reader;
  reader.set(0, 20);
  reader.set(1, 5);
  KedaPoll p = poll_scaled_object(so, state, 0, reader, t(0), kWall);
  EXPECT_FALSE(p.active);  // 25 is not above 25, though each trigger is above its own threshold 0
  EXPECT_TRUE(contains(p.reason, "scalingModifiers formula value 25 not above activationTarget 25")) << p.reason;
  reader.set(1, 6);
  p = poll_scaled_object(so, state, 0, reader, t(10), kWall);
  EXPECT_TRUE(p.active);
  EXPECT_EQ(p.desired_replicas, 1);
  EXPECT_TRUE(contains(p.events[0].message, "triggered by ModifiersTrigger"));
  // A failing source: not active, reported as a metric source failure.
  reader.fail(0, "down");
  p = poll_scaled_object(so, state, 3, reader, t(20), kWall);
  EXPECT_FALSE(p.active);
  EXPECT_TRUE(has_event(p, "KEDAMetricSourceFailed"));
}

// --- the metrics adapter ----------------------------------------------------------------------------------------

TEST(ScaledObjectMetrics, ServesTheTriggerValueInMilliUnits) {
  ScaledObject so = seed();
  ScaledObjectState state;
  FakeReader reader;
  ScaledObjectMetrics adapter(so, state, reader);
  reader.set(0, 12.5);
  Result<std::vector<std::int64_t>> v = adapter.external_metric("default", metric("s0-prometheus", so));
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, std::vector<std::int64_t>{12'500});
  EXPECT_FALSE(adapter.external_metric("default", metric("s1-prometheus", so)).ok());
  EXPECT_FALSE(adapter.external_metric("other", metric("s0-prometheus", so)).ok());
  MetricIdentifier foreign = metric("s0-prometheus", so);
  foreign.selector->requirements[0].values[0] = Symbol("someone-else");
  EXPECT_FALSE(adapter.external_metric("default", foreign).ok());
  EXPECT_FALSE(adapter.pod_resource_usage("default", "cpu", "", LabelSelector{}).ok());  // no resource source
}

TEST(ScaledObjectMetrics, FallsBackAfterMoreThanFailureThresholdFailures) {
  ScaledObject so = seed();  // failureThreshold 3, replicas 2, threshold 10
  ScaledObjectState state;
  FakeReader reader;
  ScaledObjectMetrics adapter(so, state, reader);
  MetricIdentifier m = metric("s0-prometheus", so);
  reader.fail(0, "connection refused");
  for (int failures = 1; failures <= 3; ++failures) {
    Result<std::vector<std::int64_t>> v = adapter.external_metric("default", m);
    EXPECT_FALSE(v.ok()) << failures;  // failures 1..3: an error to the HPA
    EXPECT_EQ(state.health["s0-prometheus"].number_of_failures, failures);
    EXPECT_FALSE(state.fallback_active);
    // The operator's poll in between reads too, but does not count.
    poll_scaled_object(so, state, 2, reader, t(failures * 10), kWall);
    EXPECT_EQ(state.health["s0-prometheus"].number_of_failures, failures);
  }
  // 4th failure > 3: 10 (target) x 2 (fallback.replicas), so the HPA computes 2 replicas.
  Result<std::vector<std::int64_t>> v = adapter.external_metric("default", m);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, std::vector<std::int64_t>{20'000});
  EXPECT_TRUE(state.fallback_active);
  EXPECT_TRUE(state.health["s0-prometheus"].failing);

  // Recovery resets the count; the next failure is the first again.
  reader.set(0, 7);
  v = adapter.external_metric("default", m);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, std::vector<std::int64_t>{7'000});
  EXPECT_EQ(state.health["s0-prometheus"].number_of_failures, 0);
  EXPECT_FALSE(state.fallback_active);
  reader.fail(0, "connection refused");
  EXPECT_FALSE(adapter.external_metric("default", m).ok());
  EXPECT_EQ(state.health["s0-prometheus"].number_of_failures, 1);
}

TEST(ScaledObjectMetrics, ValueMetricsNeverFallBack) {
  ScaledObject so = seed();
  so.triggers[0].metric_type = MetricTarget::Type::Value;
  ScaledObjectState state;
  FakeReader reader;
  ScaledObjectMetrics adapter(so, state, reader);
  reader.fail(0, "down");
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(adapter.external_metric("default", metric("s0-prometheus", so)).ok());
  EXPECT_TRUE(state.health.empty());  // KEDA does not record health without a usable fallback
  EXPECT_FALSE(scaled_object_problems(so).empty());
}

TEST(ScaledObjectMetrics, CachedMetricsReuseThePollsReading) {
  ScaledObject so = seed();
  so.triggers[0].use_cached_metrics = true;
  ScaledObjectState state;
  FakeReader reader;
  ScaledObjectMetrics adapter(so, state, reader);
  reader.set(0, 12);
  poll_scaled_object(so, state, 2, reader, t(0), kWall);
  EXPECT_EQ(reader.reads, 1);
  reader.set(0, 99);  // the source moved on; the adapter serves the poll's reading
  Result<std::vector<std::int64_t>> v = adapter.external_metric("default", metric("s0-prometheus", so));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, std::vector<std::int64_t>{12'000});
  EXPECT_EQ(reader.reads, 1);
}

TEST(ScaledObjectMetrics, CompositeMetricAndItsFallback) {
  ScaledObject so = with_modifiers();
  ScaledObjectState state;
  FakeReader reader;
  ScaledObjectMetrics adapter(so, state, reader);
  MetricIdentifier m = metric("composite-metric", so);
  reader.set(0, 22.5);
  reader.set(1, 7.5);
  Result<std::vector<std::int64_t>> v = adapter.external_metric("default", m);
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, std::vector<std::int64_t>{30'000});

  so.fallback = ScaledObjectFallback{1, 3};
  ScaledObjectState fallback_state;
  ScaledObjectMetrics with_fallback(so, fallback_state, reader);
  reader.fail(0, "down");
  EXPECT_FALSE(with_fallback.external_metric("default", m).ok());  // 1 failure, not > 1
  v = with_fallback.external_metric("default", m);                 // 2 > 1: target 20 x 3 replicas
  ASSERT_TRUE(v.ok()) << v.error().message;
  EXPECT_EQ(*v, std::vector<std::int64_t>{60'000});
}

TEST(ScaledObjectMetrics, CronMetricReadsTheWallClock) {
  ScaledObject so = scale_to_zero();
  so.fallback.reset();
  ScaledObjectTrigger cron;
  cron.type = "cron";
  cron.metadata = {{"timezone", "UTC"}, {"start", "0 8 * * *"}, {"end", "0 18 * * *"}, {"desiredReplicas", "4"}};
  so.triggers = {cron};
  ScaledObjectState state;
  FakeReader reader;
  ScaledObjectMetrics adapter(so, state, reader);
  std::string name = keda_hpa(so).metrics.at(0).metric.name;
  EXPECT_EQ(name, "s0-cron-UTC-08xxx-018xxx");
  adapter.set_wall_clock(kWall);
  EXPECT_EQ(adapter.external_metric("default", metric(name, so)).value(), std::vector<std::int64_t>{4000});
  adapter.set_wall_clock(kWall + hours(10));
  EXPECT_EQ(adapter.external_metric("default", metric(name, so)).value(), std::vector<std::int64_t>{1000});
}

}  // namespace
}  // namespace scalewright::workloads
