#include "cluster/kubernetes_writer.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "api/nodepool.h"
#include "api/timestamp.h"
#include "kube/model_json.h"
#include "manifest/manifest.h"
#include "nodegroups/status.h"

namespace scalewright::cluster {

using nlohmann::json;

namespace {

using kube::resources_json;
using kube::taints_json;

constexpr int kConflictRetries = 5;

// Sets (or, with nullopt, removes) the taint `key` of a Node object, leaving its other taints as they are.
void set_taint_of(json& node, std::string_view key, const std::optional<Taint>& taint) {
  json& spec = node["spec"];
  json taints = json::array();
  for (const json& t : spec.value("taints", json::array())) {
    if (t.value("key", "") != key) taints.push_back(t);
  }
  if (taint) taints.push_back(taints_json({*taint})[0]);
  if (taints.empty()) {
    spec.erase("taints");
  } else {
    spec["taints"] = taints;
  }
}

std::string pod_path(const std::string& namespace_, const std::string& name) {
  return "/api/v1/namespaces/" + namespace_ + "/pods/" + name;
}

std::string nodeclaim_path(const std::string& name) { return std::string(resources::nodeclaims.path) + "/" + name; }

// The NodeClaim Karpenter's provisioner creates for `claim`: its NodePool's node class, what its launch may
// choose from (the offerings' instance types, zones and capacity types, and the NodePool), its labels and taints,
// and the finalizer that keeps it until its instance is gone.
json nodeclaim_object(const state::NodeRecord& claim, const NodePool* pool,
                      const std::vector<cloud::LaunchOption>& offerings) {
  json labels = json::object();
  for (const auto& [key, value] : claim.node.meta.labels) {
    if (key.str() != well_known::hostname) labels[key.string()] = value.string();
  }
  std::vector<std::string> types;
  std::vector<std::string> zones;
  std::vector<std::string> capacity_types;
  const auto add = [](std::vector<std::string>& values, std::string value) {
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(std::move(value));
  };
  for (const cloud::LaunchOption& option : offerings) {
    add(types, option.instance_type->name);
    if (!option.offering->zone.empty()) add(zones, option.offering->zone);
    add(capacity_types, std::string(cloud::to_string(option.offering->capacity_type)));
  }
  std::sort(zones.begin(), zones.end());
  std::sort(capacity_types.begin(), capacity_types.end());
  json requirements = json::array();
  auto allow = [&](std::string_view key, const std::vector<std::string>& values) {
    if (!values.empty()) requirements.push_back({{"key", key}, {"operator", "In"}, {"values", values}});
  };
  allow(well_known::instance_type, types);  // cheapest first, the order the launch prefers
  allow(well_known::zone, zones);
  allow(karpenter_labels::capacity_type, capacity_types);
  allow(karpenter_labels::nodepool, {claim.nodepool});
  NodeClassReference node_class = pool != nullptr ? pool->node_class : NodeClassReference{};
  if (node_class.name.empty()) node_class = {"karpenter.kwok.sh", "KWOKNodeClass", "default"};
  json metadata = {{"name", claim.name()},
                   {"labels", labels},
                   {"finalizers", {kTerminationFinalizer}}};
  if (!claim.nodepool_hash.empty()) {
    metadata["annotations"] = {{std::string(karpenter_annotations::nodepool_hash), claim.nodepool_hash},
                               {std::string(karpenter_annotations::nodepool_hash_version), claim.nodepool_hash_version}};
  }
  if (pool != nullptr && !pool->meta.uid.empty()) {
    metadata["ownerReferences"] = {{{"apiVersion", "karpenter.sh/v1"},
                                    {"kind", "NodePool"},
                                    {"name", pool->meta.name},
                                    {"uid", pool->meta.uid},
                                    {"blockOwnerDeletion", true}}};
  }
  json spec = {{"nodeClassRef", {{"group", node_class.group}, {"kind", node_class.kind}, {"name", node_class.name}}},
               {"requirements", requirements}};
  if (!claim.node.taints.empty()) spec["taints"] = taints_json(claim.node.taints);
  return {{"apiVersion", "karpenter.sh/v1"}, {"kind", "NodeClaim"}, {"metadata", metadata}, {"spec", spec}};
}

}  // namespace

KubernetesWriter::KubernetesWriter(const kube::ApiClient& client, state::ClusterState& state,
                                   const controllers::Clock& clock, const TimeBase& time, kube::EventSink& events,
                                   const NodeObjectNames& names, WriterOptions options)
    : client_(client),
      state_(state),
      clock_(clock),
      time_(time),
      events_(events),
      names_(names),
      options_(std::move(options)) {}

// What the API server accepted is written through into the state's record of the object, found by its key (the
// controllers hold it const).
state::PodRecord& KubernetesWriter::record_of(const state::PodRecord& pod) {
  return *state_.find_pod(std::string(pod.key));
}

void KubernetesWriter::failed(std::string_view what, const kube::KubeError& error) {
  ++counts_.api_errors;
  spdlog::warn("{}: {}", what, error.describe());
}

kube::ObjectReference KubernetesWriter::pod_reference(const state::PodRecord& pod) const {
  return {"v1", "Pod", pod.pod->meta.namespace_, pod.pod->meta.name, pod.pod->meta.uid};
}

kube::ObjectReference KubernetesWriter::nodeclaim_reference(const std::string& name) {
  return {"karpenter.sh/v1", "NodeClaim", "", name, ""};
}

void KubernetesWriter::record(controllers::TimelineEntry entry) {
  spdlog::info("{}: {}", entry.kind, names_.in_text(std::move(entry.message)));
}

void KubernetesWriter::nominate(const state::PodRecord& pod, const std::string& node) {
  const bool had_capacity = !pod.nominated_node.empty();
  state_.pod_nominated(record_of(pod), node.empty() ? Symbol() : Symbol(node));
  if (node.empty()) {
    if (had_capacity) needed_since_.insert_or_assign(std::string(pod.key), clock_.now());
    last_created_.clear();  // a new provisioning pass: nominations from here on are to capacity planned before
    return;
  }
  ++counts_.pods_nominated;
  auto needed = needed_since_.find(pod.key);
  if (node == last_created_ && options_.observe_pod_to_nodeclaim_seconds) {
    const Instant since = needed == needed_since_.end() ? pod.created : needed->second;
    options_.observe_pod_to_nodeclaim_seconds(std::chrono::duration<double>(last_created_at_ - since).count(),
                                              std::chrono::duration<double>(last_created_at_ - pod.created).count());
  }
  if (needed != needed_since_.end()) needed_since_.erase(needed);
}

void KubernetesWriter::release_nominations(const std::string& node) {
  if (auto nominees = state_.nominees().find(Symbol(node)); nominees != state_.nominees().end()) {
    for (const state::PodRecord* pod : nominees->second) {
      needed_since_.insert_or_assign(std::string(pod->key), clock_.now());
    }
  }
  state_.nominations_released(node);
  // Pods bound or gone since leave no entry behind.
  if (needed_since_.size() > 2 * state_.unbound().size() + 64) {
    std::erase_if(needed_since_, [this](const auto& entry) {
      const state::PodRecord* pod = state_.find_pod(entry.first);
      return pod == nullptr || pod->bound_at.has_value();
    });
  }
}

void KubernetesWriter::evict(const state::PodRecord& pod, Duration grace) {
  const Pod& p = *pod.pod;
  if (options_.dry_run) {
    spdlog::info("dry-run: would evict pod {}", pod.key);
  } else {
    const json eviction = {{"apiVersion", "policy/v1"},
                           {"kind", "Eviction"},
                           {"metadata", {{"name", p.meta.name}, {"namespace", p.meta.namespace_}}}};
    kube::KubeResult<json> done = client_.create(pod_path(p.meta.namespace_, p.meta.name) + "/eviction", eviction);
    if (!done) {
      // 429: a PodDisruptionBudget allows no eviction now; the termination controller asks again later, and
      // never forces it. 404: the pod is gone already, as the watch will say.
      if (done.error().is_too_many_requests()) {
        spdlog::info("eviction of pod {} refused for now: {}", pod.key, done.error().message);
      } else if (!done.error().is_not_found()) {
        failed(fmt::format("evict pod {}", pod.key), done.error());
      }
      return;
    }
    events_.emit({pod_reference(pod), "Normal", "Evicted", "Evict", "Evicted pod: draining its node"});
  }
  ++counts_.evictions;
  state_.pod_deleting(record_of(pod), clock_.now() + grace, clock_.now());
}

bool KubernetesWriter::update_node(const std::string& name, const std::function<void(json&)>& change) {
  const std::string path = std::string(resources::nodes.path) + "/" + name;
  for (int attempt = 0; attempt < kConflictRetries; ++attempt) {
    kube::KubeResult<json> node = client_.get(path);
    if (!node) {
      if (!node.error().is_not_found()) failed("get node " + name, node.error());
      return false;
    }
    change(*node);
    kube::KubeResult<json> updated = client_.update(path, *node);
    if (updated) return true;
    if (!updated.error().is_conflict()) {
      failed("update node " + name, updated.error());
      return false;
    }
  }
  spdlog::warn("update node {}: still conflicting after {} tries", name, kConflictRetries);
  return false;
}

void KubernetesWriter::set_taint(const std::string& name, const Taint& taint, bool present) {
  if (!options_.dry_run) {
    const bool done = update_node(names_.object_of(name), [&](json& node) {
      set_taint_of(node, taint.key, present ? std::optional<Taint>(taint) : std::nullopt);
    });
    if (!done) return;
  }
  state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr) return;
  std::erase_if(node->node.taints, [&](const Taint& t) { return t.key == taint.key; });
  if (present) node->node.taints.push_back(taint);
  state_.node_updated(*node);
}

bool KubernetesWriter::nodeclaim_created(state::NodeRecord claim, const std::vector<cloud::LaunchOption>& offerings) {
  const std::string name = claim.name();
  if (!options_.dry_run) {
    const NodePool* pool = state_.find_nodepool(claim.nodepool);
    // scalewright_pod_to_nodeclaim_seconds runs to the create call itself, as sent: the API server's answer time
    // is not the decision's.
    const Instant sent_at = clock_.now();
    kube::KubeResult<json> created =
        client_.create(std::string(resources::nodeclaims.path), nodeclaim_object(claim, pool, offerings));
    if (!created && !created.error().is_conflict()) {
      failed("create NodeClaim " + name, created.error());
      return false;
    }
    if (created) {
      ++counts_.nodeclaims_created;
      last_created_ = name;
      last_created_at_ = sent_at;
    }
  }
  state_.node_added(std::move(claim));
  return true;
}

void KubernetesWriter::nodeclaim_not_launched(const std::string& name) {
  const state::NodeRecord* node = state_.find_node(name);
  // A node group's planned node has no NodeClaim: only its record goes.
  if (!options_.dry_run && (node == nullptr || node->node_group.empty())) {
    // Nothing was launched: nothing for the finalizer to wait for.
    release_nodeclaim(name);
    if (auto deleted = client_.remove(nodeclaim_path(name)); !deleted && !deleted.error().is_not_found()) {
      failed("delete NodeClaim " + name, deleted.error());
    }
  }
  state_.nodeclaim_not_launched(name);
}

void KubernetesWriter::node_launched(state::NodeRecord node, bool running_already) {
  const std::string name = node.name();
  if (!node.nodepool.empty() && !running_already && !options_.dry_run) {
    // The NodeClaim takes the labels of what was launched (Karpenter's NodeClaim carries them once launched); its
    // status and Launched go in one write, at the end of the pass (write_launched_statuses).
    json labels = json::object();
    labels[std::string(well_known::instance_type)] = node.instance_type;
    labels[std::string(well_known::zone)] = node.zone;
    labels[std::string(karpenter_labels::capacity_type)] = node.capacity_type;
    if (kube::KubeResult<json> patched =
            client_.merge_patch(nodeclaim_path(name), {{"metadata", {{"labels", labels}}}});
        !patched) {
      failed("label NodeClaim " + name, patched.error());
    }
    launched_statuses_.emplace_back(name, json{{"providerID", node.node.provider_id},
                                               {"capacity", resources_json(node.node.capacity)},
                                               {"allocatable", resources_json(node.node.allocatable)}});
    events_.emit({nodeclaim_reference(name), "Normal", "Launched", "Launch",
                  fmt::format("Status condition transitioned, Type: Launched, Status: True, Reason: Launched "
                              "({} {} {})",
                              node.instance_type, node.zone, node.capacity_type)});
  }
  state_.node_launched(std::move(node));
}

void KubernetesWriter::write_launched_statuses() {
  // With the conditions already there: the node may have registered before its launch's answer was observed.
  for (auto& [name, status] : launched_statuses_) set_claim_conditions(name, {{"Launched", "Launched"}}, status);
  launched_statuses_.clear();
}

void KubernetesWriter::set_claim_conditions(const std::string& name,
                                            const std::vector<std::pair<std::string, std::string>>& true_conditions,
                                            json status) {
  kube::KubeResult<json> claim = client_.get(nodeclaim_path(name));
  if (!claim) {
    if (!claim.error().is_not_found()) failed("get NodeClaim " + name, claim.error());
    return;
  }
  json conditions = claim->value("status", json::object()).value("conditions", json::array());
  const std::string now = format_micro_time(time_.wall(clock_.now()));
  for (const auto& [type, reason] : true_conditions) {
    json condition = {{"type", type}, {"status", "True"}, {"reason", reason}, {"message", ""},
                      {"lastTransitionTime", now}};
    auto same = std::find_if(conditions.begin(), conditions.end(),
                             [&](const json& c) { return c.value("type", "") == type; });
    if (same == conditions.end()) {
      conditions.push_back(std::move(condition));
    } else if (same->value("status", "") != "True") {
      *same = std::move(condition);
    }
  }
  status["conditions"] = std::move(conditions);
  if (kube::KubeResult<json> patched =
          client_.merge_patch(nodeclaim_path(name) + "/status", {{"status", std::move(status)}});
      !patched) {
    failed("NodeClaim " + name + " conditions", patched.error());
  }
}

void KubernetesWriter::node_registered(const std::string& name) {
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->nodepool.empty() || options_.dry_run) return;
  kube::KubeResult<json> claim = client_.get(nodeclaim_path(name));
  if (!claim) {
    if (!claim.error().is_not_found()) failed("get NodeClaim " + name, claim.error());
    return;  // gone: its node is not registered to it
  }
  const std::string node_name = names_.object_of(name);
  // As Karpenter's registration does: the NodeClaim's labels and annotations over the Node's, its taints added
  // where the Node lacks them (the same key and effect). Its startupTaints are not synced: the NodeClaims
  // Scalewright writes carry none, and a taint some daemon has already removed must not come back.
  const Labels labels = nodeclaim_labels(*claim);
  const json annotations = claim->value("metadata", json::object()).value("annotations", json::object());
  const json taints = claim->value("spec", json::object()).value("taints", json::array());
  update_node(node_name, [&](json& object) {
    json& metadata = object["metadata"];
    for (const auto& [key, value] : labels) metadata["labels"][key.string()] = value.string();
    metadata["labels"][std::string(kRegisteredLabel)] = "true";
    for (const auto& [key, value] : annotations.items()) metadata["annotations"][key] = value;
    json& spec = object["spec"];
    for (const json& taint : taints) {
      const json& present = spec.value("taints", json::array());
      const bool has = std::any_of(present.begin(), present.end(), [&](const json& t) {
        return t.value("key", "") == taint.value("key", "") && t.value("effect", "") == taint.value("effect", "");
      });
      if (!has) spec["taints"].push_back(taint);
    }
    set_taint_of(object, kUnregisteredTaintKey, std::nullopt);
  });
  if (kube::KubeResult<json> patched =
          client_.merge_patch(nodeclaim_path(name) + "/status", {{"status", {{"nodeName", node_name}}}});
      !patched && !patched.error().is_not_found()) {
    failed("NodeClaim " + name + " nodeName", patched.error());
  }
  set_claim_conditions(name, {{"Registered", "Registered"}});
}

void KubernetesWriter::node_initialized(const std::string& name) {
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->nodepool.empty() || options_.dry_run) return;
  const json labels = {{"metadata", {{"labels", {{std::string(kInitializedLabel), "true"}}}}}};
  const std::string node_name = names_.object_of(name);
  if (kube::KubeResult<json> patched =
          client_.merge_patch(std::string(resources::nodes.path) + "/" + node_name, labels);
      !patched && !patched.error().is_not_found()) {
    failed("label node " + node_name + " initialized", patched.error());
  }
  set_claim_conditions(name, {{"Initialized", "Initialized"}, {"Ready", "Ready"}});
}

void KubernetesWriter::drain(const std::string& name) {
  state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr) return;
  std::vector<const state::PodRecord*> pods;
  if (const scheduling::NodeId id = state_.snapshot().find_node(name); id != scheduling::kNoNode) {
    for (const auto& placed : state_.snapshot().node(id).pods) {
      if (const state::PodRecord* pod = state_.find_pod(placed.pod->meta.key())) pods.push_back(pod);
    }
  }
  const std::string node_name = names_.object_of(name);
  if (options_.dry_run) {
    spdlog::info("dry-run: would cordon node {} and delete its {} pods", node_name, pods.size());
  } else {
    const json cordon = {{"spec", {{"unschedulable", true}}}};
    if (auto patched = client_.merge_patch(std::string(resources::nodes.path) + "/" + node_name, cordon);
        !patched && !patched.error().is_not_found()) {
      failed("cordon node " + node_name, patched.error());
    }
    for (const state::PodRecord* pod : pods) {
      if (pod->daemon || pod->terminating_until) continue;
      auto deleted = client_.remove(pod_path(pod->pod->meta.namespace_, pod->pod->meta.name));
      if (!deleted && !deleted.error().is_not_found()) failed("delete pod " + std::string(pod->key), deleted.error());
    }
  }
  for (const state::PodRecord* pod : pods) {
    if (pod->daemon || pod->terminating_until) continue;
    state_.pod_deleting(record_of(*pod), clock_.now(), clock_.now());
  }
  state_.nominations_released(name);
  state_.node_draining(*node);
}

void KubernetesWriter::delete_node(const std::string& name) {
  state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->phase == state::NodePhase::Terminated) return;
  if (node->phase != state::NodePhase::Draining) {
    drain(name);
  } else if (deleted_.contains(name)) {
    return;  // asked already; the watch has not said it is gone yet
  }
  std::erase_if(deleted_, [&](const std::string& gone) { return state_.find_node(gone) == nullptr; });
  deleted_.insert(name);
  const std::string node_name = names_.object_of(name);
  if (options_.dry_run) {
    spdlog::info("dry-run: would delete node {}", node_name);
  } else {
    // The NodeClaim first: its finalizer keeps it, and so the record of the instance, until the instance is gone
    // (release_nodeclaim), whatever happens to this controller meanwhile.
    if (!node->nodepool.empty()) {
      if (auto deleted = client_.remove(nodeclaim_path(name)); !deleted && !deleted.error().is_not_found()) {
        failed("delete NodeClaim " + name, deleted.error());
      }
      events_.emit({nodeclaim_reference(name), "Normal", "Deleted", "Delete", "Deleted NodeClaim and its node"});
    }
    if (auto deleted = client_.remove(std::string(resources::nodes.path) + "/" + node_name);
        !deleted && !deleted.error().is_not_found()) {
      failed("delete node " + node_name, deleted.error());
    }
  }
  ++counts_.nodes_deleted;
  // The node stays Draining in the state until the watch says its Node (or, never registered, its NodeClaim) is
  // gone: updates still arriving for it are then not taken for a new node.
}

void KubernetesWriter::release_nodeclaim(const std::string& name) {
  if (options_.dry_run) return;
  const json patch = {{"metadata", {{"finalizers", nullptr}}}};
  if (auto patched = client_.merge_patch(nodeclaim_path(name), patch); !patched && !patched.error().is_not_found()) {
    failed("remove the finalizer of NodeClaim " + name, patched.error());
  }
}

void KubernetesWriter::publish_cluster_autoscaler_status(const std::string& status, const std::string& last_updated) {
  if (options_.dry_run) return;
  const std::string name(nodegroups::kStatusConfigMapName);
  const json metadata = {{"annotations", {{std::string(nodegroups::kStatusLastUpdatedAnnotation), last_updated}}}};
  const json data = {{"status", status}};
  kube::KubeResult<json> patched =
      client_.merge_patch("/api/v1/namespaces/kube-system/configmaps/" + name, {{"metadata", metadata}, {"data", data}});
  if (patched) return;
  if (!patched.error().is_not_found()) {
    failed("ConfigMap kube-system/" + name, patched.error());
    return;
  }
  json object = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", metadata}, {"data", data}};
  object["metadata"]["name"] = name;
  object["metadata"]["namespace"] = "kube-system";
  if (kube::KubeResult<json> created = client_.create("/api/v1/namespaces/kube-system/configmaps", object);
      !created && !created.error().is_conflict()) {
    failed("create ConfigMap kube-system/" + name, created.error());
  }
}

void KubernetesWriter::scale(const std::string& workload, std::int32_t replicas) {
  // "Deployment/default/web" -> /apis/apps/v1/namespaces/default/deployments/web/scale
  const std::size_t kind_end = workload.find('/');
  const std::size_t namespace_end = workload.find('/', kind_end + 1);
  if (kind_end == std::string::npos || namespace_end == std::string::npos) return;
  std::string kind = workload.substr(0, kind_end);
  const std::string namespace_ = workload.substr(kind_end + 1, namespace_end - kind_end - 1);
  const std::string name = workload.substr(namespace_end + 1);
  std::string resource = kind;
  for (char& c : resource) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  resource += "s";
  if (options_.dry_run) {
    spdlog::info("dry-run: would scale {} to {} replicas", workload, replicas);
  } else {
    const std::string path = "/apis/apps/v1/namespaces/" + namespace_ + "/" + resource + "/" + name + "/scale";
    if (auto patched = client_.merge_patch(path, {{"spec", {{"replicas", replicas}}}}); !patched) {
      failed("scale " + workload, patched.error());
      return;
    }
  }
  state_.workload_scaled(workload, replicas);
}

void KubernetesWriter::object_event(controllers::ObjectEvent event) {
  if (event.kind == "Node") event.key = names_.object_of(event.key);
  event.message = names_.in_text(std::move(event.message));
  spdlog::debug("event {} on {} {}: {}", event.reason, event.kind, event.key, event.message);
  if (options_.dry_run) return;
  kube::ObjectReference regarding;
  if (event.kind == "Pod") {
    const state::PodRecord* pod = state_.find_pod(event.key);
    if (pod == nullptr) return;  // gone since the decision: nobody will describe it
    regarding = pod_reference(*pod);
  } else if (event.kind == "HorizontalPodAutoscaler" || event.kind == "ScaledObject") {
    const std::size_t slash = event.key.find('/');  // "namespace/name"
    regarding = {event.kind == "ScaledObject" ? "keda.sh/v1alpha1" : "autoscaling/v2", event.kind,
                 event.key.substr(0, slash), event.key.substr(slash + 1), ""};
  } else {
    const bool karpenter = event.kind == "NodePool" || event.kind == "NodeClaim";
    regarding = {karpenter ? "karpenter.sh/v1" : "v1", event.kind, "", event.key, ""};
  }
  events_.emit({std::move(regarding), std::move(event.type), std::move(event.reason), std::move(event.action),
                std::move(event.message)});
}

}  // namespace scalewright::cluster
