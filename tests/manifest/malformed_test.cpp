// Invalid input: exactly one error line with the file, document number, kind/name, field path and problem, and
// nothing decoded from the file.
#include <gtest/gtest.h>

#include "decode_helpers.h"

namespace scalewright::testing {
namespace {

const std::string kDeploymentHead = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
)";

// A Deployment whose only container carries `container_extra` (indented by 8).
std::string deployment_with_container(const std::string& container_extra) {
  return kDeploymentHead + R"(  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: c
)" + container_extra;
}

// A Node with `spec_extra` in its spec.
std::string node_with(const std::string& spec_extra) {
  return "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n" + spec_extra;
}

const std::string kNodeAffinityPath =
    "test.yaml doc 1 Pod/p: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
    "nodeSelectorTerms[0].matchExpressions[0].";

std::string node_affinity_expression(const std::string& expression) {
  return pod_with(R"(  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - )" + expression + "\n");
}

TEST(MalformedYaml, TruncatedFlowMappingNamesLineAndColumn) {
  // The flow mapping opened on line 3 is never closed; yaml-cpp notices at the end of input.
  EXPECT_EQ(decode_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p\n"),
            "test.yaml: invalid YAML at line 4, column 1: end of map flow not found");
}

TEST(MalformedYaml, BadIndentation) {
  EXPECT_EQ(decode_error("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n labels: {}\n"),
            "test.yaml: invalid YAML at line 5, column 2: end of map not found");
}

TEST(MalformedType, StringForReplicas) {
  EXPECT_EQ(decode_error(kDeploymentHead + "  replicas: abc\n"),
            "test.yaml doc 1 Deployment/web: spec.replicas: expected an integer, got \"abc\"");
}

TEST(MalformedType, QuotedNumberForReplicas) {
  EXPECT_EQ(decode_error(kDeploymentHead + "  replicas: \"3\"\n"),
            "test.yaml doc 1 Deployment/web: spec.replicas: expected an integer, got the string \"3\"");
}

TEST(MalformedType, ListWhereAMappingIsExpected) {
  EXPECT_EQ(decode_error(kDeploymentHead + "  template: [a, b]\n"),
            "test.yaml doc 1 Deployment/web: spec.template: expected a mapping, got a list");
}

TEST(MalformedType, MappingWhereAStringIsExpected) {
  EXPECT_EQ(decode_error(deployment_with_container("        image: {name: nginx}\n")),
            "test.yaml doc 1 Deployment/web: spec.template.spec.containers[0].image: expected a string, got a "
            "mapping");
}

TEST(MalformedType, MappingWhereAListIsExpected) {
  EXPECT_EQ(decode_error(pod_with("  tolerations: {key: a}\n")),
            "test.yaml doc 1 Pod/p: spec.tolerations: expected a list, got a mapping");
}

TEST(MalformedType, DocumentThatIsNotAMapping) {
  EXPECT_EQ(decode_error("- a\n- b\n"), "test.yaml doc 1: expected a mapping, got a list");
}

TEST(MalformedQuantity, InvalidQuantityUsesQuantityParsesMessage) {
  EXPECT_EQ(decode_error(deployment_with_container("        resources: {requests: {cpu: 1.5.3}}\n")),
            "test.yaml doc 1 Deployment/web: spec.template.spec.containers[0].resources.requests.cpu: invalid "
            "quantity \"1.5.3\"");
}

TEST(MalformedQuantity, NegativeRequest) {
  EXPECT_EQ(decode_error(deployment_with_container("        resources: {requests: {memory: -1Gi}}\n")),
            "test.yaml doc 1 Deployment/web: spec.template.spec.containers[0].resources.requests.memory: must not "
            "be negative");
}

TEST(MalformedQuantity, NegativeLimit) {
  EXPECT_EQ(decode_error(pod_with("  overhead: {cpu: -100m}\n")),
            "test.yaml doc 1 Pod/p: spec.overhead.cpu: must not be negative");
}

TEST(MalformedQuantity, RequestAboveLimit) {
  EXPECT_EQ(decode_error(deployment_with_container("        resources: {requests: {cpu: 2}, limits: {cpu: 1}}\n")),
            "test.yaml doc 1 Deployment/web: spec.template.spec.containers[0].resources.requests.cpu: must be "
            "less than or equal to the cpu limit \"1\"");
}

TEST(MalformedSelector, UnknownOperator) {
  EXPECT_EQ(decode_error(node_affinity_expression("{key: zone, operator: Inn, values: [a]}")),
            kNodeAffinityPath +
                "operator: unknown operator \"Inn\" (expected In, NotIn, Exists, DoesNotExist, Gt, Lt)");
}

TEST(MalformedSelector, GtWithTwoValues) {
  EXPECT_EQ(decode_error(node_affinity_expression("{key: cores, operator: Gt, values: [\"1\", \"2\"]}")),
            kNodeAffinityPath + "values: Gt needs exactly one value, got 2");
}

TEST(MalformedSelector, GtWithANonIntegerValue) {
  EXPECT_EQ(decode_error(node_affinity_expression("{key: cores, operator: Gt, values: [many]}")),
            kNodeAffinityPath + "values[0]: Gt needs an integer value, got \"many\"");
}

TEST(MalformedSelector, InWithoutValues) {
  EXPECT_EQ(decode_error(node_affinity_expression("{key: zone, operator: In, values: []}")),
            kNodeAffinityPath + "values: In needs at least one value");
}

TEST(MalformedSelector, ExistsWithValues) {
  EXPECT_EQ(decode_error(node_affinity_expression("{key: zone, operator: Exists, values: [a]}")),
            kNodeAffinityPath + "values: Exists takes no values, got 1");
}

TEST(MalformedSelector, WorkloadSelectorMustMatchTemplateLabels) {
  EXPECT_EQ(decode_error(kDeploymentHead + R"(  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: c}]
)"),
            "test.yaml doc 1 Deployment/web: spec.template.metadata.labels: selector does not match template labels");
}

TEST(MalformedSelector, DeploymentNeedsASelector) {
  EXPECT_EQ(decode_error(R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c}]
)"),
            "test.yaml doc 1 Deployment/web: spec.selector: required");
}

TEST(MalformedNode, UnknownTaintEffect) {
  EXPECT_EQ(decode_error(node_with("  taints: [{key: a, effect: NoScheduel}]\n")),
            "test.yaml doc 1 Node/n1: spec.taints[0].effect: unknown taint effect \"NoScheduel\" (expected "
            "NoSchedule, PreferNoSchedule, NoExecute)");
}

TEST(MalformedNode, TaintWithoutEffect) {
  EXPECT_EQ(decode_error(node_with("  taints: [{key: a, value: b}]\n")),
            "test.yaml doc 1 Node/n1: spec.taints[0].effect: required");
}

TEST(MalformedPod, TolerationOperatorAndValue) {
  EXPECT_EQ(decode_error(pod_with("  tolerations: [{key: a, operator: Equals}]\n")),
            "test.yaml doc 1 Pod/p: spec.tolerations[0].operator: unknown operator \"Equals\" (expected Equal, "
            "Exists)");
  EXPECT_EQ(decode_error(pod_with("  tolerations: [{key: a, operator: Exists, value: b}]\n")),
            "test.yaml doc 1 Pod/p: spec.tolerations[0].value: must be empty when operator is Exists");
  EXPECT_EQ(decode_error(pod_with("  tolerations: [{key: a, effect: Sometimes}]\n")),
            "test.yaml doc 1 Pod/p: spec.tolerations[0].effect: unknown taint effect \"Sometimes\" (expected "
            "NoSchedule, PreferNoSchedule, NoExecute)");
}

TEST(MalformedPod, AffinityWeightOutsideOneToHundred) {
  EXPECT_EQ(decode_error(pod_with(R"(  affinity:
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 101
        podAffinityTerm: {topologyKey: kubernetes.io/hostname}
)")),
            "test.yaml doc 1 Pod/p: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]."
            "weight: must be between 1 and 100, got 101");
}

TEST(MalformedPod, PodAffinityTermNeedsATopologyKey) {
  EXPECT_EQ(decode_error(pod_with(R"(  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: a}}
        topologyKey: ""
)")),
            "test.yaml doc 1 Pod/p: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]."
            "topologyKey: required");
}

std::string spread(const std::string& constraint) {
  return decode_error(pod_with("  topologySpreadConstraints:\n  - " + constraint + "\n"));
}

TEST(MalformedPod, TopologySpreadConstraints) {
  const std::string at = "test.yaml doc 1 Pod/p: spec.topologySpreadConstraints[0].";
  EXPECT_EQ(spread("{maxSkew: 0, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}"),
            at + "maxSkew: must be at least 1, got 0");
  EXPECT_EQ(spread("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: Sometimes}"),
            at + "whenUnsatisfiable: unknown value \"Sometimes\" (expected DoNotSchedule, ScheduleAnyway)");
  EXPECT_EQ(spread("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 0}"),
            at + "minDomains: must be at least 1, got 0");
  EXPECT_EQ(spread("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}"),
            at + "minDomains: must not be set when whenUnsatisfiable is ScheduleAnyway");
  EXPECT_EQ(spread("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, nodeTaintsPolicy: Always}"),
            at + "nodeTaintsPolicy: unknown policy \"Always\" (expected Honor, Ignore)");
}

TEST(MalformedWorkload, NegativeReplicas) {
  EXPECT_EQ(decode_error(kDeploymentHead + "  replicas: -1\n"),
            "test.yaml doc 1 Deployment/web: spec.replicas: must not be negative, got -1");
}

TEST(MalformedWorkload, JobPodsMustNotRestartAlways) {
  EXPECT_EQ(decode_error(R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  template:
    spec:
      containers: [{name: c}]
)"),
            "test.yaml doc 1 Job/j: spec.template.spec.restartPolicy: required for a Job (OnFailure or Never)");
}

TEST(MalformedPodDisruptionBudget, BothMinAvailableAndMaxUnavailable) {
  EXPECT_EQ(decode_error(R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec: {minAvailable: 1, maxUnavailable: 1}
)"),
            "test.yaml doc 1 PodDisruptionBudget/pdb: spec: minAvailable and maxUnavailable cannot both be set");
}

TEST(MalformedPodDisruptionBudget, PercentageThatIsNotANumber) {
  EXPECT_EQ(decode_error(R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb}
spec: {minAvailable: abc%}
)"),
            "test.yaml doc 1 PodDisruptionBudget/pdb: spec.minAvailable: expected an integer or a percentage, got "
            "\"abc%\"");
}

std::string pdb_with(const std::string& spec) {
  return decode_error("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb}\nspec: " + spec + "\n");
}

TEST(MalformedPodDisruptionBudget, QuotedNumberOverHundredPercentAndNegative) {
  const std::string at = "test.yaml doc 1 PodDisruptionBudget/pdb: spec.";
  EXPECT_EQ(pdb_with("{minAvailable: \"5\"}"), at + "minAvailable: expected an integer or a percentage, got \"5\"");
  EXPECT_EQ(pdb_with("{maxUnavailable: 150%}"), at + "maxUnavailable: must not be more than 100%");
  EXPECT_EQ(pdb_with("{minAvailable: -1}"), at + "minAvailable: must not be negative");
  EXPECT_EQ(pdb_with("{minAvailable: [1]}"), at + "minAvailable: expected an integer or a percentage, got a list");
}

TEST(MalformedPodDisruptionBudget, UnknownUnhealthyPodEvictionPolicy) {
  EXPECT_EQ(pdb_with("{maxUnavailable: 1, unhealthyPodEvictionPolicy: Never}"),
            "test.yaml doc 1 PodDisruptionBudget/pdb: spec.unhealthyPodEvictionPolicy: unknown unhealthy pod eviction "
            "policy \"Never\" (expected IfHealthyBudget, AlwaysAllow)");
}

TEST(MalformedObject, MissingKind) {
  EXPECT_EQ(decode_error("apiVersion: v1\nmetadata: {name: p}\n"), "test.yaml doc 1: kind: required");
}

TEST(MalformedObject, MissingApiVersion) {
  EXPECT_EQ(decode_error("kind: Pod\nmetadata: {name: p}\n"), "test.yaml doc 1 Pod/p: apiVersion: required");
}

TEST(MalformedObject, MissingNameUsesTheKindAlone) {
  EXPECT_EQ(decode_error("apiVersion: v1\nkind: Pod\nspec: {containers: [{name: c}]}\n"),
            "test.yaml doc 1 Pod: metadata.name: required");
}

TEST(MalformedObject, UnsupportedVersionOfAKnownKind) {
  EXPECT_EQ(decode_error("apiVersion: apps/v1beta1\nkind: Deployment\nmetadata: {name: web}\n"),
            "test.yaml doc 1 Deployment/web: apiVersion: unsupported version \"apps/v1beta1\" of Deployment "
            "(expected apps/v1)");
}

TEST(MalformedFile, DocumentNumberCountsEveryDocument) {
  // Doc 2 is empty and doc 1 is a kind we skip; both still count.
  EXPECT_EQ(decode_error(R"(apiVersion: v1
kind: Service
metadata: {name: web}
---
---
apiVersion: v1
kind: Pod
metadata: {name: bad}
spec:
  containers: [{name: c, resources: {requests: {cpu: lots}}}]
)"),
            "test.yaml doc 3 Pod/bad: spec.containers[0].resources.requests.cpu: invalid quantity \"lots\"");
}

TEST(MalformedFile, AValidFirstDocumentIsNotReturnedWhenTheSecondIsInvalid) {
  Result<ManifestSet> decoded = decode_manifests(pod_with("") + "---\n" + node_with("  unschedulable: maybe\n"),
                                                 "test.yaml");
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().message,
            "test.yaml doc 2 Node/n1: spec.unschedulable: expected a boolean, got \"maybe\"");
}

TEST(MalformedFile, ErrorInsideAListNamesTheItem) {
  EXPECT_EQ(decode_error(R"(apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Namespace, metadata: {name: a}}
- {apiVersion: v1, kind: Node, metadata: {name: n2}, spec: {taints: [{key: k, effect: Never}]}}
)"),
            "test.yaml doc 1 Node/n2: items[1].spec.taints[0].effect: unknown taint effect \"Never\" (expected "
            "NoSchedule, PreferNoSchedule, NoExecute)");
}

// A Pod whose one container has `resources` (a flow mapping).
std::string pod_with_resources(const std::string& resources) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: " +
         resources + "\n";
}

TEST(MalformedQuantity, CpuBeyondWhatMillicoresHoldIsRefusedNotSaturated) {
  // 1e308 cores, and 10^23 cores, are far more than 2^63-1 thousandths: they were read as 9223372036854775807m.
  const std::string path = "test.yaml doc 1 Pod/p: spec.containers[0].resources.requests.cpu: ";
  EXPECT_EQ(decode_error(pod_with_resources("{requests: {cpu: 1e308}}")),
            path + "quantity \"1e308\" is out of range (at most 9223372036854775807m)");
  EXPECT_EQ(decode_error(pod_with_resources("{requests: {cpu: \"99999999999999999999999\"}}")),
            path + "quantity \"99999999999999999999999\" is out of range (at most 9223372036854775807m)");
  // 9223372036854775807m itself fits, and so does 7Ei of memory (8Ei = 2^63 bytes is one past the limit).
  decode_ok(pod_with_resources("{requests: {cpu: 9223372036854775807m, memory: 7Ei}}"));
}

TEST(MalformedQuantity, MemoryBeyondInt64BytesIsRefused) {
  EXPECT_EQ(decode_error(pod_with_resources("{limits: {memory: 8Ei}}")),
            "test.yaml doc 1 Pod/p: spec.containers[0].resources.limits.memory: quantity \"8Ei\" is out of range "
            "(at most 9223372036854775807)");
}

// A Pod with `spec` (indented by 2) as its whole spec.
std::string pod_spec(const std::string& spec) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + spec;
}

TEST(MalformedQuantity, RequestsThatSumPastInt64AreRefusedNamingTheFieldThatPassesIt) {
  // Each quantity fits (5Ei is 5 x 2^60 bytes, at most 2^63 - 1), as the API server checks; their sum does not.
  const std::string head = "test.yaml doc 1 Pod/p: spec.";
  const std::string memory = ": the sum of the pod's memory requests exceeds 9223372036854775807";
  EXPECT_EQ(decode_error(pod_spec("  containers:\n  - {name: a, resources: {requests: {memory: 5Ei}}}\n"
                                  "  - {name: b, resources: {requests: {memory: 5Ei}}}\n")),
            head + "containers[1].resources.requests.memory" + memory);
  EXPECT_EQ(decode_error(pod_spec("  containers:\n  - {name: a, resources: {requests: {cpu: 9223372036854775807m}}}\n"
                                  "  - {name: b, resources: {requests: {cpu: 1m}}}\n")),
            head + "containers[1].resources.requests.cpu: the sum of the pod's cpu requests exceeds "
                   "9223372036854775807m");
  // A request defaulted from its limit is named where it was written.
  EXPECT_EQ(decode_error(pod_spec("  containers:\n  - {name: a, resources: {requests: {memory: 5Ei}}}\n"
                                  "  - {name: b, resources: {limits: {memory: 5Ei}}}\n")),
            head + "containers[1].resources.limits.memory" + memory);
  EXPECT_EQ(decode_error(pod_spec("  overhead: {memory: 5Ei}\n"
                                  "  containers: [{name: a, resources: {requests: {memory: 4Ei}}}]\n")),
            head + "overhead.memory" + memory);
  // The init container (7Ei) is larger than the app's sum (1Gi) and fits; with the 1Ei overhead it is 8Ei.
  EXPECT_EQ(decode_error(pod_spec("  overhead: {memory: 1Ei}\n"
                                  "  initContainers: [{name: init, resources: {requests: {memory: 7Ei}}}]\n"
                                  "  containers: [{name: a, resources: {requests: {memory: 1Gi}}}]\n")),
            head + "overhead.memory" + memory);
  // An init container runs beside the sidecars started before it: 4Ei + 5Ei.
  EXPECT_EQ(decode_error(pod_spec("  initContainers:\n"
                                  "  - {name: proxy, restartPolicy: Always, resources: {requests: {memory: 4Ei}}}\n"
                                  "  - {name: init, resources: {requests: {memory: 5Ei}}}\n"
                                  "  containers: [{name: a}]\n")),
            head + "initContainers[1].resources.requests.memory" + memory);
  // 4Ei + (4Ei - 1) is 2^63 - 1 exactly: the most a sum holds, accepted.
  decode_ok(pod_spec("  containers:\n  - {name: a, resources: {requests: {memory: 4Ei}}}\n"
                     "  - {name: b, resources: {requests: {memory: 4611686018427387903}}}\n"));
}

const std::string kScenarioHead = "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n";

TEST(MalformedScenario, NegativeSeedIsRefusedRatherThanWrappedAround) {
  EXPECT_EQ(decode_error(kScenarioHead + "  seed: -1\n"), "test.yaml doc 1 Scenario/s: spec.seed: must not be negative");
  EXPECT_EQ(decode_ok(kScenarioHead + "  seed: 9223372036854775807\n").scenarios.at(0).seed, 9223372036854775807u);
}

TEST(MalformedScenario, TimelineStepAfterTheDurationIsRefused) {
  // A step at the very end still runs (the simulator handles events at t <= duration).
  decode_ok(kScenarioHead + "  duration: 5m\n  timeline:\n  - {at: 5m, cordon: {node: n}}\n");
  EXPECT_EQ(decode_error(kScenarioHead + "  duration: 5m\n  timeline:\n  - {at: 1m, cordon: {node: n}}\n"
                                         "  - {at: 5m1s, cordon: {node: n}}\n"),
            "test.yaml doc 1 Scenario/s: spec.timeline[1].at: 5m1s is after the end of the scenario (spec.duration "
            "5m0s)");
}

const std::string kPrometheusScaledObject = R"(apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: so}
spec:
  scaleTargetRef: {name: web}
  triggers:
  - type: prometheus
    metadata:
      serverAddress: http://prometheus:9090
      query: sum(rate(http_requests_total[2m]))
)";

TEST(MalformedScaledObject, PrometheusThresholdMustGiveAPositiveHpaTarget) {
  // KEDA's HPA targets the threshold in thousandths (GetMetricTargetMili), and the API server refuses a target
  // that is not positive: "-5", "0" and "0.0004" (0 thousandths) never make a ScaledObject.
  const std::string path = "test.yaml doc 1 ScaledObject/so: spec.triggers[0].metadata.threshold: ";
  for (const char* threshold : {"-5", "0", "0.0004"}) {
    EXPECT_EQ(decode_error(kPrometheusScaledObject + "      threshold: \"" + threshold + "\"\n"),
              path + "must be at least 0.001 (KEDA's HPA target is the threshold in thousandths, which must be "
                     "positive), got \"" + threshold + "\"");
  }
  decode_ok(kPrometheusScaledObject + "      threshold: \"0.001\"\n");
}

TEST(MalformedScaledObject, NegativeActivationThresholdIsAcceptedWithAWarning) {
  // KEDA takes it (a trigger is active when the value is above it), but then any non-negative value activates.
  ManifestSet set = decode_ok(kPrometheusScaledObject + "      threshold: \"5\"\n      activationThreshold: \"-5\"\n");
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_EQ(set.warnings[0],
            "test.yaml doc 1 ScaledObject/so: spec.triggers[0].metadata.activationThreshold: \"-5\" is negative: the "
            "trigger is active whenever the query gives 0 or more");
}

const std::string kNodePoolHead = R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: np}
spec:
  template:
    spec:
      requirements:
)";

TEST(MalformedNodePool, ContradictoryRequirementsNameTheOneThatLeavesNothing) {
  EXPECT_EQ(decode_error(kNodePoolHead + "      - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n"
                                         "      - {key: kubernetes.io/os, operator: In, values: [linux]}\n"
                                         "      - {key: kubernetes.io/arch, operator: NotIn, values: [amd64]}\n"),
            "test.yaml doc 1 NodePool/np: spec.template.spec.requirements[2]: kubernetes.io/arch NotIn {amd64} "
            "contradicts the requirements before it (kubernetes.io/arch In {amd64}): no node can have them all");
  // Absent satisfies NotIn and DoesNotExist together, so these do not contradict.
  decode_ok(kNodePoolHead + "      - {key: example.com/team, operator: NotIn, values: [a]}\n"
                            "      - {key: example.com/team, operator: DoesNotExist}\n");
}

// Names, label keys and values and annotations as the API server refuses them (k8s.io/apimachinery's validation),
// in its words. Control characters are escaped wherever the line names the text: in the quote and in the object.
TEST(MalformedName, NamesLabelsAndAnnotationsFollowTheApiServersRules) {
  auto config_map = [](const std::string& metadata) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata: " + metadata + "\n";
  };
  const std::string subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
                                "'-' or '.', and must start and end with an alphanumeric character (e.g. "
                                "'example.com')";
  const std::string qualified = "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must "
                                "start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or "
                                "'123-abc') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
  const std::string value_rule = "a valid label must be an empty string or consist of alphanumeric characters, '-', "
                                 "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue', "
                                 "or 'my_value', or '12345')";
  const std::string long_name(254, 'a');
  const std::pair<std::string, std::string> cases[] = {
      {config_map("{name: Web.x}"),
       "test.yaml doc 1 ConfigMap/Web.x: metadata.name: invalid value \"Web.x\": " + subdomain},
      // An escape sequence: escaped in the object's label and in the quote alike.
      {config_map("{name: \"bad\\e[31mname\"}"),
       "test.yaml doc 1 ConfigMap/bad\\x1b[31mname: metadata.name: invalid value \"bad\\x1b[31mname\": " + subdomain},
      {config_map("{name: " + long_name + "}"),
       "test.yaml doc 1 ConfigMap/" + long_name + ": metadata.name: invalid value \"" + long_name +
           "\": must be no more than 253 characters"},
      {"apiVersion: v1\nkind: Namespace\nmetadata: {name: ns.x}\n",
       "test.yaml doc 1 Namespace/ns.x: metadata.name: invalid value \"ns.x\": a lowercase RFC 1123 label must "
       "consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character "
       "(e.g. 'my-name', or '123-abc')"},
      {config_map("{name: c, labels: {a/b/c: x}}"),
       "test.yaml doc 1 ConfigMap/c: metadata.labels: invalid key \"a/b/c\": " + qualified},
      {config_map("{name: c, labels: {Example.com/app: x}}"),
       "test.yaml doc 1 ConfigMap/c: metadata.labels: invalid key \"Example.com/app\": prefix part " + subdomain},
      {config_map("{name: c, labels: {app: \"two\\nlines\"}}"),
       "test.yaml doc 1 ConfigMap/c: metadata.labels.app: invalid value \"two\\nlines\": " + value_rule},
      {config_map("{name: c, labels: {app: " + std::string(64, 'v') + "}}"),
       "test.yaml doc 1 ConfigMap/c: metadata.labels.app: invalid value \"" + std::string(64, 'v') +
           "\": must be no more than 63 characters"},
      {config_map("{name: c, annotations: {a/b/c: x}}"),
       "test.yaml doc 1 ConfigMap/c: metadata.annotations: invalid key \"a/b/c\": " + qualified},
      // 262,140 bytes of value and a 6-byte key ("note/a"): 262,146, over 256 KiB (262,144).
      {config_map("{name: c, annotations: {note/a: " + std::string(262'140, 'x') + "}}"),
       "test.yaml doc 1 ConfigMap/c: metadata.annotations: too long: must have at most 262144 bytes, got 262146"},
      {pod_with("  tolerations: [{key: a/b/c, operator: Exists}]\n"),
       "test.yaml doc 1 Pod/p: spec.tolerations[0].key: invalid value \"a/b/c\": " + qualified},
  };
  for (const auto& [yaml, error] : cases) EXPECT_EQ(decode_error(yaml), error) << yaml.substr(0, 200);
  // Annotation keys are read lower-cased, as the API server reads them; an empty label value is one.
  EXPECT_EQ(decode_ok(config_map("{name: c, labels: {app: \"\"}, annotations: {Example.com/Note: x}}"))
                .config_maps.size(),
            1u);
  EXPECT_EQ(decode_error("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: C_1}]\n"),
            "test.yaml doc 1 Pod/p: spec.containers[0].name: invalid value \"C_1\": a lowercase RFC 1123 label must "
            "consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric "
            "character (e.g. 'my-name', or '123-abc')");
}

// kubectl's strict field validation (--validate=strict, its default): a field the kind does not have is an error
// naming its path, where it used to be dropped (`consolidateAftr: 30s` made consolidateAfter its default, 0s).
// Whether a field is known follows the kind and version: a Job and a DaemonSet have no replicas, an autoscaling/v1
// HPA has no metrics, a v1 NodePool no kubelet (v1beta1's).
TEST(UnknownField, AFieldTheKindDoesNotHaveIsRefusedNamingItsPath) {
  const std::string nodepool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n";
  const std::string job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  replicas: 2\n  template:\n"
                          "    spec: {restartPolicy: Never, containers: [{name: c, image: x}]}\n";
  const std::string hpa_v1 = "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nspec:\n"
                             "  scaleTargetRef: {kind: Deployment, name: web}\n  maxReplicas: 3\n  metrics: []\n";
  const std::pair<std::string, std::string> cases[] = {
      {nodepool + "  template: {spec: {requirements: []}}\n  disruption: {consolidateAftr: 30s}\n",
       "test.yaml doc 1 NodePool/default: unknown field \"spec.disruption.consolidateAftr\""},
      {nodepool + "  template: {spec: {requirements: [], kubelet: {maxPods: 20}}}\n",
       "test.yaml doc 1 NodePool/default: unknown field \"spec.template.spec.kubelet\""},
      {deployment_with_container("        resource: {requests: {cpu: 1}}\n"),
       "test.yaml doc 1 Deployment/web: unknown field \"spec.template.spec.containers[0].resource\""},
      {job, "test.yaml doc 1 Job/j: unknown field \"spec.replicas\""},
      {hpa_v1, "test.yaml doc 1 HorizontalPodAutoscaler/h: unknown field \"spec.metrics\""},
      {pod_with("  affinity: {nodeAffinty: {}}\n"), "test.yaml doc 1 Pod/p: unknown field \"spec.affinity.nodeAffinty\""},
      // At the top of the object, and in a List item (named by its path in the document, as every field is).
      {"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndatas: {a: b}\n",
       "test.yaml doc 1 ConfigMap/c: unknown field \"datas\""},
      {"apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Namespace, metadata: {name: shop, lables: {}}}\n",
       "test.yaml doc 1 Namespace/shop: unknown field \"items[0].metadata.lables\""},
      {"apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec: {duraton: 10m}\n",
       "test.yaml doc 1 Scenario/s: unknown field \"spec.duraton\""},
      {"apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"
       "  provisioning: {featureGates: {nodeRepiar: true}}\n",
       "test.yaml doc 1 Scenario/s: unknown field \"spec.provisioning.featureGates.nodeRepiar\""},
  };
  for (const auto& [yaml, error] : cases) EXPECT_EQ(decode_error(yaml), error) << yaml;
  // v1beta1's NodePool has kubelet.
  EXPECT_EQ(decode_ok("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: default}\nspec:\n"
                      "  template: {spec: {requirements: [], kubelet: {maxPods: 20}, nodeClassRef: {apiVersion: "
                      "karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: default}}}\n")
                .nodepools.size(),
            1u);
}

// Every field of objects as the API server serves them back (its defaults, status, managedFields) is upstream's:
// none is unknown, whatever Scalewright reads of it.
TEST(UnknownField, ObjectsAsTheApiServerServesThemAreAccepted) {
  Result<ManifestSet> objects = load_manifest_file(kTestData + "/api-server-objects.yaml");
  ASSERT_TRUE(objects.ok()) << objects.error().message;
  EXPECT_EQ(objects->workloads.size(), 4u);  // Deployment, StatefulSet, DaemonSet, Job
  EXPECT_EQ(objects->pods.size(), 1u);
  EXPECT_EQ(objects->nodes.size(), 1u);
  Result<ManifestSet> hpa = load_manifest_file(kTestData + "/api-server-hpa-v1.yaml");
  ASSERT_TRUE(hpa.ok()) << hpa.error().message;
  ASSERT_EQ(hpa->horizontal_pod_autoscalers.size(), 1u);
  EXPECT_EQ(hpa->horizontal_pod_autoscalers[0].metrics.at(0).target.average_utilization, 50);
}

// kubectl's --validate=warn: a warning per unknown field, the object read as if they were not there;
// --validate=ignore (or false): not a word. A key given twice is one of them: the last one counts, as the API
// server's decoding takes it.
TEST(UnknownField, WarnAndIgnoreAsKubectlsValidateFlag) {
  const std::string yaml = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\nspec:\n"
                           "  template: {spec: {requirements: []}}\n  weight: 10\n  weight: 20\n"
                           "  disruption: {consolidateAftr: 30s, consolidationPolicy: WhenEmpty}\n";
  Result<ManifestSet> warned = decode_manifests(yaml, "np.yaml", ManifestLimits{}, FieldValidation::Warn);
  ASSERT_TRUE(warned.ok()) << warned.error().message;
  EXPECT_EQ(warned->warnings,
            (std::vector<std::string>{"np.yaml doc 1 NodePool/default: spec.weight: duplicate field \"weight\" at line "
                                      "7 (first at line 6)",
                                      "np.yaml doc 1 NodePool/default: unknown field \"spec.disruption.consolidateAftr\""}));
  EXPECT_EQ(warned->nodepools.at(0).weight, 20);
  EXPECT_EQ(warned->nodepools.at(0).consolidate_after, Duration(0));  // v1's default: the misspelt 30s is not read
  Result<ManifestSet> ignored = decode_manifests(yaml, "np.yaml", ManifestLimits{}, FieldValidation::Ignore);
  ASSERT_TRUE(ignored.ok()) << ignored.error().message;
  EXPECT_TRUE(ignored->warnings.empty());
  EXPECT_EQ(ignored->nodepools.at(0).weight, 20);
  EXPECT_EQ(parse_field_validation("true"), FieldValidation::Strict);
  EXPECT_EQ(parse_field_validation("false"), FieldValidation::Ignore);
  EXPECT_EQ(parse_field_validation("lenient"), std::nullopt);
}

}  // namespace
}  // namespace scalewright::testing
