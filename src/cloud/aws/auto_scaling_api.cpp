#include "cloud/aws/auto_scaling_api.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "manifest/meta_decoder.h"

namespace scalewright::cloud::aws {

namespace {

// AWS takes at most 100 names in one DescribeAutoScalingGroups (CA's maxAsgNamesPerDescribe).
constexpr std::size_t kNamesPerDescribe = 100;

std::int32_t int_of(const pugi::xml_node& node, const char* name, std::int32_t absent = 0) {
  const std::string text = child_text(node, name);
  std::int32_t value = absent;
  if (!text.empty()) std::from_chars(text.data(), text.data() + text.size(), value);
  return value;
}

LaunchTemplateRef read_launch_template(const pugi::xml_node& node) {
  return {child_text(node, "LaunchTemplateId"), child_text(node, "LaunchTemplateName"), child_text(node, "Version")};
}

AutoScalingGroup read_group(const pugi::xml_node& node) {
  AutoScalingGroup group;
  group.name = child_text(node, "AutoScalingGroupName");
  group.min_size = int_of(node, "MinSize");
  group.max_size = int_of(node, "MaxSize");
  group.desired_capacity = int_of(node, "DesiredCapacity");
  for (const pugi::xml_node& zone : list_items(node, "AvailabilityZones")) group.zones.push_back(zone.text().get());
  for (const pugi::xml_node& tag : list_items(node, "Tags")) {
    group.tags[child_text(tag, "Key")] = child_text(tag, "Value");
  }
  for (const pugi::xml_node& item : list_items(node, "Instances")) {
    group.instances.push_back({child_text(item, "InstanceId"), child_text(item, "AvailabilityZone"),
                               child_text(item, "InstanceType"), child_text(item, "LifecycleState"),
                               child_text(item, "HealthStatus")});
  }
  if (pugi::xml_node template_node = node.child("LaunchTemplate")) {
    group.launch_template = read_launch_template(template_node);
  }
  if (pugi::xml_node policy_node = node.child("MixedInstancesPolicy")) {
    MixedInstancesPolicy policy;
    pugi::xml_node templates = policy_node.child("LaunchTemplate");
    policy.launch_template = read_launch_template(templates.child("LaunchTemplateSpecification"));
    for (const pugi::xml_node& item : list_items(templates, "Overrides")) {
      if (std::string type = child_text(item, "InstanceType"); !type.empty()) {
        policy.override_types.push_back(std::move(type));
      } else if (item.child("InstanceRequirements")) {
        policy.has_requirements = true;
      }
    }
    pugi::xml_node distribution = policy_node.child("InstancesDistribution");
    policy.on_demand_base_capacity = int_of(distribution, "OnDemandBaseCapacity", 0);
    policy.on_demand_percentage_above_base = int_of(distribution, "OnDemandPercentageAboveBaseCapacity", 100);
    group.mixed_instances_policy = std::move(policy);
  }
  group.launch_configuration_name = child_text(node, "LaunchConfigurationName");
  return group;
}

}  // namespace

std::string describe(const LaunchTemplateRef& launch_template) {
  return fmt::format("{} (version {})", launch_template.id.empty() ? launch_template.name : launch_template.id,
                     launch_template.version.empty() ? "$Default" : launch_template.version);
}

AutoScalingApi::AutoScalingApi(const AwsClient& autoscaling, const AwsClient* ec2, std::int32_t max_records)
    : autoscaling_(autoscaling), ec2_(ec2), max_records_(max_records) {}

AwsResult<std::vector<AutoScalingGroup>> AutoScalingApi::describe_pages(FormParams params) const {
  std::vector<AutoScalingGroup> groups;
  std::string token;
  do {
    FormParams page = params;
    page.add("MaxRecords", std::to_string(max_records_));
    if (!token.empty()) page.add("NextToken", token);
    AwsResult<XmlAnswer> answer = autoscaling_.query("DescribeAutoScalingGroups", page);
    if (!answer) return answer.error();
    for (const pugi::xml_node& node : list_items(answer->result, "AutoScalingGroups")) {
      groups.push_back(read_group(node));
    }
    token = child_text(answer->result, "NextToken");
  } while (!token.empty());
  return groups;
}

AwsResult<std::vector<AutoScalingGroup>> AutoScalingApi::describe_groups(const std::vector<std::string>& names) const {
  std::vector<AutoScalingGroup> groups;
  for (std::size_t first = 0; first < names.size(); first += kNamesPerDescribe) {
    const std::size_t last = std::min(names.size(), first + kNamesPerDescribe);
    FormParams params;
    params.add_list("AutoScalingGroupNames.member", {names.begin() + static_cast<std::ptrdiff_t>(first),
                                                     names.begin() + static_cast<std::ptrdiff_t>(last)});
    AwsResult<std::vector<AutoScalingGroup>> described = describe_pages(std::move(params));
    if (!described) return described.error();
    for (AutoScalingGroup& group : *described) groups.push_back(std::move(group));
  }
  return groups;
}

AwsResult<std::vector<AutoScalingGroup>> AutoScalingApi::describe_groups_by_tags(
    const std::vector<std::pair<std::string, std::string>>& tags) const {
  if (tags.empty()) return std::vector<AutoScalingGroup>{};  // no filter would describe every group of the account
  FormParams params;
  for (const auto& [key, value] : tags) {
    if (value.empty()) {
      params.add_filter(Protocol::Query, "tag-key", {key});
    } else {
      params.add_filter(Protocol::Query, "tag:" + key, {value});
    }
  }
  return describe_pages(std::move(params));
}

std::optional<AwsError> AutoScalingApi::set_desired_capacity(const std::string& group, std::int32_t desired) const {
  FormParams params;
  params.add("AutoScalingGroupName", group).add("DesiredCapacity", std::to_string(desired));
  params.add("HonorCooldown", "false");
  AwsResult<XmlAnswer> answer = autoscaling_.query("SetDesiredCapacity", params);
  if (!answer) return answer.error();
  return std::nullopt;
}

std::optional<AwsError> AutoScalingApi::terminate_instance(const std::string& instance_id) const {
  FormParams params;
  params.add("InstanceId", instance_id).add("ShouldDecrementDesiredCapacity", "true");
  AwsResult<XmlAnswer> answer = autoscaling_.query("TerminateInstanceInAutoScalingGroup", params);
  if (!answer) return answer.error();
  return std::nullopt;
}

AwsResult<std::vector<ScalingActivity>> AutoScalingApi::failed_activities_since(
    const std::string& group, std::chrono::system_clock::time_point since) const {
  FormParams params;
  params.add("AutoScalingGroupName", group).add("MaxRecords", "100");
  AwsResult<XmlAnswer> answer = autoscaling_.query("DescribeScalingActivities", params);
  if (!answer) return answer.error();
  // Compared to the second: the answer's times carry fractions that parse_rfc3339 drops.
  const auto since_second = std::chrono::floor<std::chrono::seconds>(since);
  std::vector<ScalingActivity> failed;
  for (const pugi::xml_node& node : list_items(answer->result, "Activities")) {
    ScalingActivity activity{child_text(node, "ActivityId"),
                             child_text(node, "StatusCode"),
                             child_text(node, "StatusMessage"),
                             child_text(node, "Description"),
                             {}};
    if (std::optional<std::int64_t> start = manifest::parse_rfc3339(child_text(node, "StartTime"))) {
      activity.start_time = std::chrono::system_clock::time_point(std::chrono::seconds(*start));
    }
    // Newest first: the first one older than `since` ends the ones that count.
    if (activity.start_time < since_second) break;
    if (activity.status_code == "Failed") failed.push_back(std::move(activity));
  }
  return failed;
}

AwsResult<std::string> AutoScalingApi::launch_template_instance_type(const LaunchTemplateRef& launch_template) const {
  if (ec2_ == nullptr) {
    AwsError error;
    error.service = "ec2";
    error.action = "DescribeLaunchTemplateVersions";
    error.message = "no EC2 client to read launch template " + describe(launch_template);
    return error;
  }
  FormParams params;
  if (!launch_template.id.empty()) {
    params.add("LaunchTemplateId", launch_template.id);
  } else {
    params.add("LaunchTemplateName", launch_template.name);
  }
  // A group that names no version launches the default one (CA: a missing version means $Default).
  params.add_list("LaunchTemplateVersion", {launch_template.version.empty() ? "$Default" : launch_template.version});
  AwsResult<XmlAnswer> answer = ec2_->query("DescribeLaunchTemplateVersions", params);
  if (!answer) return answer.error();
  for (const pugi::xml_node& item : list_items(answer->result, "launchTemplateVersionSet")) {
    return child_text(item.child("launchTemplateData"), "instanceType");
  }
  return std::string();
}

AwsResult<std::string> AutoScalingApi::launch_configuration_instance_type(const std::string& name) const {
  FormParams params;
  params.add_list("LaunchConfigurationNames.member", {name});
  AwsResult<XmlAnswer> answer = autoscaling_.query("DescribeLaunchConfigurations", params);
  if (!answer) return answer.error();
  for (const pugi::xml_node& item : list_items(answer->result, "LaunchConfigurations")) {
    return child_text(item, "InstanceType");
  }
  return std::string();
}

AwsResult<std::string> AutoScalingApi::instance_type_of(const AutoScalingGroup& group) const {
  if (!group.launch_configuration_name.empty())
    return launch_configuration_instance_type(group.launch_configuration_name);
  if (group.launch_template) return launch_template_instance_type(*group.launch_template);
  if (const auto& policy = group.mixed_instances_policy) {
    if (!policy->override_types.empty()) return policy->override_types.front();
    return launch_template_instance_type(policy->launch_template);
  }
  return std::string();
}

}  // namespace scalewright::cloud::aws
