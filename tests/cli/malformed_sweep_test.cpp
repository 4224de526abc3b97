// A sweep of malformed input: the valid scenario of scenario_files.h with one field at a time turned into
// something invalid (wrong type, negative, overflow, unknown enum, empty name, missing field, bad duration or
// quantity, a dangling reference). Each must make `scalewright simulate` exit 1, before anything runs, with one
// error line that names the file, the document, the object and the field.
#include <gtest/gtest.h>

#include <ostream>

#include "scenario_files.h"

namespace scalewright::cli::testing {
namespace {

struct Mutation {
  const char* name;   // the test's name
  const char* from;   // text of kValidScenario to replace
  const char* to;     // what replaces it
  const char* where;  // the start of the error after the file name: "doc N Kind/name: field.path: "
};

void PrintTo(const Mutation& m, std::ostream* out) { *out << m.name; }

constexpr const char* kScaleStep = "{at: 1m, scale: {kind: Deployment, name: web, namespace: default, replicas: 3}}";
constexpr const char* kCloud = "cloud: {region: us-east-1, launchLatency: {min: 45s, max: 75s}}";
constexpr const char* kArch = "{key: kubernetes.io/arch, operator: In, values: [amd64]}";
constexpr const char* kCpu = "requests: {cpu: 500m, memory: 256Mi}";

const Mutation kMutations[] = {
    // Scenario (doc 1)
    {"DurationNotADuration", "duration: 10m", "duration: ten", "doc 1 Scenario/s: spec.duration: "},
    {"DurationNegative", "duration: 10m", "duration: -10m", "doc 1 Scenario/s: spec.duration: "},
    {"DurationZero", "duration: 10m", "duration: 0s", "doc 1 Scenario/s: spec.duration: "},
    {"SeedNegative", "seed: 7", "seed: -1", "doc 1 Scenario/s: spec.seed: "},
    {"SeedNotAnInteger", "seed: 7", "seed: seven", "doc 1 Scenario/s: spec.seed: "},
    {"SeedOverflow", "seed: 7", "seed: 99999999999999999999", "doc 1 Scenario/s: spec.seed: "},
    {"RegionUnknown", "region: us-east-1", "region: mars-1", "doc 1 Scenario/s: spec.cloud.region: "},
    {"RegionEmpty", "region: us-east-1", "region: \"\"", "doc 1 Scenario/s: spec.cloud.region: "},
    {"CloudNotAMapping", kCloud, "cloud: [us-east-1]", "doc 1 Scenario/s: spec.cloud: "},
    {"LaunchLatencyBadDuration", "min: 45s", "min: 45", "doc 1 Scenario/s: spec.cloud.launchLatency.min: "},
    {"LaunchLatencyMaxBelowMin", "max: 75s", "max: 30s", "doc 1 Scenario/s: spec.cloud.launchLatency.max: "},
    {"FaultRateAboveOne", "max: 75s}}", "max: 75s}, faults: {insufficientCapacityRate: 1.5}}",
     "doc 1 Scenario/s: spec.cloud.faults.insufficientCapacityRate: "},
    {"NodeFailureUnknownNodePool", "max: 75s}}", "max: 75s}, faults: {nodeFailures: [{at: 1m, nodePool: gpu}]}}",
     "doc 1 Scenario/s: spec.cloud.faults.nodeFailures[0].nodePool: "},
    {"FaultAfterTheEnd", "max: 75s}}", "max: 75s}, faults: {spotInterruptions: [{at: 20m}]}}",
     "doc 1 Scenario/s: spec.cloud.faults.spotInterruptions[0].at: "},
    {"NodeFailureUnknownNodeGroup", "max: 75s}}", "max: 75s}, faults: {nodeFailures: [{at: 1m, nodeGroup: ng}]}}",
     "doc 1 Scenario/s: spec.cloud.faults.nodeFailures[0].nodeGroup: "},
    {"StepAfterTheEnd", "at: 1m,", "at: 11m,", "doc 1 Scenario/s: spec.timeline[0].at: "},
    {"StepBadDuration", "at: 1m,", "at: soon,", "doc 1 Scenario/s: spec.timeline[0].at: "},
    {"StepNegativeTime", "at: 1m,", "at: -1m,", "doc 1 Scenario/s: spec.timeline[0].at: "},
    {"StepWithoutAction", kScaleStep, "{at: 1m}", "doc 1 Scenario/s: spec.timeline[0]: "},
    {"ScaleUnknownKind", "scale: {kind: Deployment", "scale: {kind: Service", "doc 1 Scenario/s: spec.timeline[0].scale.kind: "},
    {"ScaleUnknownName", "name: web, namespace: default, replicas", "name: api, namespace: default, replicas",
     "doc 1 Scenario/s: spec.timeline[0].scale.name: "},
    {"ScaleEmptyName", "name: web, namespace: default, replicas", "name: \"\", namespace: default, replicas",
     "doc 1 Scenario/s: spec.timeline[0].scale.name: "},
    {"ScaleOtherNamespace", "namespace: default, replicas", "namespace: prod, replicas",
     "doc 1 Scenario/s: spec.timeline[0].scale.name: "},
    {"ScaleNegativeReplicas", "replicas: 3}", "replicas: -3}", "doc 1 Scenario/s: spec.timeline[0].scale.replicas: "},
    {"ScaleReplicasOverflow", "replicas: 3}", "replicas: 3000000000}", "doc 1 Scenario/s: spec.timeline[0].scale.replicas: "},
    {"ScaleReplicasMissing", ", replicas: 3}", "}", "doc 1 Scenario/s: spec.timeline[0].scale.replicas: "},
    // Deployment (doc 2)
    {"ReplicasNotAnInteger", "replicas: 1\n", "replicas: one\n", "doc 2 Deployment/web: spec.replicas: "},
    {"ReplicasQuoted", "replicas: 1\n", "replicas: \"1\"\n", "doc 2 Deployment/web: spec.replicas: "},
    {"ReplicasOverflow", "replicas: 1\n", "replicas: 4294967296\n", "doc 2 Deployment/web: spec.replicas: "},
    {"CpuBadQuantity", "cpu: 500m", "cpu: 1.5.3", "doc 2 Deployment/web: spec.template.spec.containers[0].resources.requests.cpu: "},
    {"CpuNegative", "cpu: 500m", "cpu: -1", "doc 2 Deployment/web: spec.template.spec.containers[0].resources.requests.cpu: "},
    {"CpuOverflow", "cpu: 500m", "cpu: \"99999999999999999999999\"",
     "doc 2 Deployment/web: spec.template.spec.containers[0].resources.requests.cpu: "},
    {"CpuOverflowExponent", "cpu: 500m", "cpu: 1e308",
     "doc 2 Deployment/web: spec.template.spec.containers[0].resources.requests.cpu: "},
    {"MemoryOverflow", "memory: 256Mi", "memory: 9Ei",
     "doc 2 Deployment/web: spec.template.spec.containers[0].resources.requests.memory: "},
    {"RequestsNotAMapping", kCpu, "requests: [cpu]", "doc 2 Deployment/web: spec.template.spec.containers[0].resources.requests: "},
    {"ContainerNameEmpty", "- name: c\n", "- name: \"\"\n", "doc 2 Deployment/web: spec.template.spec.containers[0].name: "},
    // NodePool (doc 3)
    {"RequirementUnknownOperator", "operator: In, values: [amd64]", "operator: Within, values: [amd64]",
     "doc 3 NodePool/default: spec.template.spec.requirements[0].operator: "},
    {"RequirementsContradict", kArch,
     "{key: kubernetes.io/arch, operator: In, values: [amd64]}\n      - {key: kubernetes.io/arch, operator: NotIn, values: [amd64]}",
     "doc 3 NodePool/default: spec.template.spec.requirements[1]: "},
    {"RequirementNoInstanceType", kArch, "{key: node.kubernetes.io/instance-type, operator: In, values: [nope.large]}",
     "doc 3 NodePool/default: spec.template.spec.requirements[0]: "},
    {"RequirementsNotAList", "requirements:\n      - {key: kubernetes.io/arch, operator: In, values: [amd64]}",
     "requirements: {kubernetes.io/arch: amd64}", "doc 3 NodePool/default: spec.template.spec.requirements: "},
    {"NodePoolNameEmpty", "metadata: {name: default}", "metadata: {name: \"\"}", "doc 3 NodePool: metadata.name: "},
    // HorizontalPodAutoscaler (doc 4)
    {"HpaTargetUnknown", "kind: Deployment, name: web}", "kind: Deployment, name: api}",
     "doc 4 HorizontalPodAutoscaler/web: spec.scaleTargetRef.name: "},
    {"HpaTargetKindMissing", "{apiVersion: apps/v1, kind: Deployment, name: web}", "{apiVersion: apps/v1, name: web}",
     "doc 4 HorizontalPodAutoscaler/web: spec.scaleTargetRef.kind: "},
    {"HpaMaxReplicasZero", "maxReplicas: 5", "maxReplicas: 0", "doc 4 HorizontalPodAutoscaler/web: spec.maxReplicas: "},
    {"HpaMaxReplicasMissing", "  maxReplicas: 5\n", "", "doc 4 HorizontalPodAutoscaler/web: spec.maxReplicas: "},
    {"HpaMinReplicasNotAnInteger", "minReplicas: 1", "minReplicas: x", "doc 4 HorizontalPodAutoscaler/web: spec.minReplicas: "},
    {"HpaUnknownMetricType", "- type: Resource", "- type: Bogus", "doc 4 HorizontalPodAutoscaler/web: spec.metrics[0].type: "},
    {"HpaUtilizationZero", "averageUtilization: 50", "averageUtilization: 0",
     "doc 4 HorizontalPodAutoscaler/web: spec.metrics[0].resource.target.averageUtilization: "},
    {"HpaUnknownTargetType", "type: Utilization", "type: Percent",
     "doc 4 HorizontalPodAutoscaler/web: spec.metrics[0].resource.target.type: "},
};

class MalformedSweep : public ::testing::TestWithParam<Mutation> {};

TEST_P(MalformedSweep, RefusedWithOneLineNamingFileAndField) {
  const Mutation& m = GetParam();
  ScenarioFiles files;
  const std::string path = files.write("s.yaml", replaced(kValidScenario, m.from, m.to));
  CommandRun run = ScenarioFiles::simulate({path});
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_EQ(run.out, "");
  // Warnings may come first; the error is the last line, and the only one.
  const std::size_t error = run.err.find("error: ");
  ASSERT_NE(error, std::string::npos) << run.err;
  const std::string line = run.err.substr(error);
  EXPECT_EQ(line.rfind("error: " + path + " " + m.where, 0), 0u) << line;
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  EXPECT_GT(line.size(), std::string("error: " + path + " " + m.where + "\n").size()) << "a reason follows";
}

INSTANTIATE_TEST_SUITE_P(OneFieldAtATime, MalformedSweep, ::testing::ValuesIn(kMutations),
                         [](const ::testing::TestParamInfo<Mutation>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace scalewright::cli::testing
