#include "cloud/aws/ec2_provider.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>
#include <tuple>

#include "cloud/aws/instance_types.h"
#include "cloud/aws/repair_policies.h"

namespace scalewright::cloud::aws {
namespace {

using Clock = std::chrono::steady_clock;

// Karpenter truncates a launch to the 60 cheapest offerings (EC2 Fleet's override limit is far above it).
constexpr std::size_t kMaxOverrides = 60;

// EC2's name of an architecture, as AMIs carry it.
std::string_view ami_architecture(std::string_view arch) { return arch == "arm64" ? "arm64" : "x86_64"; }

// The SSM parameter holding the AMI an alias names for one architecture (Karpenter's amifamily resolvers); nullopt
// when the family has no AMI for it (Windows runs on x86_64 only).
std::optional<std::string> alias_parameter(AmiFamily family, std::string_view version, std::string_view k8s,
                                           std::string_view arch) {
  const bool latest = version == "latest";
  switch (family) {
    case AmiFamily::AL2023:
      if (latest)
        return fmt::format("/aws/service/eks/optimized-ami/{}/amazon-linux-2023/{}/standard/recommended/image_id", k8s,
                           arch);
      return fmt::format(
          "/aws/service/eks/optimized-ami/{0}/amazon-linux-2023/{1}/standard/"
          "amazon-eks-node-al2023-{1}-standard-{0}-{2}/image_id",
          k8s, arch, version);
    case AmiFamily::AL2: {
      const std::string_view suffix = arch == "arm64" ? "-arm64" : "";
      if (latest)
        return fmt::format("/aws/service/eks/optimized-ami/{}/amazon-linux-2{}/recommended/image_id", k8s, suffix);
      return fmt::format("/aws/service/eks/optimized-ami/{0}/amazon-linux-2{1}/amazon-eks{1}-node-{0}-{2}/image_id",
                         k8s, suffix, version);
    }
    case AmiFamily::Bottlerocket: {
      const std::string_view v = version.starts_with('v') ? version.substr(1) : version;
      return fmt::format("/aws/service/bottlerocket/aws-k8s-{}/{}/{}/image_id", k8s, arch, v);
    }
    case AmiFamily::Windows2019:
    case AmiFamily::Windows2022:
    case AmiFamily::Windows2025: {
      if (arch != "x86_64") return std::nullopt;
      const std::string_view year = family == AmiFamily::Windows2019   ? "2019"
                                    : family == AmiFamily::Windows2022 ? "2022"
                                                                       : "2025";
      return fmt::format("/aws/service/ami-windows-latest/Windows_Server-{}-English-Core-EKS_Optimized-{}/image_id",
                         year, k8s);
    }
    case AmiFamily::Custom:
      break;
  }
  return std::nullopt;
}

// The filters one selector term asks EC2 for: tags as tag:KEY=VALUE (tag-key=KEY for "*"), id and name.
std::vector<Ec2Filter> term_filters(const SelectorTerm& term, std::string_view id_filter,
                                    std::string_view name_filter) {
  std::vector<Ec2Filter> filters;
  for (const auto& [key, value] : term.tags) {
    if (value == "*")
      filters.push_back({"tag-key", {key}});
    else
      filters.push_back({"tag:" + key, {value}});
  }
  if (!term.id.empty()) filters.push_back({std::string(id_filter), {term.id}});
  if (!term.name.empty() && !name_filter.empty()) filters.push_back({std::string(name_filter), {term.name}});
  return filters;
}

ResolvedNodeClass::Condition condition(std::string type, std::string reason = "", std::string message = "") {
  return {std::move(type), reason.empty(), std::move(reason), std::move(message)};
}

}  // namespace

bool ResolvedNodeClass::ready() const {
  return std::all_of(conditions.begin(), conditions.end(), [](const Condition& c) { return c.ready; });
}

std::string ResolvedNodeClass::why_not_ready() const {
  for (const Condition& c : conditions) {
    if (!c.ready) return fmt::format("{}: {}", c.type, c.message);
  }
  return "";
}

struct Ec2Provider::Batch {
  FleetRequest request;
  Clock::time_point opened;
  Clock::time_point last_join;
  bool sent = false;
  bool answered = false;
  FleetAnswer answer;
  std::optional<AwsError> error;
  std::condition_variable changed;
};

Ec2Provider::Ec2Provider(const AwsClient& ec2, const AwsClient& ssm, Catalog catalog, Ec2ProviderOptions options)
    : ec2_client_(ec2), ssm_client_(ssm), ec2_(ec2), options_(std::move(options)), catalog_(std::move(catalog)) {}

Ec2Provider::~Ec2Provider() = default;

ResolvedNodeClass Ec2Provider::resolve(std::shared_ptr<const EC2NodeClass> node_class) const {
  ResolvedNodeClass out;
  out.node_class = node_class;
  const EC2NodeClassSpec& spec = node_class->spec();
  const std::string& name = node_class->meta().name;

  // Subnets and security groups: every term's matches, each once.
  std::map<std::string, Ec2Subnet> subnets;
  std::optional<AwsError> failed;
  for (const SelectorTerm& term : spec.subnet_selector_terms) {
    auto found = ec2_.describe_subnets(term_filters(term, "subnet-id", ""));
    if (!found)
      failed = found.error();
    else
      for (Ec2Subnet& s : *found) subnets.emplace(s.id, std::move(s));
  }
  for (auto& [id, subnet] : subnets) out.subnets.push_back(std::move(subnet));
  if (failed)
    out.conditions.push_back(condition("SubnetsReady", "SubnetsNotFound", failed->describe()));
  else if (out.subnets.empty())
    out.conditions.push_back(condition("SubnetsReady", "SubnetsNotFound", "SubnetSelector did not match any Subnets"));
  else
    out.conditions.push_back(condition("SubnetsReady"));

  std::map<std::string, Ec2SecurityGroup> groups;
  failed.reset();
  for (const SelectorTerm& term : spec.security_group_selector_terms) {
    auto found = ec2_.describe_security_groups(term_filters(term, "group-id", "group-name"));
    if (!found)
      failed = found.error();
    else
      for (Ec2SecurityGroup& g : *found) groups.emplace(g.id, std::move(g));
  }
  for (auto& [id, group] : groups) out.security_groups.push_back(std::move(group));
  if (failed)
    out.conditions.push_back(condition("SecurityGroupsReady", "SecurityGroupsNotFound", failed->describe()));
  else if (out.security_groups.empty())
    out.conditions.push_back(condition("SecurityGroupsReady", "SecurityGroupsNotFound",
                                       "SecurityGroupSelector did not match any SecurityGroups"));
  else
    out.conditions.push_back(condition("SecurityGroupsReady"));

  // AMIs: an alias or an SSM parameter names image ids; the other terms are asked of DescribeImages. The newest
  // image of each architecture is launched.
  std::vector<Ec2Image> images;
  failed.reset();
  std::string unresolved;
  for (const SelectorTerm& term : spec.ami_selector_terms) {
    std::vector<std::string> ids;
    if (!term.alias.empty()) {
      const std::size_t at = term.alias.find('@');
      for (std::string_view arch : {"x86_64", "arm64"}) {
        std::optional<std::string> parameter =
            alias_parameter(spec.ami_family, term.alias.substr(at + 1), options_.cluster.kubernetes_version, arch);
        if (!parameter) continue;
        AwsResult<std::string> id = ssm_parameter(ssm_client_, *parameter);
        if (id)
          ids.push_back(*id);
        else if (id.error().code != "ParameterNotFound")
          failed = id.error();
        else
          unresolved = fmt::format("alias {} resolves to no AMI: SSM parameter {} not found", term.alias, *parameter);
      }
      if (ids.empty()) continue;
    } else if (!term.ssm_parameter.empty()) {
      AwsResult<std::string> id = ssm_parameter(ssm_client_, term.ssm_parameter);
      if (!id) {
        failed = id.error();
        continue;
      }
      ids.push_back(*id);
    }
    std::vector<Ec2Filter> filters =
        ids.empty() ? term_filters(term, "image-id", "name") : std::vector<Ec2Filter>{{"image-id", ids}};
    std::vector<std::string> owners;
    if (!term.owner.empty())
      owners.push_back(term.owner);
    else if (ids.empty() && term.id.empty())
      owners = {"self", "amazon"};  // Karpenter's default owners
    auto found = ec2_.describe_images(filters, owners);
    if (!found)
      failed = found.error();
    else
      images.insert(images.end(), found->begin(), found->end());
  }
  std::map<std::string, Ec2Image> newest;  // by architecture; non-deprecated images first, then the newest
  for (Ec2Image& image : images) {
    auto [it, added] = newest.emplace(image.architecture, image);
    if (added) continue;
    const Ec2Image& held = it->second;
    if (std::pair(!image.deprecated, image.creation_date) > std::pair(!held.deprecated, held.creation_date)) {
      it->second = std::move(image);
    }
  }
  for (auto& [arch, image] : newest) out.amis.push_back(std::move(image));
  if (failed)
    out.conditions.push_back(condition("AMIsReady", "AMINotFound", failed->describe()));
  else if (out.amis.empty())
    out.conditions.push_back(
        condition("AMIsReady", "AMINotFound", unresolved.empty() ? "AMISelector did not match any AMIs" : unresolved));
  else
    out.conditions.push_back(condition("AMIsReady"));

  // An instance launches with a profile: the class's own, or the one made for its role (Karpenter's).
  if (!spec.instance_profile.empty()) {
    out.instance_profile = spec.instance_profile;
    out.conditions.push_back(condition("InstanceProfileReady"));
  } else if (profiles_ == nullptr) {
    out.conditions.push_back(condition("InstanceProfileReady", "InstanceProfileNotSupported",
                                       fmt::format("EC2NodeClass {} names role {}: no IAM client to make its "
                                                   "instance profile with; name one in spec.instanceProfile",
                                                   name, spec.role)));
  } else if (AwsResult<std::string> made = profiles_->ensure(name, spec.role); !made) {
    out.conditions.push_back(condition("InstanceProfileReady", "InstanceProfileNotFound", made.error().describe()));
  } else {
    out.instance_profile = *made;
    out.conditions.push_back(condition("InstanceProfileReady"));
  }
  return out;
}

namespace {

// What NodePools naming a resolved class launch from: whether it is ready, and the AMIs, subnets, security groups and
// instance profile it resolved to (the rest of a resolution, such as a subnet's free addresses, moves on its own).
std::vector<std::string> launched_from(const ResolvedNodeClass& resolved) {
  std::vector<std::string> out{resolved.ready() ? "ready" : "not ready", "profile " + resolved.instance_profile};
  for (const Ec2Image& image : resolved.amis) out.push_back("ami " + image.id);
  for (const Ec2Subnet& subnet : resolved.subnets) out.push_back("subnet " + subnet.id);
  for (const Ec2SecurityGroup& group : resolved.security_groups) out.push_back("group " + group.id);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::unique_ptr<Catalog> Ec2Provider::shape(const ResolvedNodeClass& resolved) const {
  if (!resolved.ready()) return nullptr;
  // The types the class runs, offered in the zones of its subnets (matched by zone id: an account names its zones in
  // its own order), under the account's zone names.
  Catalog by_class = resolved.node_class->shape(catalog_);
  std::map<std::string, std::string> zone_names;  // zone id -> the account's name
  for (const Ec2Subnet& subnet : resolved.subnets) zone_names[subnet.zone_id] = subnet.zone;
  std::vector<Zone> zones;
  for (const auto& [id, zone_name] : zone_names) zones.push_back({zone_name, id});
  std::vector<InstanceType> types;
  for (InstanceType type : by_class.instance_types()) {
    std::erase_if(type.offerings, [&](const Offering& o) { return !zone_names.contains(o.zone_id); });
    for (Offering& o : type.offerings) o.zone = zone_names[o.zone_id];
    const std::string arch(type.labels.find(Symbol("kubernetes.io/arch")) != nullptr
                               ? type.labels.find(Symbol("kubernetes.io/arch"))->str()
                               : "amd64");
    const bool has_ami = std::any_of(resolved.amis.begin(), resolved.amis.end(), [&](const Ec2Image& image) {
      return image.architecture == ami_architecture(arch);
    });
    if (!type.offerings.empty() && has_ami) types.push_back(std::move(type));
  }
  auto shaped = std::make_unique<Catalog>(Catalog::from_instance_types(catalog_.region(), zones, std::move(types)));
  shaped->set_provider_options(by_class.provider_options());
  return shaped;
}

bool Ec2Provider::set_node_class(ResolvedNodeClass resolved) {
  // Alone: the shaping reads catalog_, and a new shaped catalog joins shaped_.
  std::unique_lock catalogs(catalog_mutex_);
  std::unique_ptr<Catalog> shaped = shape(resolved);
  std::lock_guard lock(mutex_);
  const std::string name = resolved.node_class->meta().name;
  auto [at, added] = node_classes_.try_emplace(name);
  NodeClassEntry& entry = at->second;
  const bool changed = added || launched_from(entry.resolved) != launched_from(resolved);
  entry.resolved = std::move(resolved);
  // The class resolved as before (its 5-minute resync, mostly) keeps its catalog: a new one each time would be kept
  // for as long as the provider lives, since the engine may hold its types.
  if (shaped && entry.shaped != nullptr && entry.shaped->same_shape(*shaped)) return changed;
  entry.shaped = nullptr;
  if (shaped) {
    shaped_.push_back(std::move(shaped));
    entry.shaped = shaped_.back().get();
  }
  return changed;
}

void Ec2Provider::refresh_catalog(Catalog fresh) {
  std::lock_guard lock(mutex_);
  refreshed_ = std::move(fresh);
}

void Ec2Provider::take_refreshed_catalog() const {
  std::optional<Catalog> fresh;
  {
    std::lock_guard lock(mutex_);
    fresh.swap(refreshed_);
  }
  if (!fresh) return;
  std::unique_lock catalogs(catalog_mutex_);
  const CatalogUpdate update = catalog_.take_prices_from(*fresh);
  // Each class's catalog takes its prices from the class's shape of the refreshed one (a Windows class prices its
  // types with the license included). One whose shape changed keeps its offerings priced as before: the class
  // resolved again (every 5 minutes) makes it anew.
  std::vector<std::pair<ResolvedNodeClass, Catalog*>> in_use;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, entry] : node_classes_) {
      if (entry.shaped != nullptr) in_use.emplace_back(entry.resolved, entry.shaped);
    }
  }
  for (const auto& [resolved, shaped] : in_use) {
    if (std::unique_ptr<Catalog> again = shape(resolved); again && again->same_shape(*shaped)) {
      shaped->take_prices_from(*again);
    }
  }
  spdlog::info(
      "catalog refreshed: {} prices changed, {} offerings withdrawn, {} back; {} new instance types and {} new "
      "offerings are taken at the next start",
      update.prices_changed, update.withdrawn, update.restored, update.new_types, update.new_offerings);
}

bool Ec2Provider::remove_node_class(const std::string& name) {
  std::lock_guard lock(mutex_);
  return node_classes_.erase(name) > 0;
}

std::optional<CloudError> Ec2Provider::delete_launch_templates(const std::string& name) {
  AwsResult<std::vector<std::string>> found =
      ec2_.launch_templates_tagged({{"tag:" + std::string(karpenter_tags::ec2nodeclass), {name}},
                                    {"tag:" + std::string(karpenter_tags::cluster_name), {options_.cluster.name}}});
  if (!found) return cloud_error(found.error());
  for (const std::string& template_name : *found) {
    {
      std::lock_guard lock(mutex_);
      launch_templates_.erase(template_name);
    }
    if (AwsResult<bool> deleted = ec2_.delete_launch_template(template_name); !deleted) {
      return cloud_error(deleted.error());
    }
  }
  return std::nullopt;
}

std::optional<CloudError> Ec2Provider::delete_idle_launch_templates(Clock::time_point now) {
  AwsResult<std::vector<std::string>> found = ec2_.launch_templates_tagged(
      {{"tag:" + std::string(karpenter_tags::cluster_name), {options_.cluster.name}}});
  if (!found) return cloud_error(found.error());
  std::vector<std::string> idle;
  {
    std::lock_guard lock(mutex_);
    std::map<std::string, Clock::time_point> used;
    for (const std::string& name : *found) {
      auto known = template_used_.find(name);
      const Clock::time_point last = known != template_used_.end() ? known->second : now;
      if (now - last < options_.launch_template_idle || templates_in_flight_.contains(name)) {
        used.emplace(name, last);
        continue;
      }
      // Forgotten before it goes: a launch from now on looks it up (and makes it again).
      launch_templates_.erase(name);
      idle.push_back(name);
    }
    template_used_ = std::move(used);  // templates deleted elsewhere (with their class) are forgotten too
  }
  for (const std::string& name : idle) {
    if (AwsResult<bool> deleted = ec2_.delete_launch_template(name); !deleted) return cloud_error(deleted.error());
  }
  return std::nullopt;
}

std::optional<CloudError> Ec2Provider::delete_instance_profile(const std::string& name) {
  if (profiles_ == nullptr) return std::nullopt;
  if (AwsResult<bool> removed = profiles_->remove(name); !removed) return cloud_error(removed.error());
  return std::nullopt;
}

CloudResult<const Catalog*> Ec2Provider::instance_types(const NodePool& pool) const {
  take_refreshed_catalog();
  const NodeClassReference& ref = pool.node_class;
  std::lock_guard lock(mutex_);
  auto found = node_classes_.find(ref.name);
  if (ref.kind != kKind || found == node_classes_.end()) {
    return CloudError{ErrorClass::NodeClassNotReady,
                      fmt::format("NodePool {} names {} {}, which is not an EC2NodeClass of this cluster",
                                  pool.meta.name, ref.kind.empty() ? "no node class" : ref.kind, ref.name),
                      {}};
  }
  if (found->second.shaped == nullptr) {
    return CloudError{ErrorClass::NodeClassNotReady,
                      fmt::format("EC2NodeClass {} is not ready: {}", ref.name, found->second.resolved.why_not_ready()),
                      {}};
  }
  return found->second.shaped;
}

Tags Ec2Provider::launch_tags(const std::string& nodepool, const EC2NodeClass& node_class) const {
  Tags tags = node_class.spec().tags;
  tags.emplace_back(std::string(karpenter_tags::cluster_prefix) + options_.cluster.name, "owned");
  tags.emplace_back(karpenter_tags::nodepool, nodepool);
  tags.emplace_back(karpenter_tags::cluster_name, options_.cluster.name);
  tags.emplace_back(karpenter_tags::ec2nodeclass, node_class.meta().name);
  return tags;
}

CloudResult<FleetRequest> Ec2Provider::fleet_request(const CreateRequest& request, const NodeClassEntry& entry) {
  const ResolvedNodeClass& resolved = entry.resolved;
  const EC2NodeClassSpec& spec = resolved.node_class->spec();
  // Spot when the claim allows it and any spot offering is there; on demand otherwise (Karpenter's order).
  const bool spot = std::any_of(request.offerings.begin(), request.offerings.end(),
                                [](const LaunchOption& o) { return o.offering->capacity_type == CapacityType::Spot; });
  const CapacityType capacity_type = spot ? CapacityType::Spot : CapacityType::OnDemand;
  struct Priced {
    LaunchOption option;
    double price;  // read once, under the catalogs' lock: a refresh may change it on the engine's thread
  };
  std::vector<Priced> options;
  {
    std::shared_lock catalogs(catalog_mutex_);
    for (const LaunchOption& o : request.offerings) {
      if (o.offering->capacity_type == capacity_type) options.push_back({o, o.offering->price_per_hour});
    }
  }
  // Cheapest first; among equal prices by zone, so that a launch asks the same of EC2 every time.
  std::stable_sort(options.begin(), options.end(), [](const Priced& a, const Priced& b) {
    return std::tie(a.price, a.option.offering->zone) < std::tie(b.price, b.option.offering->zone);
  });
  if (options.size() > kMaxOverrides) options.resize(kMaxOverrides);

  const Symbol nodepool_label("karpenter.sh/nodepool");
  const std::string nodepool =
      request.labels.find(nodepool_label) != nullptr ? request.labels.find(nodepool_label)->string() : "";
  FleetRequest fleet;
  fleet.capacity_type = std::string(to_string(capacity_type));
  fleet.tags = launch_tags(nodepool, *resolved.node_class);
  if (!resolved.spec_hash.empty()) fleet.tags.emplace_back(karpenter_tags::ec2nodeclass_hash, resolved.spec_hash);
  std::vector<std::string> groups;
  for (const Ec2SecurityGroup& g : resolved.security_groups) groups.push_back(g.id);
  const std::string user_data = node_user_data(spec, options_.cluster, request.labels, request.taints);
  std::map<std::string, std::size_t> config_of_image;
  for (const auto& [o, price] : options) {
    // The zone's subnet with the most free addresses (Karpenter's ZonalSubnetsForLaunch).
    const Ec2Subnet* subnet = nullptr;
    for (const Ec2Subnet& s : resolved.subnets) {
      if (s.zone == o.offering->zone && (subnet == nullptr || s.available_ips > subnet->available_ips)) subnet = &s;
    }
    const Symbol* arch = o.instance_type->labels.find(Symbol("kubernetes.io/arch"));
    const std::string_view architecture = ami_architecture(arch != nullptr ? arch->str() : "amd64");
    auto image = std::find_if(resolved.amis.begin(), resolved.amis.end(),
                              [&](const Ec2Image& i) { return i.architecture == architecture; });
    if (subnet == nullptr || image == resolved.amis.end()) continue;
    auto [at, added] = config_of_image.emplace(image->id, fleet.configs.size());
    if (added) {
      LaunchTemplateData data{image->id,
                              resolved.instance_profile,
                              groups,
                              user_data,
                              spec.metadata_options,
                              spec.block_device_mappings,
                              spec.associate_public_ip_address,
                              spec.detailed_monitoring,
                              spot};
      const std::string name = launch_template_name(data, fleet.tags);
      if (std::optional<CloudError> failed = ensure_launch_template(name, data, fleet.tags)) return *failed;
      fleet.configs.push_back({name, {}});
    }
    fleet.configs[at->second].overrides.push_back(
        {o.instance_type->name, subnet->id, subnet->zone, image->id, price});
  }
  if (fleet.configs.empty()) {
    return CloudError{ErrorClass::InsufficientCapacity,
                      fmt::format("no offering of NodeClaim {} has a subnet and an AMI of EC2NodeClass {}",
                                  request.name, resolved.node_class->meta().name),
                      request.offerings};
  }
  return fleet;
}

std::optional<CloudError> Ec2Provider::ensure_launch_template(const std::string& name, const LaunchTemplateData& data,
                                                              const Tags& tags) {
  // Launches made at once that need the same template wait for the one that makes it: one DescribeLaunchTemplates
  // and one CreateLaunchTemplate, not one of each per launch.
  std::unique_lock lock(mutex_);
  template_made_.wait(lock, [&] { return !templates_in_flight_.contains(name); });
  template_used_[name] = Clock::now();
  if (launch_templates_.contains(name)) return std::nullopt;
  templates_in_flight_.insert(name);
  lock.unlock();
  std::optional<CloudError> failed;
  if (AwsResult<bool> exists = ec2_.launch_template_exists(name); !exists) {
    failed = cloud_error(exists.error());
  } else if (!*exists) {
    if (AwsResult<bool> created = ec2_.create_launch_template(name, data, tags); !created) {
      failed = cloud_error(created.error());
    }
  }
  lock.lock();
  templates_in_flight_.erase(name);
  if (!failed) launch_templates_.insert(name);
  lock.unlock();
  template_made_.notify_all();
  return failed;
}

CloudResult<FleetInstance> Ec2Provider::launch_batched(const FleetRequest& request, std::vector<FleetError>& errors) {
  // Requests alike in all but their count are one call: the key is the request with a count of 1.
  nlohmann::json key_json = {{"capacity", request.capacity_type}, {"tags", request.tags}};
  for (const FleetTemplateConfig& config : request.configs) {
    nlohmann::json overrides = nlohmann::json::array();
    for (const FleetOverride& o : config.overrides) {
      overrides.push_back({o.instance_type, o.subnet_id, o.image_id, o.priority});
    }
    key_json["configs"].push_back({config.launch_template_name, std::move(overrides)});
  }
  const std::string key = key_json.dump();

  std::unique_lock lock(mutex_);
  std::shared_ptr<Batch> batch;
  std::size_t index = 0;
  auto open = batches_.find(key);
  if (open != batches_.end()) {
    batch = open->second;
    index = static_cast<std::size_t>(batch->request.count++);
    batch->last_join = Clock::now();
    batch->changed.wait(lock, [&] { return batch->answered; });
  } else {
    batch = std::make_shared<Batch>();
    batch->request = request;
    batch->request.count = 1;
    batch->opened = batch->last_join = Clock::now();
    batches_[key] = batch;
    // The first of a batch waits for the others: until none joined for batch_idle, or batch_max passed.
    for (;;) {
      const Clock::time_point deadline =
          std::min(batch->last_join + options_.batch_idle, batch->opened + options_.batch_max);
      if (Clock::now() >= deadline) break;
      batch->changed.wait_until(lock, deadline);
    }
    batches_.erase(key);
    batch->sent = true;
    lock.unlock();
    send(*batch);
    lock.lock();
    batch->answered = true;
    batch->changed.notify_all();
  }
  if (batch->error) return cloud_error(*batch->error);
  errors = batch->answer.errors;
  if (index < batch->answer.instances.size()) return batch->answer.instances[index];
  std::string why = "CreateFleet launched too few instances";
  for (const FleetError& e : errors) why += fmt::format("; {} {} {}: {}", e.instance_type, e.zone, e.code, e.message);
  return CloudError{ErrorClass::InsufficientCapacity, why, {}};
}

void Ec2Provider::send(Batch& batch) {
  {
    std::lock_guard lock(mutex_);
    ++fleet_calls_;
  }
  AwsResult<FleetAnswer> answer = ec2_.create_fleet(batch.request);
  if (answer)
    batch.answer = std::move(*answer);
  else
    batch.error = answer.error();
}

std::vector<LaunchOption> Ec2Provider::unavailable_options(const CreateRequest& request,
                                                           const std::vector<FleetError>& errors) const {
  std::vector<LaunchOption> out;
  for (const FleetError& e : errors) {
    if (!is_capacity_error(e.code)) continue;
    for (const LaunchOption& o : request.offerings) {
      if (o.instance_type->name == e.instance_type && o.offering->zone == e.zone) out.push_back(o);
    }
  }
  return out;
}

CloudResult<Created> Ec2Provider::create(const CreateRequest& request) {
  NodeClassEntry entry;
  {
    std::lock_guard lock(mutex_);
    auto found = node_classes_.find(request.node_class.name);
    if (found == node_classes_.end() || found->second.shaped == nullptr) {
      return CloudError{
          ErrorClass::NodeClassNotReady,
          fmt::format("EC2NodeClass {} is not ready{}", request.node_class.name,
                      found == node_classes_.end() ? ": not found" : ": " + found->second.resolved.why_not_ready()),
          {}};
    }
    entry = found->second;
  }
  for (int attempt = 1;; ++attempt) {
    CloudResult<FleetRequest> fleet = fleet_request(request, entry);
    if (!fleet) return fleet.error();
    std::vector<FleetError> errors;
    CloudResult<FleetInstance> launched = launch_batched(*fleet, errors);
    if (launched) {
      ++launches_;  // the instances described before it miss it
      CloudResult<Created> made = created(request, *launched, errors);
      if (made) {
        std::lock_guard lock(mutex_);
        claim_of_instance_[made->instance.id] = request.name;
      }
      return made;
    }
    // A launch template deleted behind our back (another replica's garbage collection): made again, once.
    if (attempt == 1 &&
        launched.error().message.find("InvalidLaunchTemplateName.NotFoundException") != std::string::npos) {
      std::lock_guard lock(mutex_);
      for (const FleetTemplateConfig& config : fleet->configs) launch_templates_.erase(config.launch_template_name);
      continue;
    }
    CloudError error = launched.error();
    if (error.error_class == ErrorClass::InsufficientCapacity) error.unavailable = unavailable_options(request, errors);
    return error;
  }
}

CloudResult<Created> Ec2Provider::created(const CreateRequest& request, const FleetInstance& instance,
                                          const std::vector<FleetError>& errors) const {
  Created out;
  out.unavailable = unavailable_options(request, errors);
  const CapacityType capacity_type = instance.lifecycle == "spot" ? CapacityType::Spot : CapacityType::OnDemand;
  for (const LaunchOption& o : request.offerings) {
    if (o.instance_type->name == instance.instance_type && o.offering->zone == instance.zone &&
        o.offering->capacity_type == capacity_type) {
      out.launched = o;
      break;
    }
  }
  if (out.launched.instance_type == nullptr) {
    return CloudError{
        ErrorClass::Other,
        fmt::format("CreateFleet launched {} ({} {} in {}), an offering NodeClaim {} did not ask for",
                    instance.instance_id, instance.lifecycle, instance.instance_type, instance.zone, request.name),
        {}};
  }
  Offering offering;
  {
    std::shared_lock catalogs(catalog_mutex_);
    offering = *out.launched.offering;
  }
  out.instance = Instance{instance.instance_id, request.name, out.launched.instance_type, std::move(offering),
                          provider_id(instance.zone, instance.instance_id)};
  // Which NodeClaim the instance is for: what a restarted controller and the garbage collection find it by.
  if (AwsResult<bool> tagged = ec2_.create_tags(
          {instance.instance_id}, {{std::string(karpenter_tags::nodeclaim), request.name}, {"Name", request.name}});
      !tagged) {
    return cloud_error(tagged.error());
  }
  return out;
}

std::optional<Instance> Ec2Provider::instance_of(const Ec2Instance& described) const {
  std::shared_lock catalogs(catalog_mutex_);  // it copies an offering, whose price a refresh may change
  const InstanceType* type = nullptr;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, entry] : node_classes_) {
      if (entry.shaped != nullptr && (type = entry.shaped->find(described.instance_type)) != nullptr) break;
    }
  }
  if (type == nullptr) type = catalog_.find(described.instance_type);
  if (type == nullptr) return std::nullopt;
  Offering offering;
  for (const Offering& o : type->offerings) {
    if (o.zone == described.zone && (o.capacity_type == CapacityType::Spot) == described.spot) offering = o;
  }
  if (offering.zone.empty()) {
    offering.zone = described.zone;
    offering.capacity_type = described.spot ? CapacityType::Spot : CapacityType::OnDemand;
  }
  return Instance{described.id, described.tag(karpenter_tags::nodeclaim), type, offering,
                  provider_id(described.zone, described.id)};
}

namespace {

// "i-" and 8 or 17 hexadecimal digits: what EC2 names an instance.
bool is_instance_id(std::string_view id) {
  if (!id.starts_with("i-") || (id.size() != 10 && id.size() != 19)) return false;
  return std::all_of(id.begin() + 2, id.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

// The termination controller names the instance of a NodeClaim whose node it no longer knows by the NodeClaim's name,
// and one of an earlier run by its providerID (aws:///ZONE/i-...): a name stands for the instances tagged with it.
CloudResult<Deleted> Ec2Provider::terminate(const std::string& instance_id) {
  std::string id = instance_id.starts_with("aws://") ? instance_id.substr(instance_id.rfind('/') + 1) : instance_id;
  // Terminated already by this provider (a node consolidated away, then its NodeClaim finalized): shutting down or
  // gone, as Karpenter's Delete finds such an instance, with no second call.
  {
    std::lock_guard lock(mutex_);
    if (terminated_.contains(id)) return not_found(instance_id);
  }
  std::vector<std::string> ids{id};
  if (!is_instance_id(id)) {
    AwsResult<std::vector<Ec2Instance>> tagged =
        ec2_.describe_instances({{"tag:" + std::string(karpenter_tags::nodeclaim), {id}},
                                 {"tag:" + std::string(karpenter_tags::cluster_name), {options_.cluster.name}},
                                 {"instance-state-name", {"pending", "running", "stopping", "stopped"}}});
    if (!tagged) return cloud_error(tagged.error());
    ids.clear();
    for (const Ec2Instance& instance : *tagged) ids.push_back(instance.id);
    if (ids.empty()) return not_found(instance_id);
  }
  AwsResult<bool> done = ec2_.terminate_instances(ids);
  if (!done) {
    if (done.error().code == "InvalidInstanceID.NotFound") return not_found(instance_id);
    return cloud_error(done.error());
  }
  std::lock_guard lock(mutex_);
  auto remember = [&](const std::string& key) {
    if (terminated_.insert(key).second) terminated_order_.push_back(key);
  };
  if (!is_instance_id(id)) remember(id);
  for (const std::string& terminated : ids) {
    remember(terminated);
    if (auto claim = claim_of_instance_.find(terminated); claim != claim_of_instance_.end()) {
      remember(claim->second);
      claim_of_instance_.erase(claim);
    }
  }
  while (terminated_order_.size() > kTerminatedKept) {
    terminated_.erase(terminated_order_.front());
    terminated_order_.pop_front();
  }
  return Deleted{};
}

CloudResult<Instance> Ec2Provider::get(const std::string& instance_id) const {
  AwsResult<std::vector<Ec2Instance>> found = ec2_.describe_instances(
      {{"instance-id", {instance_id}},
       {"instance-state-name", {"pending", "running", "stopping", "stopped", "shutting-down"}}});
  if (!found) {
    if (found.error().code == "InvalidInstanceID.NotFound") return not_found(instance_id);
    return cloud_error(found.error());
  }
  if (found->empty()) return not_found(instance_id);
  std::optional<Instance> instance = instance_of(found->front());
  if (!instance) {
    return CloudError{ErrorClass::Other,
                      fmt::format("instance {} is of type {}, which the catalog does not know", instance_id,
                                  found->front().instance_type),
                      {}};
  }
  return *instance;
}

CloudResult<std::vector<Instance>> Ec2Provider::list() const {
  AwsResult<std::vector<Ec2Instance>> found =
      ec2_.describe_instances({{"tag-key", {std::string(karpenter_tags::nodepool)}},
                               {"tag:" + std::string(karpenter_tags::cluster_name), {options_.cluster.name}},
                               {"instance-state-name", {"pending", "running", "stopping", "stopped"}}});
  if (!found) return cloud_error(found.error());
  std::vector<Instance> out;
  for (const Ec2Instance& described : *found) {
    if (std::optional<Instance> instance = instance_of(described)) out.push_back(std::move(*instance));
  }
  return out;
}

CloudResult<std::optional<Ec2Instance>> Ec2Provider::described_instance(const std::string& id) const {
  std::lock_guard lock(described_mutex_);
  const std::uint64_t launches = launches_;
  if (!described_.valid || described_.launches != launches || Clock::now() - described_.at >= kDescribedFor) {
    // The instances list() finds, with what drift reads of them (image, subnet, security groups).
    AwsResult<std::vector<Ec2Instance>> found =
        ec2_.describe_instances({{"tag-key", {std::string(karpenter_tags::nodepool)}},
                                 {"tag:" + std::string(karpenter_tags::cluster_name), {options_.cluster.name}},
                                 {"instance-state-name", {"pending", "running", "stopping", "stopped"}}});
    if (!found) {
      described_.valid = false;
      return cloud_error(found.error());
    }
    described_.instances.clear();
    for (Ec2Instance& instance : *found) {
      std::string key = instance.id;
      described_.instances.emplace(std::move(key), std::move(instance));
    }
    described_.at = Clock::now();
    described_.launches = launches;
    described_.valid = true;
  }
  auto found = described_.instances.find(id);
  if (found == described_.instances.end()) return std::optional<Ec2Instance>();
  return std::optional<Ec2Instance>(found->second);
}

CloudResult<std::string> Ec2Provider::is_drifted(const ClaimedInstance& claim) const {
  if (claim.nodepool == nullptr || claim.nodepool->node_class.kind != kKind) return std::string();
  // What the class resolves to now: only a ready class says what its instances should be.
  std::set<std::string> amis, subnets, groups;
  std::string spec_hash;
  {
    std::lock_guard lock(mutex_);
    auto entry = node_classes_.find(claim.nodepool->node_class.name);
    if (entry == node_classes_.end() || !entry->second.resolved.ready()) return std::string();
    const ResolvedNodeClass& resolved = entry->second.resolved;
    for (const Ec2Image& image : resolved.amis) amis.insert(image.id);
    for (const Ec2Subnet& subnet : resolved.subnets) subnets.insert(subnet.id);
    for (const Ec2SecurityGroup& group : resolved.security_groups) groups.insert(group.id);
    spec_hash = resolved.spec_hash;
  }
  // A NodeClaim of an earlier run names its instance by its providerID (aws:///ZONE/i-...).
  const std::string& named = claim.instance_id;
  const std::string id = named.starts_with("aws://") ? named.substr(named.rfind('/') + 1) : named;
  if (id.empty()) return std::string();
  CloudResult<std::optional<Ec2Instance>> described = described_instance(id);
  if (!described) return described.error();
  if (!*described) return std::string();  // not this cluster's, or gone: nothing to replace
  const Ec2Instance& instance = **described;
  // The class's own fields first, as Karpenter looks (an instance launched before it was tagged is not judged so).
  if (const std::string launched_from = instance.tag(karpenter_tags::ec2nodeclass_hash);
      !spec_hash.empty() && !launched_from.empty() && launched_from != spec_hash) {
    return std::string("NodeClassDrift");
  }
  if (!amis.contains(instance.image_id)) return std::string("AMIDrift");
  const std::set<std::string> instance_groups(instance.security_group_ids.begin(), instance.security_group_ids.end());
  if (instance_groups != groups) return std::string("SecurityGroupDrift");
  if (!subnets.contains(instance.subnet_id)) return std::string("SubnetDrift");
  return std::string();
}

std::vector<RepairStatement> Ec2Provider::repair_policies() const { return aws::repair_policies(); }

std::size_t Ec2Provider::fleet_calls() const {
  std::lock_guard lock(mutex_);
  return fleet_calls_;
}

}  // namespace scalewright::cloud::aws
