#include "cloud/aws/ec2_api.h"

#include <fmt/format.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

namespace scalewright::cloud::aws {
namespace {

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
void read_overrides(const pugi::xml_node& item, std::string& instance_type, std::string& zone, std::string& subnet_id) {
  const pugi::xml_node overrides = item.child("launchTemplateAndOverrides").child("overrides");
  instance_type = child_text(overrides, "instanceType");
  zone = child_text(overrides, "availabilityZone");
  subnet_id = child_text(overrides, "subnetId");
}

}  // namespace

std::string base64(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3), '\0');
  const int written =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(data.data()),
                      static_cast<int>(data.size()));
  out.resize(static_cast<std::size_t>(std::max(written, 0)));
  return out;
}

std::string Ec2Instance::tag(std::string_view key) const {
  for (const auto& [k, v] : tags) {
    if (k == key) return v;
  }
  return "";
}

std::vector<std::string> tagged_at_launch(const LaunchTemplateData& data) {
  if (data.spot) return {"network-interface", "spot-instances-request"};
  return {"network-interface"};
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
      // What the template tags at launch is in its name: a template made before it tagged them is not reused.
      {"taggedAtLaunch", tagged_at_launch(data)},
  };
  nlohmann::json devices = nlohmann::json::array();
  for (const BlockDeviceMapping& m : data.block_device_mappings) {
    devices.push_back({m.device_name, m.volume_size_bytes.value_or(0), m.volume_type,
                       m.encrypted ? nlohmann::json(*m.encrypted) : nullptr,
                       m.delete_on_termination ? nlohmann::json(*m.delete_on_termination) : nullptr, m.iops.value_or(0),
                       m.throughput.value_or(0), m.kms_key_id, m.snapshot_id});
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

AwsResult<std::vector<Ec2SecurityGroup>> Ec2Api::describe_security_groups(const std::vector<Ec2Filter>& filters) const {
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
  add_tag_specifications(params, d + "TagSpecification", tagged_at_launch(data), tags);
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

namespace {

std::vector<std::string> item_texts(const pugi::xml_node& node, const char* name) {
  std::vector<std::string> out;
  for (const pugi::xml_node& item : list_items(node, name)) out.emplace_back(item.text().as_string());
  return out;
}

std::vector<Ec2InstanceTypeInfo::Device> read_devices(const pugi::xml_node& node, const char* list) {
  std::vector<Ec2InstanceTypeInfo::Device> devices;
  for (const pugi::xml_node& item : list_items(node, list)) {
    Ec2InstanceTypeInfo::Device device{child_text(item, "name"), child_text(item, "manufacturer"),
                                       item.child("count").text().as_llong(), std::nullopt};
    if (pugi::xml_node memory = item.child("memoryInfo").child("sizeInMiB"))
      device.memory_mib = memory.text().as_llong();
    devices.push_back(std::move(device));
  }
  return devices;
}

Ec2InstanceTypeInfo read_instance_type(const pugi::xml_node& item) {
  Ec2InstanceTypeInfo info;
  info.name = child_text(item, "instanceType");
  info.vcpu = item.child("vCpuInfo").child("defaultVCpus").text().as_llong();
  info.memory_mib = item.child("memoryInfo").child("sizeInMiB").text().as_llong();
  const pugi::xml_node processor = item.child("processorInfo");
  info.architectures = item_texts(processor, "supportedArchitectures");
  info.processor_manufacturer = child_text(processor, "manufacturer");
  info.hypervisor = child_text(item, "hypervisor");
  info.bare_metal = item.child("bareMetal").text().as_bool();
  info.burstable = item.child("burstablePerformanceSupported").text().as_bool();
  info.usage_classes = item_texts(item, "supportedUsageClasses");
  info.gpus = read_devices(item.child("gpuInfo"), "gpus");
  info.inference_accelerators = read_devices(item.child("inferenceAcceleratorInfo"), "accelerators");
  info.neuron_devices = read_devices(item.child("neuronInfo"), "neuronDevices");
  if (const pugi::xml_node storage = item.child("instanceStorageInfo");
      storage && child_text(storage, "nvmeSupport") != "unsupported") {
    info.instance_storage_gb = storage.child("totalSizeInGB").text().as_llong();
  }
  const pugi::xml_node network = item.child("networkInfo");
  if (network.child("efaSupported").text().as_bool()) {
    info.efa_interfaces = network.child("efaInfo").child("maximumEfaInterfaces").text().as_llong();
  }
  info.ipv4_per_eni = network.child("ipv4AddressesPerInterface").text().as_llong();
  const long long default_card = network.child("defaultNetworkCardIndex").text().as_llong();
  for (const pugi::xml_node& card : list_items(network, "networkCards")) {
    if (card.child("networkCardIndex").text().as_llong() != default_card) continue;
    info.default_card_enis = card.child("maximumNetworkInterfaces").text().as_llong();
    if (pugi::xml_node baseline = card.child("baselineBandwidthInGbps")) {
      info.default_card_baseline_gbps = baseline.text().as_double();
    }
  }
  // Older answers have no network cards: the instance's own ENI limit is the default card's.
  if (info.default_card_enis == 0) info.default_card_enis = network.child("maximumNetworkInterfaces").text().as_llong();
  return info;
}

}  // namespace

AwsResult<std::vector<Ec2InstanceTypeInfo>> Ec2Api::describe_instance_types(
    const std::vector<std::string>& names) const {
  // Karpenter's filters (instancetype.go UpdateInstanceTypes); 100 is the call's largest page.
  FormParams params;
  params.add_list("InstanceType", names);
  params.add_filter(Protocol::Ec2, "supported-virtualization-type", {"hvm"});
  params.add_filter(Protocol::Ec2, "processor-info.supported-architecture", {"x86_64", "arm64"});
  params.add("MaxResults", "100");
  std::vector<Ec2InstanceTypeInfo> types;
  AwsResult<bool> done = each_page(client_, "DescribeInstanceTypes", params, [&](const pugi::xml_node& result) {
    for (const pugi::xml_node& item : list_items(result, "instanceTypeSet")) types.push_back(read_instance_type(item));
  });
  if (!done) return done.error();
  return types;
}

AwsResult<std::vector<Ec2TypeOffering>> Ec2Api::describe_instance_type_offerings(
    const std::vector<std::string>& names) const {
  FormParams params;
  params.add("LocationType", "availability-zone");
  if (!names.empty()) params.add_filter(Protocol::Ec2, "instance-type", names);
  params.add("MaxResults", "1000");
  std::vector<Ec2TypeOffering> offerings;
  AwsResult<bool> done = each_page(client_, "DescribeInstanceTypeOfferings", params, [&](const pugi::xml_node& result) {
    for (const pugi::xml_node& item : list_items(result, "instanceTypeOfferingSet")) {
      offerings.push_back({child_text(item, "instanceType"), child_text(item, "location")});
    }
  });
  if (!done) return done.error();
  return offerings;
}

AwsResult<std::vector<Ec2Zone>> Ec2Api::describe_availability_zones() const {
  AwsResult<XmlAnswer> answer = client_.query("DescribeAvailabilityZones", FormParams());
  if (!answer) return answer.error();
  std::vector<Ec2Zone> zones;
  for (const pugi::xml_node& item : list_items(answer->result, "availabilityZoneInfo")) {
    // Local and Wavelength Zones are opted into one by one; Karpenter's catalog is the region's availability zones.
    const std::string type = child_text(item, "zoneType");
    if (!type.empty() && type != "availability-zone") continue;
    if (child_text(item, "zoneState") != "available") continue;
    zones.push_back({child_text(item, "zoneName"), child_text(item, "zoneId")});
  }
  return zones;
}

AwsResult<std::vector<Ec2SpotPrice>> Ec2Api::describe_spot_price_history(const std::vector<std::string>& names,
                                                                         const std::string& start_time) const {
  // Karpenter's parameters (pricing.go UpdateSpotPricing): the price in effect now, 2000 rows a page.
  FormParams params;
  params.add_list("InstanceType", names);
  params.add_list("ProductDescription", {"Linux/UNIX", "Linux/UNIX (Amazon VPC)"});
  params.add("StartTime", start_time);
  params.add("MaxResults", "2000");
  std::vector<Ec2SpotPrice> prices;
  AwsResult<bool> done = each_page(client_, "DescribeSpotPriceHistory", params, [&](const pugi::xml_node& result) {
    for (const pugi::xml_node& item : list_items(result, "spotPriceHistorySet")) {
      prices.push_back({child_text(item, "instanceType"), child_text(item, "availabilityZone"),
                        item.child("spotPrice").text().as_double(), child_text(item, "timestamp")});
    }
  });
  if (!done) return done.error();
  return prices;
}

AwsResult<std::map<std::string, double, std::less<>>> on_demand_prices(const AwsClient& pricing,
                                                                       const std::string& region) {
  // Karpenter's filters (pricing.go fetchOnDemandPricing): Linux without pre-installed software, used capacity,
  // on demand; once for shared-tenancy instances and once for bare metal, whose prices are listed as Dedicated.
  auto term = [](const char* field, const std::string& value) {
    return nlohmann::json{{"Type", "TERM_MATCH"}, {"Field", field}, {"Value", value}};
  };
  const nlohmann::json common = {term("regionCode", region),     term("serviceCode", "AmazonEC2"),
                                 term("preInstalledSw", "NA"),   term("operatingSystem", "Linux"),
                                 term("capacitystatus", "Used"), term("marketoption", "OnDemand")};
  const std::vector<std::pair<std::string, std::string>> kinds = {{"Shared", "Compute Instance"},
                                                                  {"Dedicated", "Compute Instance (bare metal)"}};
  // China's price list is in yuan, as Karpenter reads it there.
  const std::string currency = region.starts_with("cn-") ? "CNY" : "USD";
  std::map<std::string, double, std::less<>> prices;
  for (const auto& [tenancy, family] : kinds) {
    nlohmann::json request = {{"ServiceCode", "AmazonEC2"}, {"MaxResults", 100}, {"Filters", common}};
    request["Filters"].push_back(term("tenancy", tenancy));
    request["Filters"].push_back(term("productFamily", family));
    std::string token;
    do {
      if (!token.empty()) request["NextToken"] = token;
      AwsResult<nlohmann::json> answer = pricing.json("GetProducts", request);
      if (!answer) return answer.error();
      for (const nlohmann::json& entry : answer->value("PriceList", nlohmann::json::array())) {
        // Each entry is a JSON document in a string; one that does not parse says nothing of any type.
        const nlohmann::json product =
            nlohmann::json::parse(entry.is_string() ? entry.get<std::string>() : "", nullptr, false);
        if (!product.is_object()) continue;
        const nlohmann::json* type = &product;
        for (const char* key : {"product", "attributes", "instanceType"}) {
          type = type->is_object() && type->contains(key) ? &(*type)[key] : nullptr;
          if (type == nullptr) break;
        }
        if (type == nullptr || !type->is_string() || type->get<std::string>().empty()) continue;
        const nlohmann::json terms =
            product.value("terms", nlohmann::json::object()).value("OnDemand", nlohmann::json::object());
        for (const auto& [sku, offer] : terms.items()) {
          const nlohmann::json dimensions = offer.value("priceDimensions", nlohmann::json::object());
          for (const auto& [rate, dimension] : dimensions.items()) {
            const nlohmann::json per_unit = dimension.value("pricePerUnit", nlohmann::json::object());
            const std::string text = per_unit.value(currency, std::string());
            char* end = nullptr;
            const double price = std::strtod(text.c_str(), &end);
            if (text.empty() || end != text.c_str() + text.size() || !(price > 0)) continue;
            prices[type->get<std::string>()] = price;
          }
        }
      }
      token = answer->value("NextToken", std::string());
    } while (!token.empty());
  }
  return prices;
}

}  // namespace scalewright::cloud::aws
