// HorizontalPodAutoscaler and KEDA ScaledObject manifests as users apply them: every field decoded, defaults left
// unset for the controllers to apply, and the API server's (HPA) and KEDA's (ScaledObject) validation as one error
// line each.
#include <gtest/gtest.h>

#include "decode_helpers.h"

namespace scalewright::testing {
namespace {

using TargetType = MetricTarget::Type;

// --- HorizontalPodAutoscaler --------------------------------------------------------------------------------

// What `kubectl autoscale deployment php-apache --cpu-percent=50 --min=1 --max=10` creates (autoscaling/v1).
const std::string kPhpApacheV1 = R"(apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata:
  name: php-apache
  namespace: default
spec:
  maxReplicas: 10
  minReplicas: 1
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: php-apache
  targetCPUUtilizationPercentage: 50
)";

// The same autoscaler as `kubectl get hpa php-apache -o yaml` shows it in autoscaling/v2.
const std::string kPhpApacheV2 = R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: php-apache
  namespace: default
spec:
  maxReplicas: 10
  minReplicas: 1
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: php-apache
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 50
)";

void expect_php_apache(const ManifestSet& set) {
  ASSERT_EQ(set.horizontal_pod_autoscalers.size(), 1u);
  const HorizontalPodAutoscaler& hpa = set.horizontal_pod_autoscalers[0];
  EXPECT_EQ(hpa.meta.name, "php-apache");
  EXPECT_EQ(hpa.meta.namespace_, "default");
  EXPECT_EQ(hpa.scale_target_ref, (CrossVersionObjectReference{"Deployment", "php-apache", "apps/v1"}));
  EXPECT_EQ(hpa.min_replicas, 1);
  EXPECT_EQ(hpa.max_replicas, 10);
  ASSERT_EQ(hpa.metrics.size(), 1u);
  const MetricSpec& cpu = hpa.metrics[0];
  EXPECT_EQ(cpu.type, MetricSpec::Type::Resource);
  EXPECT_EQ(cpu.resource, "cpu");
  EXPECT_EQ(cpu.container, "");
  EXPECT_EQ(cpu.target.type, TargetType::Utilization);
  EXPECT_EQ(cpu.target.average_utilization, 50);
  EXPECT_FALSE(cpu.target.value.has_value());
  EXPECT_FALSE(cpu.target.average_value.has_value());
  EXPECT_FALSE(hpa.behavior.has_value());
  EXPECT_TRUE(set.warnings.empty());
}

TEST(DecodeHorizontalPodAutoscaler, KubectlAutoscaleV1BecomesOneCpuUtilizationMetric) {
  expect_php_apache(decode_ok(kPhpApacheV1));
}

TEST(DecodeHorizontalPodAutoscaler, KubectlAutoscaleV2) { expect_php_apache(decode_ok(kPhpApacheV2)); }

TEST(DecodeHorizontalPodAutoscaler, V2beta2HasTheV2Shape) {
  std::string v2beta2 = kPhpApacheV2;
  v2beta2.replace(v2beta2.find("autoscaling/v2"), 14, "autoscaling/v2beta2");
  expect_php_apache(decode_ok(v2beta2));
}

TEST(DecodeHorizontalPodAutoscaler, V1WithoutTargetLeavesMetricsToTheDefault) {
  ManifestSet set = decode_ok(R"(apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  maxReplicas: 4
  scaleTargetRef: {kind: Deployment, name: web}
)");
  ASSERT_EQ(set.horizontal_pod_autoscalers.size(), 1u);
  EXPECT_TRUE(set.horizontal_pod_autoscalers[0].metrics.empty());
}

TEST(DecodeHorizontalPodAutoscaler, AllFiveMetricKindsAndBehavior) {
  ManifestSet set = decode_ok(R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
  namespace: shop
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: web}
  minReplicas: 2
  maxReplicas: 20
  metrics:
  - type: Resource
    resource:
      name: memory
      target: {type: AverageValue, averageValue: 512Mi}
  - type: ContainerResource
    containerResource:
      name: cpu
      container: app
      target: {type: Utilization, averageUtilization: 60}
  - type: Pods
    pods:
      metric:
        name: packets-per-second
        selector: {matchLabels: {proto: tcp}}
      target: {type: AverageValue, averageValue: 1k}
  - type: Object
    object:
      describedObject: {apiVersion: networking.k8s.io/v1, kind: Ingress, name: main-route}
      metric: {name: requests-per-second}
      target: {type: Value, value: 10k}
  - type: External
    external:
      metric:
        name: queue_messages_ready
        selector: {matchLabels: {queue: worker_tasks}}
      target: {type: AverageValue, averageValue: "30"}
  - type: Resource
    resource:
      name: cpu
      target: {type: Utilization, averageUtilization: 70}
  behavior:
    scaleUp:
      stabilizationWindowSeconds: 0
      selectPolicy: Max
      tolerance: "0.05"
      policies:
      - {type: Percent, value: 100, periodSeconds: 15}
      - {type: Pods, value: 4, periodSeconds: 15}
    scaleDown:
      stabilizationWindowSeconds: 300
      selectPolicy: Disabled
      tolerance: 20m
      policies:
      - {type: Pods, value: 1, periodSeconds: 1800}
)");
  ASSERT_EQ(set.horizontal_pod_autoscalers.size(), 1u);
  const HorizontalPodAutoscaler& hpa = set.horizontal_pod_autoscalers[0];
  EXPECT_EQ(hpa.meta.name, "web");
  EXPECT_EQ(hpa.meta.namespace_, "shop");
  EXPECT_EQ(hpa.scale_target_ref, (CrossVersionObjectReference{"StatefulSet", "web", "apps/v1"}));
  EXPECT_EQ(hpa.min_replicas, 2);
  EXPECT_EQ(hpa.max_replicas, 20);
  ASSERT_EQ(hpa.metrics.size(), 6u);  // duplicated resources are allowed, as upstream allows them

  const MetricSpec& memory = hpa.metrics[0];
  EXPECT_EQ(memory.type, MetricSpec::Type::Resource);
  EXPECT_EQ(memory.resource, "memory");
  EXPECT_EQ(memory.target.type, TargetType::AverageValue);
  ASSERT_TRUE(memory.target.average_value.has_value());
  EXPECT_EQ(memory.target.average_value->value(), 512 * kMi);
  EXPECT_FALSE(memory.target.average_utilization.has_value());
  EXPECT_FALSE(memory.target.value.has_value());

  const MetricSpec& container = hpa.metrics[1];
  EXPECT_EQ(container.type, MetricSpec::Type::ContainerResource);
  EXPECT_EQ(container.resource, "cpu");
  EXPECT_EQ(container.container, "app");
  EXPECT_EQ(container.target.type, TargetType::Utilization);
  EXPECT_EQ(container.target.average_utilization, 60);

  const MetricSpec& pods = hpa.metrics[2];
  EXPECT_EQ(pods.type, MetricSpec::Type::Pods);
  EXPECT_EQ(pods.metric.name, "packets-per-second");
  ASSERT_TRUE(pods.metric.selector.has_value());
  EXPECT_TRUE(pods.metric.selector->matches(Labels{{"proto", "tcp"}}));
  EXPECT_FALSE(pods.metric.selector->matches(Labels{{"proto", "udp"}}));
  EXPECT_EQ(pods.target.type, TargetType::AverageValue);
  ASSERT_TRUE(pods.target.average_value.has_value());
  EXPECT_EQ(pods.target.average_value->value(), 1000);

  const MetricSpec& object = hpa.metrics[3];
  EXPECT_EQ(object.type, MetricSpec::Type::Object);
  EXPECT_EQ(object.described_object, (CrossVersionObjectReference{"Ingress", "main-route", "networking.k8s.io/v1"}));
  EXPECT_EQ(object.metric.name, "requests-per-second");
  EXPECT_FALSE(object.metric.selector.has_value());
  EXPECT_EQ(object.target.type, TargetType::Value);
  ASSERT_TRUE(object.target.value.has_value());
  EXPECT_EQ(object.target.value->value(), 10000);
  EXPECT_FALSE(object.target.average_value.has_value());

  const MetricSpec& external = hpa.metrics[4];
  EXPECT_EQ(external.type, MetricSpec::Type::External);
  EXPECT_EQ(external.metric.name, "queue_messages_ready");
  ASSERT_TRUE(external.metric.selector.has_value());
  EXPECT_TRUE(external.metric.selector->matches(Labels{{"queue", "worker_tasks"}}));
  EXPECT_EQ(external.target.type, TargetType::AverageValue);
  ASSERT_TRUE(external.target.average_value.has_value());
  EXPECT_EQ(external.target.average_value->value(), 30);

  EXPECT_EQ(hpa.metrics[5].resource, "cpu");
  EXPECT_EQ(hpa.metrics[5].target.average_utilization, 70);

  ASSERT_TRUE(hpa.behavior.has_value());
  ASSERT_TRUE(hpa.behavior->scale_up.has_value());
  const HpaScalingRules& up = *hpa.behavior->scale_up;
  EXPECT_EQ(up.stabilization_window_seconds, 0);
  EXPECT_EQ(up.select_policy, ScalingPolicySelect::Max);
  ASSERT_TRUE(up.tolerance.has_value());
  EXPECT_DOUBLE_EQ(*up.tolerance, 0.05);
  ASSERT_EQ(up.policies.size(), 2u);
  EXPECT_EQ(up.policies[0].type, HpaScalingPolicy::Type::Percent);
  EXPECT_EQ(up.policies[0].value, 100);
  EXPECT_EQ(up.policies[0].period_seconds, 15);
  EXPECT_EQ(up.policies[1].type, HpaScalingPolicy::Type::Pods);
  EXPECT_EQ(up.policies[1].value, 4);
  EXPECT_EQ(up.policies[1].period_seconds, 15);

  ASSERT_TRUE(hpa.behavior->scale_down.has_value());
  const HpaScalingRules& down = *hpa.behavior->scale_down;
  EXPECT_EQ(down.stabilization_window_seconds, 300);
  EXPECT_EQ(down.select_policy, ScalingPolicySelect::Disabled);
  ASSERT_TRUE(down.tolerance.has_value());
  EXPECT_DOUBLE_EQ(*down.tolerance, 0.02);  // "20m" is 20 thousandths
  ASSERT_EQ(down.policies.size(), 1u);
  EXPECT_EQ(down.policies[0].type, HpaScalingPolicy::Type::Pods);
  EXPECT_EQ(down.policies[0].value, 1);
  EXPECT_EQ(down.policies[0].period_seconds, 1800);
}

TEST(DecodeHorizontalPodAutoscaler, DefaultsStayUnsetForTheController) {
  ManifestSet set = decode_ok(R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {kind: Deployment, name: web}
  maxReplicas: 3
  behavior:
    scaleDown: {stabilizationWindowSeconds: 60}
)");
  ASSERT_EQ(set.horizontal_pod_autoscalers.size(), 1u);
  const HorizontalPodAutoscaler& hpa = set.horizontal_pod_autoscalers[0];
  EXPECT_EQ(hpa.meta.namespace_, "default");
  EXPECT_EQ(hpa.scale_target_ref.api_version, "");
  EXPECT_FALSE(hpa.min_replicas.has_value());
  EXPECT_TRUE(hpa.metrics.empty());
  ASSERT_TRUE(hpa.behavior.has_value());
  EXPECT_FALSE(hpa.behavior->scale_up.has_value());
  ASSERT_TRUE(hpa.behavior->scale_down.has_value());
  EXPECT_EQ(hpa.behavior->scale_down->stabilization_window_seconds, 60);
  EXPECT_FALSE(hpa.behavior->scale_down->select_policy.has_value());
  EXPECT_TRUE(hpa.behavior->scale_down->policies.empty());
  EXPECT_FALSE(hpa.behavior->scale_down->tolerance.has_value());
}

// A v2 HPA of web with `spec_extra` appended to its spec (indented by 2).
std::string hpa_with(const std::string& spec_extra) {
  return R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {kind: Deployment, name: web}
)" + spec_extra;
}

// A v2 HPA with maxReplicas 10 and the single metric `metric` (a flow mapping).
std::string hpa_metric(const std::string& metric) {
  return hpa_with("  maxReplicas: 10\n  metrics:\n  - " + metric + "\n");
}

// A v2 HPA with maxReplicas 10 and `rules` as behavior.scaleUp (a flow mapping).
std::string hpa_scale_up(const std::string& rules) {
  return hpa_with("  maxReplicas: 10\n  behavior:\n    scaleUp: " + rules + "\n");
}

const std::string kHpa = "test.yaml doc 1 HorizontalPodAutoscaler/web: ";

TEST(HorizontalPodAutoscalerErrors, ReplicaBounds) {
  EXPECT_EQ(decode_error(hpa_with("  maxReplicas: 0\n")), kHpa + "spec.maxReplicas: must be at least 1");
  EXPECT_EQ(decode_error(hpa_with("  minReplicas: 1\n")), kHpa + "spec.maxReplicas: required");
  EXPECT_EQ(decode_error(hpa_with("  minReplicas: 0\n  maxReplicas: 5\n")),
            kHpa + "spec.minReplicas: must be at least 1 (0 needs the HPAScaleToZero feature gate, off by default)");
  EXPECT_EQ(decode_error(hpa_with("  minReplicas: -2\n  maxReplicas: 5\n")),
            kHpa + "spec.minReplicas: must be at least 1");
  EXPECT_EQ(decode_error(hpa_with("  minReplicas: 6\n  maxReplicas: 5\n")),
            kHpa + "spec.maxReplicas: must be at least minReplicas (6)");
  EXPECT_EQ(decode_error(hpa_with("  maxReplicas: \"5\"\n")),
            kHpa + "spec.maxReplicas: expected an integer, got the string \"5\"");
}

TEST(HorizontalPodAutoscalerErrors, TheBriefsExampleLine) {
  Result<ManifestSet> decoded = decode_manifests(R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: php-apache}
spec:
  scaleTargetRef: {kind: Deployment, name: php-apache}
  maxReplicas: 0
)",
                                                 "hpa.yaml");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().message,
            "hpa.yaml doc 1 HorizontalPodAutoscaler/php-apache: spec.maxReplicas: must be at least 1");
}

TEST(HorizontalPodAutoscalerErrors, ScaleTargetRefNeedsKindAndName) {
  const std::string head = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\n";
  EXPECT_EQ(decode_error(head + "spec: {maxReplicas: 3}\n"), kHpa + "spec.scaleTargetRef: required");
  EXPECT_EQ(decode_error(head + "spec: {maxReplicas: 3, scaleTargetRef: {name: web}}\n"),
            kHpa + "spec.scaleTargetRef.kind: required");
  EXPECT_EQ(decode_error(head + "spec: {maxReplicas: 3, scaleTargetRef: {kind: Deployment}}\n"),
            kHpa + "spec.scaleTargetRef.name: required");
}

TEST(HorizontalPodAutoscalerErrors, V1TargetMustBePositive) {
  std::string v1 = kPhpApacheV1;
  v1.replace(v1.find("Percentage: 50"), 14, "Percentage: 0");
  EXPECT_EQ(
      decode_error(v1),
      "test.yaml doc 1 HorizontalPodAutoscaler/php-apache: spec.targetCPUUtilizationPercentage: must be greater "
      "than 0");
}

TEST(HorizontalPodAutoscalerErrors, TargetTypeMustMatchTheMetricKind) {
  const std::string m = kHpa + "spec.metrics[0].";
  EXPECT_EQ(
      decode_error(hpa_metric("{type: Resource, resource: {name: cpu, target: {type: Value, value: 1}}}")),
      m + "resource.target.type: Value is not supported for a Resource metric (expected Utilization, AverageValue)");
  EXPECT_EQ(
      decode_error(hpa_metric("{type: ContainerResource, containerResource: {name: cpu, container: app, target: "
                              "{type: Value, value: 1}}}")),
      m + "containerResource.target.type: Value is not supported for a ContainerResource metric (expected "
          "Utilization, AverageValue)");
  EXPECT_EQ(decode_error(hpa_metric(
                "{type: Pods, pods: {metric: {name: qps}, target: {type: Utilization, averageUtilization: 50}}}")),
            m + "pods.target.type: Utilization is not supported for a Pods metric (expected AverageValue)");
  EXPECT_EQ(decode_error(hpa_metric("{type: Pods, pods: {metric: {name: qps}, target: {type: Value, value: 5}}}")),
            m + "pods.target.type: Value is not supported for a Pods metric (expected AverageValue)");
  EXPECT_EQ(
      decode_error(hpa_metric("{type: Object, object: {describedObject: {kind: Ingress, name: i}, metric: "
                              "{name: rps}, target: {type: Utilization, averageUtilization: 5}}}")),
      m + "object.target.type: Utilization is not supported for a Object metric (expected Value, AverageValue)");
  EXPECT_EQ(
      decode_error(hpa_metric(
          "{type: External, external: {metric: {name: q}, target: {type: Utilization, averageUtilization: 5}}}")),
      m + "external.target.type: Utilization is not supported for a External metric (expected Value, "
          "AverageValue)");
  EXPECT_EQ(decode_error(hpa_metric("{type: Resource, resource: {name: cpu, target: {type: Percent}}}")),
            m + "resource.target.type: unknown metric target type \"Percent\" (expected Utilization, Value, "
                "AverageValue)");
}

TEST(HorizontalPodAutoscalerErrors, TargetValues) {
  const std::string m = kHpa + "spec.metrics[0].";
  EXPECT_EQ(decode_error(hpa_metric("{type: Resource, resource: {name: cpu, target: {type: Utilization, "
                                    "averageUtilization: 0}}}")),
            m + "resource.target.averageUtilization: must be greater than 0");
  EXPECT_EQ(decode_error(hpa_metric("{type: Resource, resource: {name: cpu, target: {type: Utilization}}}")),
            m + "resource.target.averageUtilization: required for target type Utilization");
  EXPECT_EQ(decode_error(hpa_metric("{type: Resource, resource: {name: cpu, target: {type: Utilization, "
                                    "averageUtilization: 50, averageValue: 500m}}}")),
            m + "resource.target.averageValue: must not be set with target type Utilization");
  EXPECT_EQ(decode_error(hpa_metric(
                "{type: Pods, pods: {metric: {name: qps}, target: {type: AverageValue, averageValue: \"0\"}}}")),
            m + "pods.target.averageValue: must be positive");
  EXPECT_EQ(decode_error(hpa_metric("{type: External, external: {metric: {name: q}, target: {type: Value, value: "
                                    "-1}}}")),
            m + "external.target.value: must be positive");
  EXPECT_EQ(decode_error(hpa_metric("{type: External, external: {metric: {name: q}, target: {type: Value}}}")),
            m + "external.target.value: required for target type Value");
}

TEST(HorizontalPodAutoscalerErrors, MetricSources) {
  const std::string m = kHpa + "spec.metrics[0].";
  EXPECT_EQ(
      decode_error(hpa_metric("{type: Pods, pods: {metric: {}, target: {type: AverageValue, averageValue: 1}}}")),
      m + "pods.metric.name: required");
  EXPECT_EQ(decode_error(hpa_metric("{type: External, external: {target: {type: Value, value: 1}}}")),
            m + "external.metric: required");
  EXPECT_EQ(
      decode_error(hpa_metric("{type: Resource, resource: {target: {type: Utilization, averageUtilization: 1}}}")),
      m + "resource.name: required");
  EXPECT_EQ(decode_error(hpa_metric("{type: ContainerResource, containerResource: {name: cpu, target: {type: "
                                    "Utilization, averageUtilization: 1}}}")),
            m + "containerResource.container: required");
  EXPECT_EQ(
      decode_error(hpa_metric("{type: Object, object: {describedObject: {name: i}, metric: {name: rps}, target: "
                              "{type: Value, value: 1}}}")),
      m + "object.describedObject.kind: required");
  EXPECT_EQ(decode_error(hpa_metric("{type: Pods}")), m + "pods: required");
  EXPECT_EQ(decode_error(hpa_metric("{type: Resource, resource: {name: cpu, target: {type: Utilization, "
                                    "averageUtilization: 1}}, pods: {}}")),
            m + "pods: must not be set for a Resource metric");
  EXPECT_EQ(decode_error(hpa_metric("{type: Custom}")),
            m + "type: unknown metric source type \"Custom\" (expected Resource, ContainerResource, Pods, Object, "
                "External)");
}

TEST(HorizontalPodAutoscalerErrors, Behavior) {
  const std::string up = kHpa + "spec.behavior.scaleUp.";
  EXPECT_EQ(decode_error(hpa_scale_up("{stabilizationWindowSeconds: 3601}")),
            up + "stabilizationWindowSeconds: must be between 0 and 3600, got 3601");
  EXPECT_EQ(decode_error(hpa_scale_up("{stabilizationWindowSeconds: -1}")),
            up + "stabilizationWindowSeconds: must be between 0 and 3600, got -1");
  EXPECT_EQ(decode_error(hpa_scale_up("{selectPolicy: Average}")),
            up + "selectPolicy: unknown select policy \"Average\" (expected Max, Min, Disabled)");
  EXPECT_EQ(decode_error(hpa_scale_up("{policies: [{type: Pods, value: 0, periodSeconds: 60}]}")),
            up + "policies[0].value: must be greater than 0, got 0");
  EXPECT_EQ(decode_error(hpa_scale_up("{policies: [{type: Pods, value: 1, periodSeconds: 0}]}")),
            up + "policies[0].periodSeconds: must be between 1 and 1800, got 0");
  EXPECT_EQ(decode_error(hpa_scale_up("{policies: [{type: Percent, value: 10, periodSeconds: 1801}]}")),
            up + "policies[0].periodSeconds: must be between 1 and 1800, got 1801");
  EXPECT_EQ(decode_error(hpa_scale_up("{policies: [{type: Replicas, value: 1, periodSeconds: 60}]}")),
            up + "policies[0].type: unknown scaling policy type \"Replicas\" (expected Pods, Percent)");
  EXPECT_EQ(decode_error(hpa_scale_up("{policies: [{type: Pods, periodSeconds: 60}]}")),
            up + "policies[0].value: required");
  EXPECT_EQ(decode_error(hpa_scale_up("{tolerance: \"-0.1\"}")),
            up + "tolerance: must not be negative, got \"-0.1\"");
  EXPECT_EQ(decode_error(hpa_scale_up("{tolerance: five}")), up + "tolerance: invalid quantity \"five\"");
}

TEST(HorizontalPodAutoscalerErrors, UnsupportedVersion) {
  std::string v2beta1 = kPhpApacheV2;
  v2beta1.replace(v2beta1.find("autoscaling/v2"), 14, "autoscaling/v2beta1");
  EXPECT_EQ(decode_error(v2beta1),
            "test.yaml doc 1 HorizontalPodAutoscaler/php-apache: apiVersion: unsupported version "
            "\"autoscaling/v2beta1\" of HorizontalPodAutoscaler (expected autoscaling/v2, autoscaling/v2beta2, "
            "autoscaling/v1)");
}

TEST(HorizontalPodAutoscalerErrors, AFileIsDecodedWholeOrNotAtAll) {
  Result<ManifestSet> decoded =
      decode_manifests(kPhpApacheV2 + "---\n" + hpa_with("  maxReplicas: 0\n"), "test.yaml");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().message,
            "test.yaml doc 2 HorizontalPodAutoscaler/web: spec.maxReplicas: must be at least 1");
}

// --- ScaledObject -------------------------------------------------------------------------------------------

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

}  // namespace
}  // namespace scalewright::testing
