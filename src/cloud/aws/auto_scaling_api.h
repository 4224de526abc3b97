#pragma once
// The Auto Scaling calls Cluster Autoscaler's AWS provider makes (cloudprovider/aws/aws_wrapper.go,
// auto_scaling_groups.go), typed over AwsClient: describe groups by name (at most 100 names a call) or by tag filters,
// every page; set a group's desired capacity; terminate one of its instances; its failed scaling activities; and the
// instance type a group launches, found as CA finds it (launch configuration, else launch template, else the mixed
// instances policy's first override, else its launch template), with EC2's DescribeLaunchTemplateVersions.
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cloud/aws/aws_client.h"

namespace scalewright::cloud::aws {

// An instance of a group, as DescribeAutoScalingGroups lists it.
struct AsgInstance {
  std::string id;
  std::string zone;
  std::string instance_type;    // absent for instances launched by a launch configuration in older answers
  std::string lifecycle_state;  // "InService", "Pending", "Pending:Wait", "Terminating", "Terminated", ...
  std::string health_status;    // "Healthy", "Unhealthy"
};

// A launch template as a group names it: by id or name, and a version ("1", "$Latest", "$Default").
struct LaunchTemplateRef {
  std::string id;
  std::string name;
  std::string version;
};

struct MixedInstancesPolicy {
  LaunchTemplateRef launch_template;
  std::vector<std::string> override_types;  // the overrides' InstanceType, in order (requirements-only ones left out)
  bool has_requirements = false;            // an override chooses by InstanceRequirements
  // InstancesDistribution, with AWS's defaults when absent.
  std::int32_t on_demand_base_capacity = 0;
  std::int32_t on_demand_percentage_above_base = 100;
};

struct AutoScalingGroup {
  std::string name;
  std::int32_t min_size = 0, max_size = 0, desired_capacity = 0;
  std::vector<std::string> zones;  // AvailabilityZones, in the answer's order
  std::map<std::string, std::string> tags;
  std::vector<AsgInstance> instances;
  std::optional<LaunchTemplateRef> launch_template;
  std::optional<MixedInstancesPolicy> mixed_instances_policy;
  std::string launch_configuration_name;
};

struct ScalingActivity {
  std::string id;
  std::string status_code;  // "Successful", "Failed", "InProgress", ...
  std::string status_message;
  std::string description;
  std::chrono::system_clock::time_point start_time;  // to the second
};

class AutoScalingApi {
 public:
  // `ec2`: for launch templates' instance types; may be null when no group uses one. `max_records`: DescribeAuto-
  // ScalingGroups' page size (CA asks for 100, AWS's maximum; tests page with fewer).
  AutoScalingApi(const AwsClient& autoscaling, const AwsClient* ec2, std::int32_t max_records = 100);

  // The groups of these names that exist (a name with no group is left out, as AWS does), every page.
  AwsResult<std::vector<AutoScalingGroup>> describe_groups(const std::vector<std::string>& names) const;
  // The groups carrying every tag: a key with a value is a `tag:KEY` filter of that value, a key alone (value "") a
  // `tag-key` filter, as CA builds them from an asg:tag= spec.
  AwsResult<std::vector<AutoScalingGroup>> describe_groups_by_tags(
      const std::vector<std::pair<std::string, std::string>>& tags) const;
  // SetDesiredCapacity with HonorCooldown=false: the size changes now whatever the group's cooldown.
  std::optional<AwsError> set_desired_capacity(const std::string& group, std::int32_t desired) const;
  // TerminateInstanceInAutoScalingGroup with ShouldDecrementDesiredCapacity=true: no replacement is launched.
  std::optional<AwsError> terminate_instance(const std::string& instance_id) const;
  // The group's activities with StatusCode Failed that started at or after `since`, newest first (one page of the
  // newest 100, read until the first activity older than `since`, as CA reads them).
  AwsResult<std::vector<ScalingActivity>> failed_activities_since(const std::string& group,
                                                                  std::chrono::system_clock::time_point since) const;
  // The instance type of this version of a launch template (its LaunchTemplateData.InstanceType; "" when it sets
  // none).
  AwsResult<std::string> launch_template_instance_type(const LaunchTemplateRef& launch_template) const;
  // The instance type of a launch configuration.
  AwsResult<std::string> launch_configuration_instance_type(const std::string& name) const;
  // The type the group launches, as CA reads it: its launch configuration's, else its launch template's, else its
  // mixed instances policy's first override, else that policy's launch template's. "" when none tells.
  AwsResult<std::string> instance_type_of(const AutoScalingGroup& group) const;

 private:
  AwsResult<std::vector<AutoScalingGroup>> describe_pages(FormParams params) const;

  const AwsClient& autoscaling_;
  const AwsClient* ec2_;
  std::int32_t max_records_;
};

// A launch template as a log line and an error name it: "lt-0abc (version $Latest)", "my-template (version 3)".
std::string describe(const LaunchTemplateRef& launch_template);

}  // namespace scalewright::cloud::aws
