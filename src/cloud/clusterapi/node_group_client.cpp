#include "cloud/clusterapi/node_group_client.h"

#include <fmt/format.h>
#include <fmt/chrono.h>
#include <spdlog/spdlog.h>

#include <ctime>
#include <limits>
#include <utility>

namespace scalewright::cloud::clusterapi {

using nlohmann::json;

NodeGroupClient::NodeGroupClient(const kube::ApiClient& api, CapiApi capi, std::vector<AutoDiscoverySpec> specs)
    : api_(api), capi_(std::move(capi)), specs_(std::move(specs)), templates_(api) {}

std::string NodeGroupClient::scope() const {
  // CA's informers watch the namespace of the first spec that names one, else every namespace.
  for (const AutoDiscoverySpec& spec : specs_) {
    if (!spec.namespace_.empty()) return spec.namespace_;
  }
  return "";
}

Decoded NodeGroupClient::with_template(ScalableKind kind, const nlohmann::json& object, Decoded decoded) const {
  const auto* group = std::get_if<ClusterApiNodeGroup>(&decoded);
  const auto* skipped = std::get_if<Skipped>(&decoded);
  const bool wants_capacity = (group != nullptr && !group->can_scale_from_zero()) ||
                              (skipped != nullptr && skipped->for_want_of_capacity);
  if (!wants_capacity) return decoded;
  Result<std::optional<TemplateInfo>> info = infrastructure_template(object);
  if (!info) {
    const json& metadata = object.value("metadata", json::object());
    return Error{fmt::format("{} {}/{}: infrastructure template: {}", to_string(kind), metadata.value("namespace", ""),
                             metadata.value("name", ""), info.error().message)};
  }
  if (!*info) return decoded;
  return decode_scalable_resource(kind, object, capi_.keys, &**info);
}

namespace {

Result<std::vector<nlohmann::json>> list_items(const kube::ApiClient& api, const std::string& path) {
  auto listed = api.list(path);
  if (!listed.ok()) return Error{fmt::format("listing {}: {}", path, listed.error().describe())};
  return std::move(listed->items);
}

}  // namespace

Result<std::vector<nlohmann::json>> NodeGroupClient::list_machines() const {
  return list_items(api_, capi_.machines_path(scope()));
}

Result<std::vector<nlohmann::json>> NodeGroupClient::list_machine_deployments() const {
  return list_items(api_, capi_.collection_path(ScalableKind::MachineDeployment, scope()));
}

Result<std::optional<TemplateInfo>> NodeGroupClient::infrastructure_template(const nlohmann::json& object) const {
  const InfrastructureRef ref = infrastructure_ref_of(object);
  if (ref.empty()) return std::optional<TemplateInfo>();
  return templates_.read(object.value("metadata", json::object()).value("namespace", ""), ref);
}

Result<bool> NodeGroupClient::mark_machine_for_deletion(const std::string& namespace_, const std::string& name,
                                                        bool marked) const {
  // Cluster API looks only at the annotation's presence; its value says when, as Cluster Autoscaler writes it.
  const json value = marked ? json(fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr)))) : json();
  auto patched = api_.merge_patch(capi_.machines_path(namespace_, name),
                                  {{"metadata", {{"annotations", {{capi_.keys.delete_machine, value}}}}}});
  if (!patched.ok()) {
    return Error{fmt::format("Machine {}/{}: {} annotation {}: {}", namespace_, name,
                             marked ? "adding" : "removing", capi_.keys.delete_machine, patched.error().describe())};
  }
  return true;
}

Result<NodeGroupListing> NodeGroupClient::list_node_groups() const {
  const std::string namespace_ = scope();
  NodeGroupListing listing;
  for (ScalableKind kind : {ScalableKind::MachineSet, ScalableKind::MachineDeployment, ScalableKind::MachinePool}) {
    if (!capi_.serves(kind)) continue;
    const std::string path = capi_.collection_path(kind, namespace_);
    auto listed = api_.list(path);
    if (!listed.ok()) return Error{fmt::format("listing {}: {}", path, listed.error().describe())};
    for (const json& object : listed->items) {
      if (!allowed(specs_, discovered_object(object, capi_.keys))) continue;
      Decoded decoded = with_template(kind, object, decode_scalable_resource(kind, object, capi_.keys));
      if (auto* group = std::get_if<ClusterApiNodeGroup>(&decoded)) {
        spdlog::debug("clusterapi: node group {} min={} max={} replicas={}", group->id(), group->min_size,
                      group->max_size, group->replicas);
        listing.groups.push_back(std::move(*group));
      } else if (auto* error = std::get_if<Error>(&decoded)) {
        const json& metadata = object.value("metadata", json::object());
        listing.refused.push_back({std::move(error->message), kind, capi_.group + "/" + capi_.version,
                                   metadata.value("namespace", ""), metadata.value("name", ""),
                                   metadata.value("uid", "")});
      }
    }
  }
  return listing;
}

std::string NodeGroupClient::scale_path(const ClusterApiNodeGroup& group) const {
  return capi_.object_path(group.kind, group.namespace_, group.name) + "/scale";
}

namespace {

// spec.replicas of an autoscaling/v1 Scale: the API server omits it at 0.
Result<std::int32_t> scale_replicas(const json& scale, const std::string& path) {
  const json::json_pointer at("/spec/replicas");
  if (!scale.contains(at)) return 0;
  const json& replicas = scale[at];
  if (!replicas.is_number_integer() || replicas.get<std::int64_t>() < 0 ||
      replicas.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max()) {
    return Error{fmt::format("{}: spec.replicas is {}, not a replica count", path, replicas.dump())};
  }
  return replicas.get<std::int32_t>();
}

// kube-apiserver answers a Scale of a custom resource without spec.replicas with a 500 ("the spec replicas field
// \".spec.replicas\" does not exist") rather than a Scale of 0; such an object is read and written directly.
bool replicas_field_absent(const kube::KubeError& error) {
  return error.code == 500 && error.message.find("does not exist") != std::string::npos;
}

}  // namespace

Result<std::int32_t> NodeGroupClient::target_size(const ClusterApiNodeGroup& group) const {
  const std::string path = scale_path(group);
  auto scale = api_.get(path);
  if (!scale.ok() && replicas_field_absent(scale.error())) {
    const std::string object_path = capi_.object_path(group.kind, group.namespace_, group.name);
    auto object = api_.get(object_path);
    if (!object.ok()) return Error{fmt::format("node group {}: {}", group.id(), object.error().describe())};
    return scale_replicas(*object, object_path);
  }
  if (!scale.ok()) return Error{fmt::format("node group {}: {}", group.id(), scale.error().describe())};
  return scale_replicas(*scale, path);
}

Result<std::int32_t> NodeGroupClient::set_target_size(const ClusterApiNodeGroup& group, std::int32_t replicas) const {
  if (replicas > group.max_size) {
    return Error{fmt::format("node group {}: size {} is above its max size {}", group.id(), replicas, group.max_size)};
  }
  if (replicas < group.min_size) {
    return Error{fmt::format("node group {}: size {} is below its min size {}", group.id(), replicas, group.min_size)};
  }
  const std::string path = scale_path(group);
  // A merge patch of the Scale changes only the replicas, whoever else writes the object meanwhile.
  auto patched = api_.merge_patch(path, {{"spec", {{"replicas", replicas}}}});
  if (!patched.ok() && replicas_field_absent(patched.error())) {
    const std::string object_path = capi_.object_path(group.kind, group.namespace_, group.name);
    patched = api_.merge_patch(object_path, {{"spec", {{"replicas", replicas}}}});
    if (patched.ok()) return scale_replicas(*patched, object_path);
  }
  if (!patched.ok()) return Error{fmt::format("node group {}: {}", group.id(), patched.error().describe())};
  spdlog::info("clusterapi: node group {} scaled to {} replicas", group.id(), replicas);
  return scale_replicas(*patched, path);
}

Result<std::int32_t> NodeGroupClient::increase_size(const ClusterApiNodeGroup& group, std::int32_t delta) const {
  if (delta <= 0) return Error{fmt::format("node group {}: size increase must be positive, not {}", group.id(), delta)};
  // The Scale, not the listed object: another writer may have moved the size since the list.
  Result<std::int32_t> current = target_size(group);
  if (!current) return current.error();
  std::int64_t wanted = std::int64_t{*current} + delta;
  if (wanted > group.max_size) {
    return Error{fmt::format("node group {}: size increase too large: {} + {} is above its max size {}", group.id(),
                             *current, delta, group.max_size)};
  }
  return set_target_size(group, static_cast<std::int32_t>(wanted));
}

}  // namespace scalewright::cloud::clusterapi
