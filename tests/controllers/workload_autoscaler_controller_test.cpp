// WorkloadAutoscalerController through fake ports: the HPA "web" (min 1, max 10, cpu at 50 % of requests) over the
// Deployment default/web, 2 replicas, whose pods web-0 and web-1 (500m cpu requested each) are bound to n1 at 0 s.
// The fake metrics answer fixed cpu usage per pod, sampled now over 15 s: the pods, Ready since 0 s, have been Ready
// a whole window by 15 s, so their samples count although they are within the 5 min cpu initialization period.
#include "controllers/workload_autoscaler_controller.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"

namespace scalewright::controllers {
namespace {

using namespace fakes;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// The Deployment default/`name` of pods labelled app=`name`.
Workload deployment(const std::string& name, std::int32_t replicas) {
  Workload deployment;
  deployment.meta.name = name;
  deployment.meta.namespace_ = "default";
  deployment.replicas = replicas;
  deployment.selector = LabelSelector{{provisioning::fixtures::requirement("app", SelectorOperator::In, {name})}};
  return deployment;
}

class WorkloadAutoscaler : public ::testing::Test, protected FakeCluster {
 protected:
  WorkloadAutoscaler() {
    add_node(state, cloud, "n1", "");
    state.workload_applied(deployment("web", 2));
    for (const char* name : {"web-0", "web-1"}) {
      bind_pod(state, clock, add_pod(state, clock, name, 500, "web", "Deployment/default/web"), "n1");
    }
    HorizontalPodAutoscaler hpa;
    hpa.meta.name = "web";
    hpa.meta.namespace_ = "default";
    hpa.scale_target_ref = {"Deployment", "web", "apps/v1"};
    hpa.min_replicas = 1;
    hpa.max_replicas = 10;
    MetricSpec cpu;
    cpu.resource = "cpu";
    cpu.target.average_utilization = 50;
    hpa.metrics = {cpu};
    state.hpa_applied(hpa);  // observed, then taken on by the controller
    autoscaler.reconcile();
  }

  // metrics-server scraped at `at`, and told the controller.
  void scrape_at(Instant at) {
    clock.advance_to(at);
    autoscaler.metrics_scraped();
  }

  FakeMetrics metrics{clock};
  WorkloadAutoscalerController autoscaler{ports, metrics, std::chrono::sys_seconds{}};
};

TEST_F(WorkloadAutoscaler, HpaSyncsFifteenSecondsAfterTheFirstScrapeAndEveryFifteenAfterAndScalesThroughTheWriter) {
  // 500m used of 500m requested: 100 % against a 50 % target, ratio 2; ceil(2 x 2 pods) = 4.
  metrics.cpu_milli = {{"web-0", 500}, {"web-1", 500}};
  scrape_at(kStart + 5s);  // the first scrape: syncs at 20, 35, 50 s, ...
  clock.advance_to(kStart + 19'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  scrape_at(kStart + 20s);
  EXPECT_THAT(writer.calls, ElementsAre("20s scale Deployment/default/web 4"));
  EXPECT_EQ(state.workloads().at("Deployment/default/web").workload.replicas, 4);
  EXPECT_THAT(writer.events_of("autoscale"), ElementsAre("20s hpa/web 2 -> 4: cpu 100% of 50% target"));

  // From 25 s the two pods use 750m (150 %, ratio 3). The Deployment's spec says 4 but no new pod exists here (no
  // ReplicaSet controller), so the sync at 35 s computes ceil(3 x 2 pods) = 6; the default scale-up policies allow
  // max(4 + 4 pods, 2 x 4) = 8 in 15 s, so 6 stands. Scrapes every 15 s do not add syncs: one is pending, at 50 s.
  clock.advance_to(kStart + 25s);
  metrics.cpu_milli = {{"web-0", 750}, {"web-1", 750}};
  clock.advance_to(kStart + 34'999ms);
  EXPECT_THAT(writer.calls, ElementsAre("20s scale Deployment/default/web 4"));
  scrape_at(kStart + 35s);
  EXPECT_THAT(writer.calls, ElementsAre("20s scale Deployment/default/web 4", "35s scale Deployment/default/web 6"));
  EXPECT_THAT(clock.pending(), ElementsAre(kStart + 50s));
}

// KEDA's ScaledObject "api" over the Deployment default/api at 0 replicas, polled every 30 s from 0 s; its prometheus
// trigger reads 5.
class ScaledObjectEdits : public WorkloadAutoscaler {
 protected:
  ScaledObjectEdits() {
    state.workload_applied(deployment("api", 0));
    metrics.trigger_value = 5;
  }
  static ScaledObject api_scaled_object(const std::string& activation_threshold) {
    ScaledObject so;
    so.meta.name = "api";
    so.meta.namespace_ = "default";
    so.scale_target_ref = {"Deployment", "api", "apps/v1"};
    so.triggers = {ScaledObjectTrigger{"prometheus", "", {{"serverAddress", "http://127.0.0.1:9090"},
                                                           {"query", "sum(rate(http_requests_total[1m]))"},
                                                           {"threshold", "10"},
                                                           {"activationThreshold", activation_threshold}},
                                       std::nullopt, false}};
    return so;
  }
};

TEST(StateAutoscalingView, MemoryRequestsInThousandthsSaturate) {
  // The HPA reads requests in thousandths: 9Pi bytes (9 x 2^50) x 1000 passes 2^63 - 1, and wrapped.
  FakeCluster f;
  f.state.pod_created(provisioning::fixtures::make_pod("huge", 500, 9 * kMi * kGi, "web"), "", f.clock.now());
  const std::vector<ObservedPod> pods = StateAutoscalingView(f.state).pods("default", deployment("web", 1).selector);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0].pod.containers.at(0).request("memory"), kLargestAmount);
  EXPECT_EQ(pods[0].pod.containers.at(0).request("cpu"), 500);
}

TEST_F(ScaledObjectEdits, AnEditedScaledObjectIsPolledAtOnceWithItsNewSpecAndADeletedOneNoMore) {
  // activationThreshold 10: 5 is not above it, the Deployment stays at 0 (polls at 0 and 30 s).
  state.scaled_object_applied(api_scaled_object("10"));
  autoscaler.reconcile();
  clock.advance_to(kStart + 10s);
  EXPECT_THAT(writer.calls_of("scale"), IsEmpty());
  // Edited at 10 s to activationThreshold 1: polled at 10 s, not at 30 s, and 5 is above 1: activated 0 -> 1.
  state.scaled_object_applied(api_scaled_object("1"));
  autoscaler.reconcile();
  clock.advance_to(kStart + 10s);
  EXPECT_THAT(writer.calls_of("scale"), ElementsAre("10s scale Deployment/default/api 1"));
  EXPECT_THAT(writer.events_of("scaledobject"),
              ElementsAre("10s ScaledObject default/api changed: its new spec applies from now on"));

  // Deleted at 20 s, and the Deployment scaled back to 0 by hand: nothing activates it again.
  clock.advance_to(kStart + 20s);
  state.scaled_object_deleted("default/api");
  autoscaler.reconcile();
  writer.scale("Deployment/default/api", 0);
  clock.advance_to(kStart + 5min);
  EXPECT_THAT(writer.calls_of("scale"),
              ElementsAre("10s scale Deployment/default/api 1", "20s scale Deployment/default/api 0"));
  EXPECT_THAT(writer.events_of("scaledobject"),
              ElementsAre("10s ScaledObject default/api changed: its new spec applies from now on",
                          "20s ScaledObject default/api deleted: its target is no longer scaled"));
}

}  // namespace
}  // namespace scalewright::controllers
