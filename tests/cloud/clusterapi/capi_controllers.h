#pragma once
// Cluster API's controllers as the end-to-end tests need them, played on a real kube-apiserver that serves Cluster
// API's CRDs (MachineDeployment, MachineSet, Machine: capi_fixture.h's use_release installs them): no Cluster API
// code runs here, and no infrastructure provider. A poller reacts to the objects as the
// real controllers would (research capi-azure.md §1.7, §3.3, §3.4):
//   - MachineDeployment controller: one MachineSet per MachineDeployment, owned by it, whose replicas follow the
//     MachineDeployment's; the MachineDeployment's status counts the Machines.
//   - MachineSet controller: creates Machines up to its replicas and deletes the extra ones in Cluster API's order
//     (being deleted, then annotated cluster.x-k8s.io/delete-machine, then without a Node or failed, then the
//     newest), counts them in its status.
//   - infrastructure provider + Machine controller: a Machine gets spec.providerID kwok://<machine>, a Node of that
//     name registers Ready on the workload cluster (cloud::FakeKubelet, which also renews its Lease and plays the
//     pods bound to it), and the Machine's status then points at the Node (nodeRef, phase Running). The Node
//     carries the annotations Cluster API's Machine controller writes, by which a Node is mapped to its Machine.
// Machines carry no finalizer, so a deleted Machine is gone at once; its Node goes with it.
//
// Each pass lists the MachineDeployments, then the MachineSets, then the Machines, in that order: an autoscaler
// annotates a Machine before it lowers the replicas, so a pass that sees the lowered replicas also sees the
// annotation, and never deletes the annotated Machine's sibling instead. A failed call waits for the next pass.
// MachinePools are left alone. Nothing plays the garbage collector: on an API server without
// kube-controller-manager, a deleted MachineDeployment leaves its MachineSet and Machines behind. A harness starts
// once (FakeKubelet does not start again after stop()).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "api/quantity.h"
#include "api/resources.h"
#include "cloud/kwok/fake_kubelet.h"
#include "kube/api_client.h"
#include "net/retry.h"

namespace scalewright::cloud::clusterapi::testing {

struct CapiControllersOptions {
  std::chrono::milliseconds poll_interval{250};
  // Only this namespace's objects are played; empty: every namespace. Tests that share an API server give each
  // harness its own namespace, so that one test's leftovers are not provisioned by the next test's harness.
  std::string namespace_;
  std::string group = "cluster.x-k8s.io";
  // By group: a MachineDeployment's name, or a MachineSet's that no MachineDeployment owns.
  // How long a new Machine waits before it is provisioned (its providerID set and its Node registered); 0 if absent.
  std::map<std::string, std::chrono::milliseconds> provision_delay;
  std::map<std::string, std::string> instance_type;  // the Nodes' node.kubernetes.io/instance-type; none if absent
  std::map<std::string, std::string> arch;           // the Nodes' kubernetes.io/arch; amd64 if absent
  // A Node's capacity (and allocatable) where the group carries no capacity.cluster-autoscaler.kubernetes.io/*
  // annotation for it.
  std::string default_cpu = "2";
  std::string default_memory = "4Gi";
  std::int64_t default_max_pods = 110;
};

class CapiControllers {
 public:
  // `management` serves Cluster API's objects in `version` ("v1beta1" or "v1beta2"), `workload` gets the Nodes;
  // both may be one client. Both outlive it.
  CapiControllers(const kube::ApiClient& management, const kube::ApiClient& workload, std::string version,
                  CapiControllersOptions options = {})
      : management_(management),
        version_(std::move(version)),
        options_(std::move(options)),
        kubelet_(workload, kubelet_options()),
        workload_(workload),
        random_(std::random_device{}()) {}
  ~CapiControllers() { stop(); }
  CapiControllers(const CapiControllers&) = delete;
  CapiControllers& operator=(const CapiControllers&) = delete;

  void start() {
    kubelet_.start();
    poller_ = std::jthread([this](std::stop_token stop) {
      while (!stop.stop_requested()) {
        pass();
        net::sleep_unless_stopped(options_.poll_interval, stop);
      }
    });
  }

  // Stops the poller and the kubelet; the objects and Nodes stay as they are.
  void stop() {
    if (poller_.joinable()) {
      poller_.request_stop();
      poller_.join();
    }
    kubelet_.stop();
  }

  // Injection, by group (see the options). Applies to the group's Machines that have no providerID yet.
  // Its Machines are never provisioned: they stay pending (no providerID, no nodeRef, no Node) for ever.
  void never_provision(const std::string& group) {
    std::lock_guard lock(mutex_);
    never_provision_.insert(group);
  }
  // Its Machines fail instead: status phase Failed with a failure reason and message (v1beta1: status.failureReason
  // and failureMessage; v1beta2: status.deprecated.v1beta1.*), and no providerID, nodeRef or Node.
  void fail_machines(const std::string& group) {
    std::lock_guard lock(mutex_);
    fail_machines_.insert(group);
  }
  // Undoes never_provision() and fail_machines(): its pending Machines are provisioned from now on (a Failed one
  // stays Failed, as in Cluster API).
  void provision_normally(const std::string& group) {
    std::lock_guard lock(mutex_);
    never_provision_.erase(group);
    fail_machines_.erase(group);
  }

  // The group's Machines as the last pass left them (after its own creations and deletions), sorted by name.
  std::vector<std::string> machines(const std::string& group) const {
    std::lock_guard lock(mutex_);
    auto found = machines_by_group_.find(group);
    if (found == machines_by_group_.end()) return {};
    return {found->second.begin(), found->second.end()};
  }
  // The Node registered for `machine`, empty when none (pending, failed or gone).
  std::string node_of(const std::string& machine) const {
    std::lock_guard lock(mutex_);
    auto found = node_of_.find(machine);
    return found == node_of_.end() ? std::string() : found->second;
  }
  // The Machines this harness deleted, by name, in the order it deleted them.
  std::vector<std::string> deleted_machines() const {
    std::lock_guard lock(mutex_);
    return deleted_;
  }
  // Passes completed so far. A test that asserts something does *not* happen (a pending Machine stays pending) waits
  // for a few more passes rather than for some time.
  std::uint64_t passes() const {
    std::lock_guard lock(mutex_);
    return passes_;
  }
  // Waits until `count` more passes completed since the call, at most `limit`; false when the limit came first.
  bool wait_for_passes(std::uint64_t count, std::chrono::milliseconds limit) const {
    std::unique_lock lock(mutex_);
    const std::uint64_t target = passes_ + count;
    return pass_done_.wait_for(lock, limit, [&] { return passes_ >= target; });
  }

 private:
  using json = nlohmann::json;
  using Clock = std::chrono::steady_clock;

  static constexpr std::string_view kDeleteMachine = "cluster.x-k8s.io/delete-machine";
  static constexpr std::string_view kPaused = "cluster.x-k8s.io/paused";
  static constexpr std::string_view kDeploymentName = "cluster.x-k8s.io/deployment-name";
  static constexpr std::string_view kSetName = "cluster.x-k8s.io/set-name";
  static constexpr std::string_view kClusterName = "cluster.x-k8s.io/cluster-name";
  static constexpr std::string_view kRevision = "machinedeployment.clusters.x-k8s.io/revision";
  static constexpr std::string_view kCapacity = "capacity.cluster-autoscaler.kubernetes.io/";

  static FakeKubeletOptions kubelet_options() {
    FakeKubeletOptions out;
    out.log_prefix = "capi kubelet";
    return out;
  }

  // --- paths ---------------------------------------------------------------------------------------------------

  std::string collection(std::string_view resource) const {
    std::string path = "/apis/" + options_.group + "/" + version_ + "/";
    if (!options_.namespace_.empty()) path += "namespaces/" + options_.namespace_ + "/";
    return path + std::string(resource);
  }
  std::string namespaced(const json& object, std::string_view resource) const {
    return "/apis/" + options_.group + "/" + version_ + "/namespaces/" + namespace_of(object) + "/" +
           std::string(resource);
  }
  std::string path_of(const json& object, std::string_view resource) const {
    return namespaced(object, resource) + "/" + name_of(object);
  }

  // --- reading objects -------------------------------------------------------------------------------------------

  // o[path[0]][path[1]]..., null when a step is missing: objects from the server are read defensively, as an
  // exception on the poller's thread would end the test binary.
  static const json& at(const json& o, std::initializer_list<std::string_view> path) {
    static const json kNull;
    const json* current = &o;
    for (std::string_view step : path) {
      if (!current->is_object()) return kNull;
      auto found = current->find(std::string(step));
      if (found == current->end()) return kNull;
      current = &*found;
    }
    return *current;
  }
  static std::string text(const json& value) { return value.is_string() ? value.get<std::string>() : std::string(); }

  static std::string name_of(const json& o) { return text(at(o, {"metadata", "name"})); }
  static std::string namespace_of(const json& o) { return text(at(o, {"metadata", "namespace"})); }
  static std::string uid_of(const json& o) { return text(at(o, {"metadata", "uid"})); }
  static std::string key_of(const json& o) { return namespace_of(o) + "/" + name_of(o); }
  static std::string label(const json& o, std::string_view key) { return text(at(o, {"metadata", "labels", key})); }
  static bool annotated(const json& o, std::string_view key) {
    return !at(o, {"metadata", "annotations", key}).is_null();
  }
  static std::string annotation(const json& o, std::string_view key) {
    return text(at(o, {"metadata", "annotations", key}));
  }
  // spec.replicas; absent reads as 0, as the scale subresource answers for it.
  static int replicas_of(const json& o) {
    const json& value = at(o, {"spec", "replicas"});
    return value.is_number_integer() ? value.get<int>() : 0;
  }
  static bool deleting(const json& o) { return !at(o, {"metadata", "deletionTimestamp"}).is_null(); }
  static std::string provider_id(const json& o) { return text(at(o, {"spec", "providerID"})); }
  static std::string cluster_of(const json& o) { return text(at(o, {"spec", "clusterName"})); }
  static std::string node_ref(const json& machine) { return text(at(machine, {"status", "nodeRef", "name"})); }
  static std::string phase(const json& machine) { return text(at(machine, {"status", "phase"})); }
  // The uid of the object's controller owner of `kind`, empty when none.
  static std::string controller_uid(const json& o, std::string_view kind) {
    const json& refs = at(o, {"metadata", "ownerReferences"});
    for (const json& ref : refs.is_array() ? refs : json::array()) {
      if (ref.value("kind", "") == kind && ref.value("controller", false)) return ref.value("uid", "");
    }
    return "";
  }
  // A paused object: Cluster API's controllers leave it alone (annotation, or spec.paused on a MachineDeployment).
  static bool paused(const json& o) {
    const json& spec_paused = at(o, {"spec", "paused"});
    return annotated(o, kPaused) || (spec_paused.is_boolean() && spec_paused.get<bool>());
  }
  // "k1=v1,k2=v2" of the selector's matchLabels, as the MachineSet and MachineDeployment controllers write
  // status.selector for the scale subresource.
  static std::string selector_text(const json& o) {
    std::string out;
    const json& match = at(o, {"spec", "selector", "matchLabels"});
    if (!match.is_object()) return out;
    for (const auto& [key, value] : match.items()) {
      if (!out.empty()) out += ",";
      out += key + "=" + text(value);
    }
    return out;
  }

  // --- one pass ----------------------------------------------------------------------------------------------------

  struct Listed {
    std::vector<json> deployments;
    std::vector<json> sets;
    std::vector<json> machines;
    std::map<std::string, json> nodes;  // workload Nodes by providerID
  };

  std::optional<std::vector<json>> list(const kube::ApiClient& api, const std::string& path) {
    auto listed = api.list(path);
    if (!listed) {
      spdlog::warn("capi harness: {}", listed.error().describe());
      return std::nullopt;
    }
    return std::move(listed->items);
  }

  void pass() {
    Listed now;
    // The order matters (see the top of this file).
    auto deployments = list(management_, collection("machinedeployments"));
    if (!deployments) return;
    auto sets = list(management_, collection("machinesets"));
    if (!sets) return;
    auto machines = list(management_, collection("machines"));
    if (!machines) return;
    auto nodes = list(workload_, "/api/v1/nodes");
    if (!nodes) return;
    now.deployments = std::move(*deployments);
    now.sets = std::move(*sets);
    now.machines = std::move(*machines);
    for (json& node : *nodes) {
      if (std::string id = provider_id(node); !id.empty()) now.nodes[id] = std::move(node);
    }

    reconcile_deployments(now);
    reconcile_sets(now);
    reconcile_machines(now);
    forget_vanished(now);
    write_statuses(now);

    std::map<std::string, std::set<std::string>> by_group;
    for (const json& machine : now.machines) by_group[group_of(machine, now)].insert(name_of(machine));
    {
      std::lock_guard lock(mutex_);
      machines_by_group_ = std::move(by_group);
      ++passes_;
    }
    pass_done_.notify_all();
  }

  // MachineDeployment controller: one MachineSet, whose replicas follow the MachineDeployment's.
  void reconcile_deployments(Listed& now) {
    for (const json& md : now.deployments) {
      // Cluster API does not reconcile a paused MachineDeployment: its MachineSet is neither created nor resized
      // (the MachineSet and its Machines, not paused themselves, are still played below).
      if (paused(md)) continue;
      json* current = nullptr;
      for (json& ms : now.sets) {
        if (namespace_of(ms) == namespace_of(md) && controller_uid(ms, "MachineDeployment") == uid_of(md) &&
            (current == nullptr || name_of(ms) < name_of(*current))) {
          current = &ms;
        }
      }
      const int replicas = replicas_of(md);
      if (current == nullptr) {
        auto created = management_.create(namespaced(md, "machinesets"), machine_set_for(md));
        if (!created) {
          spdlog::warn("capi harness: {}", created.error().describe());
          continue;
        }
        now.sets.push_back(std::move(*created));
        continue;
      }
      if (replicas_of(*current) == replicas) continue;
      auto patched = management_.merge_patch(path_of(*current, "machinesets"), {{"spec", {{"replicas", replicas}}}});
      if (!patched) {
        spdlog::warn("capi harness: {}", patched.error().describe());
        continue;
      }
      *current = std::move(*patched);
    }
  }

  // The MachineSet of `md`: the Machine template, selector and annotations copied (as Cluster API's
  // MachineDeployment controller copies them), its name stable per MachineDeployment.
  json machine_set_for(const json& md) const {
    const std::string name = name_of(md);
    const std::string cluster = cluster_of(md);
    json annotations = at(md, {"metadata", "annotations"});
    if (!annotations.is_object()) annotations = json::object();
    annotations.erase("kubectl.kubernetes.io/last-applied-configuration");
    annotations.erase(std::string(kPaused));
    annotations[std::string(kRevision)] = "1";
    json labels = at(md, {"spec", "template", "metadata", "labels"});
    if (!labels.is_object()) labels = json::object();
    labels[std::string(kDeploymentName)] = name;
    labels[std::string(kClusterName)] = cluster;
    json spec = {{"clusterName", cluster}, {"replicas", replicas_of(md)}};
    for (const char* copied : {"selector", "template"}) {
      if (const json& value = at(md, {"spec", copied}); !value.is_null()) spec[copied] = value;
    }
    json owner = {{"apiVersion", options_.group + "/" + version_},
                  {"kind", "MachineDeployment"},
                  {"name", name},
                  {"uid", uid_of(md)},
                  {"controller", true},
                  {"blockOwnerDeletion", true}};
    return {{"apiVersion", options_.group + "/" + version_},
            {"kind", "MachineSet"},
            {"metadata",
             {{"name", name + "-" + suffix_of(uid_of(md))},
              {"namespace", namespace_of(md)},
              {"labels", labels},
              {"annotations", annotations},
              {"ownerReferences", json::array({owner})}}},
            {"spec", spec}};
  }

  // Five characters from the MachineDeployment's uid (FNV-1a), in the alphabet Kubernetes uses for generated names.
  static std::string suffix_of(const std::string& uid) {
    static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
    std::uint64_t hash = 14695981039346656037ULL;
    for (char c : uid) hash = (hash ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
    std::string out;
    for (int i = 0; i < 5; ++i, hash /= kAlphabet.size()) out += kAlphabet[hash % kAlphabet.size()];
    return out;
  }

  // MachineSet controller: Machines up to spec.replicas, the extra ones deleted in Cluster API's order.
  void reconcile_sets(Listed& now) {
    for (const json& ms : now.sets) {
      if (paused(ms)) continue;  // Cluster API leaves a paused MachineSet alone too
      std::vector<json*> owned;
      for (json& machine : now.machines) {
        if (namespace_of(machine) == namespace_of(ms) && controller_uid(machine, "MachineSet") == uid_of(ms)) {
          owned.push_back(&machine);
        }
      }
      const int replicas = replicas_of(ms);
      for (int i = static_cast<int>(owned.size()); i < replicas; ++i) {
        auto created = management_.create(namespaced(ms, "machines"), machine_for(ms));
        if (!created) {
          spdlog::warn("capi harness: {}", created.error().describe());
          break;
        }
        created_order_[key_of(*created)] = ++creations_;
        now.machines.push_back(std::move(*created));  // may move the vector: `owned` is not used after this
      }
      if (static_cast<int>(owned.size()) <= replicas) continue;
      std::sort(owned.begin(), owned.end(), [&](const json* a, const json* b) { return deletes_before(*a, *b); });
      std::set<std::string> gone;
      for (std::size_t i = 0; i < owned.size() - static_cast<std::size_t>(replicas); ++i) {
        // Without a finalizer the Machine is gone when this answers; NotFound: someone else deleted it.
        auto removed = management_.remove(path_of(*owned[i], "machines"));
        if (!removed && !removed.error().is_not_found()) {
          spdlog::warn("capi harness: {}", removed.error().describe());
          break;  // never on to a lower-priority Machine while a higher one stays
        }
        gone.insert(key_of(*owned[i]));
        machine_gone(*owned[i], /*by_us=*/true);
      }
      std::erase_if(now.machines, [&](const json& m) { return gone.contains(key_of(m)); });
    }
  }

  // Cluster API's deletion priority: being deleted, then annotated delete-machine, then unhealthy (no Node yet, or
  // failed: so lowering the replicas drops pending Machines before running ones); then, standing in for its Random
  // policy so that tests are deterministic, the newest first (the creation timestamp, then this harness's creation
  // order); ties by name.
  bool deletes_before(const json& a, const json& b) const {
    if (deleting(a) != deleting(b)) return deleting(a);
    if (annotated(a, kDeleteMachine) != annotated(b, kDeleteMachine)) return annotated(a, kDeleteMachine);
    if (unhealthy(a) != unhealthy(b)) return unhealthy(a);
    const std::string created_a = text(at(a, {"metadata", "creationTimestamp"}));
    const std::string created_b = text(at(b, {"metadata", "creationTimestamp"}));
    if (created_a != created_b) return created_a > created_b;  // RFC 3339 in UTC sorts as text
    const std::uint64_t order_a = creation_order(a), order_b = creation_order(b);
    if (order_a != order_b) return order_a > order_b;
    return name_of(a) < name_of(b);
  }
  static bool unhealthy(const json& machine) { return node_ref(machine).empty() || phase(machine) == "Failed"; }
  std::uint64_t creation_order(const json& machine) const {
    auto found = created_order_.find(key_of(machine));
    return found == created_order_.end() ? 0 : found->second;
  }

  // A Machine of `ms`, as the MachineSet controller creates it (without the finalizer and the clones of the
  // bootstrap and infrastructure templates).
  json machine_for(const json& ms) {
    const std::string set = name_of(ms);
    const std::string cluster = cluster_of(ms);
    const json& template_labels = at(ms, {"spec", "template", "metadata", "labels"});
    json metadata = {{"labels", template_labels.is_object() ? template_labels : json::object()}};
    const json& template_annotations = at(ms, {"spec", "template", "metadata", "annotations"});
    if (template_annotations.is_object()) metadata["annotations"] = template_annotations;
    metadata["labels"][std::string(kSetName)] = set;
    metadata["labels"][std::string(kClusterName)] = cluster;
    if (const std::string md = label(ms, kDeploymentName); !md.empty()) {
      metadata["labels"][std::string(kDeploymentName)] = md;
    }
    metadata["name"] = set + "-" + random_suffix();
    metadata["namespace"] = namespace_of(ms);
    metadata["ownerReferences"] = json::array({{{"apiVersion", options_.group + "/" + version_},
                                                {"kind", "MachineSet"},
                                                {"name", set},
                                                {"uid", uid_of(ms)},
                                                {"controller", true},
                                                {"blockOwnerDeletion", true}}});
    const json& template_spec = at(ms, {"spec", "template", "spec"});
    json spec = template_spec.is_object() ? template_spec : json::object();
    spec["clusterName"] = cluster;
    return {{"apiVersion", options_.group + "/" + version_}, {"kind", "Machine"}, {"metadata", metadata},
            {"spec", spec}};
  }

  std::string random_suffix() {
    std::uniform_int_distribution<int> letter(0, 25);
    std::string out;
    for (int i = 0; i < 5; ++i) out += static_cast<char>('a' + letter(random_));
    return out;
  }

  // The group a Machine counts in: its MachineDeployment (label, else its MachineSet's), else its MachineSet.
  std::string group_of(const json& machine, const Listed& now) const {
    if (std::string md = label(machine, kDeploymentName); !md.empty()) return md;
    const json* ms = set_of(machine, now);
    if (ms == nullptr) return "";
    if (std::string md = label(*ms, kDeploymentName); !md.empty()) return md;
    return name_of(*ms);
  }
  const json* set_of(const json& machine, const Listed& now) const {
    const std::string uid = controller_uid(machine, "MachineSet");
    if (uid.empty()) return nullptr;
    for (const json& ms : now.sets) {
      if (uid_of(ms) == uid) return &ms;
    }
    return nullptr;
  }
  const json* deployment_of(const json& ms, const Listed& now) const {
    const std::string uid = controller_uid(ms, "MachineDeployment");
    if (uid.empty()) return nullptr;
    for (const json& md : now.deployments) {
      if (uid_of(md) == uid) return &md;
    }
    return nullptr;
  }

  // Infrastructure provider and Machine controller: providerID, Node, nodeRef.
  void reconcile_machines(Listed& now) {
    for (json& machine : now.machines) {
      if (deleting(machine)) continue;
      const std::string group = group_of(machine, now);
      const std::string name = name_of(machine);
      const std::string id = provider_id(machine);
      if (id.empty()) {
        provision(machine, group, now);
        continue;
      }
      auto node = now.nodes.find(id);
      if (node == now.nodes.end()) {
        // Provisioned, and its Node not yet registered; or registered by an earlier harness that is gone.
        if (id == "kwok://" + name && !kubelet_.has_node(name)) register_node(machine, now);
        continue;
      }
      const std::string node_name = name_of(node->second);
      if (!kubelet_.has_node(node_name) && id == "kwok://" + name) kubelet_.adopt_node(node_name);
      {
        std::lock_guard lock(mutex_);
        node_of_[name] = node_name;
      }
      if (node_ref(machine) == node_name) continue;
      json ref = version_ == "v1beta2"
                     ? json{{"name", node_name}}
                     : json{{"kind", "Node"}, {"name", node_name}, {"apiVersion", "v1"}, {"uid", uid_of(node->second)}};
      write_status(machine, {{"nodeRef", ref}, {"phase", "Running"}});
    }
  }

  void provision(json& machine, const std::string& group, const Listed& now) {
    const std::string current_phase = phase(machine);
    if (current_phase == "Failed") return;
    bool never = false, fail = false;
    {
      std::lock_guard lock(mutex_);
      never = never_provision_.contains(group);
      fail = fail_machines_.contains(group);
    }
    if (fail) {
      const std::string reason = "CreateError";
      const std::string message = "the test failed machine " + name_of(machine) + " (CapiControllers::fail_machines)";
      json failure = {{"failureReason", reason}, {"failureMessage", message}};
      json status = version_ == "v1beta2" ? json{{"phase", "Failed"}, {"deprecated", {{"v1beta1", failure}}}}
                                          : json{{"phase", "Failed"}, {"failureReason", reason},
                                                 {"failureMessage", message}};
      write_status(machine, status);
      return;
    }
    if (current_phase.empty()) write_status(machine, {{"phase", "Provisioning"}});
    if (never) return;
    const Clock::time_point first = first_seen_.try_emplace(key_of(machine), Clock::now()).first->second;
    if (auto delay = options_.provision_delay.find(group);
        delay != options_.provision_delay.end() && Clock::now() - first < delay->second) {
      return;
    }
    const std::string id = "kwok://" + name_of(machine);
    auto patched = management_.merge_patch(path_of(machine, "machines"), {{"spec", {{"providerID", id}}}});
    if (!patched) {
      spdlog::warn("capi harness: {}", patched.error().describe());
      return;
    }
    machine = std::move(*patched);
    register_node(machine, now);
    json status = {{"phase", "Provisioned"}};
    if (version_ == "v1beta2") {
      status["initialization"] = {{"infrastructureProvisioned", true}, {"bootstrapDataSecretCreated", true}};
    } else {
      status["infrastructureReady"] = true;
      status["bootstrapReady"] = true;
    }
    write_status(machine, status);
  }

  void write_status(json& machine, const json& status) {
    auto patched = management_.merge_patch(path_of(machine, "machines") + "/status", {{"status", status}});
    if (!patched) {
      spdlog::warn("capi harness: {}", patched.error().describe());
      return;
    }
    machine = std::move(*patched);
  }

  // The Node of a provisioned Machine, as its kubelet registers it and Cluster API's Machine controller annotates
  // it: capacity from the group's capacity annotations (the MachineDeployment's, else the MachineSet's), labels
  // and taints the user's kubelet configuration would give it (the labels and taints annotations, the Machine's
  // labels Cluster API syncs to the Node, the Machine's spec.taints).
  void register_node(const json& machine, const Listed& now) {
    const std::string name = name_of(machine);
    const std::string group = group_of(machine, now);
    const json* ms = set_of(machine, now);
    const json* md = ms != nullptr ? deployment_of(*ms, now) : nullptr;
    auto capacity_annotation = [&](std::string_view key) {
      const std::string full = std::string(kCapacity) + std::string(key);
      if (md != nullptr && annotated(*md, full)) return annotation(*md, full);
      if (ms != nullptr && annotated(*ms, full)) return annotation(*ms, full);
      return std::string();
    };

    KubeletNode node;
    node.name = name;
    node.provider_id = provider_id(machine);
    auto arch = options_.arch.find(group);
    node.labels = {{"kubernetes.io/hostname", name},
                   {"kubernetes.io/os", "linux"},
                   {"kubernetes.io/arch", arch != options_.arch.end() ? arch->second : "amd64"}};
    if (auto type = options_.instance_type.find(group); type != options_.instance_type.end()) {
      node.labels["node.kubernetes.io/instance-type"] = type->second;
    }
    if (const json& labels = at(machine, {"metadata", "labels"}); labels.is_object()) {
      for (const auto& [key, value] : labels.items()) {
        if (synced_to_node(key)) node.labels[key] = value;
      }
    }
    for (const std::string& pair : split(capacity_annotation("labels"), ',')) {
      if (auto eq = pair.find('='); eq != std::string::npos) node.labels[pair.substr(0, eq)] = pair.substr(eq + 1);
    }
    const json& spec_taints = at(machine, {"spec", "taints"});
    for (const json& taint : spec_taints.is_array() ? spec_taints : json::array()) {
      json t = {{"key", taint.value("key", "")}, {"effect", taint.value("effect", "")}};
      if (taint.contains("value")) t["value"] = taint["value"];
      node.taints.push_back(t);
    }
    for (const std::string& text : split(capacity_annotation("taints"), ',')) {
      // key[=value]:Effect; an entry without an effect is not a taint a kubelet registers.
      const auto colon = text.rfind(':');
      if (colon == std::string::npos) continue;
      const std::string key_value = text.substr(0, colon);
      const auto eq = key_value.find('=');
      json t = {{"key", key_value.substr(0, eq)}, {"effect", text.substr(colon + 1)}};
      if (eq != std::string::npos) t["value"] = key_value.substr(eq + 1);
      node.taints.push_back(t);
    }
    node.annotations = {{"cluster.x-k8s.io/machine", name},
                        {"cluster.x-k8s.io/cluster-namespace", namespace_of(machine)},
                        {"cluster.x-k8s.io/cluster-name", cluster_of(machine)}};
    if (ms != nullptr) {
      node.annotations["cluster.x-k8s.io/owner-kind"] = "MachineSet";
      node.annotations["cluster.x-k8s.io/owner-name"] = name_of(*ms);
    }

    ResourceList capacity;
    auto set_amount = [&](Symbol resource, const std::string& text) {
      if (text.empty()) return;
      if (Result<Quantity> q = Quantity::parse(text); q) capacity.set(resource, resource_amount(resource, *q));
    };
    const std::string cpu = capacity_annotation("cpu"), memory = capacity_annotation("memory");
    const std::string pods = capacity_annotation("maxPods");
    set_amount(resource_names::cpu(), cpu.empty() ? options_.default_cpu : cpu);
    set_amount(resource_names::memory(), memory.empty() ? options_.default_memory : memory);
    set_amount(resource_names::pods(), pods.empty() ? std::to_string(options_.default_max_pods) : pods);
    set_amount(resource_names::ephemeral_storage(), capacity_annotation("ephemeral-disk"));
    if (const std::string gpu = capacity_annotation("gpu-type"); !gpu.empty()) {
      set_amount(Symbol(gpu), capacity_annotation("gpu-count"));
    }
    node.capacity = capacity;
    node.allocatable = capacity;
    kubelet_.register_node(std::move(node));
  }

  // The Machine labels Cluster API's Machine controller keeps on the Node.
  static bool synced_to_node(const std::string& key) {
    const auto slash = key.find('/');
    if (slash == std::string::npos) return false;
    const std::string_view domain = std::string_view(key).substr(0, slash);
    auto is_or_under = [&](std::string_view d) {
      return domain == d || (domain.ends_with(d) && domain.size() > d.size() &&
                             domain[domain.size() - d.size() - 1] == '.');
    };
    return domain == "node-role.kubernetes.io" || is_or_under("node-restriction.kubernetes.io") ||
           is_or_under("node.cluster.x-k8s.io");
  }

  static std::vector<std::string> split(const std::string& text, char separator) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find(separator, start);
      if (end == std::string::npos) end = text.size();
      if (end > start) out.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    return out;
  }

  // A Machine deleted (by this harness, or by anyone: it vanished from the list): its Node goes too.
  void machine_gone(const json& machine, bool by_us) {
    const std::string name = name_of(machine);
    first_seen_.erase(key_of(machine));
    created_order_.erase(key_of(machine));
    known_.erase(key_of(machine));
    if (kubelet_.has_node(name)) kubelet_.remove_node(name);
    std::lock_guard lock(mutex_);
    node_of_.erase(name);
    if (by_us && std::find(deleted_.begin(), deleted_.end(), name) == deleted_.end()) deleted_.push_back(name);
  }

  void forget_vanished(const Listed& now) {
    std::map<std::string, json> current;
    for (const json& machine : now.machines) current[key_of(machine)] = machine;
    std::vector<json> vanished;
    for (const auto& [key, machine] : known_) {
      if (!current.contains(key)) vanished.push_back(machine);
    }
    for (const json& machine : vanished) machine_gone(machine, /*by_us=*/false);
    known_ = std::move(current);
  }

  // status.replicas and readyReplicas (Machines with a Node) of the MachineSets and MachineDeployments.
  void write_statuses(const Listed& now) {
    std::map<std::string, std::pair<int, int>> by_set;  // MachineSet uid -> (replicas, ready)
    for (const json& machine : now.machines) {
      const std::string uid = controller_uid(machine, "MachineSet");
      if (uid.empty()) continue;
      ++by_set[uid].first;
      if (!node_ref(machine).empty()) ++by_set[uid].second;
    }
    std::map<std::string, std::pair<int, int>> by_deployment;
    for (const json& ms : now.sets) {
      const auto [replicas, ready] = by_set[uid_of(ms)];
      if (const std::string md = controller_uid(ms, "MachineDeployment"); !md.empty()) {
        by_deployment[md].first += replicas;
        by_deployment[md].second += ready;
      }
      write_counts(ms, "machinesets", replicas, ready);
    }
    for (const json& md : now.deployments) {
      const auto [replicas, ready] = by_deployment[uid_of(md)];
      write_counts(md, "machinedeployments", replicas, ready);
    }
  }

  void write_counts(const json& object, std::string_view resource, int replicas, int ready) {
    const json& status = object.value("status", json::object());
    json wanted = {{"replicas", replicas}, {"readyReplicas", ready}, {"availableReplicas", ready}};
    if (const std::string selector = selector_text(object); !selector.empty()) wanted["selector"] = selector;
    bool same = true;
    for (const auto& [key, value] : wanted.items()) same = same && status.value(key, json(nullptr)) == value;
    if (same) return;
    if (auto patched = management_.merge_patch(path_of(object, resource) + "/status", {{"status", wanted}}); !patched) {
      spdlog::warn("capi harness: {}", patched.error().describe());
    }
  }

  const kube::ApiClient& management_;
  const std::string version_;
  const CapiControllersOptions options_;
  FakeKubelet kubelet_;
  const kube::ApiClient& workload_;

  // The poller's own (only its thread touches them).
  std::mt19937 random_;
  std::map<std::string, Clock::time_point> first_seen_;  // "namespace/name" of a pending Machine -> first seen
  std::map<std::string, std::uint64_t> created_order_;   // Machines this harness created -> creation sequence
  std::uint64_t creations_ = 0;
  std::map<std::string, json> known_;  // the Machines of the last pass, to notice those deleted by others

  // Shared with the test's thread.
  mutable std::mutex mutex_;
  mutable std::condition_variable pass_done_;
  std::set<std::string> never_provision_;
  std::set<std::string> fail_machines_;
  std::map<std::string, std::set<std::string>> machines_by_group_;
  std::map<std::string, std::string> node_of_;  // Machine name -> Node name
  std::vector<std::string> deleted_;
  std::uint64_t passes_ = 0;

  std::jthread poller_;
};

}  // namespace scalewright::cloud::clusterapi::testing
