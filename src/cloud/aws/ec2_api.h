#pragma once
// The EC2 calls Karpenter's AWS provider makes, typed over AwsClient (research: aws-provider.md §1): what a node
// class resolves (subnets, security groups, images), the launch templates named by a hash of what they hold, one
// CreateFleet of type instant per launch, and the instances found, tagged and terminated. Lists are read through
// their NextToken pages; each call's parameters are named as EC2's wire protocol names them (Filter.N.Value.M,
// TagSpecification.N.Tag.M, LaunchTemplateConfigs.N.Overrides.M).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cloud/aws/aws_client.h"
#include "cloud/aws/ec2nodeclass.h"

namespace scalewright::cloud::aws {

using Tags = std::vector<std::pair<std::string, std::string>>;

// A filter of a Describe call: tag:KEY with values, tag-key, subnet-id, instance-state-name, ...
struct Ec2Filter {
  std::string name;
  std::vector<std::string> values;
};

struct Ec2Subnet {
  std::string id;
  std::string zone;     // us-west-2a
  std::string zone_id;  // usw2-az1
  std::int64_t available_ips = 0;
  Tags tags;
};

struct Ec2SecurityGroup {
  std::string id;
  std::string name;
};

struct Ec2Image {
  std::string id;
  std::string name;
  std::string architecture;   // x86_64, arm64
  std::string creation_date;  // ISO 8601: the newest wins among images of one architecture
  bool deprecated = false;
};

// What a launch template holds, from the node class and the AMI it resolved to: two launches that would make the
// same template share it (its name is a hash of this).
struct LaunchTemplateData {
  std::string image_id;
  std::string instance_profile;
  std::vector<std::string> security_group_ids;
  std::string user_data;  // as the node runs it; base64-encoded on the wire
  MetadataOptions metadata_options;
  std::vector<BlockDeviceMapping> block_device_mappings;
  std::optional<bool> associate_public_ip_address;
  bool detailed_monitoring = false;
  // Its instances are spot: what it tags at launch includes their spot requests (a template per capacity type).
  bool spot = false;
};

// The resources a launch from the template makes that the template itself tags, with the launch's tags, so that an
// IAM policy can require the cluster's tags on them: the network interfaces, and the spot requests of spot instances.
std::vector<std::string> tagged_at_launch(const LaunchTemplateData& data);

// Standard base64 (RFC 4648, padded), as EC2 takes user data and EKS gives a cluster's certificate authority.
std::string base64(std::string_view data);

// "karpenter.k8s.aws/<hash of the data and the tags>": identical requests name one template.
std::string launch_template_name(const LaunchTemplateData& data, const Tags& tags);

struct FleetOverride {
  std::string instance_type;
  std::string subnet_id;
  std::string zone;
  std::string image_id;
  double priority = 0;  // its price: the lower, the earlier EC2 tries it (lowest-price)
};

// The overrides launched from one launch template (one per AMI the overrides' instance types need).
struct FleetTemplateConfig {
  std::string launch_template_name;
  std::vector<FleetOverride> overrides;
};

struct FleetRequest {
  std::string capacity_type;  // "spot" or "on-demand"
  std::vector<FleetTemplateConfig> configs;
  std::int32_t count = 1;
  Tags tags;  // on the instances, their volumes and the fleet
};

// One override EC2 could not launch from, and why (InsufficientInstanceCapacity, ...).
struct FleetError {
  std::string instance_type;
  std::string zone;
  std::string subnet_id;
  std::string code;
  std::string message;
};

struct FleetInstance {
  std::string instance_id;
  std::string instance_type;
  std::string zone;       // the override's
  std::string subnet_id;  // the override's
  std::string lifecycle;  // "spot" or "on-demand"
};

struct FleetAnswer {
  std::vector<FleetInstance> instances;
  std::vector<FleetError> errors;
};

struct Ec2Instance {
  std::string id;
  std::string instance_type;
  std::string zone;
  std::string state;  // pending, running, shutting-down, terminated, stopping, stopped
  std::string private_dns_name;
  std::string image_id;
  std::string subnet_id;
  std::vector<std::string> security_group_ids;
  bool spot = false;
  std::string launch_time;  // ISO 8601
  Tags tags;

  std::string tag(std::string_view key) const;
};

// One instance type as DescribeInstanceTypes describes it: the facts the catalog reads, as EC2 spells them.
struct Ec2InstanceTypeInfo {
  struct Device {              // a GPU, an inference accelerator or a Neuron device
    std::string name;          // "T4", "Inferentia2"
    std::string manufacturer;  // "NVIDIA", "AWS" (empty for Neuron devices, which EC2 gives none)
    std::int64_t count = 0;
    std::optional<std::int64_t> memory_mib;  // per device
  };
  std::string name;
  std::int64_t vcpu = 0;
  std::int64_t memory_mib = 0;
  std::vector<std::string> architectures;  // x86_64, arm64
  std::string processor_manufacturer;      // Intel, AMD, AWS
  std::string hypervisor;                  // nitro, xen; empty for bare metal
  bool bare_metal = false;
  bool burstable = false;
  std::vector<std::string> usage_classes;  // on-demand, spot
  std::vector<Device> gpus;
  std::vector<Device> inference_accelerators;
  std::vector<Device> neuron_devices;
  std::optional<std::int64_t> instance_storage_gb;  // TotalSizeInGB, when the storage is NVMe
  std::int64_t efa_interfaces = 0;                  // when EFA is supported
  // The default network card's: how many ENIs it takes and its baseline bandwidth; IPv4 addresses per ENI.
  std::int64_t default_card_enis = 0;
  std::int64_t ipv4_per_eni = 0;
  std::optional<double> default_card_baseline_gbps;
};

struct Ec2TypeOffering {
  std::string instance_type;
  std::string zone;  // the zone's name, as this account names it
};

struct Ec2Zone {
  std::string name;  // us-east-1a
  std::string id;    // use1-az6
};

struct Ec2SpotPrice {
  std::string instance_type;
  std::string zone;
  double price = 0;       // USD per hour
  std::string timestamp;  // ISO 8601, UTC
};

class Ec2Api {
 public:
  explicit Ec2Api(const AwsClient& client) : client_(client) {}

  AwsResult<std::vector<Ec2Subnet>> describe_subnets(const std::vector<Ec2Filter>& filters) const;
  AwsResult<std::vector<Ec2SecurityGroup>> describe_security_groups(const std::vector<Ec2Filter>& filters) const;
  // Images of `owners` (none: any owner) matching the filters, available ones only, deprecated ones included.
  AwsResult<std::vector<Ec2Image>> describe_images(const std::vector<Ec2Filter>& filters,
                                                   const std::vector<std::string>& owners) const;
  // Whether a launch template of that name exists.
  AwsResult<bool> launch_template_exists(const std::string& name) const;
  // Creates it, tagged; one that exists already (another replica made it) is not an error.
  AwsResult<bool> create_launch_template(const std::string& name, const LaunchTemplateData& data,
                                         const Tags& tags) const;
  AwsResult<bool> delete_launch_template(const std::string& name) const;
  // Templates with these tags (this cluster's), by name.
  AwsResult<std::vector<std::string>> launch_templates_tagged(const std::vector<Ec2Filter>& filters) const;
  AwsResult<FleetAnswer> create_fleet(const FleetRequest& request) const;
  AwsResult<std::vector<Ec2Instance>> describe_instances(const std::vector<Ec2Filter>& filters) const;
  AwsResult<bool> terminate_instances(const std::vector<std::string>& instance_ids) const;
  AwsResult<bool> create_tags(const std::vector<std::string>& resource_ids, const Tags& tags) const;

  // The catalog's calls (account_catalog.h). Types Karpenter can run (hvm; x86_64 or arm64), all or these `names`.
  AwsResult<std::vector<Ec2InstanceTypeInfo>> describe_instance_types(const std::vector<std::string>& names) const;
  // The zones each type is offered in, by zone name; all types, or these `names`.
  AwsResult<std::vector<Ec2TypeOffering>> describe_instance_type_offerings(const std::vector<std::string>& names) const;
  // The region's availability zones the account can use (opted in and available), named as this account names them.
  AwsResult<std::vector<Ec2Zone>> describe_availability_zones() const;
  // The spot prices of Linux/UNIX in effect at `start_time` (ISO 8601), per type and zone; all types, or `names`.
  AwsResult<std::vector<Ec2SpotPrice>> describe_spot_price_history(const std::vector<std::string>& names,
                                                                   const std::string& start_time) const;

 private:
  const AwsClient& client_;
};

// The AMI id an SSM parameter holds (the public /aws/service/... parameters the AMI aliases name).
AwsResult<std::string> ssm_parameter(const AwsClient& ssm, const std::string& name);

// The on-demand Linux prices (USD per hour) of `region`'s instance types, from the Price List API as Karpenter's AWS
// provider reads them (pricing:GetProducts, shared-tenancy instances and bare metal, every page). `pricing` is a
// client of the endpoint that serves the region (pricing_region in endpoints.h).
AwsResult<std::map<std::string, double, std::less<>>> on_demand_prices(const AwsClient& pricing,
                                                                       const std::string& region);

}  // namespace scalewright::cloud::aws
