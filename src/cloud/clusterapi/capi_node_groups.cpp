#include "cloud/clusterapi/capi_node_groups.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "api/node.h"
#include "cloud/clusterapi/to_node_group.h"
#include "manifest/manifest.h"

namespace scalewright::cloud::clusterapi {

using nlohmann::json;

namespace {

CloudError group_not_found(const std::string& id) {
  return {ErrorClass::NotFound, "node group " + id + " not found: no Cluster API object of that name is a node group",
          {}};
}

CloudError other(std::string message) { return {ErrorClass::Other, std::move(message), {}}; }

}  // namespace

MachineView view_machine(const nlohmann::json& machine, const CapiKeys& keys) {
  MachineView out;
  const json& metadata = machine.value("metadata", json::object());
  out.namespace_ = metadata.value("namespace", "");
  out.name = metadata.value("name", "");
  out.deleting = metadata.contains("deletionTimestamp") && !metadata["deletionTimestamp"].is_null();
  const json& labels = metadata.value("labels", json::object());
  out.deployment = labels.value(keys.deployment_name, "");
  out.machine_set = labels.value(keys.set_name, "");
  out.marked = metadata.value("annotations", json::object()).contains(keys.delete_machine);
  out.provider_id = string_at(machine, json::json_pointer("/spec/providerID"));
  out.node_name = string_at(machine, json::json_pointer("/status/nodeRef/name"));
  out.failure_domain = string_at(machine, json::json_pointer("/spec/failureDomain"));
  if (string_at(machine, json::json_pointer("/status/phase")) == "Failed") {
    // v1beta1 keeps the failure in status; v1beta2 moved it under status.deprecated.v1beta1.
    for (const char* at : {"/status", "/status/deprecated/v1beta1"}) {
      const std::string reason = string_at(machine, json::json_pointer(std::string(at) + "/failureReason"));
      const std::string message = string_at(machine, json::json_pointer(std::string(at) + "/failureMessage"));
      if (!message.empty() || !reason.empty()) {
        out.failure = reason.empty() ? message : message.empty() ? reason : reason + ": " + message;
        break;
      }
    }
    if (out.failure.empty()) out.failure = "the Machine's phase is Failed";
  }
  return out;
}

std::string instance_id_of(const MachineView& machine) {
  const std::string suffix = machine.namespace_ + "_" + machine.name;
  if (!machine.failure.empty() && machine.node_name.empty()) return "failed-machine-" + suffix;
  if (!machine.provider_id.empty()) return machine.provider_id;
  return (machine.deleting ? "deleting-machine-" : "pending-machine-") + suffix;
}

ClusterApiNodeGroups::ClusterApiNodeGroups(const kube::ApiClient& management, CapiApi capi,
                                           std::vector<AutoDiscoverySpec> specs, const kube::ApiClient& workload,
                                           ClusterApiNodeGroupsSettings settings)
    : client_(management, std::move(capi), std::move(specs)), workload_(workload), settings_(std::move(settings)) {}

Result<NodeGroupListing> ClusterApiNodeGroups::refresh() {
  Result<NodeGroupListing> listing = client_.list_node_groups();
  if (!listing) return listing;
  std::lock_guard lock(mutex_);
  groups_.clear();
  for (const ClusterApiNodeGroup& group : listing->groups) groups_.emplace(group.id(), group);
  return listing;
}

std::optional<Node> ClusterApiNodeGroups::registered_node_of(const ClusterApiNodeGroup& group) const {
  CloudResult<std::vector<MachineView>> machines = machines_of(group, false);
  if (!machines) return std::nullopt;
  for (const MachineView& machine : *machines) {
    if (machine.node_name.empty() || machine.deleting) continue;
    auto found = workload_.get("/api/v1/nodes/" + machine.node_name);
    if (!found.ok()) continue;
    // The manifest decoder reads a Node as `scalewright run` reads every Node it watches (JSON is YAML); the API
    // server validated it, and serves fields of its own version we need not know.
    (*found)["apiVersion"] = "v1";
    (*found)["kind"] = "Node";
    Result<ManifestSet> decoded = decode_manifests(found->dump(), "Node/" + machine.node_name + " from the API server",
                                                   ManifestLimits{}, FieldValidation::Ignore);
    if (!decoded || decoded->nodes.empty()) continue;
    // Its size and labels only: the group's taints and a Ready condition are the template's own.
    const Node& registered = decoded->nodes.front();
    Node node;
    node.capacity = registered.capacity;
    node.allocatable = registered.allocatable;
    node.meta.labels = registered.meta.labels;
    return node;
  }
  return std::nullopt;
}

std::vector<nodegroups::NodeGroup> ClusterApiNodeGroups::node_groups(std::vector<RefusedGroup>& refused) const {
  std::lock_guard lock(mutex_);
  std::vector<nodegroups::NodeGroup> out;
  for (const auto& [id, group] : groups_) {
    // Only a group with no capacity of its own is planned as one of its Nodes: read it only then.
    std::optional<Node> registered;
    if (!group.can_scale_from_zero()) registered = registered_node_of(group);
    std::optional<nodegroups::NodeGroup> built =
        to_node_group(group, registered ? &*registered : nullptr, settings_.default_architecture);
    if (!built) {
      refused.push_back({fmt::format("{} {}/{}: no capacity: neither the capacity.cluster-autoscaler.kubernetes.io/"
                                     "cpu and memory annotations, nor its infrastructure template's status.capacity, "
                                     "nor a Node of it gives one",
                                     to_string(group.kind), group.namespace_, group.name),
                         group.kind, client_.capi().group + "/" + client_.capi().version, group.namespace_,
                         group.name, group.uid});
      continue;
    }
    out.push_back(std::move(*built));
  }
  return out;
}

CloudResult<const ClusterApiNodeGroup*> ClusterApiNodeGroups::find(const std::string& id) const {
  auto found = groups_.find(id);
  if (found == groups_.end()) return group_not_found(id);
  return &found->second;
}

CloudResult<std::vector<MachineView>> ClusterApiNodeGroups::machines_of(const ClusterApiNodeGroup& group,
                                                                        bool fresh) const {
  const auto now = std::chrono::steady_clock::now();
  if (fresh || !machines_listed_at_ || now - *machines_listed_at_ >= settings_.machines_refresh) {
    Result<std::vector<json>> listed = client_.list_machines();
    if (!listed) return other(listed.error().message);
    machines_.clear();
    for (const json& machine : *listed) machines_.push_back(view_machine(machine, client_.capi().keys));
    machines_listed_at_ = now;
  }
  std::vector<MachineView> out;
  for (const MachineView& machine : machines_) {
    if (machine.namespace_ != group.namespace_) continue;
    const bool member = group.kind == ScalableKind::MachineDeployment ? machine.deployment == group.name
                                                                      : machine.machine_set == group.name;
    if (member) out.push_back(machine);
  }
  return out;
}

std::vector<GroupInstance> ClusterApiNodeGroups::instances_of(const ClusterApiNodeGroup& group,
                                                              const std::vector<MachineView>& machines) const {
  std::vector<GroupInstance> out;
  for (const MachineView& machine : machines) {
    GroupInstance item;
    Instance& instance = item.instance;
    instance.id = instance_id_of(machine);
    instance.node_name = machine.node_name;
    instance.provider_id = machine.provider_id;
    instance.offering.zone = machine.failure_domain.empty() ? group.failure_domain : machine.failure_domain;
    instance.offering.price_per_hour = group.price_per_hour;
    if (machine.deleting) {
      item.state = InstanceState::Deleting;
    } else if (!machine.failure.empty() && machine.node_name.empty()) {
      item.state = InstanceState::Creating;
      item.error = other(fmt::format("Machine {}/{} failed: {}", machine.namespace_, machine.name, machine.failure));
    } else if (machine.provider_id.empty()) {
      item.state = InstanceState::Creating;
      item.placeholder = true;  // no node registers under this id: the Machine is upcoming by the replicas alone
    } else {
      item.state = machine.node_name.empty() ? InstanceState::Creating : InstanceState::Running;
    }
    out.push_back(std::move(item));
  }
  return out;
}

CloudResult<std::int32_t> ClusterApiNodeGroups::target_size(const std::string& group) const {
  std::lock_guard lock(mutex_);
  CloudResult<const ClusterApiNodeGroup*> found = find(group);
  if (!found) return found.error();
  Result<std::int32_t> size = client_.target_size(**found);
  if (!size) return other(size.error().message);
  return *size;
}

CloudResult<std::vector<GroupInstance>> ClusterApiNodeGroups::increase_size(const std::string& group,
                                                                            std::int32_t delta) {
  std::lock_guard lock(mutex_);
  CloudResult<const ClusterApiNodeGroup*> found = find(group);
  if (!found) return found.error();
  Result<std::int32_t> size = client_.increase_size(**found, delta);
  if (!size) return other(size.error().message);
  machines_listed_at_.reset();  // the new Machines show at the next listing
  return std::vector<GroupInstance>{};
}

CloudResult<Deleted> ClusterApiNodeGroups::delete_nodes(const std::string& group,
                                                        const std::vector<std::string>& instance_ids) {
  std::lock_guard lock(mutex_);
  CloudResult<const ClusterApiNodeGroup*> found = find(group);
  if (!found) return found.error();
  const ClusterApiNodeGroup& scalable = **found;
  Result<std::int32_t> replicas = client_.target_size(scalable);
  if (!replicas) return other(replicas.error().message);
  // Refused before any call.
  auto below_min = [&](std::int32_t count) -> std::optional<CloudError> {
    if (*replicas - count >= scalable.min_size) return std::nullopt;
    return other(fmt::format("node group {}: {} replicas less {} is below its min size {}", group, *replicas, count,
                             scalable.min_size));
  };
  if (scalable.kind == ScalableKind::MachinePool) {
    // A MachinePool's instances have no Machine to mark: its infrastructure chooses which one goes.
    const auto count = static_cast<std::int32_t>(instance_ids.size());
    if (std::optional<CloudError> refused = below_min(count)) return *refused;
    Result<std::int32_t> lowered = client_.set_target_size(scalable, *replicas - count);
    if (!lowered) return other(lowered.error().message);
    return Deleted{};
  }
  CloudResult<std::vector<MachineView>> machines = machines_of(scalable, /*fresh=*/true);
  if (!machines) return machines.error();
  std::vector<const MachineView*> chosen;
  for (const std::string& id : instance_ids) {
    auto machine = std::find_if(machines->begin(), machines->end(), [&](const MachineView& m) {
      return instance_id_of(m) == id || (!m.provider_id.empty() && m.provider_id == id);
    });
    // Gone already, or on its way: nothing to do for it.
    if (machine == machines->end() || machine->deleting) continue;
    chosen.push_back(&*machine);
  }
  if (std::optional<CloudError> refused = below_min(static_cast<std::int32_t>(chosen.size()))) return *refused;
  std::int32_t size = *replicas;
  for (const MachineView* machine : chosen) {
    // Marked first, so that when the replicas drop Cluster API deletes this Machine and not another.
    Result<bool> marked = client_.mark_machine_for_deletion(machine->namespace_, machine->name, true);
    if (!marked) return other(marked.error().message);
    Result<std::int32_t> lowered = client_.set_target_size(scalable, size - 1);
    if (!lowered) {
      // Left marked, the Machine would go at the next scale-down of anyone's: the mark comes off again.
      if (Result<bool> unmarked = client_.mark_machine_for_deletion(machine->namespace_, machine->name, false);
          !unmarked) {
        spdlog::warn("clusterapi: {}", unmarked.error().message);
      }
      return other(lowered.error().message);
    }
    spdlog::info("clusterapi: node group {}: Machine {}/{} (node {}) marked for deletion, replicas {} -> {}", group,
                 machine->namespace_, machine->name, machine->node_name.empty() ? "none" : machine->node_name, size,
                 size - 1);
    --size;
  }
  machines_listed_at_.reset();
  return Deleted{};
}

CloudResult<Deleted> ClusterApiNodeGroups::decrease_target_size(const std::string& group, std::int32_t delta) {
  std::lock_guard lock(mutex_);
  CloudResult<const ClusterApiNodeGroup*> found = find(group);
  if (!found) return found.error();
  if (delta <= 0) return other(fmt::format("node group {}: size decrease must be positive, got {}", group, delta));
  Result<std::int32_t> replicas = client_.target_size(**found);
  if (!replicas) return other(replicas.error().message);
  // Only replicas no Machine with a providerID stands for may go, as CA allows.
  std::int32_t have = 0;
  if ((*found)->kind != ScalableKind::MachinePool) {
    CloudResult<std::vector<MachineView>> machines = machines_of(**found, /*fresh=*/true);
    if (!machines) return machines.error();
    have = static_cast<std::int32_t>(std::count_if(machines->begin(), machines->end(), [](const MachineView& m) {
      return !m.provider_id.empty() && !m.deleting;
    }));
  }
  if (*replicas - delta < have) {
    return other(fmt::format("node group {}: target {} cannot drop by {} below its {} machines with a provider ID",
                             group, *replicas, delta, have));
  }
  Result<std::int32_t> lowered = client_.set_target_size(**found, *replicas - delta);
  if (!lowered) return other(lowered.error().message);
  machines_listed_at_.reset();
  return Deleted{};
}

CloudResult<std::vector<GroupInstance>> ClusterApiNodeGroups::nodes(const std::string& group) const {
  std::lock_guard lock(mutex_);
  CloudResult<const ClusterApiNodeGroup*> found = find(group);
  if (!found) return found.error();
  const ClusterApiNodeGroup& scalable = **found;
  if (scalable.kind == ScalableKind::MachinePool) {
    // Its instances are the provider IDs it lists; replicas beyond them are still coming.
    // One read: the object's spec.replicas is what its Scale serves (absent: 0).
    const std::string path = client_.capi().object_path(scalable.kind, scalable.namespace_, scalable.name);
    auto object = client_.api().get(path);
    if (!object.ok()) return other(fmt::format("node group {}: {}", group, object.error().describe()));
    const json::json_pointer replicas_at("/spec/replicas");
    const bool has_replicas = object->contains(replicas_at) && (*object)[replicas_at].is_number_integer();
    const std::int32_t replicas = has_replicas ? (*object)[replicas_at].get<std::int32_t>() : 0;
    std::vector<GroupInstance> out;
    const json::json_pointer list_at("/spec/providerIDList");
    if (object->contains(list_at) && (*object)[list_at].is_array()) {
      for (const json& id : (*object)[list_at]) {
        if (!id.is_string()) continue;
        GroupInstance item;
        item.instance.id = id.get<std::string>();
        item.instance.provider_id = item.instance.id;
        item.instance.offering.price_per_hour = scalable.price_per_hour;
        item.state = InstanceState::Running;
        out.push_back(std::move(item));
      }
    }
    for (auto n = static_cast<std::int32_t>(out.size()); n < replicas; ++n) {
      GroupInstance item;
      item.instance.id = fmt::format("pending-machinepool-{}_{}-{}", scalable.namespace_, scalable.name, n + 1);
      item.placeholder = true;
      out.push_back(std::move(item));
    }
    return out;
  }
  CloudResult<std::vector<MachineView>> machines = machines_of(scalable, false);
  if (!machines) return machines.error();
  return instances_of(scalable, *machines);
}

}  // namespace scalewright::cloud::clusterapi
