// A Scenario's Cluster Autoscaler set-up: the cloud's Auto Scaling groups and CA's own command line, as users
// copy them from their AWS account and their CA Deployment.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "decode_helpers.h"
#include "manifest/scenario_decoder.h"

namespace scalewright::testing {
namespace {

const std::string kHead = "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n";

TEST(ScenarioNodeGroups, AutoScalingGroupsAndCaArgs) {
  ManifestSet set = decode_ok(kHead + R"(  cloud:
    autoScalingGroups:
    - name: ng-a
      instanceType: m5.large
      zones: [us-east-1a, us-east-1b]
      minSize: 1
      maxSize: 10
      desiredCapacity: 3
      tags:
        k8s.io/cluster-autoscaler/enabled: "true"
        k8s.io/cluster-autoscaler/node-template/taint/dedicated: "db:NoSchedule"
    - {name: ng-spot, instanceType: m5.large, capacityType: spot, minSize: 2, maxSize: 4}
  clusterAutoscaler:
    args:
    - ./cluster-autoscaler
    - --v=4
    - --nodes=1:10:ng-a
    - --expander=least-waste
)");
  ASSERT_EQ(set.scenarios.size(), 1u);
  const Scenario& s = set.scenarios[0];
  ASSERT_EQ(s.cloud.node_groups.size(), 2u);
  const CloudNodeGroup& a = s.cloud.node_groups[0];
  EXPECT_EQ(a.name, "ng-a");
  EXPECT_EQ(a.instance_type, "m5.large");
  EXPECT_EQ(a.zones, (std::vector<std::string>{"us-east-1a", "us-east-1b"}));
  EXPECT_EQ(a.capacity_type, "on-demand");
  EXPECT_EQ(a.min_size, 1);
  EXPECT_EQ(a.max_size, 10);
  EXPECT_EQ(a.desired_capacity, 3);
  EXPECT_EQ(a.tags.at("k8s.io/cluster-autoscaler/enabled"), "true");
  EXPECT_EQ(a.tags.at("k8s.io/cluster-autoscaler/node-template/taint/dedicated"), "db:NoSchedule");
  const CloudNodeGroup& spot = s.cloud.node_groups[1];
  EXPECT_EQ(spot.capacity_type, "spot");
  EXPECT_TRUE(spot.zones.empty());
  EXPECT_EQ(spot.desired_capacity, 2);  // AWS starts a group at its minimum
  ASSERT_TRUE(s.cluster_autoscaler.has_value());
  EXPECT_EQ(s.cluster_autoscaler->args,
            (std::vector<std::string>{"./cluster-autoscaler", "--v=4", "--nodes=1:10:ng-a",
                                      "--expander=least-waste"}));
}

TEST(ScenarioNodeGroups, NoClusterAutoscalerWhenAbsent) {
  ManifestSet set = decode_ok(kHead + "  duration: 1h\n");
  ASSERT_EQ(set.scenarios.size(), 1u);
  EXPECT_FALSE(set.scenarios[0].cluster_autoscaler.has_value());
  EXPECT_TRUE(set.scenarios[0].cloud.node_groups.empty());
}

TEST(ScenarioNodeGroups, BadFlagsFailTheLoadAtTheirElement) {
  EXPECT_EQ(decode_error(kHead + "  clusterAutoscaler: {args: [--v=4, \"--nodes=1:x:ng\"]}\n"),
            "test.yaml doc 1 Scenario/s: spec.clusterAutoscaler.args[1]: flag --nodes: \"1:x:ng\": max size \"x\" is "
            "not an integer (expected MIN:MAX:NAME)");
  EXPECT_EQ(decode_error(kHead +
                         "  clusterAutoscaler: {args: [./cluster-autoscaler, --cloud-provider=aws, --bogus]}\n"),
            "test.yaml doc 1 Scenario/s: spec.clusterAutoscaler.args[2]: unknown flag --bogus");
  EXPECT_EQ(decode_error(kHead + "  clusterAutoscaler: {args: [--scan-interval, soon]}\n"),
            "test.yaml doc 1 Scenario/s: spec.clusterAutoscaler.args[0]: flag --scan-interval: invalid duration "
            "\"soon\"");
}

TEST(ScenarioNodeGroups, AutoScalingGroupSizesAndFieldsAreChecked) {
  const std::string cloud = kHead + "  cloud:\n    autoScalingGroups:\n";
  EXPECT_EQ(decode_error(cloud + "    - {name: a, instanceType: m5.large, minSize: 1, maxSize: 3, "
                                 "desiredCapacity: 5}\n"),
            "test.yaml doc 1 Scenario/s: spec.cloud.autoScalingGroups[0].desiredCapacity: must be between minSize "
            "(1) and maxSize (3), got 5");
  EXPECT_EQ(decode_error(cloud + "    - {name: a, instanceType: m5.large, minSize: 4, maxSize: 3}\n"),
            "test.yaml doc 1 Scenario/s: spec.cloud.autoScalingGroups[0].maxSize: must not be less than minSize");
  EXPECT_EQ(decode_error(cloud + "    - {name: a, instanceType: m5.large, minSize: -1, maxSize: 3}\n"),
            "test.yaml doc 1 Scenario/s: spec.cloud.autoScalingGroups[0].minSize: must not be negative");
  EXPECT_EQ(decode_error(cloud + "    - {name: a, minSize: 0, maxSize: 3}\n"),
            "test.yaml doc 1 Scenario/s: spec.cloud.autoScalingGroups[0].instanceType: required");
  EXPECT_EQ(decode_error(cloud + "    - {name: a, instanceType: m5.large, capacityType: Spot, maxSize: 3}\n"),
            "test.yaml doc 1 Scenario/s: spec.cloud.autoScalingGroups[0].capacityType: unknown capacity type "
            "\"Spot\" (expected on-demand, spot)");
  EXPECT_EQ(decode_error(cloud + "    - {name: a, instanceType: m5.large, maxSize: 3}\n"
                                 "    - {name: a, instanceType: m5.large, maxSize: 3}\n"),
            "test.yaml doc 1 Scenario/s: spec.cloud.autoScalingGroups[1].name: duplicate Auto Scaling group \"a\"");
}

// `scalewright run --auto-scaling-groups FILE`: the same groups in a file of their own, errors naming the file.
TEST(ScenarioNodeGroups, AutoScalingGroupsFileForRun) {
  const std::filesystem::path dir = ::testing::TempDir();
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  Result<std::vector<CloudNodeGroup>> groups = manifest::load_auto_scaling_groups(
      write("groups.yaml", "autoScalingGroups:\n- {name: ng-a, instanceType: m5.large, minSize: 1, maxSize: 4}\n"
                           "- {name: ng-b, instanceType: c5.xlarge, zones: [us-east-1b], maxSize: 2, "
                           "capacityType: spot}\n"));
  ASSERT_TRUE(groups) << groups.error().message;
  ASSERT_EQ(groups->size(), 2u);
  EXPECT_EQ((*groups)[0].name, "ng-a");
  EXPECT_EQ((*groups)[0].desired_capacity, 1);  // AWS starts a group at its minimum
  EXPECT_EQ((*groups)[1].capacity_type, "spot");
  EXPECT_EQ((*groups)[1].zones, std::vector<std::string>{"us-east-1b"});

  const std::filesystem::path bad =
      write("bad.yaml", "autoScalingGroups:\n- {name: a, instanceType: m5.large, minSize: 3, maxSize: 1}\n");
  EXPECT_EQ(manifest::load_auto_scaling_groups(bad).error().message,
            bad.string() + ": autoScalingGroups[0].maxSize: must not be less than minSize");
  const std::filesystem::path none = write("none.yaml", "groups: []\n");
  EXPECT_EQ(manifest::load_auto_scaling_groups(none).error().message,
            none.string() + ": autoScalingGroups: required (a list of groups)");
  const std::filesystem::path missing = dir / "missing.yaml";
  EXPECT_EQ(manifest::load_auto_scaling_groups(missing).error().message,
            missing.string() + ": cannot read: No such file or directory");
  const std::filesystem::path typo = write("typo.yaml", "autoScalingGroups:\n- {name: a, instanceType: m5.large, "
                                                        "maxSize: 2, desiredCapcity: 1}\n");
  EXPECT_EQ(manifest::load_auto_scaling_groups(typo).error().message,
            typo.string() + ": unknown field \"autoScalingGroups[0].desiredCapcity\"");
}

// Cluster Autoscaler's Deployment as clusters run it; `command` is its container's command list.
std::string ca_deployment(const std::string& command, const std::string& image =
                                                          "registry.k8s.io/autoscaling/cluster-autoscaler:v1.26.2") {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: cluster-autoscaler, namespace: kube-system}
spec:
  selector: {matchLabels: {app: cluster-autoscaler}}
  template:
    metadata: {labels: {app: cluster-autoscaler}}
    spec:
      containers:
      - {name: sidecar, image: busybox}
      - name: cluster-autoscaler
        image: )" + image + R"(
        command: )" + command + R"(
        args: [--scale-down-unneeded-time=5m]
)";
}

TEST(ScenarioNodeGroups, ClusterAutoscalersDeploymentIsItsConfigurationNotAWorkload) {
  ManifestSet set = decode_ok(ca_deployment("[./cluster-autoscaler, --v=4, --nodes=1:10:ng-a]"));
  EXPECT_TRUE(set.workloads.empty());
  ASSERT_EQ(set.cluster_autoscaler_deployments.size(), 1u);
  const ClusterAutoscalerDeployment& ca = set.cluster_autoscaler_deployments[0];
  EXPECT_EQ(ca.meta.namespace_, "kube-system");
  EXPECT_EQ(ca.meta.name, "cluster-autoscaler");
  EXPECT_EQ(ca.container, "cluster-autoscaler");
  // command, then args.
  EXPECT_EQ(ca.flags, (std::vector<std::string>{"./cluster-autoscaler", "--v=4", "--nodes=1:10:ng-a",
                                                "--scale-down-unneeded-time=5m"}));
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_EQ(set.warnings[0],
            "test.yaml doc 1 Deployment/cluster-autoscaler: runs Cluster Autoscaler (container cluster-autoscaler): "
            "Scalewright takes its place with its flags; its pod is not simulated");
}

TEST(ScenarioNodeGroups, ABadFlagInTheDeploymentNamesTheCommandElement) {
  EXPECT_EQ(decode_error(ca_deployment("[./cluster-autoscaler, --v=4, \"--nodes=1:x:ng-a\"]")),
            "test.yaml doc 1 Deployment/cluster-autoscaler: spec.template.spec.containers[1].command[2]: flag --nodes: "
            "\"1:x:ng-a\": max size \"x\" is not an integer (expected MIN:MAX:NAME)");
}

TEST(ScenarioNodeGroups, OnlyAnImageNamedClusterAutoscalerIsCa) {
  // By registry path, tag or digest it is the same image; a name that merely contains it is another program.
  for (const std::string image : {"cluster-autoscaler", "k8s.gcr.io/cluster-autoscaler:v1.2.2",
                                  "localhost:5000/autoscaling/cluster-autoscaler@sha256:0123"}) {
    EXPECT_EQ(decode_ok(ca_deployment("[./cluster-autoscaler]", image)).cluster_autoscaler_deployments.size(), 1u)
        << image;
  }
  ManifestSet other = decode_ok(ca_deployment("[./run]", "example.com/cluster-autoscaler-exporter:1"));
  EXPECT_TRUE(other.cluster_autoscaler_deployments.empty());
  EXPECT_EQ(other.workloads.size(), 1u);
}

}  // namespace
}  // namespace scalewright::testing
