// HorizontalPodAutoscaler manifests as users apply them: every field decoded, defaults left unset for the
// controller to apply, and the API server's validation as one error line each. (ScaledObjects:
// scaled_object_decoder_test.cpp.)
#include <gtest/gtest.h>

#include "decode_helpers.h"

namespace scalewright::testing {
namespace {

using TargetType = MetricTarget::Type;

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

}  // namespace
}  // namespace scalewright::testing
