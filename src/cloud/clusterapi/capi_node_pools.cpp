#include "cloud/clusterapi/capi_node_pools.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>
#include <thread>
#include <utility>

#include "api/meta.h"
#include "cloud/clusterapi/scalable_resource.h"
#include "kube/model_json.h"

namespace scalewright::cloud::clusterapi {

using nlohmann::json;

namespace {

std::string key_of(const ClusterApiNodeGroup& md) { return md.namespace_ + "/" + md.name; }

// The MachineDeployment as a group whose replicas a launch or removal may move anywhere (its size annotations, if
// any, are CA's business: a NodePool bounds itself by max-size only, checked before a launch).
ClusterApiNodeGroup unbounded(ClusterApiNodeGroup md) {
  md.min_size = 0;
  md.max_size = std::numeric_limits<std::int32_t>::max();
  return md;
}

const json& metadata_of(const json& object) {
  static const json empty = json::object();
  auto found = object.find("metadata");
  return found != object.end() && found->is_object() ? *found : empty;
}

bool has_annotation(const json& object, std::string_view key) {
  const json& annotations = metadata_of(object).value("annotations", json::object());
  return annotations.is_object() && annotations.contains(std::string(key));
}

std::string provider_id_of(const json& machine) { return string_at(machine, json::json_pointer("/spec/providerID")); }

// Free for a launch to take: not claimed, not going away.
bool free_machine(const json& machine, const CapiKeys& keys) {
  return !has_annotation(machine, kNodeClaimAnnotation) && !has_annotation(machine, keys.delete_machine) &&
         !metadata_of(machine).contains("deletionTimestamp");
}

// What a class's catalog is built from, as text: a change of it is a change of the catalog.
std::string signature_of(const std::vector<DeploymentOffering>& offerings) {
  std::string out;
  for (const DeploymentOffering& o : offerings) {
    out += fmt::format("{}|{}|{}|{}|{}|{};", key_of(o.deployment), o.instance_type, o.zone,
                       o.deployment.price_per_hour, o.has_room(), o.deployment.capacity.to_string());
    for (const auto& [key, value] : o.deployment.labels) out += key + "=" + value + ",";
  }
  return out;
}

CloudError cloud_error(std::string message) { return CloudError{ErrorClass::Other, std::move(message), {}}; }

}  // namespace

std::vector<DeploymentOffering> deployment_offerings(const std::vector<ClusterApiNodeGroup>& deployments,
                                                     std::vector<std::string>& refused) {
  std::vector<DeploymentOffering> out;
  std::map<std::string, const ClusterApiNodeGroup*> first_of_type;
  for (const ClusterApiNodeGroup& md : deployments) {
    DeploymentOffering offering;
    offering.deployment = md;
    auto type = md.labels.find(std::string(well_known::instance_type));
    offering.instance_type = type != md.labels.end() && !type->second.empty() ? type->second : md.name;
    auto zone = md.labels.find(std::string(well_known::zone));
    offering.zone = zone != md.labels.end() ? zone->second : md.failure_domain;
    // The zone is the offering's, not the type's.
    offering.deployment.labels.erase(std::string(well_known::zone));
    auto [first, added] = first_of_type.try_emplace(offering.instance_type, &md);
    if (!added && (first->second->capacity != md.capacity || first->second->labels.size() != md.labels.size())) {
      refused.push_back(fmt::format("MachineDeployment {}: instance type {} has another capacity or other labels "
                                    "in MachineDeployment {}; give one of them its own "
                                    "node.kubernetes.io/instance-type label",
                                    key_of(md), offering.instance_type, key_of(*first->second)));
      continue;
    }
    out.push_back(std::move(offering));
  }
  return out;
}

Catalog catalog_of(const std::vector<DeploymentOffering>& offerings, const std::string& default_architecture) {
  std::map<std::string, InstanceType> types;
  std::set<std::string> zones;
  for (const DeploymentOffering& o : offerings) {
    const ClusterApiNodeGroup& md = o.deployment;
    auto [at, added] = types.try_emplace(o.instance_type);
    InstanceType& type = at->second;
    if (added) {
      type.name = o.instance_type;
      for (const auto& [key, value] : md.labels) type.labels.set(Symbol(key), Symbol(value));
      type.labels.set(Symbol(well_known::instance_type), Symbol(type.name));
      if (!type.labels.has(Symbol(well_known::arch))) {
        type.labels.set(Symbol(well_known::arch), Symbol(default_architecture));
      }
      if (!type.labels.has(Symbol(well_known::os))) type.labels.set(Symbol(well_known::os), Symbol("linux"));
      type.capacity = md.capacity;
      type.allocatable = md.capacity;  // Cluster API says nothing of reserved resources: none, as upstream
      type.hardware.vcpu = (md.capacity.cpu_milli() + 999) / 1000;
      type.hardware.memory_mib = md.capacity.memory() >> 20;
      type.hardware.max_pods = md.capacity.pods();
      type.hardware.arch = type.labels.find(Symbol(well_known::arch))->str();
    }
    zones.insert(o.zone);
    auto same_zone = std::find_if(type.offerings.begin(), type.offerings.end(),
                                  [&](const Offering& existing) { return existing.zone == o.zone; });
    if (same_zone == type.offerings.end()) {
      type.offerings.push_back({o.zone, "", CapacityType::OnDemand, md.price_per_hour, PriceSource::OnDemandList,
                                o.has_room()});
      continue;
    }
    // Several MachineDeployments of one type in one zone: the cheapest with room is the price.
    if (o.has_room() && (!same_zone->available || md.price_per_hour < same_zone->price_per_hour)) {
      same_zone->price_per_hour = md.price_per_hour;
    }
    same_zone->available = same_zone->available || o.has_room();
  }
  std::vector<Zone> zone_list;
  for (const std::string& zone : zones) zone_list.push_back({zone, ""});
  std::vector<InstanceType> list;
  for (auto& [name, type] : types) list.push_back(std::move(type));
  return Catalog::from_instance_types("", std::move(zone_list), std::move(list));
}

ClusterApiNodePools::ClusterApiNodePools(const NodeGroupClient& management, const kube::ApiClient& workload,
                                         ClusterApiNodePoolsSettings settings)
    : capi_(management), workload_(workload), settings_(std::move(settings)) {}

void ClusterApiNodePools::stop() {
  std::lock_guard lock(mutex_);
  stopping_ = true;
}

bool ClusterApiNodePools::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

Result<NodePoolsRefresh> ClusterApiNodePools::refresh() {
  auto classes = workload_.list(std::string(kNodeClassesPath));
  if (!classes.ok()) return Error{fmt::format("listing {}: {}", kNodeClassesPath, classes.error().describe())};
  // No class, nothing to select: the MachineDeployments are not listed (a cluster that uses node groups only pays
  // one list of the classes per refresh).
  Result<std::vector<json>> deployments =
      classes->items.empty() ? std::vector<json>{} : capi_.list_machine_deployments();
  if (!deployments) return deployments.error();

  // Each MachineDeployment read once, with its labels for the selectors.
  struct Read {
    Labels labels;
    Result<ClusterApiNodeGroup> md;
  };
  std::vector<Read> read;
  for (const json& object : *deployments) {
    if (paused(object, capi_.capi().keys)) continue;
    Result<ClusterApiNodeGroup> md = read_scalable_resource(ScalableKind::MachineDeployment, object, capi_.capi().keys);
    if (md && !md->can_scale_from_zero()) {
      Result<std::optional<TemplateInfo>> info = capi_.infrastructure_template(object);
      if (info && *info) md = read_scalable_resource(ScalableKind::MachineDeployment, object, capi_.capi().keys, &**info);
    }
    read.push_back({kube::labels_of(object), std::move(md)});
  }
  std::sort(read.begin(), read.end(), [](const Read& a, const Read& b) {
    return a.md && b.md ? key_of(*a.md) < key_of(*b.md) : static_cast<bool>(a.md) > static_cast<bool>(b.md);
  });

  NodePoolsRefresh out;
  std::map<std::string, ClassEntry> fresh;
  for (const json& object : classes->items) {
    const std::string name = metadata_of(object).value("name", "");
    ClassEntry& entry = fresh[name];
    auto node_class = decode_node_class(object);
    if (!node_class) {
      entry.not_ready = node_class.error().message;
      continue;
    }
    std::vector<ClusterApiNodeGroup> selected;
    std::vector<std::string> problems;
    for (const Read& r : read) {
      if (!(*node_class)->selector().matches(r.labels)) continue;
      if (!r.md) {
        problems.push_back(r.md.error().message);
      } else if (!r.md->can_scale_from_zero()) {
        problems.push_back(fmt::format("MachineDeployment {}: no cpu and memory capacity (the {} and {} annotations, "
                                       "or its infrastructure template's status.capacity)",
                                       key_of(*r.md), capacity_keys::cpu, capacity_keys::memory));
      } else {
        selected.push_back(*r.md);
      }
    }
    entry.offerings = deployment_offerings(selected, problems);
    for (const std::string& problem : problems) spdlog::warn("clusterapi: {} {}: {}", kNodeClassKind, name, problem);
    if (entry.offerings.empty()) {
      entry.not_ready = problems.empty()
                            ? "selects no MachineDeployment with capacity (spec.scalableResourceSelector)"
                            : "selects no usable MachineDeployment: " + problems.front();
    }
    entry.signature = signature_of(entry.offerings);
  }

  std::lock_guard lock(mutex_);
  for (auto& [name, entry] : fresh) {
    out.not_ready[name] = entry.not_ready;
    auto known = classes_.find(name);
    const bool changed = known == classes_.end() || known->second.signature != entry.signature ||
                         known->second.not_ready != entry.not_ready;
    if (known != classes_.end()) entry.current = known->second.current;
    if (changed || (known != classes_.end() && known->second.pending)) {
      if (entry.not_ready.empty()) {
        entry.pending = std::make_unique<Catalog>(catalog_of(entry.offerings, settings_.default_architecture));
      }
    }
    if (changed) out.changed.push_back(name);
  }
  for (const auto& [name, entry] : classes_) {
    if (!fresh.contains(name)) out.changed.push_back(name);
  }
  classes_ = std::move(fresh);
  return out;
}

CloudResult<const Catalog*> ClusterApiNodePools::instance_types(const NodePool& pool) const {
  const NodeClassReference& ref = pool.node_class;
  std::lock_guard lock(mutex_);
  auto found = classes_.find(ref.name);
  if (ref.kind != kNodeClassKind || found == classes_.end()) {
    return CloudError{ErrorClass::NodeClassNotReady,
                      fmt::format("NodePool {} names {} {}, which is not a {} of this cluster", pool.meta.name,
                                  ref.kind.empty() ? "no node class" : ref.kind, ref.name, kNodeClassKind),
                      {}};
  }
  ClassEntry& entry = found->second;
  if (!entry.not_ready.empty()) {
    return CloudError{ErrorClass::NodeClassNotReady,
                      fmt::format("{} {} is not ready: {}", kNodeClassKind, ref.name, entry.not_ready), {}};
  }
  if (entry.pending) {
    // Only availability or prices moved: the catalog in use takes them in place (the engine holds its pointers).
    if (entry.current != nullptr && entry.current->same_shape(*entry.pending)) {
      entry.current->take_prices_from(*entry.pending);
    } else {
      catalogs_.push_back(std::move(entry.pending));
      entry.current = catalogs_.back().get();
    }
    entry.pending.reset();
  }
  return entry.current;
}

CloudResult<std::vector<json>> ClusterApiNodePools::machines_of(const ClusterApiNodeGroup& md) const {
  // The Machines Cluster API's MachineSets made for it carry its name (<group>/deployment-name).
  const std::string path = capi_.capi().machines_path(md.namespace_) + "?labelSelector=" +
                           capi_.capi().keys.deployment_name + "%3D" + md.name;
  auto listed = capi_.api().list(path);
  if (!listed.ok()) return cloud_error(fmt::format("listing {}: {}", path, listed.error().describe()));
  std::sort(listed->items.begin(), listed->items.end(), [](const json& a, const json& b) {
    return metadata_of(a).value("name", "") < metadata_of(b).value("name", "");
  });
  return std::move(listed->items);
}

ClusterApiNodePools::Take ClusterApiNodePools::take_free_machine(const ClusterApiNodeGroup& md,
                                                                const std::string& claim, bool waiting,
                                                                std::string& machine, CloudError& error) {
  CloudResult<std::vector<json>> machines = machines_of(md);
  if (!machines) {
    error = machines.error();
    return Take::Failed;
  }
  std::vector<const json*> free;
  for (const json& m : *machines) {
    if (free_machine(m, capi_.capi().keys)) free.push_back(&m);
  }
  // Machines that launches under way raised the replicas for are theirs: a new launch takes only one beyond them.
  const int owed = std::max(0, awaited_[key_of(md)] - (waiting ? 1 : 0));
  if (static_cast<int>(free.size()) <= owed) return Take::NoneFree;
  for (const json* candidate : free) {
    const json& meta = metadata_of(*candidate);
    const std::string name = meta.value("name", "");
    // The resourceVersion makes the claim fail if anyone changed the Machine since the list (409 Conflict).
    json patch = {{"metadata",
                   {{"resourceVersion", meta.value("resourceVersion", "")},
                    {"labels", {{std::string(kMemberLabel), "true"}}},
                    {"annotations", {{std::string(kNodeClaimAnnotation), claim}}}}}};
    auto patched = capi_.api().merge_patch(capi_.capi().machines_path(md.namespace_, name), patch);
    if (patched.ok()) {
      machine = name;
      spdlog::info("clusterapi: NodeClaim {} takes Machine {}/{} of MachineDeployment {}", claim, md.namespace_, name,
                   md.name);
      return Take::Claimed;
    }
    if (patched.error().code != 409) {
      error = cloud_error(fmt::format("claiming Machine {}/{}: {}", md.namespace_, name, patched.error().describe()));
      return Take::Failed;
    }
  }
  return Take::NoneFree;
}

CloudResult<Instance> ClusterApiNodePools::launch_on(const DeploymentOffering& offering,
                                                     const CreateRequest& request) {
  const ClusterApiNodeGroup& md = offering.deployment;
  const std::string key = key_of(md);
  std::string machine;
  CloudError error;
  {
    std::lock_guard lock(launch_mutex_);
    Take taken = take_free_machine(md, request.name, /*waiting=*/false, machine, error);
    if (taken == Take::Failed) return error;
    if (taken == Take::NoneFree) {
      Result<std::int32_t> size = capi_.target_size(md);
      if (!size) return cloud_error(size.error().message);
      if (md.max_size > 0 && *size >= md.max_size) {
        return CloudError{ErrorClass::InsufficientCapacity,
                          fmt::format("MachineDeployment {} is at its max size {}", key, md.max_size),
                          {}};
      }
      Result<std::int32_t> raised = capi_.set_target_size(unbounded(md), *size + 1);
      if (!raised) return cloud_error(raised.error().message);
      ++awaited_[key];
    }
  }
  // Wait for the MachineSet to make the Machine the raise asked for.
  for (const auto until = std::chrono::steady_clock::now() + settings_.machine_timeout; machine.empty();) {
    if (stopping() || std::chrono::steady_clock::now() >= until) {
      std::lock_guard lock(launch_mutex_);
      --awaited_[key];
      return cloud_error(fmt::format("MachineDeployment {} made no Machine for NodeClaim {} within {} s", key,
                                     request.name, settings_.machine_timeout.count() / 1000));
    }
    std::this_thread::sleep_for(settings_.poll);
    std::lock_guard lock(launch_mutex_);
    Take taken = take_free_machine(md, request.name, /*waiting=*/true, machine, error);
    if (taken == Take::Claimed) --awaited_[key];
    if (taken == Take::Failed) {
      --awaited_[key];
      return error;
    }
  }
  return await_provider_id(md, machine);
}

CloudResult<Instance> ClusterApiNodePools::await_provider_id(const ClusterApiNodeGroup& md,
                                                             const std::string& machine) const {
  const std::string path = capi_.capi().machines_path(md.namespace_, machine);
  for (const auto until = std::chrono::steady_clock::now() + settings_.provider_id_timeout;;) {
    auto got = capi_.api().get(path);
    if (!got.ok()) return cloud_error(fmt::format("Machine {}/{}: {}", md.namespace_, machine, got.error().describe()));
    if (!provider_id_of(*got).empty()) return instance_of(*got);
    if (stopping() || std::chrono::steady_clock::now() >= until) {
      return cloud_error(fmt::format("Machine {}/{} has no providerID after {} s (its infrastructure provider has "
                                     "not made the machine)",
                                     md.namespace_, machine, settings_.provider_id_timeout.count() / 1000));
    }
    std::this_thread::sleep_for(settings_.poll);
  }
}

CloudResult<Created> ClusterApiNodePools::create(const CreateRequest& request) {
  std::vector<LaunchOption> unavailable;
  for (const LaunchOption& option : request.offerings) {
    std::vector<DeploymentOffering> candidates;
    {
      std::lock_guard lock(mutex_);
      auto found = classes_.find(request.node_class.name);
      if (found == classes_.end()) {
        return CloudError{ErrorClass::NodeClassNotReady,
                          fmt::format("NodeClaim {}: {} {} is gone", request.name, kNodeClassKind,
                                      request.node_class.name),
                          {}};
      }
      for (const DeploymentOffering& o : found->second.offerings) {
        if (o.instance_type == option.instance_type->name && o.zone == option.offering->zone) candidates.push_back(o);
      }
    }
    // The cheapest first, then by name.
    std::stable_sort(candidates.begin(), candidates.end(), [](const DeploymentOffering& a, const DeploymentOffering& b) {
      return a.deployment.price_per_hour < b.deployment.price_per_hour;
    });
    for (const DeploymentOffering& candidate : candidates) {
      CloudResult<Instance> launched = launch_on(candidate, request);
      if (launched) {
        launched->instance_type = option.instance_type;
        launched->offering = *option.offering;
        launched->offering.price_per_hour = candidate.deployment.price_per_hour;
        return Created{std::move(*launched), option, std::move(unavailable)};
      }
      if (launched.error().error_class != ErrorClass::InsufficientCapacity) return launched.error();
      spdlog::info("clusterapi: NodeClaim {}: {}", request.name, launched.error().message);
    }
    unavailable.push_back(option);
  }
  CloudError none{ErrorClass::InsufficientCapacity,
                  fmt::format("NodeClaim {}: every MachineDeployment it may launch on is at its max size",
                              request.name),
                  unavailable};
  return none;
}

CloudResult<std::vector<json>> ClusterApiNodePools::claimed_machines() const {
  const std::string path = capi_.capi().machines_path() + "?labelSelector=" + std::string(kMemberLabel);
  auto listed = capi_.api().list(path);
  if (!listed.ok()) return cloud_error(fmt::format("listing {}: {}", path, listed.error().describe()));
  std::erase_if(listed->items, [](const json& m) { return !has_annotation(m, kNodeClaimAnnotation); });
  return std::move(listed->items);
}

Instance ClusterApiNodePools::instance_of(const json& machine) const {
  Instance instance;
  instance.provider_id = provider_id_of(machine);
  instance.id = instance.provider_id;
  instance.node_name = string_at(machine, json::json_pointer("/status/nodeRef/name"));
  return instance;
}

CloudResult<Deleted> ClusterApiNodePools::terminate(const std::string& instance_id) {
  CloudResult<std::vector<json>> machines = claimed_machines();
  if (!machines) return machines.error();
  auto machine = std::find_if(machines->begin(), machines->end(),
                              [&](const json& m) { return provider_id_of(m) == instance_id; });
  if (machine == machines->end()) return not_found(instance_id);
  const json& meta = metadata_of(*machine);
  const std::string namespace_ = meta.value("namespace", "");
  const std::string name = meta.value("name", "");
  if (meta.contains("deletionTimestamp") || has_annotation(*machine, capi_.capi().keys.delete_machine)) {
    return Deleted{};  // on its way out already
  }
  const Labels labels = kube::labels_of(*machine);
  const Symbol* deployment_label = labels.find(Symbol(capi_.capi().keys.deployment_name));
  const std::string deployment(deployment_label != nullptr ? deployment_label->str() : "");
  if (deployment.empty()) {
    return cloud_error(fmt::format("Machine {}/{} has no {} label: no MachineDeployment to take it from", namespace_,
                                   name, capi_.capi().keys.deployment_name));
  }
  ClusterApiNodeGroup md;
  md.namespace_ = namespace_;
  md.name = deployment;
  md = unbounded(md);
  std::lock_guard lock(launch_mutex_);
  Result<bool> marked = capi_.mark_machine_for_deletion(namespace_, name, true);
  if (!marked) return cloud_error(marked.error().message);
  Result<std::int32_t> size = capi_.target_size(md);
  Result<std::int32_t> lowered = size && *size > 0 ? capi_.set_target_size(md, *size - 1)
                                 : size ? Result<std::int32_t>(Error{fmt::format(
                                              "MachineDeployment {}/{} has no replica to take away", namespace_,
                                              deployment)})
                                        : Result<std::int32_t>(size.error());
  if (!lowered) {
    // As Cluster Autoscaler: the mark comes off again, so that a later scale-down does not take this Machine.
    if (Result<bool> unmarked = capi_.mark_machine_for_deletion(namespace_, name, false); !unmarked) {
      spdlog::warn("clusterapi: {}", unmarked.error().message);
    }
    return cloud_error(lowered.error().message);
  }
  spdlog::info("clusterapi: Machine {}/{} ({}) leaves MachineDeployment {}", namespace_, name, instance_id,
               deployment);
  return Deleted{};
}

CloudResult<Instance> ClusterApiNodePools::get(const std::string& instance_id) const {
  CloudResult<std::vector<json>> machines = claimed_machines();
  if (!machines) return machines.error();
  for (const json& machine : *machines) {
    if (provider_id_of(machine) == instance_id) return instance_of(machine);
  }
  return not_found(instance_id);
}

CloudResult<std::vector<Instance>> ClusterApiNodePools::list() const {
  CloudResult<std::vector<json>> machines = claimed_machines();
  if (!machines) return machines.error();
  std::vector<Instance> out;
  for (const json& machine : *machines) {
    if (!provider_id_of(machine).empty()) out.push_back(instance_of(machine));
  }
  return out;
}

}  // namespace scalewright::cloud::clusterapi
