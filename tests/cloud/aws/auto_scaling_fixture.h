#pragma once
// What the Auto Scaling tests share: an Auto Scaling and an EC2 client pointed at the emulator (emulator_fixture.h),
// and groups made in it as a user makes them
// (CreateLaunchTemplate, CreateAutoScalingGroup with CA's tags), sent with our own client.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cloud/aws/aws_client.h"
#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"
#include "emulator_fixture.h"

namespace scalewright::cloud::aws {

inline constexpr const char* kEnabledTag = "k8s.io/cluster-autoscaler/enabled";
inline constexpr const char* kDemoTag = "k8s.io/cluster-autoscaler/demo";

struct GroupSpec {
  std::string name;
  std::int32_t min_size = 0, max_size = 0, desired = 0;
  std::vector<std::string> zones{"us-east-1a", "us-east-1b"};
  std::map<std::string, std::string> tags;
  std::string launch_template;              // LaunchTemplate.LaunchTemplateName, version $Latest
  std::vector<std::string> override_types;  // a MixedInstancesPolicy over `launch_template` instead
  bool spot = false;                        // the policy's OnDemandPercentageAboveBaseCapacity 0
};

class AutoScalingFixture : public EmulatorTest {
 protected:
  void SetUp() override {
    EmulatorTest::SetUp();
    if (emulator_ == nullptr || HasFatalFailure() || IsSkipped()) return;
    autoscaling_ = client(kAutoScalingProtocol, "us-east-1");
    ec2_ = client(kEc2Protocol, "us-east-1");
  }

  void create_launch_template(const std::string& name, const std::string& instance_type) {
    FormParams params;
    params.add("LaunchTemplateName", name).add("LaunchTemplateData.InstanceType", instance_type);
    params.add("LaunchTemplateData.ImageId", "ami-12c6146b");
    auto created = ec2_->query("CreateLaunchTemplate", params);
    ASSERT_TRUE(created.ok()) << created.error().describe();
  }

  void create_group(const GroupSpec& spec) {
    FormParams params;
    params.add("AutoScalingGroupName", spec.name)
        .add("MinSize", std::to_string(spec.min_size))
        .add("MaxSize", std::to_string(spec.max_size))
        .add("DesiredCapacity", std::to_string(spec.desired));
    if (spec.override_types.empty()) {
      params.add("LaunchTemplate.LaunchTemplateName", spec.launch_template).add("LaunchTemplate.Version", "$Latest");
    } else {
      const std::string policy = "MixedInstancesPolicy.";
      params.add(policy + "LaunchTemplate.LaunchTemplateSpecification.LaunchTemplateName", spec.launch_template);
      params.add(policy + "LaunchTemplate.LaunchTemplateSpecification.Version", "$Latest");
      for (std::size_t i = 0; i < spec.override_types.size(); ++i) {
        params.add(policy + "LaunchTemplate.Overrides.member." + std::to_string(i + 1) + ".InstanceType",
                   spec.override_types[i]);
      }
      params.add(policy + "InstancesDistribution.OnDemandPercentageAboveBaseCapacity", spec.spot ? "0" : "100");
    }
    params.add_list("AvailabilityZones.member", spec.zones);
    int n = 0;
    for (const auto& [key, value] : spec.tags) {
      const std::string tag = "Tags.member." + std::to_string(++n) + ".";
      params.add(tag + "Key", key).add(tag + "Value", value).add(tag + "PropagateAtLaunch", "true");
    }
    auto created = autoscaling_->query("CreateAutoScalingGroup", params);
    ASSERT_TRUE(created.ok()) << created.error().describe();
  }

  // m5.large and c5.large in two zones of us-east-1, priced as the catalog data has them.
  static Catalog catalog() {
    std::vector<Zone> zones{{"us-east-1a", "use1-az1"}, {"us-east-1b", "use1-az2"}};
    InstanceHardware hardware;
    hardware.category = "m";
    hardware.vcpu = 2;
    hardware.memory_mib = 8192;
    hardware.arch = "amd64";
    hardware.max_pods = 29;
    InstanceType m5 = make_instance_type("m5.large", hardware, {}, "us-east-1");
    add_offerings(m5, zones, 0.096, 0.035);
    hardware.category = "c";
    hardware.memory_mib = 4096;
    InstanceType c5 = make_instance_type("c5.large", hardware, {}, "us-east-1");
    add_offerings(c5, zones, 0.085, 0.031);
    return Catalog::from_instance_types("us-east-1", zones, {m5, c5});
  }

  std::unique_ptr<AwsClient> autoscaling_;
  std::unique_ptr<AwsClient> ec2_;
};

}  // namespace scalewright::cloud::aws
