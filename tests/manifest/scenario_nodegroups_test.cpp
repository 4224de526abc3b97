// A Scenario's Cluster Autoscaler set-up: the cloud's Auto Scaling groups and CA's own command line, as users
// copy them from their AWS account and their CA Deployment.
#include <gtest/gtest.h>

#include "decode_helpers.h"

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
  ASSERT_EQ(s.cloud.auto_scaling_groups.size(), 2u);
  const AutoScalingGroup& a = s.cloud.auto_scaling_groups[0];
  EXPECT_EQ(a.name, "ng-a");
  EXPECT_EQ(a.instance_type, "m5.large");
  EXPECT_EQ(a.zones, (std::vector<std::string>{"us-east-1a", "us-east-1b"}));
  EXPECT_EQ(a.capacity_type, "on-demand");
  EXPECT_EQ(a.min_size, 1);
  EXPECT_EQ(a.max_size, 10);
  EXPECT_EQ(a.desired_capacity, 3);
  EXPECT_EQ(a.tags.at("k8s.io/cluster-autoscaler/enabled"), "true");
  EXPECT_EQ(a.tags.at("k8s.io/cluster-autoscaler/node-template/taint/dedicated"), "db:NoSchedule");
  const AutoScalingGroup& spot = s.cloud.auto_scaling_groups[1];
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
  EXPECT_TRUE(set.scenarios[0].cloud.auto_scaling_groups.empty());
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

}  // namespace
}  // namespace scalewright::testing
