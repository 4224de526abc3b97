#include "cloud/aws/auto_scaling_groups.h"

#include <gtest/gtest.h>

#include "cloud/aws/instance_types.h"
#include "config/cluster_autoscaler_flags.h"
#include "units.h"

namespace scalewright::cloud::aws {
namespace {

using nodegroups::AutoscalerOptions;
using nodegroups::NodeGroup;

InstanceHardware hardware(std::int64_t vcpu, std::int64_t memory_mib, std::string arch = "amd64") {
  InstanceHardware hw;
  hw.category = "m";
  hw.vcpu = vcpu;
  hw.memory_mib = memory_mib;
  hw.arch = std::move(arch);
  hw.max_pods = 29;
  return hw;
}

Catalog catalog() {
  std::vector<Zone> zones{{"us-east-1a", "use1-az1"}, {"us-east-1b", "use1-az2"}};
  InstanceType m5 = aws::make_instance_type("m5.large", hardware(2, 8192), {}, "us-east-1");
  aws::add_offerings(m5, zones, 0.096, 0.035);
  InstanceType m6g = aws::make_instance_type("m6g.large", hardware(2, 8192, "arm64"), {}, "us-east-1");
  aws::add_offerings(m6g, zones, 0.077, 0.030);
  InstanceHardware gpu_hw = hardware(4, 16384);
  gpu_hw.gpu_count = 1;
  gpu_hw.gpu_manufacturer = "nvidia";
  gpu_hw.gpu_name = "t4";
  InstanceType g4 = aws::make_instance_type("g4dn.xlarge", gpu_hw, {}, "us-east-1");
  aws::add_offerings(g4, {zones[0]}, 0.526, 0.158);
  return Catalog::from_instance_types("us-east-1", zones, {m5, m6g, g4});
}

CloudNodeGroup asg(std::string name, std::string type, std::map<std::string, std::string> tags = {}) {
  CloudNodeGroup g;
  g.name = std::move(name);
  g.instance_type = std::move(type);
  g.zones = {"us-east-1b", "us-east-1a"};
  g.min_size = 1;
  g.max_size = 5;
  g.desired_capacity = 2;
  g.tags = std::move(tags);
  return g;
}

AutoscalerOptions flags(const std::vector<std::string>& args) {
  Result<AutoscalerOptions> o = config::parse_autoscaler_flags(args);
  EXPECT_TRUE(o.ok()) << o.error().message;
  return o.ok() ? *o : AutoscalerOptions{};
}

std::string label(const Node& node, std::string_view key) {
  const Symbol* value = node.meta.labels.find(Symbol(key));
  return std::string(value ? value->str() : "<absent>");
}

const std::map<std::string, std::string> kDiscoverable{{"k8s.io/cluster-autoscaler/enabled", "true"},
                                                       {"k8s.io/cluster-autoscaler/prod", "owned"}};

TEST(AutoScalingGroups, NodesFlagGroupsTakeTheirBoundsFromTheFlag) {
  Result<std::vector<NodeGroup>> groups = discover_node_groups({asg("ng-a", "m5.large"), asg("ng-b", "m5.large")},
                                                               flags({"--nodes=0:20:ng-b"}), catalog());
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  const NodeGroup& g = (*groups)[0];
  EXPECT_EQ(g.id, "ng-b");
  EXPECT_EQ(g.min_size, 0);   // the flag's, not the group's 1
  EXPECT_EQ(g.max_size, 20);  // not 5
  EXPECT_EQ(g.target_size, 2);
}

TEST(AutoScalingGroups, AutoDiscoveryByTagKeyTakesBoundsFromTheGroup) {
  std::vector<CloudNodeGroup> cloud_groups{
      asg("tagged", "m5.large", kDiscoverable),
      asg("untagged", "m5.large", {{"k8s.io/cluster-autoscaler/enabled", ""}})};
  Result<std::vector<NodeGroup>> groups = discover_node_groups(
      cloud_groups,
      flags({"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod"}),
      catalog());
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);  // "untagged" lacks the cluster's tag
  EXPECT_EQ((*groups)[0].id, "tagged");
  EXPECT_EQ((*groups)[0].min_size, 1);
  EXPECT_EQ((*groups)[0].max_size, 5);
  EXPECT_EQ((*groups)[0].tags, kDiscoverable);
}

TEST(AutoScalingGroups, AutoDiscoveryByKeyEqualsValue) {
  CloudNodeGroup web = asg("web", "m5.large", {{"team", "web"}});
  CloudNodeGroup db = asg("db", "m5.large", {{"team", "db"}});
  EXPECT_TRUE(matches_tag_discovery(web, *parse_tag_discovery("asg:tag=team=web")));
  EXPECT_FALSE(matches_tag_discovery(db, *parse_tag_discovery("asg:tag=team=web")));
  EXPECT_TRUE(matches_tag_discovery(db, *parse_tag_discovery("asg:tag=team")));
  // Two --node-group-auto-discovery flags: a group matching either is managed, each once.
  Result<std::vector<NodeGroup>> groups =
      discover_node_groups({web, db}, flags({"--node-group-auto-discovery=asg:tag=team=web",
                                             "--node-group-auto-discovery=asg:tag=team"}),
                           catalog());
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  ASSERT_EQ(groups->size(), 2u);
  EXPECT_EQ((*groups)[0].id, "web");
  EXPECT_EQ((*groups)[1].id, "db");
}

TEST(AutoScalingGroups, NodesFlagWinsOverAutoDiscoveryForTheSameGroup) {
  Result<std::vector<NodeGroup>> groups =
      discover_node_groups({asg("tagged", "m5.large", kDiscoverable)},
                           flags({"--nodes=2:8:tagged",
                                  "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled"}),
                           catalog());
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  ASSERT_EQ(groups->size(), 1u);
  EXPECT_EQ((*groups)[0].min_size, 2);
  EXPECT_EQ((*groups)[0].max_size, 8);
}

TEST(AutoScalingGroups, TemplateNodeCarriesEc2LabelsAndTheCatalogsAllocatable) {
  Catalog c = catalog();
  CloudNodeGroup g = asg("arm", "m6g.large", {{"eks:nodegroup-name", "arm-workers"}});
  g.capacity_type = "spot";
  Result<NodeGroup> built = build_node_group(g, 0, 3, c);
  ASSERT_TRUE(built.ok()) << built.error().message;
  const Node& node = built->template_node;
  EXPECT_EQ(node.meta.name, "template-node-for-arm");
  EXPECT_EQ(label(node, "node.kubernetes.io/instance-type"), "m6g.large");
  EXPECT_EQ(label(node, "kubernetes.io/arch"), "arm64");
  EXPECT_EQ(label(node, "kubernetes.io/os"), "linux");
  EXPECT_EQ(label(node, "topology.kubernetes.io/zone"), "us-east-1b");  // the group's first zone
  EXPECT_EQ(label(node, "topology.kubernetes.io/region"), "us-east-1");
  EXPECT_EQ(label(node, "eks.amazonaws.com/capacityType"), "SPOT");
  EXPECT_EQ(label(node, "eks.amazonaws.com/nodegroup"), "arm-workers");
  EXPECT_EQ(label(node, "kubernetes.io/hostname"), "template-node-for-arm");
  const InstanceType* type = c.find("m6g.large");
  EXPECT_EQ(node.capacity, type->capacity);
  EXPECT_EQ(node.allocatable, type->allocatable);
  EXPECT_EQ(node.allocatable.cpu_milli(), type->allocatable.cpu_milli());
  EXPECT_LT(node.allocatable.memory(), node.capacity.memory());  // the catalog holds back kube-reserved and more
  EXPECT_TRUE(node.is_ready());
  EXPECT_TRUE(node.taints.empty());
  EXPECT_DOUBLE_EQ(built->price_per_hour, 0.030);  // spot in us-east-1b
  EXPECT_EQ(built->zones, (std::vector<std::string>{"us-east-1b", "us-east-1a"}));
  EXPECT_FALSE(built->gpu);
}

TEST(AutoScalingGroups, NodeTemplateTagsGiveLabelsTaintsAndResourcesForScaleFromZero) {
  CloudNodeGroup g = asg("gpu", "g4dn.xlarge",
                           {{"k8s.io/cluster-autoscaler/node-template/label/workload", "ml"},
                            {"k8s.io/cluster-autoscaler/node-template/label/kubernetes.io/os", "bottlerocket"},
                            {"k8s.io/cluster-autoscaler/node-template/taint/nvidia.com/gpu", "present:NoSchedule"},
                            {"k8s.io/cluster-autoscaler/node-template/taint/dedicated", ":NoExecute"},
                            {"k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage", "100Gi"},
                            {"k8s.io/cluster-autoscaler/node-template/resources/example.com/dongle", "2"}});
  g.zones = {"us-east-1a"};
  g.min_size = 0;
  g.desired_capacity = 0;
  Result<NodeGroup> built = build_node_group(g, 0, 4, catalog());
  ASSERT_TRUE(built.ok()) << built.error().message;
  const Node& node = built->template_node;
  EXPECT_EQ(label(node, "workload"), "ml");
  EXPECT_EQ(label(node, "kubernetes.io/os"), "bottlerocket");  // a tag wins over the generic label
  ASSERT_EQ(node.taints.size(), 2u);
  // Tags are read in key order: dedicated, then nvidia.com/gpu.
  EXPECT_EQ(node.taints[0], (Taint{"dedicated", "", TaintEffect::NoExecute}));
  EXPECT_EQ(node.taints[1], (Taint{"nvidia.com/gpu", "present", TaintEffect::NoSchedule}));
  EXPECT_EQ(node.capacity.ephemeral_storage(), 100 * kGi);
  EXPECT_EQ(node.capacity.get(Symbol("example.com/dongle")), 2);
  EXPECT_EQ(node.allocatable.get(Symbol("example.com/dongle")), 2);
  EXPECT_EQ(node.capacity.get(Symbol("nvidia.com/gpu")), 1);
  EXPECT_TRUE(built->gpu);
  EXPECT_DOUBLE_EQ(built->price_per_hour, 0.526);
  EXPECT_EQ(built->target_size, 0);
}

TEST(AutoScalingGroups, AutoscalingOptionTagsOverrideTheFlagsForTheGroup) {
  const std::string prefix = "k8s.io/cluster-autoscaler/node-template/autoscaling-options/";
  Result<NodeGroup> built = build_node_group(asg("ng", "m5.large",
                                                 {{prefix + "scaledownutilizationthreshold", "0.3"},
                                                  {prefix + "scaledowngpuutilizationthreshold", "0.1"},
                                                  {prefix + "scaledownunneededtime", "30s"},
                                                  {prefix + "scaledownunreadytime", "1h2m"},
                                                  {prefix + "ignoredaemonsetsutilization", "true"},
                                                  // CA's AWS provider reads no provision time: passed over
                                                  {prefix + "maxnodeprovisiontime", "5m"},
                                                  {prefix + "somethingelse", "7"}}),
                                             1, 5, catalog());
  ASSERT_TRUE(built.ok()) << built.error().message;
  const nodegroups::GroupAutoscalingOptions& o = built->options;
  EXPECT_EQ(o.scale_down_utilization_threshold, 0.3);
  EXPECT_EQ(o.scale_down_gpu_utilization_threshold, 0.1);
  EXPECT_EQ(o.scale_down_unneeded_time, 30 * kSecond);
  EXPECT_EQ(o.scale_down_unready_time, kHour + 2 * kMinute);
  EXPECT_EQ(o.ignore_daemonsets_utilization, true);
  EXPECT_EQ(o.max_node_provision_time, std::nullopt);
  EXPECT_EQ(o.max_node_startup_time, std::nullopt);
  // The tags stay the group's tags too; a group without any keeps every flag.
  EXPECT_EQ(built->tags.size(), 7u);
  Result<NodeGroup> plain = build_node_group(asg("plain", "m5.large"), 1, 5, catalog());
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_TRUE(plain->options.empty());
}

TEST(AutoScalingGroups, ErrorsNameTheGroupAndTheTag) {
  Catalog c = catalog();
  auto error = [&](CloudNodeGroup g) {
    Result<NodeGroup> built = build_node_group(g, 0, 3, c);
    EXPECT_FALSE(built.ok());
    return built.ok() ? std::string() : built.error().message;
  };
  EXPECT_EQ(error(asg("ng", "m5.large", {{"k8s.io/cluster-autoscaler/node-template/taint/dedicated", "db"}})),
            "Auto Scaling group ng: tag k8s.io/cluster-autoscaler/node-template/taint/dedicated: \"db\" is not "
            "value:Effect");
  EXPECT_EQ(error(asg("ng", "m5.large", {{"k8s.io/cluster-autoscaler/node-template/taint/dedicated", "db:Never"}})),
            "Auto Scaling group ng: tag k8s.io/cluster-autoscaler/node-template/taint/dedicated: unknown taint "
            "effect \"Never\" (expected NoSchedule, PreferNoSchedule, NoExecute)");
  const std::string storage_tag = "k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage";
  std::string storage_error = error(asg("ng", "m5.large", {{storage_tag, "lots"}}));
  EXPECT_EQ(storage_error, "Auto Scaling group ng: tag " + storage_tag + ": invalid quantity \"lots\"");
  // An autoscaling option that does not parse refuses the group (CA would log it and keep the flag's value).
  const std::string options_tag = "k8s.io/cluster-autoscaler/node-template/autoscaling-options/";
  EXPECT_EQ(error(asg("ng", "m5.large", {{options_tag + "scaledownutilizationthreshold", "half"}})),
            "Auto Scaling group ng: tag " + options_tag + "scaledownutilizationthreshold: \"half\": not a number");
  EXPECT_EQ(error(asg("ng", "m5.large", {{options_tag + "scaledownutilizationthreshold", "1.5"}})),
            "Auto Scaling group ng: tag " + options_tag + "scaledownutilizationthreshold: \"1.5\": not between 0 "
            "and 1");
  // Taken as written, not lowercased as Cluster API's are: "10M" is no duration Go reads.
  EXPECT_EQ(error(asg("ng", "m5.large", {{options_tag + "scaledownunneededtime", "10M"}})),
            "Auto Scaling group ng: tag " + options_tag + "scaledownunneededtime: \"10M\": not a duration "
            "(\"10m\", \"1h30m\")");
  EXPECT_EQ(error(asg("ng", "m5.large", {{options_tag + "scaledownunreadytime", "-1m"}})),
            "Auto Scaling group ng: tag " + options_tag + "scaledownunreadytime: \"-1m\": negative");
  EXPECT_EQ(error(asg("ng", "m5.large", {{options_tag + "ignoredaemonsetsutilization", "yes"}})),
            "Auto Scaling group ng: tag " + options_tag + "ignoredaemonsetsutilization: \"yes\": not true or false");
  // Through discovery too: CA's flags cannot start on such a group.
  Result<std::vector<NodeGroup>> refused = discover_node_groups(
      {asg("ng", "m5.large", {{options_tag + "scaledownunneededtime", "soon"}})}, flags({"--nodes=1:3:ng"}), c);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "Auto Scaling group ng: tag " + options_tag +
                                         "scaledownunneededtime: \"soon\": not a duration (\"10m\", \"1h30m\")");
  EXPECT_EQ(error(asg("ng", "m9.huge")), "Auto Scaling group ng: instance type \"m9.huge\" is not in the catalog of "
                                         "us-east-1");
  CloudNodeGroup elsewhere = asg("ng", "m5.large");
  elsewhere.zones = {"eu-west-1a"};
  EXPECT_EQ(error(elsewhere), "Auto Scaling group ng: zone \"eu-west-1a\" is not a zone of us-east-1");

  Result<std::vector<NodeGroup>> missing = discover_node_groups({}, flags({"--nodes=1:3:ng-x"}), c);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().message, "--nodes=1:3:ng-x: no Auto Scaling group named ng-x");
}

TEST(AutoScalingGroups, AnAutoDiscoverySpecThatIsNotAsgTagsIsRefusedNamingIt) {
  auto error = [](const std::string& spec) {
    Result<std::vector<NodeGroup>> groups =
        discover_node_groups({}, flags({"--node-group-auto-discovery=" + spec}), catalog());
    EXPECT_FALSE(groups.ok());
    return groups.ok() ? std::string() : groups.error().message;
  };
  EXPECT_EQ(error("clusterapi:namespace=default"),
            "--node-group-auto-discovery=\"clusterapi:namespace=default\": expected asg:tag=KEY[=VALUE],... (AWS "
            "Auto Scaling group tags)");
  EXPECT_EQ(error("asg:tag=team,=web"), "--node-group-auto-discovery=\"asg:tag=team,=web\": a tag key is empty");
}

TEST(AutoScalingGroups, EksNodeGroupNamesDoNotMakeTwoGroupsDifferentForBalancing) {
  // Two EKS managed node groups of one shape in two zones: their nodes' eks.amazonaws.com/nodegroup labels differ,
  // which CA's AWS comparator ignores (and the basic comparator alone does not).
  CloudNodeGroup a = asg("web-a", "m5.large", {{"eks:nodegroup-name", "web-a"}});
  CloudNodeGroup b = asg("web-b", "m5.large", {{"eks:nodegroup-name", "web-b"}});
  a.zones = {"us-east-1a"};
  b.zones = {"us-east-1b"};
  Result<NodeGroup> built_a = build_node_group(a, 0, 3, catalog());
  Result<NodeGroup> built_b = build_node_group(b, 0, 3, catalog());
  ASSERT_TRUE(built_a.ok() && built_b.ok());
  EXPECT_FALSE(nodegroups::similar_node_groups(*built_a, *built_b));
  EXPECT_TRUE(nodegroups::similar_node_groups(*built_a, *built_b, balancing_ignored_labels()));
}

TEST(AutoScalingGroups, GroupWithoutZonesSpansItsTypesZones) {
  CloudNodeGroup g = asg("ng", "m5.large");
  g.zones.clear();
  Result<NodeGroup> built = build_node_group(g, 0, 3, catalog());
  ASSERT_TRUE(built.ok()) << built.error().message;
  EXPECT_EQ(built->zones, (std::vector<std::string>{"us-east-1a", "us-east-1b"}));
  EXPECT_DOUBLE_EQ(built->price_per_hour, 0.096);
}

}  // namespace
}  // namespace scalewright::cloud::aws
