// KEDA ScaledObject manifests as users apply them: every field decoded, defaults left unset for the controllers to
// apply, and KEDA's validation as one error line each. (HorizontalPodAutoscalers: hpa_decoder_test.cpp.)
#include <gtest/gtest.h>

#include "decode_helpers.h"

namespace scalewright::testing {
namespace {

using TargetType = MetricTarget::Type;

const std::string kPodinfo = R"(apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata:
  name: podinfo
  namespace: default
spec:
  scaleTargetRef:
    name: podinfo
  pollingInterval: 10
  cooldownPeriod: 30
  minReplicaCount: 2
  maxReplicaCount: 10
  fallback:
    failureThreshold: 3
    replicas: 2
  triggers:
  - type: prometheus
    metadata:
      serverAddress: http://prometheus-server.monitoring.svc:80
      metricName: http_requests_per_second
      query: sum(rate(http_requests_total{app="podinfo"}[2m]))
      threshold: "10"
)";

TEST(DecodeScaledObject, SeedPodinfoLoadsUnchanged) {
  ManifestSet set = decode_ok(kPodinfo);
  ASSERT_EQ(set.scaled_objects.size(), 1u);
  EXPECT_TRUE(set.warnings.empty());
  const ScaledObject& so = set.scaled_objects[0];
  EXPECT_EQ(so.meta.name, "podinfo");
  EXPECT_EQ(so.meta.namespace_, "default");
  EXPECT_EQ(so.scale_target_ref, (CrossVersionObjectReference{"Deployment", "podinfo", ""}));  // KEDA's default kind
  EXPECT_EQ(so.polling_interval_seconds, 10);
  EXPECT_EQ(so.cooldown_period_seconds, 30);
  EXPECT_FALSE(so.initial_cooldown_period_seconds.has_value());
  EXPECT_EQ(so.min_replica_count, 2);
  EXPECT_EQ(so.max_replica_count, 10);
  EXPECT_FALSE(so.idle_replica_count.has_value());
  ASSERT_TRUE(so.fallback.has_value());
  EXPECT_EQ(so.fallback->failure_threshold, 3);
  EXPECT_EQ(so.fallback->replicas, 2);
  EXPECT_FALSE(so.hpa_behavior.has_value());
  EXPECT_FALSE(so.scaling_modifiers.has_value());
  ASSERT_EQ(so.triggers.size(), 1u);
  const ScaledObjectTrigger& t = so.triggers[0];
  EXPECT_EQ(t.type, "prometheus");
  EXPECT_EQ(t.name, "");
  EXPECT_EQ(t.metadata,
            (std::map<std::string, std::string>{{"serverAddress", "http://prometheus-server.monitoring.svc:80"},
                                                {"metricName", "http_requests_per_second"},
                                                {"query", "sum(rate(http_requests_total{app=\"podinfo\"}[2m]))"},
                                                {"threshold", "10"}}));
  EXPECT_FALSE(t.metric_type.has_value());
  EXPECT_FALSE(t.use_cached_metrics);
}

TEST(DecodeScaledObject, CpuMemoryCronIdleBehaviorAndScalingModifiers) {
  ManifestSet set = decode_ok(R"(apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: worker, namespace: jobs}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: worker}
  initialCooldownPeriod: 120
  idleReplicaCount: 0
  minReplicaCount: 1
  maxReplicaCount: 30
  advanced:
    horizontalPodAutoscalerConfig:
      behavior:
        scaleDown:
          stabilizationWindowSeconds: 120
          policies:
          - {type: Percent, value: 50, periodSeconds: 30}
    scalingModifiers:
      formula: "(queue + rps) / 2"
      target: "5"
      activationTarget: "0.5"
      metricType: AverageValue
  triggers:
  - type: cpu
    metricType: Utilization
    metadata:
      value: "60"
      containerName: app
  - type: memory
    metadata:
      type: AverageValue
      value: 512Mi
  - type: cron
    metadata:
      timezone: Europe/Amsterdam
      start: 0 8 * * 1-5
      end: 0 18 * * 1-5
      desiredReplicas: 10
  - type: prometheus
    name: rps
    metricType: Value
    useCachedMetrics: true
    metadata:
      serverAddress: http://prometheus:9090
      query: sum(rate(http_requests_total[1m]))
      threshold: 100
      activationThreshold: 2.5
      ignoreNullValues: "false"
)");
  ASSERT_EQ(set.scaled_objects.size(), 1u);
  EXPECT_TRUE(set.warnings.empty());
  const ScaledObject& so = set.scaled_objects[0];
  EXPECT_EQ(so.meta.namespace_, "jobs");
  EXPECT_EQ(so.scale_target_ref, (CrossVersionObjectReference{"StatefulSet", "worker", "apps/v1"}));
  EXPECT_FALSE(so.polling_interval_seconds.has_value());
  EXPECT_FALSE(so.cooldown_period_seconds.has_value());
  EXPECT_EQ(so.initial_cooldown_period_seconds, 120);
  EXPECT_EQ(so.idle_replica_count, 0);
  EXPECT_EQ(so.min_replica_count, 1);
  EXPECT_EQ(so.max_replica_count, 30);
  EXPECT_FALSE(so.fallback.has_value());

  ASSERT_TRUE(so.hpa_behavior.has_value());
  EXPECT_FALSE(so.hpa_behavior->scale_up.has_value());
  ASSERT_TRUE(so.hpa_behavior->scale_down.has_value());
  EXPECT_EQ(so.hpa_behavior->scale_down->stabilization_window_seconds, 120);
  ASSERT_EQ(so.hpa_behavior->scale_down->policies.size(), 1u);
  EXPECT_EQ(so.hpa_behavior->scale_down->policies[0].type, HpaScalingPolicy::Type::Percent);
  EXPECT_EQ(so.hpa_behavior->scale_down->policies[0].value, 50);
  EXPECT_EQ(so.hpa_behavior->scale_down->policies[0].period_seconds, 30);

  ASSERT_TRUE(so.scaling_modifiers.has_value());
  EXPECT_EQ(so.scaling_modifiers->formula, "(queue + rps) / 2");
  ASSERT_TRUE(so.scaling_modifiers->target.has_value());
  EXPECT_EQ(so.scaling_modifiers->target->value(), 5);
  ASSERT_TRUE(so.scaling_modifiers->activation_target.has_value());
  EXPECT_EQ(so.scaling_modifiers->activation_target->milli_value(), 500);
  EXPECT_EQ(so.scaling_modifiers->metric_type, TargetType::AverageValue);

  ASSERT_EQ(so.triggers.size(), 4u);
  const ScaledObjectTrigger& cpu = so.triggers[0];
  EXPECT_EQ(cpu.type, "cpu");
  EXPECT_EQ(cpu.metric_type, TargetType::Utilization);
  EXPECT_EQ(cpu.metadata, (std::map<std::string, std::string>{{"value", "60"}, {"containerName", "app"}}));

  const ScaledObjectTrigger& memory = so.triggers[1];
  EXPECT_EQ(memory.type, "memory");
  EXPECT_EQ(memory.metric_type, TargetType::AverageValue);  // from the deprecated metadata.type
  EXPECT_EQ(memory.metadata, (std::map<std::string, std::string>{{"type", "AverageValue"}, {"value", "512Mi"}}));

  const ScaledObjectTrigger& cron = so.triggers[2];
  EXPECT_EQ(cron.type, "cron");
  EXPECT_FALSE(cron.metric_type.has_value());
  // desiredReplicas written unquoted is kept as its text.
  EXPECT_EQ(cron.metadata, (std::map<std::string, std::string>{{"timezone", "Europe/Amsterdam"},
                                                               {"start", "0 8 * * 1-5"},
                                                               {"end", "0 18 * * 1-5"},
                                                               {"desiredReplicas", "10"}}));

  const ScaledObjectTrigger& rps = so.triggers[3];
  EXPECT_EQ(rps.type, "prometheus");
  EXPECT_EQ(rps.name, "rps");
  EXPECT_EQ(rps.metric_type, TargetType::Value);
  EXPECT_TRUE(rps.use_cached_metrics);
  EXPECT_EQ(rps.metadata.at("threshold"), "100");
  EXPECT_EQ(rps.metadata.at("activationThreshold"), "2.5");
  EXPECT_EQ(rps.metadata.at("ignoreNullValues"), "false");
}

TEST(DecodeScaledObject, UnknownTriggerTypeDecodesWithAWarning) {
  ManifestSet set = decode_ok(R"(apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: consumer}
spec:
  scaleTargetRef: {name: consumer}
  triggers:
  - type: kafka
    metadata: {bootstrapServers: "kafka:9092", consumerGroup: g, topic: orders, lagThreshold: 50}
)");
  ASSERT_EQ(set.scaled_objects.size(), 1u);
  ASSERT_EQ(set.scaled_objects[0].triggers.size(), 1u);
  EXPECT_EQ(set.scaled_objects[0].triggers[0].metadata.at("lagThreshold"), "50");
  EXPECT_EQ(set.warnings, (std::vector<std::string>{
                              "test.yaml doc 1 ScaledObject/consumer: spec.triggers[0]: trigger type kafka is not "
                              "simulated"}));
}

TEST(DecodeScaledObject, JsonListWithNumbersInMetadata) {
  ManifestSet set = decode_ok(R"({"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject", "metadata": {"name": "q"},
   "spec": {"scaleTargetRef": {"name": "q"}, "triggers": [{"type": "prometheus", "metadata":
     {"serverAddress": "http://p:9090", "query": "up", "threshold": 2.5, "ignoreNullValues": false}}]}},
  {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
   "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "h"}, "maxReplicas": 3}}]})");
  ASSERT_EQ(set.scaled_objects.size(), 1u);
  EXPECT_EQ(set.scaled_objects[0].triggers[0].metadata.at("threshold"), "2.5");
  EXPECT_EQ(set.scaled_objects[0].triggers[0].metadata.at("ignoreNullValues"), "false");
  ASSERT_EQ(set.horizontal_pod_autoscalers.size(), 1u);
  EXPECT_EQ(set.horizontal_pod_autoscalers[0].max_replicas, 3);
}

// A ScaledObject named so for Deployment web, with `spec_extra` appended to its spec (indented by 2).
std::string so_with(const std::string& spec_extra) {
  return R"(apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: so}
spec:
  scaleTargetRef: {name: web}
)" + spec_extra;
}

// A ScaledObject with minReplicaCount 1 and the single trigger `trigger` (a flow mapping).
std::string so_trigger(const std::string& trigger) {
  return so_with("  minReplicaCount: 1\n  triggers:\n  - " + trigger + "\n");
}

const std::string kSo = "test.yaml doc 1 ScaledObject/so: ";
const std::string kPrometheus =
    "{type: prometheus, metadata: {serverAddress: http://p:9090, query: up, threshold: \"1\"}}";

TEST(ScaledObjectErrors, SeedVariants) {
  std::string no_triggers = kPodinfo.substr(0, kPodinfo.find("  triggers:"));
  EXPECT_EQ(decode_error(no_triggers),
            "test.yaml doc 1 ScaledObject/podinfo: spec.triggers: at least one trigger is required");
  std::string no_query = kPodinfo;
  no_query.erase(no_query.find("      query:"), no_query.find("      threshold") - no_query.find("      query:"));
  EXPECT_EQ(
      decode_error(no_query),
      "test.yaml doc 1 ScaledObject/podinfo: spec.triggers[0].metadata.query: required for a prometheus trigger");
  std::string ten = kPodinfo;
  ten.replace(ten.find("\"10\""), 4, "\"ten\"");
  EXPECT_EQ(
      decode_error(ten),
      "test.yaml doc 1 ScaledObject/podinfo: spec.triggers[0].metadata.threshold: expected a number, got \"ten\"");
  std::string min_over_max = kPodinfo;
  min_over_max.replace(min_over_max.find("minReplicaCount: 2"), 18, "minReplicaCount: 11");
  EXPECT_EQ(decode_error(min_over_max),
            "test.yaml doc 1 ScaledObject/podinfo: spec.minReplicaCount: must not be greater than maxReplicaCount "
            "(10), got 11");
  std::string idle = kPodinfo;
  idle.replace(idle.find("  minReplicaCount"), 0, "  idleReplicaCount: 2\n");
  EXPECT_EQ(
      decode_error(idle),
      "test.yaml doc 1 ScaledObject/podinfo: spec.idleReplicaCount: must be less than minReplicaCount (2), got 2");
}

TEST(ScaledObjectErrors, ReplicaCounts) {
  EXPECT_EQ(decode_error(so_with("  minReplicaCount: 101\n  triggers:\n  - " + kPrometheus + "\n")),
            kSo + "spec.minReplicaCount: must not be greater than maxReplicaCount (default 100), got 101");
  EXPECT_EQ(decode_error(so_with("  idleReplicaCount: 0\n  triggers:\n  - " + kPrometheus + "\n")),
            kSo + "spec.idleReplicaCount: must be less than minReplicaCount (default 0), got 0");
  EXPECT_EQ(decode_error(so_with("  maxReplicaCount: -1\n  triggers:\n  - " + kPrometheus + "\n")),
            kSo + "spec.maxReplicaCount: must not be negative, got -1");
  EXPECT_EQ(decode_error(so_with("  pollingInterval: 15s\n  triggers:\n  - " + kPrometheus + "\n")),
            kSo + "spec.pollingInterval: expected an integer, got \"15s\"");
  // KEDA's CRD: pollingInterval minimum 1 (0 was taken as 30 s); cooldownPeriod minimum 0, kept as 0 (no cooldown).
  EXPECT_EQ(decode_error(so_with("  pollingInterval: 0\n  triggers:\n  - " + kPrometheus + "\n")),
            kSo + "spec.pollingInterval: must be at least 1 (KEDA's CRD: minimum 1), got 0");
  ManifestSet set = decode_ok(so_with("  cooldownPeriod: 0\n  triggers:\n  - " + kPrometheus + "\n"));
  ASSERT_EQ(set.scaled_objects.size(), 1u);
  EXPECT_EQ(set.scaled_objects[0].cooldown_period_seconds, 0);
}

TEST(ScaledObjectErrors, ScaleTargetNeedsAName) {
  EXPECT_EQ(decode_error("apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: so}\nspec:\n"
                         "  scaleTargetRef: {kind: Deployment}\n  triggers:\n  - " +
                         kPrometheus + "\n"),
            kSo + "spec.scaleTargetRef.name: required");
}

TEST(ScaledObjectErrors, Fallback) {
  EXPECT_EQ(decode_error(
                so_with("  fallback: {failureThreshold: -1, replicas: 2}\n  triggers:\n  - " + kPrometheus + "\n")),
            kSo + "spec.fallback.failureThreshold: must not be negative, got -1");
  EXPECT_EQ(decode_error(so_with("  fallback: {failureThreshold: 3}\n  triggers:\n  - " + kPrometheus + "\n")),
            kSo + "spec.fallback.replicas: required");
  const std::string needs =
      "spec.fallback: needs at least one trigger other than cpu and memory with metricType AverageValue";
  EXPECT_EQ(decode_error(so_with("  minReplicaCount: 1\n  fallback: {failureThreshold: 3, replicas: 2}\n  triggers:\n"
                                 "  - {type: cpu, metricType: Utilization, metadata: {value: \"50\"}}\n")),
            kSo + needs);
  EXPECT_EQ(decode_error(so_with("  fallback: {failureThreshold: 3, replicas: 2}\n  triggers:\n"
                                 "  - {type: prometheus, metricType: Value, metadata: {serverAddress: http://p:9090, "
                                 "query: up, threshold: \"1\"}}\n")),
            kSo + needs);
  // One AverageValue trigger next to a cpu one is enough (KEDA 2.17).
  decode_ok(
      so_with("  minReplicaCount: 1\n  fallback: {failureThreshold: 3, replicas: 2}\n  triggers:\n"
              "  - {type: cpu, metricType: Utilization, metadata: {value: \"50\"}}\n  - " +
              kPrometheus + "\n"));
}

TEST(ScaledObjectErrors, PrometheusTrigger) {
  const std::string t = kSo + "spec.triggers[0].";
  EXPECT_EQ(decode_error(so_trigger("{type: prometheus, metadata: {query: up, threshold: \"1\"}}")),
            t + "metadata.serverAddress: required for a prometheus trigger");
  EXPECT_EQ(decode_error(so_trigger("{type: prometheus, metadata: {serverAddress: http://p:9090, query: up}}")),
            t + "metadata.threshold: required for a prometheus trigger");
  EXPECT_EQ(decode_error(so_trigger("{type: prometheus, metadata: {serverAddress: http://p:9090, query: up, "
                                    "threshold: \"1\", activationThreshold: low}}")),
            t + "metadata.activationThreshold: expected a number, got \"low\"");
  EXPECT_EQ(decode_error(so_trigger("{type: prometheus, metadata: {serverAddress: http://p:9090, query: up, "
                                    "threshold: \"1\", ignoreNullValues: maybe}}")),
            t + "metadata.ignoreNullValues: expected true or false, got \"maybe\"");
  EXPECT_EQ(
      decode_error(so_trigger("{type: prometheus, metricType: Utilization, metadata: {serverAddress: "
                              "http://p:9090, query: up, threshold: \"1\"}}")),
      t + "metricType: Utilization is only supported for cpu and memory triggers (expected Value, AverageValue)");
  EXPECT_EQ(decode_error(so_trigger("{type: prometheus, metricType: Average, metadata: {}}")),
            t + "metricType: unknown metric target type \"Average\" (expected Utilization, Value, AverageValue)");
}

TEST(ScaledObjectErrors, CpuAndMemoryTriggers) {
  const std::string t = kSo + "spec.triggers[0].";
  EXPECT_EQ(decode_error(so_trigger("{type: cpu, metadata: {value: \"50\"}}")),
            t + "metricType: required for a cpu trigger (Utilization or AverageValue)");
  EXPECT_EQ(decode_error(so_trigger("{type: memory, metricType: Utilization, metadata: {type: Utilization, value: "
                                    "\"50\"}}")),
            t + "metadata.type: cannot be set together with metricType (set only one of them)");
  EXPECT_EQ(decode_error(so_trigger("{type: cpu, metricType: Value, metadata: {value: \"50\"}}")),
            t + "metricType: Value is not supported for a cpu trigger (expected Utilization, AverageValue)");
  EXPECT_EQ(decode_error(so_trigger("{type: cpu, metricType: Utilization, metadata: {}}")),
            t + "metadata.value: required for a cpu trigger");
  EXPECT_EQ(decode_error(so_trigger("{type: cpu, metricType: Utilization, metadata: {value: 50%}}")),
            t + "metadata.value: expected a utilization percentage greater than 0, got \"50%\"");
  EXPECT_EQ(decode_error(so_trigger("{type: memory, metricType: AverageValue, metadata: {value: lots}}")),
            t + "metadata.value: invalid quantity \"lots\"");
  EXPECT_EQ(decode_error(so_trigger("{type: cpu, metricType: Utilization, useCachedMetrics: true, metadata: {value: "
                                    "\"50\"}}")),
            t + "useCachedMetrics: is not supported for a cpu trigger");
  // Only cpu/memory triggers cannot scale a Deployment back from zero, and minReplicaCount defaults to 0.
  EXPECT_EQ(
      decode_error(so_with("  triggers:\n  - {type: cpu, metricType: Utilization, metadata: {value: \"50\"}}\n")),
      kSo +
          "spec.minReplicaCount: must be at least 1 when every trigger is cpu or memory (they cannot scale "
          "from zero)");
}

TEST(ScaledObjectErrors, CronTrigger) {
  const std::string t = kSo + "spec.triggers[0].metadata.";
  const std::string cron = "{type: cron, metadata: {timezone: UTC, start: ";
  EXPECT_EQ(
      decode_error(so_trigger("{type: cron, metadata: {start: 0 8 * * *, end: 0 9 * * *, desiredReplicas: 3}}")),
      t + "timezone: required for a cron trigger");
  EXPECT_EQ(
      decode_error(so_trigger(cron + "0 8 * *, end: 0 9 * * *, desiredReplicas: 3}}")),
      t + "start: expected a cron expression of 5 fields (minute hour day month weekday), got 4 in \"0 8 * *\"");
  EXPECT_EQ(decode_error(so_trigger(cron + "0 8 * * *, end: 0 0 9 * * *, desiredReplicas: 3}}")),
            t + "end: expected a cron expression of 5 fields (minute hour day month weekday), got 6 in "
                "\"0 0 9 * * *\"");
  EXPECT_EQ(decode_error(so_trigger(cron + "0 8 * * *, end: 0 8 * * *, desiredReplicas: 3}}")),
            t + "end: must differ from start");
  EXPECT_EQ(decode_error(so_trigger(cron + "0 8 * * *, end: 0 9 * * *}}")),
            t + "desiredReplicas: required for a cron trigger");
  EXPECT_EQ(decode_error(so_trigger(cron + "0 8 * * *, end: 0 9 * * *, desiredReplicas: three}}")),
            t + "desiredReplicas: expected a number of replicas, got \"three\"");
}

TEST(ScaledObjectErrors, TriggerNamesAreUnique) {
  EXPECT_EQ(decode_error(so_with("  triggers:\n  - {type: kafka, name: a, metadata: {}}\n"
                                 "  - {type: kafka, name: a, metadata: {}}\n")),
            kSo + "spec.triggers[1].name: trigger name \"a\" is used more than once; names must be unique");
  EXPECT_EQ(decode_error(so_with("  triggers:\n  - {metadata: {}}\n")), kSo + "spec.triggers[0].type: required");
}

TEST(ScaledObjectErrors, ScalingModifiers) {
  const std::string m = kSo + "spec.advanced.scalingModifiers.";
  auto with_modifiers = [](const std::string& modifiers) {
    return so_with("  advanced:\n    scalingModifiers: " + modifiers + "\n  triggers:\n  - " + kPrometheus + "\n");
  };
  EXPECT_EQ(decode_error(with_modifiers("{target: \"2\"}")), m + "formula: required");
  EXPECT_EQ(decode_error(with_modifiers("{formula: a + b}")), m + "target: required with a formula");
  EXPECT_EQ(decode_error(with_modifiers("{formula: a + b, target: two}")),
            m + "target: expected a number, got \"two\"");
  EXPECT_EQ(decode_error(with_modifiers("{formula: a + b, target: \"0\"}")),
            m + "target: must be positive, got \"0\"");
  EXPECT_EQ(decode_error(with_modifiers("{formula: a + b, target: \"2\", metricType: Utilization}")),
            m + "metricType: Utilization is not supported for a composed metric (expected Value, AverageValue)");
  // An empty block is no modifiers at all, as KEDA reads it.
  ManifestSet set = decode_ok(with_modifiers("{}"));
  ASSERT_EQ(set.scaled_objects.size(), 1u);
  EXPECT_FALSE(set.scaled_objects[0].scaling_modifiers.has_value());
}

TEST(ScaledObjectErrors, BehaviorIsValidatedAsTheHpas) {
  EXPECT_EQ(decode_error(so_with("  advanced:\n    horizontalPodAutoscalerConfig:\n      behavior:\n        scaleUp: "
                                 "{policies: [{type: Pods, value: 1, periodSeconds: 3600}]}\n  triggers:\n  - " +
                                 kPrometheus + "\n")),
            kSo +
                "spec.advanced.horizontalPodAutoscalerConfig.behavior.scaleUp.policies[0].periodSeconds: must be "
                "between 1 and 1800, got 3600");
}

// KEDA's webhook (verifyName): the name is a label value, and keda-hpa-<name> the name of its HPA: 63 at most each.
TEST(ScaledObjectErrors, NamesTooLongForKedasLabelAndHpa) {
  auto named = [](const std::string& name, const std::string& advanced) {
    return "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: " + name + "}\nspec:\n" + advanced +
           "  scaleTargetRef: {name: web}\n  triggers:\n  - " + kPrometheus + "\n";
  };
  const std::string n64(64, 'a'), n60(60, 'b');
  EXPECT_EQ(decode_error(named(n64, "")),
            "test.yaml doc 1 ScaledObject/" + n64 + ": metadata.name: scaledobject name \"" + n64 +
                "\" is 64 characters long; must be no more than 63 characters because it is used as the "
                "\"scaledobject.keda.sh/name\" label value");
  // keda-hpa- and 60 characters: 69.
  EXPECT_EQ(decode_error(named(n60, "")),
            "test.yaml doc 1 ScaledObject/" + n60 + ": metadata.name: HPA name \"keda-hpa-" + n60 +
                "\" derived from scaledobject is 69 characters long; must be no more than 63 characters; set "
                "spec.advanced.horizontalPodAutoscalerConfig.name to a shorter name or shorten the scaledobject name");
  EXPECT_EQ(decode_ok(named(n60, "  advanced: {horizontalPodAutoscalerConfig: {name: short}}\n")).scaled_objects.size(),
            1u);
}

}  // namespace
}  // namespace scalewright::testing
