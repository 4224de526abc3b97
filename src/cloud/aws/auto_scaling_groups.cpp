#include "cloud/aws/auto_scaling_groups.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "api/quantity.h"
#include "cloud/instance_type.h"

namespace scalewright::cloud::aws {

using nodegroups::NodeGroup;

namespace {

std::string in_quotes(std::string_view text) { return fmt::format("\"{}\"", text); }

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

Error group_error(const CloudNodeGroup& group, const std::string& problem) {
  return Error{fmt::format("Auto Scaling group {}: {}", group.name, problem)};
}

Error tag_error(const CloudNodeGroup& group, const std::string& tag, const std::string& problem) {
  return Error{fmt::format("Auto Scaling group {}: tag {}: {}", group.name, tag, problem)};
}

bool is_gpu(Symbol resource) {
  return resource.str() == device_resources::nvidia_gpu || resource.str() == device_resources::amd_gpu ||
         resource.str() == device_resources::habana_gaudi;
}

}  // namespace

const std::vector<std::string>& balancing_ignored_labels() {
  static const std::vector<std::string> labels{
      "topology.ebs.csi.aws.com/zone", "alpha.eksctl.io/nodegroup-name", "alpha.eksctl.io/instance-id",
      std::string(eks_labels::nodegroup), "k8s.amazonaws.com/eniConfig",
  };
  return labels;
}

std::optional<Error> adopt_autoscaler_options(nodegroups::AutoscalerOptions& options) {
  for (const std::string& spec : options.auto_discovery) {
    if (Result<TagDiscovery> parsed = parse_tag_discovery(spec); !parsed) {
      return Error{"flag --node-group-auto-discovery: " + parsed.error().message};
    }
  }
  for (const std::string& label : balancing_ignored_labels()) options.balancing_ignore_labels.push_back(label);
  return std::nullopt;
}

Result<TagDiscovery> parse_tag_discovery(std::string_view spec) {
  constexpr std::string_view prefix = "asg:tag=";
  if (!starts_with(spec, prefix)) {
    return Error{in_quotes(spec) + ": expected asg:tag=KEY[=VALUE],... (AWS Auto Scaling group tags)"};
  }
  TagDiscovery discovery;
  std::string_view rest = spec.substr(prefix.size());
  while (true) {
    std::size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    std::size_t eq = item.find('=');
    std::string_view key = item.substr(0, eq);
    if (key.empty()) return Error{in_quotes(spec) + ": a tag key is empty"};
    discovery.tags.emplace_back(std::string(key),
                                eq == std::string_view::npos ? std::string() : std::string(item.substr(eq + 1)));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return discovery;
}

bool matches_tag_discovery(const CloudNodeGroup& group, const TagDiscovery& spec) {
  for (const auto& [key, value] : spec.tags) {
    auto tag = group.tags.find(key);
    if (tag == group.tags.end()) return false;
    if (!value.empty() && tag->second != value) return false;
  }
  return true;
}

Result<NodeGroup> build_node_group(const CloudNodeGroup& group, std::int32_t min_size, std::int32_t max_size,
                                   const Catalog& catalog) {
  const InstanceType* type = catalog.find(group.instance_type);
  if (type == nullptr) {
    return group_error(group,
                       fmt::format("instance type {} is not in the catalog of {}", in_quotes(group.instance_type),
                                   catalog.region()));
  }
  std::optional<CapacityType> capacity_type = parse_capacity_type(group.capacity_type);
  if (!capacity_type) {
    return group_error(group, fmt::format("unknown capacity type {} (expected on-demand, spot)",
                                          in_quotes(group.capacity_type)));
  }

  NodeGroup out;
  out.id = group.name;
  out.min_size = min_size;
  out.max_size = max_size;
  out.target_size = group.desired_capacity;
  out.instance_type = type->name;
  out.capacity_type = *capacity_type;
  out.tags = group.tags;
  out.zones = group.zones;
  if (out.zones.empty()) {
    // A group without subnets named here spans every zone its instance type is offered in.
    for (const Offering& o : type->offerings) {
      bool listed = std::find(out.zones.begin(), out.zones.end(), o.zone) != out.zones.end();
      if (o.capacity_type == *capacity_type && !listed) out.zones.push_back(o.zone);
    }
    if (out.zones.empty()) {
      return group_error(group, fmt::format("instance type {} has no {} offering in {}", type->name,
                                            group.capacity_type, catalog.region()));
    }
  }
  for (const std::string& zone : out.zones) {
    if (catalog.find_zone(zone) == nullptr) {
      return group_error(group, fmt::format("zone {} is not a zone of {}", in_quotes(zone), catalog.region()));
    }
  }
  // A new node's price is its first zone's offering; where that zone has none, the type's cheapest of that kind.
  const std::string& zone = out.zones.front();
  if (const Offering* offering = type->offering(zone, *capacity_type)) {
    out.price_per_hour = offering->price_per_hour;
  } else if (std::optional<double> cheapest = type->cheapest(*capacity_type)) {
    out.price_per_hour = *cheapest;
  } else {
    return group_error(group, fmt::format("instance type {} has no {} offering in {}", type->name,
                                          group.capacity_type, catalog.region()));
  }

  Node& node = out.template_node;
  node.meta.name = "template-node-for-" + group.name;
  // The labels the kubelet and the cloud controller put on an EC2 node; CA's AWS template carries the same.
  Labels& labels = node.meta.labels;
  auto set = [&labels](std::string_view key, std::string_view value) { labels.set(Symbol(key), Symbol(value)); };
  set(well_known::instance_type, type->name);
  set(well_known::arch, type->hardware.arch);
  set(well_known::os, "linux");
  set(well_known::region, catalog.region());
  set(well_known::zone, zone);
  set(well_known::hostname, node.meta.name);
  set(eks_labels::capacity_type, *capacity_type == CapacityType::Spot ? "SPOT" : "ON_DEMAND");
  if (auto eks = group.tags.find(std::string(ca_tags::eks_nodegroup_name)); eks != group.tags.end()) {
    set(eks_labels::nodegroup, eks->second);
  }
  node.capacity = type->capacity;
  node.allocatable = type->allocatable;
  node.conditions.push_back({"Ready", "True", "KubeletReady"});

  // Tags last, so a user's node-template label wins over the one above, as in CA.
  for (const auto& [key, value] : group.tags) {
    if (starts_with(key, ca_tags::label_prefix)) {
      std::string_view label = std::string_view(key).substr(ca_tags::label_prefix.size());
      if (label.empty()) return tag_error(group, key, "names no label");
      set(label, value);
    } else if (starts_with(key, ca_tags::taint_prefix)) {
      std::string_view taint_key = std::string_view(key).substr(ca_tags::taint_prefix.size());
      if (taint_key.empty()) return tag_error(group, key, "names no taint");
      // "value:Effect"; the value may be empty (":NoSchedule") but the effect may not.
      std::size_t colon = value.rfind(':');
      if (colon == std::string::npos) {
        return tag_error(group, key, fmt::format("{} is not value:Effect", in_quotes(value)));
      }
      std::optional<TaintEffect> effect = parse_taint_effect(std::string_view(value).substr(colon + 1));
      if (!effect) {
        return tag_error(group, key,
                         fmt::format("unknown taint effect {} (expected NoSchedule, PreferNoSchedule, NoExecute)",
                                     in_quotes(value.substr(colon + 1))));
      }
      node.taints.push_back({std::string(taint_key), value.substr(0, colon), *effect});
    } else if (starts_with(key, ca_tags::resources_prefix)) {
      std::string_view resource = std::string_view(key).substr(ca_tags::resources_prefix.size());
      if (resource.empty()) return tag_error(group, key, "names no resource");
      Result<Quantity> quantity = Quantity::parse(value);
      if (!quantity) return tag_error(group, key, quantity.error().message);
      if (quantity->negative()) return tag_error(group, key, "must not be negative");
      // The tag tells the capacity; allocatable keeps whatever the catalog holds back of that resource.
      Symbol name(resource);
      std::int64_t amount = resource_amount(name, *quantity);
      node.capacity.set(name, amount);
      node.allocatable.set(name, std::max<std::int64_t>(0, amount - type->overhead.get(name)));
    } else if (starts_with(key, ca_tags::autoscaling_options_prefix)) {
      // Taken as written: CA's AWS provider does not lowercase them as its clusterapi provider does.
      std::string_view name = std::string_view(key).substr(ca_tags::autoscaling_options_prefix.size());
      if (std::optional<std::string> problem =
              nodegroups::read_group_option(name, value, nodegroups::kAwsGroupOptions, out.options)) {
        return tag_error(group, key, fmt::format("{}: {}", in_quotes(value), *problem));
      }
    }
  }
  for (const auto& [name, amount] : node.capacity.extended()) {
    if (amount > 0 && is_gpu(name)) out.gpu = true;
  }
  return out;
}

Result<std::vector<NodeGroup>> discover_node_groups(const std::vector<CloudNodeGroup>& groups,
                                                    const nodegroups::AutoscalerOptions& options,
                                                    const Catalog& catalog) {
  std::vector<TagDiscovery> discovery;
  for (const std::string& spec : options.auto_discovery) {
    Result<TagDiscovery> parsed = parse_tag_discovery(spec);
    if (!parsed) return Error{"--node-group-auto-discovery=" + parsed.error().message};
    discovery.push_back(std::move(*parsed));
  }
  std::vector<NodeGroup> out;
  std::set<std::string> taken;
  for (const StaticNodeGroup& wanted : options.nodes) {
    auto group = std::find_if(groups.begin(), groups.end(),
                              [&](const CloudNodeGroup& g) { return g.name == wanted.name; });
    if (group == groups.end()) {
      return Error{fmt::format("--nodes={}:{}:{}: no Auto Scaling group named {}", wanted.min_size, wanted.max_size,
                               wanted.name, wanted.name)};
    }
    if (!taken.insert(wanted.name).second) continue;
    Result<NodeGroup> built = build_node_group(*group, wanted.min_size, wanted.max_size, catalog);
    if (!built) return built.error();
    out.push_back(std::move(built).value());
  }
  for (const CloudNodeGroup& group : groups) {
    if (taken.count(group.name)) continue;
    bool matched = std::any_of(discovery.begin(), discovery.end(),
                               [&](const TagDiscovery& spec) { return matches_tag_discovery(group, spec); });
    if (!matched) continue;
    taken.insert(group.name);
    Result<NodeGroup> built = build_node_group(group, group.min_size, group.max_size, catalog);
    if (!built) return built.error();
    out.push_back(std::move(built).value());
  }
  return out;
}

}  // namespace scalewright::cloud::aws
