// KEDA's engine (workloads/keda.h) reading prometheus triggers from a real Prometheus through
// PrometheusTriggerReader: activation across thresholds, cooldown, idleReplicaCount, fallback when Prometheus
// does not answer, and the seed ScaledObject of the KEDA walkthrough loaded unchanged. The engine's clock is a
// value (`now`), so cooldowns are stepped through without waiting; only Prometheus' scrapes are waited for.
#include <gtest/gtest.h>

#include <chrono>

#include "manifest/manifest.h"
#include "prometheus/prometheus_trigger_reader.h"
#include "prometheus_fixture.h"
#include "workloads/hpa.h"
#include "workloads/keda.h"

namespace scalewright::prometheus {
namespace {

using namespace std::chrono_literals;
using scalewright::testing::PrometheusFixture;
// The KEDA engine under test, reading through this folder's trigger reader.
using workloads::HpaDecision;
using workloads::HpaState;
using workloads::HpaTarget;
using workloads::keda_hpa;
using workloads::KedaPoll;
using workloads::poll_scaled_object;
using workloads::reconcile_hpa;
using workloads::ScaledObjectMetrics;
using workloads::ScaledObjectState;

const std::chrono::sys_seconds kWallClock{std::chrono::sys_days{std::chrono::year{2024} / 1 / 1}};

ScaledObject decode(const std::string& yaml) {
  Result<ManifestSet> set = decode_manifests(yaml, "scaledobject.yaml");
  EXPECT_TRUE(set.ok()) << (set.ok() ? "" : set.error().message);
  EXPECT_EQ(set->scaled_objects.size(), 1u);
  return set->scaled_objects.at(0);
}

// A ScaledObject on a gauge of the test's exporter, with the given spec lines.
ScaledObject on_gauge(const std::string& address, const std::string& spec, const std::string& activation) {
  return decode(R"(
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: worker, namespace: default}
spec:
  scaleTargetRef: {name: worker}
)" + spec + R"(
  triggers:
  - type: prometheus
    metadata:
      serverAddress: )" + address + R"(
      query: sum(queue_depth{app="worker"})
      threshold: "5"
      activationThreshold: ")" + activation + R"("
)");
}

class KedaAgainstPrometheus : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = PrometheusFixture::start();
    ASSERT_TRUE(started.ok()) << started.error().message;
    prom_ = std::move(*started);
  }
  void set_queue(double value) {
    prom_->set_value("queue_depth", {{"app", "worker"}}, value);
    ASSERT_TRUE(prom_->wait_for(R"(sum(queue_depth{app="worker"}))", [=](double v) { return v == value; }));
  }

  std::unique_ptr<PrometheusFixture> prom_;
  PrometheusTriggerReader reader_{5s};
};

TEST_F(KedaAgainstPrometheus, ActivatesStrictlyAboveTheThresholdAndDeactivatesAfterCooldown) {
  // minReplicaCount 0 (KEDA's default), cooldownPeriod 30 s, activationThreshold 10.
  ScaledObject so = on_gauge(prom_->address(), "  cooldownPeriod: 30\n  maxReplicaCount: 5\n", "10");
  ScaledObjectState state;
  set_queue(10);  // exactly at the activation threshold: not active
  KedaPoll poll = poll_scaled_object(so, state, 0, reader_, Instant(0s), kWallClock);
  EXPECT_FALSE(poll.active);
  EXPECT_FALSE(poll.scale);
  ASSERT_EQ(poll.triggers.size(), 1u);
  EXPECT_EQ(poll.triggers[0].value, 10);

  set_queue(11);
  poll = poll_scaled_object(so, state, 0, reader_, Instant(30s), kWallClock);
  EXPECT_TRUE(poll.active);
  EXPECT_TRUE(poll.scale);
  EXPECT_EQ(poll.desired_replicas, 1);  // max(minReplicaCount, 1)

  set_queue(0);
  // Last active at 30 s: at 60 s exactly the cooldown has not yet passed (KEDA waits while last + cooldown >= now).
  poll = poll_scaled_object(so, state, 1, reader_, Instant(60s), kWallClock);
  EXPECT_FALSE(poll.active);
  EXPECT_FALSE(poll.scale);
  poll = poll_scaled_object(so, state, 1, reader_, Instant(61s), kWallClock);
  EXPECT_TRUE(poll.scale);
  EXPECT_EQ(poll.desired_replicas, 0);
}

TEST_F(KedaAgainstPrometheus, IdleReplicaCountIsWhereAnInactiveTargetRests) {
  // idleReplicaCount 0 below minReplicaCount 2: inactive -> 0 after the cooldown, active again -> 2.
  ScaledObject so = on_gauge(prom_->address(), "  idleReplicaCount: 0\n  minReplicaCount: 2\n  cooldownPeriod: 30\n", "0");
  ScaledObjectState state;
  set_queue(3);
  KedaPoll poll = poll_scaled_object(so, state, 2, reader_, Instant(0s), kWallClock);
  EXPECT_TRUE(poll.active);
  EXPECT_FALSE(poll.scale);  // already at min
  set_queue(0);
  poll = poll_scaled_object(so, state, 2, reader_, Instant(31s), kWallClock);
  EXPECT_TRUE(poll.scale);
  EXPECT_EQ(poll.desired_replicas, 0);
  set_queue(4);
  poll = poll_scaled_object(so, state, 0, reader_, Instant(40s), kWallClock);
  EXPECT_TRUE(poll.scale);
  EXPECT_EQ(poll.desired_replicas, 2);
}

TEST_F(KedaAgainstPrometheus, SeedScaledObjectLoadsUnchangedAndItsHpaScalesOnTheRequestRate) {
  // The KEDA walkthrough's ScaledObject (query sum(rate(http_requests_total{app="podinfo"}[2m])), threshold 10,
  // min 2, max 10, polling 10 s), pointed at this Prometheus. The exporter's counter grows 100 per 1 s
  // scrape; over the query's 2-minute range Prometheus' rate climbs by about 0.8/s while the series is younger
  // than the range. The HPA KEDA generates has one External metric, AverageValue 10: with 2 replicas a rate v
  // gives the ratio v / 20, and any v above 22 (beyond the 10 % tolerance) and up to 30 gives ceil(2 x v / 20) = 3.
  // The test waits for v between 22.5 and 26, which leaves seconds of margin before 30.
  // Loaded from the example, which carries the walkthrough's ScaledObject unchanged; only the server differs.
  Result<ManifestSet> example = load_manifest_file(std::string(SCALEWRIGHT_SOURCE_DIR) + "/examples/podinfo/podinfo.yaml");
  ASSERT_TRUE(example.ok()) << example.error().message;
  ASSERT_EQ(example->scaled_objects.size(), 1u);
  ScaledObject so = example->scaled_objects[0];
  ASSERT_EQ(so.triggers.at(0).metadata.at("serverAddress"), "http://prometheus-server.monitoring.svc:80");
  so.triggers[0].metadata["serverAddress"] = prom_->address();
  prom_->add_per_scrape("http_requests_total", {{"app", "podinfo"}}, 100);
  ASSERT_TRUE(prom_->wait_for(R"(sum(rate(http_requests_total{app="podinfo"}[2m])))",
                              [](double v) { return v > 22.5 && v < 26; }, 60s));
  ScaledObjectState state;
  KedaPoll poll = poll_scaled_object(so, state, 0, reader_, Instant(0s), kWallClock);
  EXPECT_TRUE(poll.active);
  EXPECT_EQ(poll.desired_replicas, 2);  // from zero to minReplicaCount
  EXPECT_EQ(poll.next_poll, Instant(10s));  // pollingInterval

  HorizontalPodAutoscaler hpa = keda_hpa(so);
  EXPECT_EQ(hpa.min_replicas, 2);
  EXPECT_EQ(hpa.max_replicas, 10);
  ScaledObjectMetrics adapter(so, state, reader_);
  adapter.set_now(Instant(15s));
  HpaState hpa_state;
  HpaTarget target;
  target.spec_replicas = 2;
  HpaDecision decision = reconcile_hpa(hpa, hpa_state, target, adapter, Instant(15s));
  EXPECT_TRUE(decision.rescale) << (decision.events.empty() ? "" : decision.events[0].message);
  EXPECT_EQ(decision.desired_replicas, 3);
}

TEST_F(KedaAgainstPrometheus, FallbackAfterThreeFailedReadsWhenPrometheusIsDown) {
  // Prometheus stops answering (its address is now a closed port). failureThreshold 3: the HPA's first three
  // reads fail (no scale, a warning each), the fourth falls back to fallback.replicas x AverageValue = 2 x 5 = 10,
  // for which the metric asks 10 / 5 = 2 replicas. The HPA's 5-minute downscale stabilization (seeded with the 6
  // replicas of its first sync, as upstream seeds it) keeps 6 meanwhile: an outage is never a sudden scale-in.
  const std::string address = prom_->address();
  prom_.reset();  // Prometheus is down from here on
  ScaledObject so = on_gauge(address, "  minReplicaCount: 1\n  fallback: {failureThreshold: 3, replicas: 2}\n", "0");
  ScaledObjectState state;
  HorizontalPodAutoscaler hpa = keda_hpa(so);
  HpaState hpa_state;
  HpaTarget target;
  target.spec_replicas = 6;
  ScaledObjectMetrics adapter(so, state, reader_);
  for (int read = 1; read <= 3; ++read) {
    adapter.set_now(Instant(read * 15s));
    HpaDecision decision = reconcile_hpa(hpa, hpa_state, target, adapter, Instant(read * 15s));
    EXPECT_FALSE(decision.rescale) << "read " << read;
    ASSERT_FALSE(decision.events.empty());
    EXPECT_TRUE(decision.events[0].warning);
    EXPECT_NE(decision.events[0].message.find("could not connect"), std::string::npos) << decision.events[0].message;
  }
  adapter.set_now(Instant(60s));
  HpaDecision decision = reconcile_hpa(hpa, hpa_state, target, adapter, Instant(60s));
  EXPECT_TRUE(state.fallback_active);
  ASSERT_EQ(decision.metrics.size(), 1u);
  EXPECT_EQ(decision.metrics[0].proposal, 2);
  EXPECT_EQ(decision.desired_replicas, 6);
  EXPECT_FALSE(decision.rescale);
  // The operator's poll sees the failure too: the trigger is not active and the scale is left to the HPA.
  KedaPoll poll = poll_scaled_object(so, state, 6, reader_, Instant(60s), kWallClock);
  EXPECT_TRUE(poll.error);
  EXPECT_FALSE(poll.scale);
}

}  // namespace
}  // namespace scalewright::prometheus
