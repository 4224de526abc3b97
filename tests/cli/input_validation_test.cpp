// Input that `simulate` and `check` must refuse before anything runs, each with one error line naming the file,
// document, object and field: references between objects, NodePools no instance type can satisfy, KEDA's rules
// for both commands, and flags.
#include <gtest/gtest.h>

#include "scenario_files.h"

namespace scalewright::cli::testing {
namespace {

// Asserts exit 1 and one error line (after any warnings and notes) that starts with "error: <path> <where>";
// returns the rest of it.
std::string error_after(const CommandRun& run, const std::string& path, const std::string& where) {
  EXPECT_EQ(run.status, 1) << run.err;
  EXPECT_EQ(run.out, "");
  const std::size_t error = run.err.find("error: ");
  EXPECT_NE(error, std::string::npos) << run.err;
  if (error == std::string::npos) return "";
  const std::string line = run.err.substr(error);
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "one error line, the last: " << run.err;
  const std::string head = "error: " + path + " " + where;
  EXPECT_EQ(line.rfind(head, 0), 0u) << line;
  return line.rfind(head, 0) == 0 ? line.substr(head.size()) : "";
}

TEST(InputValidation, TheValidScenarioRuns) {
  ScenarioFiles files;
  CommandRun run = ScenarioFiles::simulate({files.write("s.yaml", kValidScenario)});
  EXPECT_EQ(run.status, 0) << run.err;
}

TEST(InputValidation, TimelineStepAfterTheEndNamesTheStepAsWritten) {
  // Written out of order: the step at 12m is spec.timeline[0] even though the timeline runs in time order.
  ScenarioFiles files;
  const std::string path = files.write(
      "s.yaml", replaced(kValidScenario, "  timeline:\n",
                         "  timeline:\n  - {at: 12m, scale: {kind: Deployment, name: web, replicas: 1}}\n"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.timeline[0].at: "),
            "12m0s is after the end of the scenario (spec.duration 10m0s)\n");
}

TEST(InputValidation, NegativeStatusAtIsAUsageError) {
  ScenarioFiles files;
  CommandRun run = ScenarioFiles::simulate({files.write("s.yaml", kValidScenario)}, {"-5m"});
  EXPECT_EQ(run.status, 2);
  EXPECT_EQ(run.err, "error: --status-at -5m: must not be negative\n");
}

TEST(InputValidation, ScaleStepNamingNoWorkloadIsRefusedAtLoad) {
  ScenarioFiles files;
  const std::string path =
      files.write("s.yaml", replaced(kValidScenario, "scale: {kind: Deployment, name: web,", "scale: {kind: Deployment, name: api,"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.timeline[0].scale.name: "),
            "no Deployment default/api in the input\n");
}

const std::string kApplyApi = R"(  - at: 30s
    apply:
    - apiVersion: apps/v1
      kind: Deployment
      metadata: {name: api}
      spec:
        selector: {matchLabels: {app: api}}
        template:
          metadata: {labels: {app: api}}
          spec: {containers: [{name: c, image: nginx}]}
)";

// The scale step at 1m names Deployment api, which an apply step creates at `apply_at`.
std::string scale_after_apply(const std::string& apply_at) {
  std::string text = replaced(kValidScenario, "scale: {kind: Deployment, name: web,", "scale: {kind: Deployment, name: api,");
  return replaced(text, "  timeline:\n", "  timeline:\n" + replaced(kApplyApi, "30s", apply_at));
}

TEST(InputValidation, ScaleStepMayNameAnObjectAnEarlierOrSimultaneousApplyCreates) {
  ScenarioFiles files;
  EXPECT_EQ(ScenarioFiles::simulate({files.write("early.yaml", scale_after_apply("30s"))}).status, 0);
  EXPECT_EQ(ScenarioFiles::simulate({files.write("same.yaml", scale_after_apply("1m"))}).status, 0);
}

TEST(InputValidation, ScaleStepBeforeTheApplyThatCreatesItsTargetIsRefused) {
  ScenarioFiles files;
  const std::string path = files.write("late.yaml", scale_after_apply("2m"));
  // The apply step is spec.timeline[0] as written; the scale step spec.timeline[1].
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.timeline[1].scale.name: "),
            "no Deployment default/api in the input (spec.timeline[0] creates it at 2m0s, after this step at "
            "1m0s)\n");
}

TEST(InputValidation, StepsAtOneTimeRunInTheOrderWritten) {
  // The apply at 1m is written after the scale at 1m, so the simulator runs it after: the scale would find nothing.
  ScenarioFiles files;
  std::string text = replaced(kValidScenario, "name: web, namespace: default, replicas", "name: api, namespace: default, replicas");
  text = replaced(text, "replicas: 3}}\n", "replicas: 3}}\n" + replaced(kApplyApi, "30s", "1m"));
  const std::string path = files.write("after.yaml", text);
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.timeline[0].scale.name: "),
            "no Deployment default/api in the input (spec.timeline[1] creates it at 1m0s, after this step at 1m0s; "
            "steps at one time run in the order written)\n");
}

TEST(InputValidation, ScaleStepAfterADeleteOfItsTargetIsRefused) {
  ScenarioFiles files;
  const std::string path = files.write(
      "s.yaml", replaced(kValidScenario, "  timeline:\n",
                         "  timeline:\n  - {at: 30s, delete: {kind: Deployment, name: web}}\n"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.timeline[1].scale.name: "),
            "no Deployment default/web then: spec.timeline[0] deletes it at 30s, before this step at 1m0s\n");
}

TEST(InputValidation, ANodePoolTurnedStaticOrDynamicOnceItExistsIsRefusedAsKarpentersCrdRefusesIt) {
  ScenarioFiles files;
  // An apply step giving the dynamic NodePool "default" replicas.
  const std::string apply = R"(  - at: 30s
    apply:
    - apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: default}
      spec: {replicas: 2, template: {spec: {}}}
)";
  const std::string path = files.write("flip.yaml", replaced(kValidScenario, "  timeline:\n", "  timeline:\n" + apply));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.timeline[0].apply: "),
            "apply doc 1 NodePool/default: spec.replicas: Cannot transition NodePool between static (replicas set) "
            "and dynamic (replicas unset) provisioning modes\n");
  // kubectl scale of a dynamic NodePool sets spec.replicas: refused the same way.
  const std::string scale = files.write(
      "scale.yaml", replaced(kValidScenario, "  timeline:\n",
                             "  timeline:\n  - {at: 30s, scale: {kind: NodePool, name: default, replicas: 2}}\n"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({scale}), scale, "doc 1 Scenario/s: spec.timeline[0].scale.name: "),
            "NodePool default has no spec.replicas: Cannot transition NodePool between static (replicas set) and "
            "dynamic (replicas unset) provisioning modes\n");
}

TEST(InputValidation, LoadStepNamingNoWorkloadIsRefused) {
  ScenarioFiles files;
  const std::string path = files.write(
      "s.yaml", replaced(kValidScenario, "  timeline:\n",
                         "  timeline:\n  - {at: 0s, load: {kind: Deployment, name: api, requestsPerSecond: 5}}\n"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.timeline[0].load.name: "),
            "no Deployment default/api in the input\n");
}

TEST(InputValidation, NodeFailureNamingNoNodePoolIsRefused) {
  ScenarioFiles files;
  const std::string path = files.write(
      "s.yaml", replaced(kValidScenario, "launchLatency: {min: 45s, max: 75s}}",
                         "launchLatency: {min: 45s, max: 75s}, faults: {nodeFailures: [{at: 2m, nodePool: gpu}]}}"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path,
                        "doc 1 Scenario/s: spec.cloud.faults.nodeFailures[0].nodePool: "),
            "no NodePool gpu in the input\n");
}

TEST(InputValidation, AutoscalerTargetingNoWorkloadIsRefusedBySimulate) {
  ScenarioFiles files;
  const std::string path =
      files.write("s.yaml", replaced(kValidScenario, "kind: Deployment, name: web}", "kind: Deployment, name: api}"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path,
                        "doc 4 HorizontalPodAutoscaler/web: spec.scaleTargetRef.name: "),
            "no Deployment default/api in the input\n");
}

TEST(InputValidation, NodePoolThatNoInstanceTypeSatisfiesIsRefusedBySimulate) {
  ScenarioFiles files;
  const std::string path = files.write(
      "s.yaml", replaced(kValidScenario, "      - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n",
                         "      - {key: kubernetes.io/arch, operator: In, values: [amd64]}\n"
                         "      - {key: node.kubernetes.io/instance-type, operator: In, values: [does-not-exist.large]}\n"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path,
                        "doc 3 NodePool/default: spec.template.spec.requirements[1]: "),
            "no instance type of region us-east-1 satisfies node.kubernetes.io/instance-type In {does-not-exist.large} "
            "together with the requirements before it, so the NodePool could never launch a node\n");
}

TEST(InputValidation, UnknownRegionNamesTheFile) {
  ScenarioFiles files;
  const std::string path = files.write("s.yaml", replaced(kValidScenario, "region: us-east-1", "region: mars-1"));
  // The rest names the data file that lists the regions.
  const std::string rest = error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.cloud.region: ");
  EXPECT_TRUE(rest.ends_with("regions.csv: unknown region \"mars-1\"\n")) << rest;
}

// A Deployment running Cluster Autoscaler, which simulate adopts the flags of.
std::string cluster_autoscaler_deployment(const std::string& name) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: kube-system}\n" + R"(spec:
  selector: {matchLabels: {app: ca}}
  template:
    metadata: {labels: {app: ca}}
    spec:
      containers:
      - name: ca
        image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.30.0
        command: [./cluster-autoscaler, --nodes=1:3:ng]
)";
}

TEST(InputValidation, TwoClusterAutoscalerDeploymentsNameTheFile) {
  ScenarioFiles files;
  const std::string path =
      files.write("ca.yaml", cluster_autoscaler_deployment("ca-a") + "---\n" + cluster_autoscaler_deployment("ca-b"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 2 Deployment/ca-b: "),
            "Deployment kube-system/ca-a and Deployment kube-system/ca-b both run Cluster Autoscaler; a run takes "
            "one\n");
}

const std::string kHistogramQuery = R"yaml(apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: q, namespace: default}
spec:
  scaleTargetRef: {name: web}
  triggers:
  - type: prometheus
    metadata: {serverAddress: "http://prometheus:9090", query: "histogram_quantile(0.9, x)", threshold: "1"}
)yaml";

TEST(InputValidation, CheckAndSimulateRefuseTheSamePromqlNamingTheFile) {
  ScenarioFiles files;
  const std::string path = files.write("so.yaml", kHistogramQuery);
  const std::string where = "doc 1 ScaledObject/q: spec.triggers[0].metadata.query: ";
  const std::string check = error_after(ScenarioFiles::check({path}), path, where);
  EXPECT_EQ(check.rfind("query \"histogram_quantile(0.9, x)\" is outside what the simulator answers", 0), 0u) << check;
  const std::string base = files.write("s.yaml", kValidScenario);
  EXPECT_EQ(error_after(ScenarioFiles::simulate({base, path}), path, where), check);
}

// The issue's pods whose requests sum past int64 (each quantity fits; 5Ei is 5 x 2^60 bytes): they wrapped to a
// negative request that fit a 4 GiB node, and simulate launched a t2.nano. Both commands refuse them at load.
TEST(InputValidation, RequestsThatSumPastInt64AreRefusedByCheckAndSimulate) {
  const std::string container =
      "      - name: c\n        image: nginx\n        resources: {requests: {cpu: 500m, memory: 256Mi}}\n";
  const std::string memory = "the sum of the pod's memory requests exceeds 9223372036854775807\n";
  struct Case {
    const char* name;
    std::string spec;  // replaces the Deployment's containers
    std::string field;
    std::string problem;
  };
  const Case cases[] = {
      {"two containers of 5Ei",
       "      - {name: a, resources: {requests: {memory: 5Ei}}}\n"
       "      - {name: b, resources: {requests: {memory: 5Ei}}}\n",
       "containers[1].resources.requests.memory", memory},
      {"cpu near 2^63 millicores",
       "      - {name: a, resources: {requests: {cpu: 9223372036854775m}}}\n"
       "      - {name: b, resources: {requests: {cpu: 9223372036854775}}}\n",
       "containers[1].resources.requests.cpu", "the sum of the pod's cpu requests exceeds 9223372036854775807m\n"},
      {"a huge overhead",
       "      - {name: a, resources: {requests: {memory: 4Ei}}}\n      overhead: {memory: 5Ei}\n", "overhead.memory",
       memory},
      {"an init container larger than the sum",
       "      - {name: a, resources: {requests: {memory: 1Gi}}}\n"
       "      initContainers: [{name: init, resources: {requests: {memory: 7Ei}}}]\n      overhead: {memory: 1Ei}\n",
       "overhead.memory", memory},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ScenarioFiles files;
    const std::string path = files.write("s.yaml", replaced(kValidScenario, container, c.spec));
    const std::string where = "doc 2 Deployment/web: spec.template.spec." + c.field + ": ";
    EXPECT_EQ(error_after(ScenarioFiles::check({path}), path, where), c.problem);
    EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, where), c.problem);
  }
}

// A symbolic link that points at itself cannot be resolved. Wherever the commands meet one (an argument, an entry of
// a directory argument, a --compare file, a load step's csv: file), it is an input that cannot be read: exit 1 and
// one line naming it, in the words of the system (ELOOP), never an abort.
TEST(InputValidation, ASymbolicLinkLoopIsAnUnreadableInputNamedInOneLine) {
  ScenarioFiles files;
  const std::string dir = files.path("loop");
  std::filesystem::create_directories(dir);
  const std::string loop = dir + "/loop.yaml";
  std::filesystem::create_symlink("loop.yaml", loop);
  const std::string unreadable = "error: " + loop + ": cannot read: Too many levels of symbolic links\n";
  for (const std::string command : {"check ", "simulate -q "}) {
    EXPECT_EQ(run_binary(command + dir).output, unreadable) << command << "the directory";
    EXPECT_EQ(run_binary(command + loop).output, unreadable) << command << "the link itself";
    EXPECT_EQ(run_binary(command + dir).status, 1);
    EXPECT_EQ(run_binary(command + loop).status, 1);
  }
  const std::string scenario = files.write("s.yaml", kValidScenario);
  const BinaryRun compare = run_binary("simulate -q " + scenario + " --compare " + loop + " " + scenario);
  EXPECT_EQ(compare.status, 1);
  EXPECT_EQ(compare.output, unreadable);

  std::filesystem::create_symlink("loop.csv", dir + "/loop.csv");
  const std::string path = files.write(
      "csv.yaml", replaced(kValidScenario, "  timeline:\n",
                           "  timeline:\n  - {at: 0s, load: {kind: Deployment, name: web, csv: loop/loop.csv}}\n"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 1 Scenario/s: spec.timeline[0].load.csv: "),
            "CSV file " + dir + "/loop.csv: cannot read: Too many levels of symbolic links\n");
}

// A Deployment of n replicas named `name`.
std::string deployment(const std::string& name, const std::string& replicas) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + "}\nspec:\n  replicas: " + replicas +
         "\n  selector: {matchLabels: {app: " + name + "}}\n  template:\n    metadata: {labels: {app: " + name +
         "}}\n    spec: {containers: [{name: c, image: nginx}]}\n";
}

// What a file asks for is counted at load, against what a run holds at once (1,500,000 pods, 100,000 nodes): a count
// over it alone, or the one that brings the input over it, is refused there, by check as by simulate, instead of
// check aborting on bad_alloc and simulate spending 20 s and 2 GB before it stops.
TEST(InputValidation, WhatAFileAsksForIsCountedAtLoadAgainstTheRunLimits) {
  const std::string kMax = "2147483647";
  const std::string over = " are more than the 1500000 pods a run holds at once\n";
  struct Case {
    std::string text;
    std::string where;     // after the file name
    std::string problem;
  };
  const std::string job = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: " + kMax +
                          "\n  template:\n    spec:\n      restartPolicy: Never\n      containers: [{name: c, image: "
                          "busybox}]\n";
  const std::string hpa = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h}\nspec:\n"
                          "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: a}\n"
                          "  minReplicas: 2000000\n  maxReplicas: 2000000\n";
  const Case cases[] = {
      {deployment("a", kMax), "doc 1 Deployment/a: spec.replicas: ", kMax + " replicas" + over},
      {job, "doc 1 Job/j: spec.parallelism: ", kMax + " replicas" + over},
      // 1,000,000 + 600,000: the second Deployment brings the input to 1,600,000.
      {deployment("a", "1000000") + "---\n" + deployment("b", "600000"), "doc 2 Deployment/b: spec.replicas: ",
       "with these 600000 replicas the input comes to 1600000 pods, more than the 1500000 a run holds at once\n"},
      {deployment("a", "1") + "---\n" + hpa, "doc 2 HorizontalPodAutoscaler/h: spec.minReplicas: ",
       "2000000 replicas" + over},
  };
  ScenarioFiles files;
  for (const Case& c : cases) {
    const std::string path = files.write("big.yaml", c.text);
    EXPECT_EQ(error_after(ScenarioFiles::check({path}), path, c.where), c.problem) << c.text;
    EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, c.where), c.problem) << c.text;
  }
  // A scale step, and the nodes an Auto Scaling group starts with (the scenario's own).
  const std::string scale =
      files.write("s.yaml", replaced(kValidScenario, "replicas: 3}}", "replicas: " + kMax + "}}"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({scale}), scale, "doc 1 Scenario/s: spec.timeline[0].scale.replicas: "),
            kMax + " replicas" + over);
  const std::string groups = files.write(
      "g.yaml", replaced(kValidScenario, "launchLatency: {min: 45s, max: 75s}}",
                         "launchLatency: {min: 45s, max: 75s}, autoScalingGroups: [{name: ng, instanceType: m5.large, "
                         "minSize: 0, maxSize: 200000, desiredCapacity: 100001}]}"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({groups}), groups,
                        "doc 1 Scenario/s: spec.cloud.autoScalingGroups[0].desiredCapacity: "),
            "with these 100001 nodes the input comes to 100001 nodes, more than the 100000 a run holds at once\n");
}

// A ScaledObject on `target`; `extra` goes under its metadata (annotations).
std::string scaled_object(const std::string& name, const std::string& target, const std::string& extra = "") {
  return "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata:\n  name: " + name + "\n  namespace: default\n" +
         extra + "spec:\n  scaleTargetRef: {name: " + target + "}\n  minReplicaCount: 1\n  triggers:\n"
         "  - {type: cpu, metricType: Utilization, metadata: {value: \"50\"}}\n";
}

// An HPA and a ScaledObject on one target undo each other at every sync: refused as KEDA's admission webhook refuses
// the ScaledObject, in its words; so are two ScaledObjects, and two HPAs (the HPA controller scales neither).
TEST(InputValidation, TwoAutoscalersOnOneTargetAreRefusedAsKedasWebhookDoes) {
  ScenarioFiles files;
  const std::string base = files.write("s.yaml", kValidScenario);  // doc 4: HorizontalPodAutoscaler/web on web
  const std::string hpa_place = "(" + base + " doc 4 HorizontalPodAutoscaler/web)\n";
  const std::string so = files.write("so.yaml", scaled_object("q", "web"));
  const std::string where = "doc 1 ScaledObject/q: spec.scaleTargetRef.name: ";
  const std::string keda = "the workload 'web' of type 'apps/v1.Deployment' is already managed by the hpa 'web' ";
  EXPECT_EQ(error_after(ScenarioFiles::check({base, so}), so, where), keda + hpa_place);
  EXPECT_EQ(error_after(ScenarioFiles::simulate({base, so}), so, where), keda + hpa_place);

  const std::string second = files.write(
      "hpa.yaml", "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web2}\nspec:\n"
                  "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  maxReplicas: 3\n");
  EXPECT_EQ(error_after(ScenarioFiles::check({base, second}), second,
                        "doc 1 HorizontalPodAutoscaler/web2: spec.scaleTargetRef.name: "),
            "the workload 'web' of type 'apps/v1.Deployment' is already scaled by the hpa 'web' " +
                hpa_place.substr(0, hpa_place.size() - 1) +
                ": kube-controller-manager's HPA controller would scale neither (AmbiguousSelector: pods controlled "
                "by multiple HPAs)\n");

  const std::string two = files.write("two.yaml", scaled_object("a", "api") + "---\n" + scaled_object("b", "api"));
  EXPECT_EQ(error_after(ScenarioFiles::check({two}), two, "doc 2 ScaledObject/b: spec.scaleTargetRef.name: "),
            "the workload 'api' of type 'apps/v1.Deployment' is already managed by the ScaledObject 'a' (" + two +
                " doc 1 ScaledObject/a)\n");

  // Taking the HPA over needs its name in the ScaledObject.
  const std::string transfer = files.write(
      "transfer.yaml",
      scaled_object("q", "web", "  annotations: {scaledobject.keda.sh/transfer-hpa-ownership: \"true\"}\n"));
  EXPECT_EQ(error_after(ScenarioFiles::check({base, transfer}), transfer, where),
            "the existing hpa 'web' for workload 'web' of type 'apps/v1.Deployment' must be specified by name in "
            "advanced settings to enable ownership transfer " + hpa_place);

  // From an apply step on: the ScaledObject applied at 2m meets the HPA loaded at the start.
  const std::string applied = files.write(
      "applied.yaml", replaced(kValidScenario, "  timeline:\n",
                               "  timeline:\n  - at: 2m\n    apply:\n    - {apiVersion: keda.sh/v1alpha1, kind: "
                               "ScaledObject, metadata: {name: q}, spec: {scaleTargetRef: {name: web}, "
                               "minReplicaCount: 1, triggers: [{type: cpu, metricType: Utilization, metadata: "
                               "{value: \"50\"}}]}}\n"));
  EXPECT_EQ(error_after(ScenarioFiles::simulate({applied}), applied,
                        "doc 1 Scenario/s: spec.timeline[0].apply: apply doc 1 ScaledObject/q: "
                        "spec.scaleTargetRef.name: "),
            keda + "(" + applied + " doc 4 HorizontalPodAutoscaler/web)\n");
}

TEST(InputValidation, AnHpaTheScaledObjectOwnsOrThatOptsOutIsNoConflict) {
  ScenarioFiles files;
  // KEDA's own HPA, as `kubectl get hpa -o yaml` shows it: simulate leaves it out and makes the ScaledObject's own.
  const std::string owned = files.write(
      "owned.yaml", replaced(kValidScenario, "metadata: {name: web, namespace: default}\nspec:\n  scaleTargetRef",
                             "metadata:\n  name: web\n  namespace: default\n  ownerReferences:\n"
                             "  - {apiVersion: keda.sh/v1alpha1, kind: ScaledObject, name: q, uid: u1}\nspec:\n"
                             "  scaleTargetRef"));
  const std::string so = files.write("so.yaml", scaled_object("q", "web"));
  const CommandRun run = ScenarioFiles::simulate({owned, so});
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.err.find("note: HorizontalPodAutoscaler default/web is a ScaledObject's (KEDA's own, or taken over): "
                         "the simulator makes it itself\n"),
            std::string::npos)
      << run.err;
  const std::string opted_out = files.write(
      "opted.yaml", replaced(kValidScenario, "metadata: {name: web, namespace: default}\nspec:\n  scaleTargetRef",
                             "metadata:\n  name: web\n  annotations: {validations.keda.sh/hpa-ownership: \"false\"}\n"
                             "spec:\n  scaleTargetRef"));
  EXPECT_EQ(ScenarioFiles::check({opted_out, so}).status, 0);
}

// --output or --html naming an input would overwrite the scenario with its report: refused before anything runs, as a
// bad flag (exit 2), naming both, however the two paths are spelt; the input is left as it was.
TEST(InputValidation, AReportFileThatIsAnInputIsRefusedBeforeTheRun) {
  ScenarioFiles files;
  const std::string path = files.write("s.yaml", kValidScenario);
  std::filesystem::create_directories(files.path("dir"));
  const std::string in_dir = files.write("dir/w.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n");
  const std::string dotted = files.path("dir/../s.yaml");
  struct Case {
    std::vector<std::string> inputs;
    std::string output, html;
    std::string error;
  };
  const Case cases[] = {
      {{path}, dotted, "", "error: --output " + dotted + ": is the input file " + path +
                               ", which writing the report would overwrite\n"},
      {{path, files.path("dir")}, "", in_dir, "error: --html " + in_dir + ": is the input file " + in_dir +
                                                  ", which writing the report would overwrite\n"},
  };
  for (const Case& c : cases) {
    SimulateOptions options;
    options.files = c.inputs;
    options.output_json = c.output;
    options.html = c.html;
    std::ostringstream out, err;
    EXPECT_EQ(run_simulate(options, out, err), 2);
    EXPECT_EQ(err.str(), c.error);
    EXPECT_EQ(out.str(), "");
  }
  std::ifstream in(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), kValidScenario);
}

// KEDA's own cron example (timezone: Asia/Kolkata) is one zone for check and simulate alike, read from the system's
// tz database; Mars/Olympus is none for either, with the same line in KEDA's words.
TEST(InputValidation, CheckAndSimulateReadCronTimeZonesFromOneDatabase) {
  auto cron = [](const std::string& zone) {
    return "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: cron-scaledobject, namespace: default}\n"
           "spec:\n  scaleTargetRef: {name: web}\n  triggers:\n  - type: cron\n    metadata:\n      timezone: " +
           zone + "\n      start: 30 * * * *\n      end: 45 * * * *\n      desiredReplicas: \"10\"\n";
  };
  ScenarioFiles files;
  // The scenario without its HPA, which would scale the ScaledObject's target too.
  const std::string base =
      files.write("s.yaml", kValidScenario.substr(0, kValidScenario.find("---\napiVersion: autoscaling")));
  const std::string kolkata = files.write("kolkata.yaml", cron("Asia/Kolkata"));
  EXPECT_EQ(ScenarioFiles::check({base, kolkata}).status, 0);
  const CommandRun run = ScenarioFiles::simulate({base, kolkata});
  EXPECT_EQ(run.status, 0) << run.err;
  const std::string mars = files.write("mars.yaml", cron("Mars/Olympus"));
  const std::string where = "doc 1 ScaledObject/cron-scaledobject: spec.triggers[0].metadata.timezone: ";
  const std::string problem = "unable to load timezone: unknown time zone Mars/Olympus\n";
  EXPECT_EQ(error_after(ScenarioFiles::check({base, mars}), mars, where), problem);
  EXPECT_EQ(error_after(ScenarioFiles::simulate({base, mars}), mars, where), problem);
}

// Whatever a command prints goes through the one escaping function: an escape sequence in a name or a kind reaches
// the terminal as text, in errors and warnings alike, and no raw control byte is written.
TEST(InputValidation, ControlCharactersReachTheTerminalEscaped) {
  ScenarioFiles files;
  const std::string kind = files.write("kind.yaml", "apiVersion: v1\nkind: \"Evil\\e[2J\"\nmetadata: {name: x}\n");
  const BinaryRun warned = run_binary("check " + kind);
  EXPECT_EQ(warned.status, 0);
  EXPECT_EQ(warned.output.find('\x1b'), std::string::npos) << warned.output;
  EXPECT_NE(warned.output.find("warning: " + kind + " doc 1: skipped unknown kind Evil\\x1b[2J (v1)\n"),
            std::string::npos)
      << warned.output;
  const std::string name =
      files.write("name.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \"bad\\e[31mname\"}\n");
  const BinaryRun refused = run_binary("check " + name);
  EXPECT_EQ(refused.status, 1);
  EXPECT_EQ(refused.output.find('\x1b'), std::string::npos) << refused.output;
  EXPECT_EQ(refused.output.rfind("error: " + name + " doc 1 ConfigMap/bad\\x1b[31mname: metadata.name: invalid value "
                                 "\"bad\\x1b[31mname\": a lowercase RFC 1123 subdomain", 0),
            0u)
      << refused.output;
}

// --validate on check and simulate, as kubectl's: strict (the default) refuses a misspelt field naming its path,
// warn keeps going with a warning line (an apply step's objects alike), ignore says nothing.
TEST(InputValidation, ValidateFlagOfCheckAndSimulate) {
  ScenarioFiles files;
  const std::string typo = replaced(kValidScenario, "  replicas: 1\n", "  replicas: 1\n  replica: 2\n");
  const std::string path = files.write("s.yaml", typo);
  EXPECT_EQ(error_after(ScenarioFiles::check({path}), path, "doc 2 Deployment/web: "),
            "unknown field \"spec.replica\"\n");
  EXPECT_EQ(error_after(ScenarioFiles::simulate({path}), path, "doc 2 Deployment/web: "),
            "unknown field \"spec.replica\"\n");
  const std::string warning = "warning: " + path + " doc 2 Deployment/web: unknown field \"spec.replica\"\n";
  CheckOptions check;
  check.files = {path};
  check.validate = FieldValidation::Warn;
  std::ostringstream out, err;
  EXPECT_EQ(run_check(check, out, err), 0);
  EXPECT_EQ(err.str(), warning);
  // An apply step's object, under simulate --validate=warn: named by the step, then by the object in it.
  const std::string applied = files.write(
      "applied.yaml", replaced(typo, "  timeline:\n",
                               "  timeline:\n  - at: 2m\n    apply:\n    - {apiVersion: v1, kind: Namespace, metadata: "
                               "{name: shop, labells: {}}}\n"));
  SimulateOptions simulate;
  simulate.files = {applied};
  simulate.quiet = true;
  simulate.validate = FieldValidation::Warn;
  std::ostringstream sim_out, sim_err;
  EXPECT_EQ(run_simulate(simulate, sim_out, sim_err), 0) << sim_err.str();
  EXPECT_EQ(sim_err.str().rfind("warning: " + applied + " doc 1 Scenario/s: spec.timeline[0].apply: apply doc 1 "
                                "Namespace/shop: unknown field \"metadata.labells\"\nwarning: " + applied +
                                    " doc 2 Deployment/web: unknown field \"spec.replica\"\n",
                                0),
            0u)
      << sim_err.str();
  simulate.validate = FieldValidation::Ignore;
  std::ostringstream quiet_out, quiet_err;
  EXPECT_EQ(run_simulate(simulate, quiet_out, quiet_err), 0);
  EXPECT_EQ(quiet_err.str().find("unknown field"), std::string::npos) << quiet_err.str();
}

}  // namespace
}  // namespace scalewright::cli::testing
