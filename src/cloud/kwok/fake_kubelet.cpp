#include "cloud/kwok/fake_kubelet.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "api/timestamp.h"
#include "kube/model_json.h"
#include "kube/reflector.h"

namespace scalewright::cloud {

using nlohmann::json;

namespace {

constexpr std::string_view kNodeLeaseNamespace = "kube-node-lease";

std::string now_text() { return format_micro_time(std::chrono::system_clock::now()); }

std::string lease_path(const std::string& node) {
  return fmt::format("/apis/coordination.k8s.io/v1/namespaces/{}/leases/{}", kNodeLeaseNamespace, node);
}

// A node's pod IP: 10.<node>.<pod> is not needed to be routable, only well-formed and stable per pod.
std::string pod_ip(const std::string& key) {
  const std::size_t h = std::hash<std::string>{}(key);
  return fmt::format("10.{}.{}.{}", 64 + (h >> 16) % 64, (h >> 8) % 256, 1 + h % 254);
}

}  // namespace

std::string fake_node_ip(const std::string& node) {
  if (node.starts_with("ip-")) {
    std::string address = node.substr(3, node.find('.') - 3);
    std::replace(address.begin(), address.end(), '-', '.');
    return address;
  }
  return pod_ip(node);
}

// The pods bound to any node, as kubelets watch them (spec.nodeName set): it plays the kubelet for its own.
class FakeKubelet::PodHandler final : public kube::ReflectorHandler {
 public:
  explicit PodHandler(FakeKubelet& kubelet) : kubelet_(kubelet) {}
  void relist_started() override {}
  void listed(json object) override { kubelet_.pod_changed(object); }
  void relist_done(const std::string&) override {}
  void watched(std::string_view type, json object) override {
    if (type == "DELETED") {
      kubelet_.pod_gone(object);
    } else {
      kubelet_.pod_changed(object);
    }
  }

 private:
  FakeKubelet& kubelet_;
};

FakeKubelet::FakeKubelet(const kube::ApiClient& client, FakeKubeletOptions options)
    : client_(client), options_(std::move(options)) {}

FakeKubelet::~FakeKubelet() { stop(); }

void FakeKubelet::start() {
  worker_ = std::jthread([this] { work(); });
  schedule(Clock::now(), [this] { renew_leases(); });
  pod_handler_ = std::make_unique<PodHandler>(*this);
  kube::ReflectorOptions pods;
  pods.field_selector = "spec.nodeName!=";
  pod_reflector_ = std::make_unique<kube::Reflector>(client_, "/api/v1/pods", pods, *pod_handler_);
  pod_watcher_ = std::jthread([this](std::stop_token stop) { pod_reflector_->run(stop); });
}

void FakeKubelet::stop() {
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

void FakeKubelet::schedule(Clock::time_point at, std::function<void()> run) {
  {
    std::lock_guard lock(mutex_);
    tasks_.push({at, next_sequence_++, std::move(run)});
  }
  wake_.notify_one();
}

void FakeKubelet::work() {
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

void FakeKubelet::register_node(KubeletNode node, std::chrono::milliseconds after) {
  {
    std::lock_guard lock(mutex_);
    nodes_.insert(node.name);
    pending_.insert(node.name);
  }
  schedule(Clock::now() + after, [this, node = std::move(node)] { create_node(node); });
}

void FakeKubelet::adopt_node(const std::string& name) {
  std::lock_guard lock(mutex_);
  nodes_.insert(name);
  registered_.insert(name);
}

void FakeKubelet::remove_node(const std::string& name) {
  {
    std::lock_guard lock(mutex_);
    pending_.erase(name);
  }
  schedule(Clock::now(), [this, name] { delete_node(name); });
}

bool FakeKubelet::has_node(const std::string& name) const {
  std::lock_guard lock(mutex_);
  return nodes_.contains(name);
}

std::size_t FakeKubelet::nodes_registered() const {
  std::lock_guard lock(mutex_);
  return nodes_registered_;
}

std::size_t FakeKubelet::pods_running() const {
  std::lock_guard lock(mutex_);
  return running_pods_.size();
}

void FakeKubelet::create_node(const KubeletNode& node) {
  {
    std::lock_guard lock(mutex_);
    if (!pending_.contains(node.name)) return;  // its machine went before it registered
  }
  json spec = {{"providerID", node.provider_id}};
  if (!node.taints.empty()) spec["taints"] = node.taints;
  json metadata = {{"name", node.name}, {"labels", node.labels}};
  if (!node.annotations.empty()) metadata["annotations"] = node.annotations;
  const json object = {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", metadata}, {"spec", spec}};
  kube::KubeResult<json> created = client_.create("/api/v1/nodes", object);
  if (!created && !created.error().is_conflict()) {
    spdlog::warn("{}: creating node {}: {}", options_.log_prefix, node.name, created.error().describe());
    schedule(Clock::now() + std::chrono::seconds(1), [this, node] { create_node(node); });
    return;
  }
  // The kubelet's status: Ready, with the machine's capacity and what is allocatable after its reservations.
  const std::string now = now_text();
  auto condition = [&](const char* type_name, const char* status, const char* reason) {
    return json{{"type", type_name}, {"status", status},         {"reason", reason},
                {"message", ""},     {"lastHeartbeatTime", now}, {"lastTransitionTime", now}};
  };
  json addresses = {{{"type", "InternalIP"}, {"address", fake_node_ip(node.name)}}};
  if (node.hostname_address) addresses.push_back({{"type", "Hostname"}, {"address", node.name}});
  const json status = {
      {"status",
       {{"capacity", kube::resources_json(node.capacity)},
        {"allocatable", kube::resources_json(node.allocatable)},
        {"phase", "Running"},
        {"conditions",
         {condition("MemoryPressure", "False", "KubeletHasSufficientMemory"),
          condition("DiskPressure", "False", "KubeletHasNoDiskPressure"),
          condition("PIDPressure", "False", "KubeletHasSufficientPID"), condition("Ready", "True", "KubeletReady")}},
        {"addresses", addresses},
        {"nodeInfo",
         {{"kubeletVersion", node.kubelet_version},
          {"operatingSystem", "linux"},
          {"architecture", node.labels.value("kubernetes.io/arch", "amd64")}}}}}};
  if (auto patched = client_.merge_patch("/api/v1/nodes/" + node.name + "/status", status); !patched) {
    spdlog::warn("{}: node {} status: {}", options_.log_prefix, node.name, patched.error().describe());
  }
  {
    std::lock_guard lock(mutex_);
    pending_.erase(node.name);
    registered_.insert(node.name);
    ++nodes_registered_;
  }
  renew_lease(node.name);
}

void FakeKubelet::delete_node(const std::string& name) {
  if (auto deleted = client_.remove("/api/v1/nodes/" + name); !deleted && !deleted.error().is_not_found()) {
    spdlog::warn("{}: deleting node {}: {}", options_.log_prefix, name, deleted.error().describe());
  }
  if (auto deleted = client_.remove(lease_path(name)); !deleted && !deleted.error().is_not_found()) {
    spdlog::warn("{}: deleting the Lease of node {}: {}", options_.log_prefix, name, deleted.error().describe());
  }
  std::lock_guard lock(mutex_);
  if (pending_.contains(name)) return;  // registered again meanwhile (a name reused)
  nodes_.erase(name);
  registered_.erase(name);
  leases_.erase(name);
}

// Creates the node's Lease, or renews it: the node lifecycle controller marks a node whose Lease goes unrenewed
// for its grace period (40 s) NotReady and taints it.
bool FakeKubelet::renew_lease(const std::string& node) {
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
        {"spec",
         {{"holderIdentity", node}, {"leaseDurationSeconds", options_.lease_duration.count()}, {"renewTime", now}}}};
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
    spdlog::warn("{}: renewing the Lease of node {}: {}", options_.log_prefix, node, written.error().describe());
    return false;
  }
  if (registered_.contains(node)) leases_[node] = std::move(*written);
  return true;
}

void FakeKubelet::renew_leases() {
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
void FakeKubelet::pod_changed(const json& pod) {
  const json& metadata = pod.value("metadata", json::object());
  const std::string node = pod.value("spec", json::object()).value("nodeName", "");
  const std::string namespace_ = metadata.value("namespace", "");
  const std::string name = metadata.value("name", "");
  const std::string key = namespace_ + "/" + name;
  {
    std::lock_guard lock(mutex_);
    if (!nodes_.contains(node)) return;
  }
  const std::string path = "/api/v1/namespaces/" + namespace_ + "/pods/" + name;
  if (metadata.contains("deletionTimestamp")) {
    schedule(Clock::now(), [this, path, key] {
      if (auto deleted = client_.remove(path, 0); !deleted && !deleted.error().is_not_found()) {
        spdlog::warn("{}: confirming the deletion of pod {}: {}", options_.log_prefix, key, deleted.error().describe());
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
  const std::string now = now_text();
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
  const json status = {
      {"status",
       {{"phase", "Running"},
        {"hostIP", fake_node_ip(node)},
        {"podIP", pod_ip(key)},
        {"podIPs", {{{"ip", pod_ip(key)}}}},
        {"startTime", now},
        {"conditions",
         {condition("Initialized"), condition("Ready"), condition("ContainersReady"), condition("PodScheduled")}},
        {"containerStatuses", containers}}}};
  schedule(Clock::now(), [this, path, status, key] {
    if (auto patched = client_.merge_patch(path + "/status", status); !patched && !patched.error().is_not_found()) {
      spdlog::warn("{}: starting pod {}: {}", options_.log_prefix, key, patched.error().describe());
      std::lock_guard lock(mutex_);
      running_pods_.erase(key);
    }
  });
}

void FakeKubelet::pod_gone(const json& pod) {
  const json& metadata = pod.value("metadata", json::object());
  std::lock_guard lock(mutex_);
  running_pods_.erase(metadata.value("namespace", "") + "/" + metadata.value("name", ""));
}

}  // namespace scalewright::cloud
