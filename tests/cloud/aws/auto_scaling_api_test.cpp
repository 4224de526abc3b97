// The Auto Scaling calls Cluster Autoscaler's AWS provider makes, over the wire against the AWS emulator (moto):
// groups described by tag filters and by names, every page; their bounds, zones, tags, instances, launch template
// and mixed instances policy read; the instance type a group launches found as CA finds it; and the groups turned
// into the node groups CA's discovery builds.
#include "cloud/aws/auto_scaling_api.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "auto_scaling_fixture.h"
#include "cloud/aws/asg_node_groups.h"
#include "cloud/aws/auto_scaling_groups.h"

namespace scalewright::cloud::aws {
namespace {

class AutoScalingApiTest : public AutoScalingFixture {
 protected:
  // demo-a and demo-spot carry the demo cluster's tags; other-cluster another cluster's; untagged none.
  void create_groups() {
    create_launch_template("demo-template", "m5.large");
    create_group({"demo-a",
                  1,
                  5,
                  1,
                  {"us-east-1a", "us-east-1b"},
                  {{kEnabledTag, "true"}, {kDemoTag, "owned"}},
                  "demo-template",
                  {},
                  false});
    create_group({"demo-spot",
                  0,
                  3,
                  0,
                  {"us-east-1b"},
                  {{kEnabledTag, "true"}, {kDemoTag, "owned"}},
                  "demo-template",
                  {"c5.large", "m5.large"},
                  true});
    create_group({"other-cluster",
                  0,
                  2,
                  0,
                  {"us-east-1a"},
                  {{kEnabledTag, "true"}, {"k8s.io/cluster-autoscaler/other", "owned"}},
                  "demo-template",
                  {},
                  false});
    create_group({"untagged", 0, 2, 0, {"us-east-1a"}, {}, "demo-template", {}, false});
  }

  static std::vector<std::string> names(const std::vector<AutoScalingGroup>& groups) {
    std::vector<std::string> out;
    for (const AutoScalingGroup& group : groups) out.push_back(group.name);
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(AutoScalingApiTest, TagFiltersFindTheTaggedGroupsWithTheirBoundsInstancesAndTemplates) {
  create_groups();
  AutoScalingApi api(*autoscaling_, ec2_.get());

  auto found = api.describe_groups_by_tags({{kEnabledTag, ""}, {kDemoTag, ""}});
  ASSERT_TRUE(found.ok()) << found.error().describe();
  ASSERT_EQ(names(*found), (std::vector<std::string>{"demo-a", "demo-spot"}));
  const AutoScalingGroup& a = found->front().name == "demo-a" ? found->front() : found->back();
  const AutoScalingGroup& spot = found->front().name == "demo-a" ? found->back() : found->front();

  EXPECT_EQ(a.min_size, 1);
  EXPECT_EQ(a.max_size, 5);
  EXPECT_EQ(a.desired_capacity, 1);
  EXPECT_EQ(a.zones, (std::vector<std::string>{"us-east-1a", "us-east-1b"}));
  EXPECT_EQ(a.tags, (std::map<std::string, std::string>{{kEnabledTag, "true"}, {kDemoTag, "owned"}}));
  ASSERT_EQ(a.instances.size(), 1u);  // moto launches the desired capacity at once
  EXPECT_TRUE(a.instances[0].id.starts_with("i-"));
  EXPECT_EQ(a.instances[0].instance_type, "m5.large");
  EXPECT_EQ(a.instances[0].lifecycle_state, "InService");
  EXPECT_EQ(a.instances[0].health_status, "Healthy");
  ASSERT_TRUE(a.launch_template.has_value());
  EXPECT_EQ(a.launch_template->name, "demo-template");
  EXPECT_EQ(a.launch_template->version, "$Latest");
  EXPECT_FALSE(a.mixed_instances_policy.has_value());

  ASSERT_TRUE(spot.mixed_instances_policy.has_value());
  EXPECT_EQ(spot.mixed_instances_policy->launch_template.name, "demo-template");
  EXPECT_EQ(spot.mixed_instances_policy->override_types, (std::vector<std::string>{"c5.large", "m5.large"}));
  EXPECT_EQ(spot.mixed_instances_policy->on_demand_percentage_above_base, 0);
  EXPECT_TRUE(spot.instances.empty());

  // A value narrows the filter to groups whose tag has it.
  auto owned = api.describe_groups_by_tags({{kEnabledTag, ""}, {kDemoTag, "owned"}});
  ASSERT_TRUE(owned.ok()) << owned.error().describe();
  EXPECT_EQ(names(*owned), (std::vector<std::string>{"demo-a", "demo-spot"}));
  auto shared = api.describe_groups_by_tags({{kDemoTag, "shared"}});
  ASSERT_TRUE(shared.ok()) << shared.error().describe();
  EXPECT_TRUE(shared->empty());
}

TEST_F(AutoScalingApiTest, DiscoveryBuildsCasGroupsWithTheTemplatesInstanceTypes) {
  create_groups();
  AutoScalingApi api(*autoscaling_, ec2_.get());
  auto found = api.describe_groups_by_tags({{kEnabledTag, ""}});
  ASSERT_TRUE(found.ok()) << found.error().describe();
  ASSERT_EQ(found->size(), 3u);  // other-cluster too: the spec below leaves it out

  // demo-a's type comes from its launch template (one DescribeLaunchTemplateVersions); demo-spot's from its
  // policy's first override, with no call; it launches spot only.
  auto groups = to_cloud_node_groups(api, *found);
  ASSERT_TRUE(groups.ok()) << groups.error().message;
  EXPECT_EQ(answers("DescribeLaunchTemplateVersions"), 2);  // demo-a and other-cluster
  nodegroups::AutoscalerOptions options;
  options.auto_discovery = {std::string("asg:tag=") + kEnabledTag + "," + kDemoTag};
  const Catalog types = catalog();
  auto discovered = discover_node_groups(*groups, options, types);
  ASSERT_TRUE(discovered.ok()) << discovered.error().message;
  ASSERT_EQ(discovered->size(), 2u);
  std::sort(discovered->begin(), discovered->end(),
            [](const nodegroups::NodeGroup& x, const nodegroups::NodeGroup& y) { return x.id < y.id; });
  const nodegroups::NodeGroup& a = (*discovered)[0];
  EXPECT_EQ(a.id, "demo-a");
  EXPECT_EQ(a.instance_type, "m5.large");
  EXPECT_EQ(a.min_size, 1);
  EXPECT_EQ(a.max_size, 5);
  EXPECT_EQ(a.target_size, 1);
  EXPECT_EQ(a.capacity_type, CapacityType::OnDemand);
  EXPECT_EQ(a.zones, (std::vector<std::string>{"us-east-1a", "us-east-1b"}));
  EXPECT_DOUBLE_EQ(a.price_per_hour, 0.096);  // m5.large on demand in us-east-1a, its first zone
  const nodegroups::NodeGroup& spot = (*discovered)[1];
  EXPECT_EQ(spot.id, "demo-spot");
  EXPECT_EQ(spot.instance_type, "c5.large");
  EXPECT_EQ(spot.max_size, 3);
  EXPECT_EQ(spot.capacity_type, CapacityType::Spot);
  EXPECT_DOUBLE_EQ(spot.price_per_hour, 0.031);  // c5.large spot in us-east-1b
}

TEST_F(AutoScalingApiTest, EveryPageIsReadByNamesAndByTags) {
  create_groups();
  AutoScalingApi api(*autoscaling_, ec2_.get(), /*max_records=*/1);

  auto by_names = api.describe_groups({"demo-a", "demo-spot", "untagged", "no-such-group"});
  ASSERT_TRUE(by_names.ok()) << by_names.error().describe();
  EXPECT_EQ(names(*by_names), (std::vector<std::string>{"demo-a", "demo-spot", "untagged"}));
  EXPECT_EQ(answers("DescribeAutoScalingGroups"), 3);  // one group a page

  auto by_tags = api.describe_groups_by_tags({{kEnabledTag, ""}});
  ASSERT_TRUE(by_tags.ok()) << by_tags.error().describe();
  EXPECT_EQ(names(*by_tags), (std::vector<std::string>{"demo-a", "demo-spot", "other-cluster"}));
  EXPECT_EQ(answers("DescribeAutoScalingGroups"), 6);
}

TEST_F(AutoScalingApiTest, AMissingLaunchTemplateIsTheServicesErrorNamingTheGroup) {
  AutoScalingApi api(*autoscaling_, ec2_.get());
  auto type = api.launch_template_instance_type({"", "no-such-template", "1"});
  ASSERT_FALSE(type.ok());
  EXPECT_EQ(type.error().code, "InvalidLaunchTemplateName.NotFoundException");

  AutoScalingGroup group;
  group.name = "ng-1";
  group.launch_template = LaunchTemplateRef{"", "no-such-template", "1"};
  auto groups = to_cloud_node_groups(api, {group});
  ASSERT_FALSE(groups.ok());
  EXPECT_EQ(groups.error().error_class, ErrorClass::NotFound);
  EXPECT_TRUE(groups.error().message.starts_with(
      "Auto Scaling group ng-1: its instance type: ec2 DescribeLaunchTemplateVersions: "
      "InvalidLaunchTemplateName.NotFoundException: "))
      << groups.error().message;
}

}  // namespace
}  // namespace scalewright::cloud::aws
