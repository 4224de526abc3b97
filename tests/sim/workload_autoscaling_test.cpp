// Workload autoscaling in the simulator, end to end: load from the scenario, metrics from the load model, HPA
// and KEDA decisions, pods pending, nodes launched and removed. Same small catalog as simulator_test.cpp (nodes
// Ready exactly 60 s after launch, batches close 1 s after the last pending pod). Metrics are scraped every 15 s
// from t=0 and the HPA syncs every 15 s right after a scrape; a pod has its first usage sample one scrape after it
// started.
#include <gtest/gtest.h>

#include "run_scenario.h"
#include "manifest/manifest.h"
#include "sim/simulator.h"

namespace scalewright::sim {
namespace {

const std::string kNodePool = testing::nodepool();

// web: 2 replicas requesting 1 cpu each, no limit; HPA on cpu at 50 %, 2 to 10 replicas, no behavior.
const std::string kWeb = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: main
        image: web
        resources: {requests: {cpu: "1", memory: 1Gi}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
)";

std::string timeline_scenario(const std::string& timeline, const std::string& duration = "20m") {
  return "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: test}\nspec:\n  duration: " + duration +
         "\n  cloud:\n    launchLatency: {min: 60s, max: 60s}\n" + (timeline.empty() ? "" : "  timeline:\n" + timeline);
}

using testing::messages;
using testing::run;

TEST(WorkloadAutoscalerLoop, LoadTriplesHpaScalesOutNodesLaunchLoadFallsReplicasAndNodesGoBack) {
  // 100 requests/s at 10 ms of cpu each is 1000m of work: 500m per pod, 50 % of the 1-cpu request, on target.
  // At 5m the load triples: 1500m per pod = 150 %, ratio 3, 2 x 3 = 6 but the scale-up limit without behavior
  // is max(2 x 2, 4) = 4: 2 -> 4. At 5m15 two pods are still pending (counted as 0 on a scale-up): (1500 + 1500)
  // / (4 x 1000) = 75 %, ratio 1.5, ceil(4 x 1.5) = 6: 4 -> 6 (the message shows the ready pods' 150 %). With 6
  // pods the 3000m of work is 500m each, 50 %: no change. At 10m the load goes back to 100/s: 1000m / 6 pods =
  // 167m each, int(1002 x 100 / 6000) = 16 %, ceil(6 x 0.32) = 2; the last recommendation of 6 was made at 9m45s,
  // and the 5-minute stabilization window keeps it while it is not older than the window (upstream drops only
  // recommendations *before* the cutoff): at 14m45s it still counts, at 15m0s it is gone: 6 -> 2. The ReplicaSet
  // removes the newest pods, which empties the two nodes launched for them; the first goes 30 s later, the second
  // 10 s after that (the default budget of 10 % of 3 nodes allows one at a time).
  SimulationReport r = run(kNodePool + kWeb + timeline_scenario(R"(
  - {at: 0s, load: {kind: Deployment, name: web, requestsPerSecond: 100, cpuPerRequest: 10m}}
  - {at: 5m, load: {kind: Deployment, name: web, requestsPerSecond: 300}}
  - {at: 10m, load: {kind: Deployment, name: web, requestsPerSecond: 100}}
)"));
  EXPECT_EQ(messages(r, "autoscale"), (std::vector<std::string>{
                                       "t=5m0s hpa/web 2 -> 4: cpu 150% of 50% target",
                                       "t=5m15s hpa/web 4 -> 6: cpu 150% of 50% target",
                                       "t=15m0s hpa/web 6 -> 2: cpu 16% of 50% target",
                                   }));
  // The first two pods wait for the first node (Ready at 61 s); four more pods need two more nodes.
  EXPECT_EQ(r.summary.launches, 3);
  EXPECT_EQ(r.summary.peak_nodes, 3);
  EXPECT_EQ(r.summary.nodes_at_end, 1);
  std::vector<std::string> removed = messages(r, "removed");
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_TRUE(removed[0].starts_with("t=15m30s ")) << removed[0];
  EXPECT_TRUE(removed[1].starts_with("t=15m40s ")) << removed[1];
  // Before the first node is Ready no pod has a sample: one warning, not one per sync.
  std::vector<std::string> warnings = messages(r, "autoscaler-warning");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(warnings[0].starts_with("t=15s hpa/web: FailedGetResourceMetric:")) << warnings[0];

  ASSERT_EQ(r.summary.autoscalers.size(), 1u);
  const AutoscalerSummary& a = r.summary.autoscalers[0];
  EXPECT_EQ(a.name, "hpa/web");
  EXPECT_EQ(a.target, "Deployment default/web");
  EXPECT_EQ(a.min_replicas, 2);
  EXPECT_EQ(a.max_replicas, 6);
  EXPECT_EQ(a.scale_ups, 2);
  EXPECT_EQ(a.scale_downs, 1);
  // 2 x 300 s + 4 x 15 s + 6 x 585 s (5m15 to 15m) + 2 x 300 s (to 20m).
  EXPECT_DOUBLE_EQ(a.replica_seconds, 600 + 60 + 3510 + 600);
  // The syncs at 5m and 5m15 asked for more than the target had; from 5m30 on, 6 was enough.
  EXPECT_EQ(a.above_target, std::chrono::seconds(30));
  // Nothing serves the load until the first pods run at 61 s: the scrapes at 15, 30, 45 and 60 s each count
  // 15 s x 100 requests/s as dropped.
  EXPECT_DOUBLE_EQ(r.summary.dropped_requests, 6000);
  // Each decision explained on the HPA, as `explain hpa/web` shows it and `scalewright run` records it: the
  // rescales, and the recommendation of 2 that stabilization held at 6 from 10m, said once while it held.
  std::vector<std::string> explained;
  for (const ObjectEventAt& e : r.events) {
    if (e.event.kind == "HorizontalPodAutoscaler" && e.event.key == "default/web") {
      explained.push_back(format_time(e.at) + " " + e.event.reason + ": " + e.event.message);
    }
  }
  EXPECT_EQ(explained,
            (std::vector<std::string>{
                "t=5m0s SuccessfulRescale: New size: 4; reason: cpu resource utilization (percentage of request) "
                "above target; cpu 150% of 50% target: ratio 3.00, outside the tolerance 0.90–1.10, asks for 6; "
                "ScaleUpLimit (the desired replica count is increasing faster than the maximum scale rate): 4; "
                "scaled 2 → 4",
                "t=5m15s SuccessfulRescale: New size: 6; reason: cpu resource utilization (percentage of request) "
                "above target; cpu 150% of 50% target: ratio 3.00, outside the tolerance 0.90–1.10, asks for 6; "
                "scaled 4 → 6",
                "t=10m0s ScaleDownStabilized: cpu 16% of 50% target: ratio 0.32, outside the tolerance 0.90–1.10, "
                "asks for 2; ScaleDownStabilized (recent recommendations were higher than current one, applying the "
                "highest recent recommendation): 6; kept at 6",
                "t=15m0s SuccessfulRescale: New size: 2; reason: All metrics below target; cpu 16% of 50% target: "
                "ratio 0.32, outside the tolerance 0.90–1.10, asks for 2; scaled 6 → 2",
            }));
}

TEST(WorkloadAutoscalerLoop, CpuLimitCapsUsageAndTheHpaStopsAtMaxReplicas) {
  // One pod limited to 500m under 2000m of work runs at its limit: 200 % of its 250m request, and serves 50 of
  // the 200 requests/s. Target 50 %: ratio 4, ceil(1 x 4) = 4 (also the limit max(2 x 1, 4)); then the pods, still
  // at their limit, ask for more and get maxReplicas 6.
  const std::string limited = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: default}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - name: main
        image: api
        resources: {requests: {cpu: 250m, memory: 1Gi}, limits: {cpu: 500m}}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: api, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
  minReplicas: 1
  maxReplicas: 6
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
---
)";
  SimulationReport r = run(kNodePool + limited + timeline_scenario(R"(
  - {at: 0s, load: {kind: Deployment, name: api, requestsPerSecond: 0, cpuPerRequest: 10m}}
  - {at: 3m, load: {kind: Deployment, name: api, requestsPerSecond: 200}}
)", "6m"));
  std::vector<std::string> scales = messages(r, "autoscale");
  ASSERT_GE(scales.size(), 2u);
  EXPECT_EQ(scales[0], "t=3m0s hpa/api 1 -> 4: cpu 200% of 50% target");
  EXPECT_TRUE(scales.back().find("-> 6:") != std::string::npos) << scales.back();
  EXPECT_EQ(r.summary.autoscalers.at(0).max_replicas, 6);
}

TEST(WorkloadAutoscalerLoop, PodsMetricIsTheRequestRateEachPodServed) {
  // http_requests_per_second as prometheus-adapter serves it: 60 requests/s over 2 pods is 30 each, 3 x the
  // AverageValue target of 10: ceil(2 x 3) = 6, limited to max(2 x 2, 4) = 4. The pods run from 61 s (first node)
  // and have samples from the scrape at 1m30s (one scrape after they started).
  const std::string hpa = R"(
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web-rps, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 10
  metrics:
  - type: Pods
    pods:
      metric: {name: http_requests_per_second}
      target: {type: AverageValue, averageValue: "10"}
---
)";
  std::string web = kWeb.substr(0, kWeb.find("apiVersion: autoscaling/v2"));
  SimulationReport r = run(kNodePool + web + hpa + timeline_scenario(R"(
  - {at: 0s, load: {kind: Deployment, name: web, requestsPerSecond: 60, cpuPerRequest: 1m}}
)", "2m"));
  std::vector<std::string> scales = messages(r, "autoscale");
  ASSERT_FALSE(scales.empty());
  EXPECT_EQ(scales[0], "t=1m30s hpa/web-rps 2 -> 4: http_requests_per_second 30 of 10 target");
}

TEST(WorkloadAutoscalerLoop, CronScaledObjectActivatesInItsWindowAndScalesToZeroAfterTheCooldown) {
  // The simulated wall clock starts on Monday 2024-01-01 00:00 UTC. KEDA polls every 30 s. The window opens at
  // 00:05: the poll activates 0 -> 1, and the HPA reads the cron metric as 5 (desiredReplicas) against a target of
  // 1 per replica: ceil(5 / 1) = 5, limited to max(2 x 1, 4) = 4, then (5 over 4 replicas = 1250m each) 5. The
  // window closes at 00:15; the last active poll was at 14m30s and the 60 s cooldown has passed strictly after it
  // at the poll of 16m0s (at 15m30s it is exactly 60 s: KEDA still waits): 5 -> 0.
  SimulationReport r = run(kNodePool + R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: batch, namespace: default}
spec:
  replicas: 0
  selector: {matchLabels: {app: batch}}
  template:
    metadata: {labels: {app: batch}}
    spec:
      containers:
      - {name: main, image: batch, resources: {requests: {cpu: 500m, memory: 1Gi}}}
---
apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: batch, namespace: default}
spec:
  scaleTargetRef: {name: batch}
  cooldownPeriod: 60
  triggers:
  - type: cron
    metadata: {timezone: Etc/UTC, start: "5 0 * * *", end: "15 0 * * *", desiredReplicas: "5"}
---
)" + timeline_scenario("", "30m"));
  std::vector<std::string> scales = messages(r, "autoscale");
  ASSERT_EQ(scales.size(), 4u);
  EXPECT_TRUE(scales[0].starts_with("t=5m0s scaledobject/batch 0 -> 1: ")) << scales[0];
  EXPECT_TRUE(scales[1].starts_with("t=5m0s hpa/keda-hpa-batch 1 -> 4: ")) << scales[1];
  EXPECT_TRUE(scales[2].starts_with("t=5m15s hpa/keda-hpa-batch 4 -> 5: ")) << scales[2];
  EXPECT_TRUE(scales[3].starts_with("t=16m0s scaledobject/batch 5 -> 0: ")) << scales[3];
  const AutoscalerSummary& a = r.summary.autoscalers.at(0);
  EXPECT_EQ(a.name, "scaledobject/batch");
  EXPECT_EQ(a.min_replicas, 0);
  EXPECT_EQ(a.max_replicas, 5);
  EXPECT_EQ(a.scale_ups, 3);
  EXPECT_EQ(a.scale_downs, 1);
  // 1 replica for 0 s, 4 for 15 s, 5 from 5m15s to 16m0s (645 s).
  EXPECT_DOUBLE_EQ(a.replica_seconds, 4 * 15 + 5 * 645);
}

TEST(WorkloadAutoscalerLoop, MemoryUtilizationIsMeasuredAgainstTheMemoryRequest) {
  // Each pod uses 800 MiB of its 1 GiB request: int(2 x 800 x 100 / (2 x 1024)) = 78 %, ratio 78 / 50 = 1.56,
  // ceil(2 x 1.56) = 4 (also the max(2 x 2, 4) limit). The pods run from 61 s and have samples from 1m30s.
  const std::string hpa = R"(
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web-memory, namespace: default}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 2
  maxReplicas: 4
  metrics:
  - type: Resource
    resource: {name: memory, target: {type: Utilization, averageUtilization: 50}}
---
)";
  std::string web = kWeb.substr(0, kWeb.find("apiVersion: autoscaling/v2"));
  SimulationReport r = run(kNodePool + web + hpa + timeline_scenario(R"(
  - {at: 0s, load: {kind: Deployment, name: web, requestsPerSecond: 0, memory: 800Mi}}
)", "2m"));
  EXPECT_EQ(messages(r, "autoscale"), std::vector<std::string>{"t=1m30s hpa/web-memory 2 -> 4: memory 78% of 50% target"});
}

}  // namespace
}  // namespace scalewright::sim

namespace scalewright::sim {
namespace {

TEST(WorkloadAutoscalerLoop, ARunawayHpaStopsTheRunAtThePodLimitWithTheReportSoFar) {
  // maxReplicas 2^31 - 1 under a load no number of pods serves: the HPA doubles web every sync (2 -> 4 -> 8 -> 16
  // -> 32 -> 64, from 1m30s every 15 s). With a limit of 50 pods, the sync at 2m30s that asks for 64 stops the run
  // at that instant: the timeline ends there with the reason, the report's duration is that time, and no more
  // than 50 pods were made.
  std::string web = kWeb;
  web.replace(web.find("maxReplicas: 10"), 15, "maxReplicas: 2147483647");
  SimulationLimits limits;
  limits.max_pods = 50;
  const SimulationReport r = run(kNodePool + web +
                                     timeline_scenario("  - {at: 0s, load: {kind: Deployment, name: web, "
                                                       "requestsPerSecond: 1000000, cpuPerRequest: \"1\"}}\n",
                                                       "1h"),
                                 2, {}, nullptr, limits);
  EXPECT_EQ(r.stopped, "the simulation holds at most 50 pods; Deployment/default/web asked for more");
  const std::vector<std::string> scales = messages(r, "autoscale");
  ASSERT_FALSE(scales.empty());
  EXPECT_NE(scales.back().find("hpa/web 32 -> 64"), std::string::npos) << scales.back();
  const std::string at = scales.back().substr(0, scales.back().find(' '));
  ASSERT_FALSE(r.timeline.empty());
  EXPECT_EQ(r.timeline.back().kind, "stopped");
  EXPECT_EQ(format_time(r.timeline.back().at), at);
  EXPECT_EQ(format_time(Instant(r.duration)), at);
  EXPECT_EQ(at, "t=2m30s");
  EXPECT_LT(r.duration, Duration(3600'000));
  EXPECT_LE(r.summary.pod_wait.pods_bound + r.summary.pod_wait.pods_pending_at_end, 50u);
}

}  // namespace
}  // namespace scalewright::sim
