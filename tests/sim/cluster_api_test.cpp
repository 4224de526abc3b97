// Cluster Autoscaler with --cloud-provider=clusterapi in the simulator: its node groups are the MachineDeployments
// (MachineSets, MachinePools) among the scenario's files, read as `scalewright run --cloud-provider clusterapi` reads
// them. Every group here makes 2-cpu / 4 GiB nodes (allocatable = capacity: CA subtracts nothing from a Cluster API
// template), Ready 60 s after launch; CA scans every 10 s from t=0.
#include <gtest/gtest.h>

#include "run_scenario.h"
#include "sim/cluster_autoscaler_setup.h"

namespace scalewright::sim {
namespace {

using testing::messages;
using testing::run;

// A v1beta2 MachineDeployment of cluster "purple" whose nodes have 2 cpu and 4 GiB; `extra` is added to its
// annotations (indented by 4).
std::string machine_deployment(const std::string& name, int min, int max, int replicas, const std::string& price,
                               const std::string& extra = "") {
  return "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n  name: " + name +
         "\n  namespace: default\n  annotations:\n"
         "    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: \"" + std::to_string(min) + "\"\n"
         "    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: \"" + std::to_string(max) + "\"\n"
         "    capacity.cluster-autoscaler.kubernetes.io/cpu: \"2\"\n"
         "    capacity.cluster-autoscaler.kubernetes.io/memory: 4Gi\n"
         "    scalewright.dev/price-per-hour: \"" + price + "\"\n" + extra +
         "spec:\n  clusterName: purple\n  replicas: " + std::to_string(replicas) + "\n"
         "  template:\n    spec:\n"
         "      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachineTemplate, name: " +
         name + "}\n---\n";
}

std::string capi_scenario(const std::string& duration, const std::string& args) {
  return R"(apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: capi}
spec:
  duration: )" + duration + R"(
  cloud:
    launchLatency: {min: 60s, max: 60s}
  clusterAutoscaler:
    args: [./cluster-autoscaler, --cloud-provider=clusterapi, )" + args + R"(]
)";
}

// The cloudProviderTarget CA's status gives the group.
std::string target_in_status(const std::string& status, const std::string& group) {
  const std::size_t at = status.find("- name: " + group + "\n");
  if (at == std::string::npos) return "no group " + group;
  const std::string key = "cloudProviderTarget: ";
  const std::size_t target = status.find(key, at);
  return status.substr(target + key.size(), status.find('\n', target) - target - key.size());
}

TEST(ClusterApi, ThePriceExpanderGrowsTheCheaperMachineDeployment) {
  // Three pods of 1 cpu: a 2-cpu node holds two, so two nodes. Both groups (and the paused one, cheaper still) could
  // make them; the price expander picks the cheaper group, md-cheap 0 -> 2. The pods exist when the run starts, and
  // the scan at t=0 finds them unschedulable: the nodes launch at 0s, are Ready at 60 s, and run to the end at 10m.
  SimulationReport r = run(machine_deployment("md-cheap", 0, 5, 0, "0.10") +
                           machine_deployment("md-dear", 0, 5, 0, "0.30") +
                           machine_deployment("md-paused", 0, 5, 0, "0.01", "    cluster.x-k8s.io/paused: \"\"\n") +
                           testing::deployment("web", 3, "1", "1Gi") + capi_scenario("10m", "--expander=price"));
  EXPECT_EQ(messages(r, "scale-up"),
            std::vector<std::string>{"t=0s TriggeredScaleUp: pod triggered scale-up: "
                                     "[{MachineDeployment/default/md-cheap 0->2 (max: 5)}] (3 pods)"});
  EXPECT_EQ(messages(r, "warning"),
            std::vector<std::string>{
                "t=0s MachineDeployment default/md-paused is not a node group: paused (cluster.x-k8s.io/paused)"});
  EXPECT_EQ(r.summary.launches, 2);
  EXPECT_EQ(r.summary.nodes_at_end, 2);
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
  EXPECT_EQ(target_in_status(r.cluster_autoscaler_status, "MachineDeployment/default/md-cheap"), "2");
  EXPECT_EQ(target_in_status(r.cluster_autoscaler_status, "MachineDeployment/default/md-dear"), "0");
  EXPECT_EQ(target_in_status(r.cluster_autoscaler_status, "MachineDeployment/default/md-paused"),
            "no group MachineDeployment/default/md-paused");
  // Cost: 2 nodes for the whole 10 minutes at the price annotation's $0.10 an hour: 1/3 node-hour, $0.0333.
  ASSERT_EQ(r.summary.cost_lines.size(), 1u);
  const CostLine& line = r.summary.cost_lines[0];
  EXPECT_EQ(line.nodepool, "group/MachineDeployment/default/md-cheap");
  EXPECT_EQ(line.instance_type, "md-cheap");  // its template names no instance type: the group's name
  EXPECT_EQ(line.nodes, 2);
  EXPECT_NEAR(line.node_hours, 2 * 600.0 / 3600, 1e-9);
  EXPECT_NEAR(line.cost, 2 * 600.0 / 3600 * 0.10, 1e-9);
  EXPECT_NEAR(r.summary.total_cost, 2 * 600.0 / 3600 * 0.10, 1e-9);
}

TEST(ClusterApi, ReplicasStartAsNodesAndScaleDownStopsAtTheMinimum) {
  // md-a runs 2 replicas from t=0 with nothing on them: both are empty and unneeded from the scan at t=0, and after
  // --scale-down-unneeded-time (10 min, compared strictly) the scan at 10m10s removes one; the other is md-a's
  // minimum and stays. Cost at $0.20: one node 20 min, one 10m10s.
  SimulationReport r = run(machine_deployment("md-a", 1, 3, 2, "0.20") + capi_scenario("20m", "--v=4"));
  EXPECT_TRUE(messages(r, "scale-up").empty());
  std::vector<std::string> removed = messages(r, "scale-down");
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_TRUE(removed[0].starts_with("t=10m10s empty node md-a-")) << removed[0];  // named after the object
  EXPECT_EQ(r.summary.launches, 0);  // running when the run starts, not launched
  EXPECT_EQ(r.summary.peak_nodes, 2);
  EXPECT_EQ(r.summary.nodes_at_end, 1);
  EXPECT_EQ(target_in_status(r.cluster_autoscaler_status, "MachineDeployment/default/md-a"), "1");
  ASSERT_EQ(r.summary.cost_lines.size(), 1u);
  EXPECT_NEAR(r.summary.cost_lines[0].node_hours, (1200.0 + 610.0) / 3600, 1e-9);
  EXPECT_NEAR(r.summary.total_cost, (1200.0 + 610.0) / 3600 * 0.20, 1e-9);
}

TEST(ClusterApi, AGroupsOwnUnneededTimeAnnotationRemovesItsNodesSooner) {
  // As above, md-b's annotation cluster.x-k8s.io/autoscaling-options-scaledownunneededtime: 2m over the flag's 10 min:
  // unneeded from t=0, its empty node above the minimum goes at the first scan past 2 min, 2m10s; md-a's at 10m10s.
  SimulationReport r =
      run(machine_deployment("md-a", 1, 3, 2, "0.20") +
          machine_deployment("md-b", 1, 3, 2, "0.20", "    cluster.x-k8s.io/autoscaling-options-scaledownunneededtime: 2m\n") +
          capi_scenario("20m", "--v=4"));
  std::vector<std::string> removed = messages(r, "scale-down");
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_TRUE(removed[0].starts_with("t=2m10s empty node md-b-")) << removed[0];
  EXPECT_TRUE(removed[1].starts_with("t=10m10s empty node md-a-")) << removed[1];
  EXPECT_EQ(r.summary.nodes_at_end, 2);
}

// The loop CA runs with for `text`'s Scenario and objects, with its notes; the error message when it is refused.
Result<controllers::ClusterAutoscalerLoop> loop_for(const std::string& text, std::vector<std::string>& notes) {
  Result<ManifestSet> objects = decode_manifests(text, "test.yaml");
  EXPECT_TRUE(objects.ok()) << (objects.ok() ? "" : objects.error().message);
  if (!objects.ok()) return objects.error();
  return cluster_autoscaler_loop(objects->scenarios.at(0), provisioning::fixtures::make_catalog(1), {},
                                 objects->cluster_api_objects, &notes);
}

std::vector<std::string> group_ids(const controllers::ClusterAutoscalerLoop& loop) {
  std::vector<std::string> out;
  for (const nodegroups::NodeGroup& group : loop.groups()) out.push_back(group.id);
  return out;
}

TEST(ClusterApi, AutoDiscoverySpecsChooseTheGroups) {
  // md-blue belongs to another cluster; with no spec it would be a group too.
  std::string blue = machine_deployment("md-blue", 0, 3, 1, "0.10");
  blue.replace(blue.find("clusterName: purple"), std::string("clusterName: purple").size(), "clusterName: blue");
  const std::string objects = machine_deployment("md-purple", 0, 3, 1, "0.10") + blue;
  std::vector<std::string> notes;
  Result<controllers::ClusterAutoscalerLoop> all = loop_for(objects + capi_scenario("1m", "--v=4"), notes);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(group_ids(*all), (std::vector<std::string>{"MachineDeployment/default/md-blue",
                                                       "MachineDeployment/default/md-purple"}));
  Result<controllers::ClusterAutoscalerLoop> purple =
      loop_for(objects + capi_scenario("1m", "--node-group-auto-discovery=clusterapi:clusterName=purple"), notes);
  ASSERT_TRUE(purple.ok()) << purple.error().message;
  EXPECT_EQ(group_ids(*purple), std::vector<std::string>{"MachineDeployment/default/md-purple"});
  // The group's node, as `run` builds it: the annotations' capacity, linux/amd64, no zone (no failure domain).
  const nodegroups::NodeGroup& group = purple->groups().front();
  EXPECT_EQ(group.template_node.allocatable.cpu_milli(), 2000);
  EXPECT_EQ(group.template_node.allocatable.memory(), 4 * kGi);
  EXPECT_EQ(group.target_size, 1);
  EXPECT_DOUBLE_EQ(group.price_per_hour, 0.10);
  EXPECT_TRUE(group.zones.empty());
  EXPECT_TRUE(notes.empty());
}

TEST(ClusterApi, AnEmptyGroupThatCannotScaleFromZeroIsLeftOutWithAWarning) {
  const std::string bare = "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n  name: md-bare\n"
                           "  annotations:\n"
                           "    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: \"0\"\n"
                           "    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: \"3\"\n"
                           "spec: {clusterName: purple, replicas: 0}\n---\n";
  std::vector<std::string> notes;
  Result<controllers::ClusterAutoscalerLoop> loop =
      loop_for(bare + machine_deployment("md-a", 0, 3, 0, "0.10") + capi_scenario("1m", "--v=4"), notes);
  ASSERT_TRUE(loop.ok()) << loop.error().message;
  EXPECT_EQ(group_ids(*loop), std::vector<std::string>{"MachineDeployment/default/md-a"});
  EXPECT_EQ(notes, std::vector<std::string>{"MachineDeployment default/md-bare is not a node group: at 0 replicas "
                                            "without the cpu and memory capacity annotations to scale from zero"});
}

TEST(ClusterApi, WhatClusterApiCannotTakeIsRefusedWithWhy) {
  std::vector<std::string> notes;
  const std::string md = machine_deployment("md-a", 0, 3, 0, "0.10");
  Result<controllers::ClusterAutoscalerLoop> nodes = loop_for(md + capi_scenario("1m", "--nodes=0:3:md-a"), notes);
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.error().message,
            "spec.clusterAutoscaler.args: --nodes: provider clusterapi finds its node groups by their annotations "
            "(cluster.x-k8s.io/cluster-api-autoscaler-node-group-{min,max}-size), not by --nodes");
  const std::string asg_spec = "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled";
  Result<controllers::ClusterAutoscalerLoop> asg = loop_for(md + capi_scenario("1m", asg_spec), notes);
  ASSERT_FALSE(asg.ok());
  EXPECT_EQ(asg.error().message, "spec.clusterAutoscaler.args: --node-group-auto-discovery=asg:tag=k8s.io/"
                                 "cluster-autoscaler/enabled: discoverer \"asg\" is not clusterapi");
  // Auto Scaling groups beside: which groups CA scales would be a guess.
  std::string both = capi_scenario("1m", "--v=4");
  both.replace(both.find("  cloud:\n"), 9,
               "  cloud:\n    autoScalingGroups:\n    - {name: ng, instanceType: c.large, minSize: 0, maxSize: 3}\n");
  Result<controllers::ClusterAutoscalerLoop> refused = loop_for(md + both, notes);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "spec.cloud.autoScalingGroups: Cluster Autoscaler runs with --cloud-provider=clusterapi "
            "(spec.clusterAutoscaler.args), whose node groups are the Cluster API objects among the files, not Auto "
            "Scaling groups: remove one or the other");
}

TEST(ClusterApi, WithoutClusterApiTheObjectsAreNotCasGroupsAndItSaysSo) {
  // The AWS set-up of the flags: the Auto Scaling group is CA's group, the MachineDeployment is not.
  std::string aws = capi_scenario("1m", "--nodes=0:3:ng");
  aws.replace(aws.find("--cloud-provider=clusterapi"), std::string("--cloud-provider=clusterapi").size(),
              "--cloud-provider=aws");
  aws.replace(aws.find("  cloud:\n"), 9,
              "  cloud:\n    autoScalingGroups:\n    - {name: ng, instanceType: c.large, minSize: 0, maxSize: 3}\n");
  std::vector<std::string> notes;
  Result<controllers::ClusterAutoscalerLoop> loop =
      loop_for(machine_deployment("md-a", 0, 3, 0, "0.10") + aws, notes);
  ASSERT_TRUE(loop.ok()) << loop.error().message;
  EXPECT_EQ(group_ids(*loop), std::vector<std::string>{"ng"});
  EXPECT_EQ(notes, std::vector<std::string>{"the files hold 1 Cluster API object (MachineDeployments, MachineSets, "
                                            "MachinePools); Cluster Autoscaler runs without "
                                            "--cloud-provider=clusterapi, so they are not its node groups"});
}

}  // namespace
}  // namespace scalewright::sim
