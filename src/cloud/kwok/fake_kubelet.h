#pragma once
// The kubelet's part of a node that has no kubelet, as kwok plays it: it registers the Node (labels, taints,
// providerID, then a Ready status with its capacity and allocatable), keeps the Node's Lease in kube-node-lease
// renewed, reports the pods bound to its nodes Running and Ready, confirms the deletion of those being deleted, and
// deletes the Node and its Lease when its machine goes. Whoever plays the machines (the kwok provider, or a test's
// stand-in for EC2's kubelets) says which nodes exist; this plays what runs on them.
//
// It works on a thread of its own, as a kubelet runs apart from the controller: register_node() and remove_node()
// only queue work.
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "api/resources.h"
#include "kube/api_client.h"

namespace scalewright::kube {
class Reflector;
}

namespace scalewright::cloud {

// A Node as its kubelet registers it.
struct KubeletNode {
  std::string name;
  std::string provider_id;
  nlohmann::json labels = nlohmann::json::object();
  nlohmann::json annotations = nlohmann::json::object();
  nlohmann::json taints = nlohmann::json::array();  // registered with the Node (--register-with-taints)
  ResourceList capacity;
  ResourceList allocatable;
  // Its addresses: an InternalIP (the one an EC2 hostname spells, ip-10-1-2-3... is 10.1.2.3), and a Hostname
  // address too when set, as EC2's kubelets report.
  bool hostname_address = false;
  std::string kubelet_version = "v1.26.1-kwok";
};

struct FakeKubeletOptions {
  // kubelet's node Lease: 40 s long, renewed every 10 s.
  std::chrono::seconds lease_duration{40};
  std::chrono::seconds lease_renew_interval{10};
  std::string log_prefix = "kwok";  // what its log lines start with
};

class FakeKubelet {
 public:
  explicit FakeKubelet(const kube::ApiClient& client, FakeKubeletOptions options = {});
  ~FakeKubelet();
  FakeKubelet(const FakeKubelet&) = delete;
  FakeKubelet& operator=(const FakeKubelet&) = delete;

  // Starts renewing the Leases of its nodes and playing their pods (the pods bound to any node are watched).
  void start();
  void stop();

  // Registers `node` `after` from now, Ready, and keeps its Lease renewed; a refused creation is retried every
  // second. A node removed before its time never registers.
  void register_node(KubeletNode node, std::chrono::milliseconds after = std::chrono::milliseconds(0));
  // A Node that exists already (registered by an earlier run): its Lease renewed and its pods played from now on.
  void adopt_node(const std::string& name);
  // Its machine is gone: the Node and its Lease are deleted.
  void remove_node(const std::string& name);

  // Whether `name` is one of its nodes, registered or about to be.
  bool has_node(const std::string& name) const;
  // Nodes it registered so far, and the pods it reports running now.
  std::size_t nodes_registered() const;
  std::size_t pods_running() const;

 private:
  class PodHandler;
  using Clock = std::chrono::steady_clock;
  struct Task {
    Clock::time_point at;
    std::uint64_t sequence = 0;
    std::function<void()> run;
    bool operator>(const Task& other) const { return at != other.at ? at > other.at : sequence > other.sequence; }
  };

  void schedule(Clock::time_point at, std::function<void()> run);
  void work();
  void create_node(const KubeletNode& node);
  void delete_node(const std::string& name);
  void renew_leases();
  bool renew_lease(const std::string& node);
  void pod_changed(const nlohmann::json& pod);
  void pod_gone(const nlohmann::json& pod);

  const kube::ApiClient& client_;
  FakeKubeletOptions options_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::priority_queue<Task, std::vector<Task>, std::greater<>> tasks_;
  std::uint64_t next_sequence_ = 0;
  bool stopping_ = false;
  std::set<std::string> nodes_;                   // its nodes by name: pending, registered or adopted
  std::set<std::string> pending_;                 // to be registered
  std::set<std::string> registered_;              // Node objects that exist, by name
  std::map<std::string, nlohmann::json> leases_;  // node -> its Lease as last written
  std::set<std::string> running_pods_;            // pods reported Running ("namespace/name")
  std::size_t nodes_registered_ = 0;

  std::unique_ptr<PodHandler> pod_handler_;
  std::unique_ptr<kube::Reflector> pod_reflector_;
  std::jthread worker_;
  std::jthread pod_watcher_;
};

// A node's InternalIP: the address an EC2 hostname spells (ip-10-1-2-3... is 10.1.2.3), else one made up, stable
// per name.
std::string fake_node_ip(const std::string& node);

}  // namespace scalewright::cloud
