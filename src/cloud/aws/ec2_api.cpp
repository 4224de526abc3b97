#include "cloud/aws/ec2_api.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <nlohmann/json.hpp>

namespace scalewright::cloud::aws {
namespace {

std::string base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(data.data()),
                                      static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(std::max(written, 0)));
  return out;
}

std::string boolean(bool value) { return value ? "true" : "false"; }

void add_filters(FormParams& params, const std::vector<Ec2Filter>& filters) {
  for (const Ec2Filter& filter : filters) params.add_filter(Protocol::Ec2, filter.name, filter.values);
}

void add_tag_specifications(FormParams& params, const std::string& prefix, const std::vector<std::string>& types,
                            const Tags& tags) {
  if (tags.empty()) return;
  for (std::size_t t = 0; t < types.size(); ++t) {
    const std::string spec = fmt::format("{}.{}", prefix, t + 1);
    params.add(spec + ".ResourceType", types[t]);
    for (std::size_t i = 0; i < tags.size(); ++i) {
      params.add(fmt::format("{}.Tag.{}.Key", spec, i + 1), tags[i].first);
      params.add(fmt::format("{}.Tag.{}.Value", spec, i + 1), tags[i].second);
    }
  }
}

Tags read_tags(const pugi::xml_node& node) {
  Tags tags;
  for (const pugi::xml_node& tag : list_items(node, "tagSet")) {
    tags.emplace_back(child_text(tag, "key"), child_text(tag, "value"));
  }
  return tags;
}

// Every page of a paginated Describe call: `read` takes each answer's items; NextToken carries on.
AwsResult<bool> each_page(const AwsClient& client, std::string_view action, FormParams params,
                          const std::function<void(const pugi::xml_node& result)>& read) {
  std::string token;
  do {
    FormParams page = params;
    if (!token.empty()) page.add("NextToken", token);
    AwsResult<XmlAnswer> answer = client.query(action, page);
    if (!answer) return answer.error();
    read(answer->result);
    token = child_text(answer->result, "nextToken");
  } while (!token.empty());
  return true;
}

// The override an answer's item was launched from or refused for.
void read_overrides(const pugi::xml_node& item, std::string& instance_type, std::string& zone,
                    std::string& subnet_id) {
  const pugi::xml_node overrides = item.child("launchTemplateAndOverrides").child("overrides");
  instance_type = child_text(overrides, "instanceType");
  zone = child_text(overrides, "availabilityZone");
  subnet_id = child_text(overrides, "subnetId");
}

}  // namespace

std::string Ec2Instance::tag(std::string_view key) const {
  for (const auto& [k, v] : tags) {
    if (k == key) return v;
  }
  return "";
}

std::string launch_template_name(const LaunchTemplateData& data, const Tags& tags) {
  nlohmann::json canonical = {
      {"image", data.image_id},
      {"profile", data.instance_profile},
      {"groups", data.security_group_ids},
      {"userData", data.user_data},
      {"metadata",
       {data.metadata_options.http_endpoint, data.metadata_options.http_protocol_ipv6,
        data.metadata_options.http_put_response_hop_limit, data.metadata_options.http_tokens}},
      {"publicIp", data.associate_public_ip_address ? nlohmann::json(*data.associate_public_ip_address) : nullptr},
      {"monitoring", data.detailed_monitoring},
      {"tags", tags},
  };
  nlohmann::json devices = nlohmann::json::array();
  for (const BlockDeviceMapping& m : data.block_device_mappings) {
    devices.push_back({m.device_name, m.volume_size_bytes.value_or(0), m.volume_type,
                       m.encrypted ? nlohmann::json(*m.encrypted) : nullptr,
                       m.delete_on_termination ? nlohmann::json(*m.delete_on_termination) : nullptr,
                       m.iops.value_or(0), m.throughput.value_or(0), m.kms_key_id, m.snapshot_id});
  }
  canonical["devices"] = std::move(devices);
  return "karpenter.k8s.aws/" + sha256_hex(canonical.dump()).substr(0, 16);
}

AwsResult<std::vector<Ec2Subnet>> Ec2Api::describe_subnets(const std::vector<Ec2Filter>& filters) const {
  FormParams params;
  add_filters(params, filters);
  std::vector<Ec2Subnet> subnets;
  AwsResult<bool> done = each_page(client_, "DescribeSubnets", params, [&](const pugi::xml_node& result) {
    for (const pugi::xml_node& item : list_items(result, "subnetSet")) {
      subnets.push_back({child_text(item, "subnetId"), child_text(item, "availabilityZone"),
                         child_text(item, "availabilityZoneId"),
                         item.child("availableIpAddressCount").text().as_llong(), read_tags(item)});
    }
  });
  if (!done) return done.error();
  return subnets;
}

AwsResult<std::vector<Ec2SecurityGroup>> Ec2Api::describe_security_groups(
    const std::vector<Ec2Filter>& filters) const {
  FormParams params;
  add_filters(params, filters);
  std::vector<Ec2SecurityGroup> groups;
  AwsResult<bool> done = each_page(client_, "DescribeSecurityGroups", params, [&](const pugi::xml_node& result) {
    for (const pugi::xml_node& item : list_items(result, "securityGroupInfo")) {
      groups.push_back({child_text(item, "groupId"), child_text(item, "groupName")});
    }
  });
  if (!done) return done.error();
  return groups;
}

AwsResult<std::vector<Ec2Image>> Ec2Api::describe_images(const std::vector<Ec2Filter>& filters,
                                                         const std::vector<std::string>& owners) const {
  FormParams params;
  params.add_list("Owner", owners);
  params.add("IncludeDeprecated", "true");
  add_filters(params, filters);
  params.add_filter(Protocol::Ec2, "state", {"available"});
  std::vector<Ec2Image> images;
  AwsResult<bool> done = each_page(client_, "DescribeImages", params, [&](const pugi::xml_node& result) {
    for (const pugi::xml_node& item : list_items(result, "imagesSet")) {
      images.push_back({child_text(item, "imageId"), child_text(item, "name"), child_text(item, "architecture"),
                        child_text(item, "creationDate"), !child_text(item, "deprecationTime").empty()});
    }
  });
  if (!done) return done.error();
  return images;
}

AwsResult<bool> Ec2Api::launch_template_exists(const std::string& name) const {
  FormParams params;
  params.add("LaunchTemplateName.1", name);
  AwsResult<XmlAnswer> answer = client_.query("DescribeLaunchTemplates", params);
  if (!answer) {
    if (answer.error().code == "InvalidLaunchTemplateName.NotFoundException") return false;
    return answer.error();
  }
  return !list_items(answer->result, "launchTemplates").empty();
}

AwsResult<bool> Ec2Api::create_launch_template(const std::string& name, const LaunchTemplateData& data,
                                               const Tags& tags) const {
  FormParams params;
  params.add("LaunchTemplateName", name);
  const std::string d = "LaunchTemplateData.";
  params.add(d + "ImageId", data.image_id);
  if (!data.instance_profile.empty()) params.add(d + "IamInstanceProfile.Name", data.instance_profile);
  if (data.associate_public_ip_address) {
    // A public address is a property of the primary network interface, which then carries the security groups.
    params.add(d + "NetworkInterface.1.DeviceIndex", "0");
    params.add(d + "NetworkInterface.1.AssociatePublicIpAddress", boolean(*data.associate_public_ip_address));
    params.add_list(d + "NetworkInterface.1.SecurityGroupId", data.security_group_ids);
  } else {
    params.add_list(d + "SecurityGroupId", data.security_group_ids);
  }
  if (!data.user_data.empty()) params.add(d + "UserData", base64(data.user_data));
  const MetadataOptions& m = data.metadata_options;
  params.add(d + "MetadataOptions.HttpEndpoint", m.http_endpoint);
  params.add(d + "MetadataOptions.HttpProtocolIpv6", m.http_protocol_ipv6);
  params.add(d + "MetadataOptions.HttpPutResponseHopLimit", std::to_string(m.http_put_response_hop_limit));
  params.add(d + "MetadataOptions.HttpTokens", m.http_tokens);
  for (std::size_t i = 0; i < data.block_device_mappings.size(); ++i) {
    const BlockDeviceMapping& device = data.block_device_mappings[i];
    const std::string b = fmt::format("{}BlockDeviceMapping.{}.", d, i + 1);
    params.add(b + "DeviceName", device.device_name);
    if (device.volume_size_bytes) {
      // EBS sizes are whole GiB; a size in decimal units is rounded up to cover it.
      const std::int64_t gib = (*device.volume_size_bytes + (std::int64_t{1} << 30) - 1) >> 30;
      params.add(b + "Ebs.VolumeSize", std::to_string(gib));
    }
    if (!device.volume_type.empty()) params.add(b + "Ebs.VolumeType", device.volume_type);
    if (device.encrypted) params.add(b + "Ebs.Encrypted", boolean(*device.encrypted));
    if (device.delete_on_termination) {
      params.add(b + "Ebs.DeleteOnTermination", boolean(*device.delete_on_termination));
    }
    if (device.iops) params.add(b + "Ebs.Iops", std::to_string(*device.iops));
    if (device.throughput) params.add(b + "Ebs.Throughput", std::to_string(*device.throughput));
    if (!device.kms_key_id.empty()) params.add(b + "Ebs.KmsKeyId", device.kms_key_id);
    if (!device.snapshot_id.empty()) params.add(b + "Ebs.SnapshotId", device.snapshot_id);
  }
  if (data.detailed_monitoring) params.add(d + "Monitoring.Enabled", "true");
  add_tag_specifications(params, "TagSpecification", {"launch-template"}, tags);
  AwsResult<XmlAnswer> answer = client_.query("CreateLaunchTemplate", params);
  if (!answer && answer.error().code != "InvalidLaunchTemplateName.AlreadyExistsException") return answer.error();
  return true;
}

AwsResult<bool> Ec2Api::delete_launch_template(const std::string& name) const {
  FormParams params;
  params.add("LaunchTemplateName", name);
  AwsResult<XmlAnswer> answer = client_.query("DeleteLaunchTemplate", params);
  if (!answer && answer.error().code != "InvalidLaunchTemplateName.NotFoundException") return answer.error();
  return true;
}

AwsResult<std::vector<std::string>> Ec2Api::launch_templates_tagged(const std::vector<Ec2Filter>& filters) const {
  FormParams params;
  add_filters(params, filters);
  std::vector<std::string> names;
  AwsResult<bool> done = each_page(client_, "DescribeLaunchTemplates", params, [&](const pugi::xml_node& result) {
    for (const pugi::xml_node& item : list_items(result, "launchTemplates")) {
      names.push_back(child_text(item, "launchTemplateName"));
    }
  });
  if (!done) return done.error();
  return names;
}

AwsResult<FleetAnswer> Ec2Api::create_fleet(const FleetRequest& request) const {
  FormParams params;
  params.add("Type", "instant");
  params.add("TargetCapacitySpecification.TotalTargetCapacity", std::to_string(request.count));
  params.add("TargetCapacitySpecification.DefaultTargetCapacityType", request.capacity_type);
  if (request.capacity_type == "spot") {
    params.add("SpotOptions.AllocationStrategy", "price-capacity-optimized");
  } else {
    params.add("OnDemandOptions.AllocationStrategy", "lowest-price");
  }
  for (std::size_t c = 0; c < request.configs.size(); ++c) {
    const FleetTemplateConfig& config = request.configs[c];
    const std::string prefix = fmt::format("LaunchTemplateConfigs.{}.", c + 1);
    params.add(prefix + "LaunchTemplateSpecification.LaunchTemplateName", config.launch_template_name);
    params.add(prefix + "LaunchTemplateSpecification.Version", "$Latest");
    for (std::size_t i = 0; i < config.overrides.size(); ++i) {
      const FleetOverride& o = config.overrides[i];
      const std::string p = fmt::format("{}Overrides.{}.", prefix, i + 1);
      params.add(p + "InstanceType", o.instance_type);
      params.add(p + "SubnetId", o.subnet_id);
      params.add(p + "AvailabilityZone", o.zone);
      if (!o.image_id.empty()) params.add(p + "ImageId", o.image_id);
      params.add(p + "Priority", fmt::format("{}", o.priority));
    }
  }
  add_tag_specifications(params, "TagSpecification", {"instance", "volume", "fleet"}, request.tags);
  AwsResult<XmlAnswer> answer = client_.query("CreateFleet", params);
  if (!answer) return answer.error();
  FleetAnswer out;
  for (const pugi::xml_node& item : list_items(answer->result, "fleetInstanceSet")) {
    FleetInstance launched;
    read_overrides(item, launched.instance_type, launched.zone, launched.subnet_id);
    if (std::string type = child_text(item, "instanceType"); !type.empty()) launched.instance_type = type;
    launched.lifecycle = child_text(item, "lifecycle");
    // AWS groups the ids of one override in one item; each is an instance.
    for (const pugi::xml_node& id : list_items(item, "instanceIds")) {
      FleetInstance instance = launched;
      instance.instance_id = id.text().as_string();
      out.instances.push_back(std::move(instance));
    }
  }
  for (const pugi::xml_node& item : list_items(answer->result, "errorSet")) {
    FleetError error;
    read_overrides(item, error.instance_type, error.zone, error.subnet_id);
    error.code = child_text(item, "errorCode");
    error.message = child_text(item, "errorMessage");
    out.errors.push_back(std::move(error));
  }
  return out;
}

AwsResult<std::vector<Ec2Instance>> Ec2Api::describe_instances(const std::vector<Ec2Filter>& filters) const {
  FormParams params;
  add_filters(params, filters);
  std::vector<Ec2Instance> instances;
  AwsResult<bool> done = each_page(client_, "DescribeInstances", params, [&](const pugi::xml_node& result) {
    for (const pugi::xml_node& reservation : list_items(result, "reservationSet")) {
      for (const pugi::xml_node& item : list_items(reservation, "instancesSet")) {
        Ec2Instance instance;
        instance.id = child_text(item, "instanceId");
        instance.instance_type = child_text(item, "instanceType");
        instance.zone = child_text(item.child("placement"), "availabilityZone");
        instance.state = child_text(item.child("instanceState"), "name");
        instance.private_dns_name = child_text(item, "privateDnsName");
        instance.image_id = child_text(item, "imageId");
        instance.subnet_id = child_text(item, "subnetId");
        for (const pugi::xml_node& group : list_items(item, "groupSet")) {
          instance.security_group_ids.push_back(child_text(group, "groupId"));
        }
        instance.spot = child_text(item, "instanceLifecycle") == "spot";
        instance.launch_time = child_text(item, "launchTime");
        instance.tags = read_tags(item);
        instances.push_back(std::move(instance));
      }
    }
  });
  if (!done) return done.error();
  return instances;
}

AwsResult<bool> Ec2Api::terminate_instances(const std::vector<std::string>& instance_ids) const {
  FormParams params;
  params.add_list("InstanceId", instance_ids);
  AwsResult<XmlAnswer> answer = client_.query("TerminateInstances", params);
  if (!answer) return answer.error();
  return true;
}

AwsResult<bool> Ec2Api::create_tags(const std::vector<std::string>& resource_ids, const Tags& tags) const {
  FormParams params;
  params.add_list("ResourceId", resource_ids);
  for (std::size_t i = 0; i < tags.size(); ++i) {
    params.add(fmt::format("Tag.{}.Key", i + 1), tags[i].first);
    params.add(fmt::format("Tag.{}.Value", i + 1), tags[i].second);
  }
  AwsResult<XmlAnswer> answer = client_.query("CreateTags", params);
  if (!answer) return answer.error();
  return true;
}

AwsResult<std::string> ssm_parameter(const AwsClient& ssm, const std::string& name) {
  AwsResult<nlohmann::json> answer = ssm.json("GetParameter", nlohmann::json{{"Name", name}});
  if (!answer) return answer.error();
  const nlohmann::json parameter = answer->value("Parameter", nlohmann::json::object());
  return parameter.value("Value", std::string());
}

}  // namespace scalewright::cloud::aws
