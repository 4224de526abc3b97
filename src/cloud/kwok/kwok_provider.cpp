#include "cloud/kwok/kwok_provider.h"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "api/meta.h"
#include "api/nodepool.h"
#include "api/percent_encode.h"
#include "api/timestamp.h"
#include "kube/model_json.h"
#include "kube/reflector.h"
#include "kube/retry.h"

namespace scalewright::cloud {

using nlohmann::json;

namespace {

using kube::resources_json;

constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";
constexpr std::string_view kProviderIdPrefix = "kwok://";

std::string now_text() { return format_micro_time(std::chrono::system_clock::now()); }

std::string lease_path(const std::string& node) {
  return fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", kNodeLeaseNamespace, node);
}

// A node's pod IP: 10.<node>.<pod> is not needed to be routable, only well-formed and stable per pod.
std::string pod_ip(const std::string& key) {
  const std::size_t h = std::hash<std::string>{}(key);
  return fmt::format("10.{}.{}.{}", 64 + (h >> 16) % 64, (h >> 8) % 256, 1 + h % 254);
}

// The private DNS suffix of EC2's hostnames in `region`: ec2.internal in us-east-1, <region>.compute.internal in the
// others.
std::string hostname_suffix(const std::string& region) {
  if (region == "us-east-1") return "ec2.internal";
  return region.empty() ? "compute.internal" : region + ".compute.internal";
}

// A node's InternalIP: the address an EC2 hostname spells (ip-10-1-2-3... is 10.1.2.3), else one made up.
std::string node_ip(const std::string& node) {
  if (node.starts_with("ip-")) {
    std::string address = node.substr(3, node.find('.') - 3);
    std::replace(address.begin(), address.end(), '-', '.');
    return address;
  }
  return pod_ip(node);
}

}  // namespace

// The pods bound to any node, as kubelets watch them (spec.nodeName set): the provider plays the kubelet for its own.
class KwokProvider::PodHandler final : public kube::ReflectorHandler {
 public:
  explicit PodHandler(KwokProvider& provider) : provider_(provider) {}
  void relist_started() override {}
  void listed(json object) override { provider_.pod_changed(object); }
  void relist_done(const std::string&) override {}
  void watched(std::string_view type, json object) override {
    if (type == "DELETED") {
      provider_.pod_gone(object);
    } else {
      provider_.pod_changed(object);
    }
  }

 private:
  KwokProvider& provider_;
};

KwokProvider::KwokProvider(const kube::ApiClient& client, Catalog catalog, KwokOptions options)
    : client_(client), catalog_(std::move(catalog)), options_(options) {}

KwokProvider::~KwokProvider() { stop(); }

std::optional<Instance> KwokProvider::instance_of_node(const json& node) const {
  const NodeOffering found = offering_of_node(catalog_, kube::labels_of(node));
  if (found.type == nullptr) return std::nullopt;
  Instance instance;
  instance.node_name = node.value("metadata", json::object()).value("name", "");
  instance.provider_id = node.value("spec", json::object()).value("providerID", "");
  // The instance is what its providerID names; its Node may be named otherwise (--kwok-node-names=hostname).
  instance.id = instance.provider_id.starts_with(kProviderIdPrefix) ? instance.provider_id.substr(kProviderIdPrefix.size())
                                                                     : instance.node_name;
  instance.instance_type = found.type;
  if (found.offering != nullptr) instance.offering = *found.offering;
  return instance;
}

std::optional<Error> KwokProvider::start(const std::stop_token& stop) {
  // The cloud's state is in the cluster: every kwok Node is a running instance, and a NodeClaim launched on kwok
  // whose Node is missing is an instance still booting (its launcher stopped before it registered). Leadership can
  // begin while the API server restarts: the lists wait for it rather than stop the controller.
  const std::string selector = std::string(kKwokNodeLabel) + "=true";
  const std::string nodes_path = "/api/v1/nodes?labelSelector=" + percent_encode(selector);
  kube::KubeResult<kube::ListResult> nodes = kube::retry_while_unavailable<kube::ListResult>(
      "kwok: listing its nodes", [&] { return client_.list(nodes_path, 500); }, stop);
  if (!nodes) return Error{"kwok: listing its nodes: " + nodes.error().describe()};
  kube::KubeResult<kube::ListResult> claims = kube::retry_while_unavailable<kube::ListResult>(
      "kwok: listing NodeClaims", [&] { return client_.list("/apis/karpenter.sh/v1/nodeclaims", 500); }, stop);
  if (!claims && !claims.error().is_not_found()) {
    return Error{"kwok: listing NodeClaims: " + claims.error().describe()};
  }
  std::vector<std::pair<Instance, json>> booting;
  {
    std::lock_guard lock(mutex_);
    for (const json& node : nodes->items) {
      if (std::optional<Instance> instance = instance_of_node(node)) {
        registered_.insert(instance->node_name);
        // A node of a group kwok plays is that group's again: how its target is known after a restart.
        if (const std::string group = groups_.group_of(kube::labels_of(node)); !group.empty()) {
          groups_.adopt(group, *instance);
        }
        instances_.emplace(instance->id, std::move(*instance));
      }
    }
    for (const json& claim : claims ? claims->items : std::vector<json>{}) {
      const std::string provider_id = claim.value("status", json::object()).value("providerID", "");
      if (!provider_id.starts_with(kProviderIdPrefix) || claim["metadata"].contains("deletionTimestamp")) continue;
      std::optional<Instance> instance = instance_of_node(claim);
      if (!instance || instances_.contains(instance->id)) continue;
      instance->provider_id = provider_id;
      instance->node_name = node_name_locked(instance->id);
      instances_.emplace(instance->id, *instance);
      booting.emplace_back(std::move(*instance), claim);
    }
  }
  spdlog::info("kwok: {} nodes running, {} booting from an earlier launch", nodes->items.size(), booting.size());
  worker_ = std::jthread([this] { work(); });
  for (auto& [instance, claim] : booting) {
    const Labels labels = kube::labels_of(claim);
    std::vector<Taint> taints;
    for (const json& t : claim["spec"].value("taints", json::array())) {
      taints.push_back({t.value("key", ""), t.value("value", ""),
                        parse_taint_effect(t.value("effect", "")).value_or(TaintEffect::NoSchedule)});
    }
    schedule(Clock::now(), [this, instance, labels, taints] { create_node(instance, labels, taints); });
  }
  schedule(Clock::now(), [this] { renew_leases(); });
  pod_handler_ = std::make_unique<PodHandler>(*this);
  kube::ReflectorOptions pods;
  pods.field_selector = "spec.nodeName!=";
  pod_reflector_ = std::make_unique<kube::Reflector>(client_, "/api/v1/pods", pods, *pod_handler_);
  pod_watcher_ = std::jthread([this](std::stop_token stop) { pod_reflector_->run(stop); });
  return std::nullopt;
}

void KwokProvider::stop() {
  if (pod_watcher_.joinable()) {
    pod_watcher_.request_stop();
    pod_watcher_.join();
  }
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void KwokProvider::schedule(Clock::time_point at, std::function<void()> run) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push({at, next_sequence_++, std::move(run)});
  }
  wake_.notify_one();
}

void KwokProvider::work() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (tasks_.empty()) {
      wake_.wait(lock);
      continue;
    }
    // A copy: while the lock is released, a push may move the queue's elements.
    if (const Clock::time_point due = tasks_.top().at; due > Clock::now()) {
      wake_.wait_until(lock, due);
      continue;
    }
    Task task = tasks_.top();
    tasks_.pop();
    lock.unlock();
    task.run();
    lock.lock();
  }
}

std::vector<CloudNodeGroup> kwok_auto_scaling_groups(const std::vector<StaticNodeGroup>& nodes_flags,
                                                       std::vector<CloudNodeGroup> defined, const Catalog& catalog) {
  for (const StaticNodeGroup& flag : nodes_flags) {
    const bool known = std::any_of(defined.begin(), defined.end(),
                                   [&](const CloudNodeGroup& g) { return g.name == flag.name; });
    if (known || catalog.find(flag.name) == nullptr) continue;
    CloudNodeGroup group;
    group.name = flag.name;
    group.instance_type = flag.name;
    group.min_size = flag.min_size;
    group.max_size = flag.max_size;
    group.desired_capacity = flag.min_size;
    defined.push_back(std::move(group));
  }
  return defined;
}

// kwok has capacity for every offering: the first one preferred launches.
CloudResult<Created> KwokProvider::create(const CreateRequest& request) {
  if (request.offerings.empty()) return CloudError{ErrorClass::Other, "no offering to launch " + request.name, {}};
  const LaunchOption& option = request.offerings.front();
  Instance instance;
  instance.id = request.name;
  instance.instance_type = option.instance_type;
  instance.offering = *option.offering;
  instance.provider_id = std::string(kProviderIdPrefix) + request.name;
  {
    std::lock_guard lock(mutex_);
    instance.node_name = node_name_locked(request.name);
    instances_[instance.id] = instance;
  }
  schedule(Clock::now() + options_.launch_latency,
           [this, instance, labels = request.labels, taints = request.taints] { create_node(instance, labels, taints); });
  return Created{std::move(instance), option, {}};
}

void KwokProvider::create_node(const Instance& instance, const Labels& request_labels, const std::vector<Taint>& taints) {
  {
    std::lock_guard lock(mutex_);
    if (!instances_.contains(instance.id)) return;  // terminated before it registered
  }
  const InstanceType& type = *instance.instance_type;
  const bool nodeclaims = request_labels.has(Symbol(karpenter_labels::nodepool));
  json labels = json::object();
  for (const auto& [key, value] : type.labels) labels[key.string()] = value.string();
  // Registered under a hostname, a NodeClaim's node knows its instance only, as a kubelet does: its NodeClaim's labels
  // come with Karpenter's registration.
  if (!nodeclaims || options_.node_names == KwokNodeNames::NodeClaim) {
    for (const auto& [key, value] : request_labels) labels[key.string()] = value.string();
  }
  labels[std::string(well_known::zone)] = instance.offering.zone;
  labels[std::string(karpenter_labels::capacity_type)] = std::string(to_string(instance.offering.capacity_type));
  labels[std::string(well_known::hostname)] = instance.node_name;
  labels[std::string(well_known::os)] = labels.value(std::string(well_known::os), "linux");
  labels[std::string(kKwokNodeLabel)] = "true";
  json taint_list = kube::taints_json(taints);
  // A NodeClaim's node registers with Karpenter's startup taint; the controller removes it once it has synced the
  // node (as Karpenter's registration does).
  if (nodeclaims) {
    taint_list.push_back({{"key", "karpenter.sh/unregistered"}, {"effect", "NoExecute"}});
  }
  json spec = {{"providerID", instance.provider_id}};
  if (!taint_list.empty()) spec["taints"] = taint_list;
  const json node = {{"apiVersion", "v1"},
                     {"kind", "Node"},
                     {"metadata",
                      {{"name", instance.node_name},
                       {"labels", labels},
                       {"annotations", {{"kwok.x-k8s.io/node", "fake"}}}}},
                     {"spec", spec}};
  kube::KubeResult<json> created = client_.create("/api/v1/nodes", node);
  if (!created && !created.error().is_conflict()) {
    spdlog::warn("kwok: creating node {}: {}", instance.node_name, created.error().describe());
    schedule(Clock::now() + std::chrono::seconds(1), [this, instance, request_labels, taints] {
      create_node(instance, request_labels, taints);
    });
    return;
  }
  // The kubelet's status: Ready, with the type's capacity and what is allocatable after its reservations.
  const std::string now = now_text();
  auto condition = [&](const char* type_name, const char* status, const char* reason) {
    return json{{"type", type_name}, {"status", status}, {"reason", reason}, {"message", ""},
                {"lastHeartbeatTime", now}, {"lastTransitionTime", now}};
  };
  json addresses = {{{"type", "InternalIP"}, {"address", node_ip(instance.node_name)}}};
  if (options_.node_names == KwokNodeNames::Hostname) {
    addresses.push_back({{"type", "Hostname"}, {"address", instance.node_name}});
  }
  const json status = {
      {"status",
       {{"capacity", resources_json(type.capacity)},
        {"allocatable", resources_json(type.allocatable)},
        {"phase", "Running"},
        {"conditions",
         {condition("MemoryPressure", "False", "KubeletHasSufficientMemory"),
          condition("DiskPressure", "False", "KubeletHasNoDiskPressure"),
          condition("PIDPressure", "False", "KubeletHasSufficientPID"),
          condition("Ready", "True", "KubeletReady")}},
        {"addresses", addresses},
        {"nodeInfo",
         {{"kubeletVersion", "v1.26.1-kwok"},
          {"operatingSystem", "linux"},
          {"architecture", labels.value(std::string(well_known::arch), "amd64")}}}}}};
  if (auto patched = client_.merge_patch("/api/v1/nodes/" + instance.node_name + "/status", status); !patched) {
    spdlog::warn("kwok: node {} status: {}", instance.node_name, patched.error().describe());
  }
  {
    std::lock_guard lock(mutex_);
    registered_.insert(instance.node_name);
    ++nodes_created_;
  }
  renew_lease(instance.node_name);
}

std::string KwokProvider::node_name_locked(const std::string& instance) {
  if (options_.node_names == KwokNodeNames::NodeClaim) return instance;
  const std::string suffix = hostname_suffix(catalog_.region());
  for (;;) {
    const std::uint64_t bits = names_();
    std::string name =
        fmt::format("ip-10-{}-{}-{}.{}", bits % 256, (bits >> 8) % 256, 1 + (bits >> 16) % 254, suffix);
    const bool taken = registered_.contains(name) || std::any_of(instances_.begin(), instances_.end(), [&](const auto& i) {
                         return i.second.node_name == name;
                       });
    if (!taken) return name;
  }
}

std::string KwokProvider::instance_name(const std::string& group) {
  for (;;) {
    std::string name = group + "-";
    for (int i = 0; i < 5; ++i) name += kSafeNameAlphabet[names_() % kSafeNameAlphabet.size()];
    std::lock_guard lock(mutex_);
    if (!instances_.contains(name)) return name;
  }
}

CloudResult<Deleted> KwokProvider::terminate(const std::string& instance_id) {
  groups_.forget(instance_id);
  std::string node_name;
  {
    std::lock_guard lock(mutex_);
    auto found = instances_.find(instance_id);
    if (found == instances_.end()) return not_found(instance_id);
    node_name = found->second.node_name;
    instances_.erase(found);
  }
  schedule(Clock::now(), [this, node_name] { delete_node(node_name); });
  return Deleted{};
}

void KwokProvider::delete_node(const std::string& name) {
  if (auto deleted = client_.remove("/api/v1/nodes/" + name); !deleted && !deleted.error().is_not_found()) {
    spdlog::warn("kwok: deleting node {}: {}", name, deleted.error().describe());
  }
  if (auto deleted = client_.remove(lease_path(name)); !deleted && !deleted.error().is_not_found()) {
    spdlog::warn("kwok: deleting the Lease of node {}: {}", name, deleted.error().describe());
  }
  std::lock_guard lock(mutex_);
  registered_.erase(name);
  leases_.erase(name);
}

// Creates the node's Lease, or renews it: the node lifecycle controller marks a node whose Lease goes unrenewed
// for its grace period (40 s) NotReady and taints it.
bool KwokProvider::renew_lease(const std::string& node) {
  json lease;
  {
    std::lock_guard lock(mutex_);
    if (!registered_.contains(node)) return false;
    if (auto known = leases_.find(node); known != leases_.end()) lease = known->second;
  }
  const std::string now = now_text();
  kube::KubeResult<json> written = [&]() -> kube::KubeResult<json> {
    if (!lease.is_null()) {
      lease["spec"]["renewTime"] = now;
      return client_.update(lease_path(node), lease);
    }
    const json fresh = {
        {"apiVersion", "coordination.k8s.io/v1"},
        {"kind", "Lease"},
        {"metadata", {{"name", node}, {"namespace", kNodeLeaseNamespace}}},
        {"spec", {{"holderIdentity", node}, {"leaseDurationSeconds", options_.lease_duration.count()},
                  {"renewTime", now}}}};
    kube::KubeResult<json> created =
        client_.create(fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases", kNodeLeaseNamespace), fresh);
    if (created || !created.error().is_conflict()) return created;
    // There from an earlier run: renew that one.
    kube::KubeResult<json> existing = client_.get(lease_path(node));
    if (!existing) return existing;
    (*existing)["spec"]["renewTime"] = now;
    return client_.update(lease_path(node), *existing);
  }();
  std::lock_guard lock(mutex_);
  if (!written) {
    leases_.erase(node);  // a conflict or a gone Lease: read it afresh next time
    spdlog::warn("kwok: renewing the Lease of node {}: {}", node, written.error().describe());
    return false;
  }
  if (registered_.contains(node)) leases_[node] = std::move(*written);
  return true;
}

void KwokProvider::renew_leases() {
  std::vector<std::string> nodes;
  {
    std::lock_guard lock(mutex_);
    nodes.assign(registered_.begin(), registered_.end());
  }
  for (const std::string& node : nodes) renew_lease(node);
  schedule(Clock::now() + options_.lease_renew_interval, [this] { renew_leases(); });
}

// The kubelet's part: a pod bound to one of its nodes starts at once (Running, Ready), and a pod being deleted
// stops at once (its deletion confirmed with grace 0, as a kubelet does once the containers are gone).
void KwokProvider::pod_changed(const json& pod) {
  const json& metadata = pod.value("metadata", json::object());
  const std::string node = pod.value("spec", json::object()).value("nodeName", "");
  const std::string namespace_ = metadata.value("namespace", "");
  const std::string name = metadata.value("name", "");
  const std::string key = namespace_ + "/" + name;
  {
    std::lock_guard lock(mutex_);
    if (!instances_.contains(node) && !registered_.contains(node)) return;
  }
  const std::string path = "/api/v1/namespaces/" + namespace_ + "/pods/" + name;
  if (metadata.contains("deletionTimestamp")) {
    schedule(Clock::now(), [this, path, key] {
      if (auto deleted = client_.remove(path, 0); !deleted && !deleted.error().is_not_found()) {
        spdlog::warn("kwok: confirming the deletion of pod {}: {}", key, deleted.error().describe());
      }
      std::lock_guard lock(mutex_);
      running_pods_.erase(key);
    });
    return;
  }
  if (pod.value("status", json::object()).value("phase", "") == "Running") return;
  {
    std::lock_guard lock(mutex_);
    if (!running_pods_.insert(key).second) return;  // already reported; the watch has not caught up yet
  }
  json containers = json::array();
  const std::string now = format_micro_time(std::chrono::system_clock::now());
  for (const json& container : pod.value("spec", json::object()).value("containers", json::array())) {
    containers.push_back({{"name", container.value("name", "")},
                          {"image", container.value("image", "")},
                          {"imageID", ""},
                          {"ready", true},
                          {"started", true},
                          {"restartCount", 0},
                          {"state", {{"running", {{"startedAt", now}}}}}});
  }
  auto condition = [&](const char* type) {
    return json{{"type", type}, {"status", "True"}, {"lastProbeTime", nullptr}, {"lastTransitionTime", now}};
  };
  const json status = {{"status",
                        {{"phase", "Running"},
                         {"hostIP", node_ip(node)},
                         {"podIP", pod_ip(key)},
                         {"podIPs", {{{"ip", pod_ip(key)}}}},
                         {"startTime", now},
                         {"conditions",
                          {condition("Initialized"), condition("Ready"), condition("ContainersReady"),
                           condition("PodScheduled")}},
                         {"containerStatuses", containers}}}};
  schedule(Clock::now(), [this, path, status, key] {
    if (auto patched = client_.merge_patch(path + "/status", status); !patched && !patched.error().is_not_found()) {
      spdlog::warn("kwok: starting pod {}: {}", key, patched.error().describe());
      std::lock_guard lock(mutex_);
      running_pods_.erase(key);
    }
  });
}

void KwokProvider::pod_gone(const json& pod) {
  const json& metadata = pod.value("metadata", json::object());
  std::lock_guard lock(mutex_);
  running_pods_.erase(metadata.value("namespace", "") + "/" + metadata.value("name", ""));
}

CloudResult<Instance> KwokProvider::get(const std::string& instance_id) const {
  std::lock_guard lock(mutex_);
  auto it = instances_.find(instance_id);
  if (it == instances_.end()) return not_found(instance_id);
  return it->second;
}

CloudResult<std::vector<Instance>> KwokProvider::list() const {
  std::lock_guard lock(mutex_);
  std::vector<Instance> out;
  for (const auto& [id, instance] : instances_) out.push_back(instance);
  return out;
}

std::size_t KwokProvider::nodes_created() const {
  std::lock_guard lock(mutex_);
  return nodes_created_;
}

std::size_t KwokProvider::pods_started() const {
  std::lock_guard lock(mutex_);
  return running_pods_.size();
}

}  // namespace scalewright::cloud
