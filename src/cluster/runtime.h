#pragma once
// The real-cluster environment of `scalewright run`, as src/sim/ is the simulated one: informers list and watch
// the API server on threads of their own and hand what they see to one loop, which observes it into the cluster
// state and runs the same controllers the simulator runs, acting through the Kubernetes writer and a cloud
// provider. The controllers and the state are touched by the loop's thread only.
//
// While another replica leads, the loop keeps the state in sync (a warm standby) and acts on nothing; once this
// one leads, the controllers start from the state as it stands — NodeClaims in flight, nodes being deleted — so that
// a leader killed mid-launch or mid-drain has its work finished by the next.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <queue>
#include <set>
#include <stop_token>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "api/instant.h"
#include "api/scenario.h"
#include "cluster/api_objects.h"
#include "cluster/cluster_metrics.h"
#include "cluster/inbox.h"
#include "cluster/instance_notices.h"
#include "cluster/kubernetes_writer.h"
#include "cluster/launch_worker.h"
#include "cluster/observer.h"
#include "controllers/disruption/controller.h"
#include "controllers/cluster_autoscaler_controller.h"
#include "controllers/node_lifecycle.h"
#include "controllers/node_names.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/static_capacity.h"
#include "controllers/node_repair.h"
#include "controllers/termination.h"
#include "controllers/workload_autoscaler_controller.h"
#include "kube/api_client.h"
#include "kube/event_sink.h"
#include "kube/reflector.h"
#include "state/cluster_state.h"

namespace scalewright::cluster {

struct RuntimeOptions {
  provisioning::BatchWindow batch_window{Duration(1'000), Duration(10'000)};
  bool dry_run = false;
  FeatureGates feature_gates;  // --feature-gates
  // How many deliveries the informers may get ahead of the loop before they wait (bounds memory at start-up, when
  // a list of 150,000 pods arrives faster than it is observed).
  std::size_t max_waiting_deliveries = 2'000;
  // Called once, when this replica starts acting (the cloud provider starts then).
  std::function<void()> on_start_acting;
  // Told the seconds to the create call of the NodeClaim launched for a pod: from when it last needed capacity, and
  // from its arrival as Unschedulable (WriterOptions).
  std::function<void(double since_needed, double since_arrival)> observe_pod_to_nodeclaim_seconds;
  // Told how long each pass of the controllers took, in seconds (a decision-duration histogram).
  std::function<void(double)> observe_pass_seconds;
};

// What the loop has done, for metrics and tests (read from any thread).
struct RuntimeCounters {
  std::atomic<std::uint64_t> deliveries{0};
  std::atomic<std::uint64_t> unreadable_objects{0};
  std::atomic<std::uint64_t> passes{0};
  std::atomic<std::int64_t> last_pass_steady_ns{0};  // steady_clock time of the last pass (liveness)
  std::atomic<std::int64_t> nodes{0};
  std::atomic<std::int64_t> pending_pods{0};
};

class ClusterRuntime final : public controllers::Clock, private ObserverListener {
 public:
  ClusterRuntime(const kube::ApiClient& client, cloud::CloudProvider& cloud, cloud::NodeGroupProvider& node_groups,
                 kube::EventSink& events, RuntimeOptions options = {});
  ~ClusterRuntime() override;
  ClusterRuntime(const ClusterRuntime&) = delete;
  ClusterRuntime& operator=(const ClusterRuntime&) = delete;

  // Runs Cluster Autoscaler's node groups beside the NodePools (CA's flags were given): from the moment this
  // replica leads, they resume from the nodes the cluster shows, are scanned every --scan-interval, and the
  // cluster-autoscaler-status ConfigMap is written after each scan. Called before start_informers().
  void run_node_groups(controllers::ClusterAutoscalerLoop loop);

  // Starts the informers: owners, NodePools, nodes and NodeClaims first; pods once those have synced, so that a
  // pod finds its node and its workload known.
  void start_informers();
  // Every informer has listed once and the loop has observed it.
  bool synced() const { return synced_; }

  // Runs the loop until `stop` is requested or `leading()` turns false after having been true (the lease was
  // lost: the caller exits, as client-go's leader election does). Controllers act only while `leading()`.
  void run(std::stop_token stop, const std::function<bool()>& leading);

  // --- controllers::Clock (the loop's thread) ---
  Instant now() const override;
  controllers::TimerId wake_at(Instant at, std::function<void()> wake) override;
  void cancel(controllers::TimerId timer) override { cancelled_.insert(timer); }

  const RuntimeCounters& counters() const { return counters_; }
  const KubernetesWriter& writer() const { return writer_; }
  // Runs `look` on the loop's thread with the state, and waits for it (tests and the snapshot command).
  void inspect(const std::function<void(const state::ClusterState&)>& look);

  // What the cloud says of an instance (any thread): taken into the state by the loop while this replica acts
  // (take_instance_notice), kept until then.
  void notice(cloud::InstanceNotice notice);
  // `inbox` (the provider's notices) delivers to this runtime from now until the runtime goes.
  void take_notices_from(InstanceNoticeInbox& inbox);
  // A node class of the provider's resolves to something else (any thread): the loop tells the state
  // (ClusterState::node_class_applied) while this replica acts, so that drift and provisioning look again.
  void node_class_changed(std::string node_class);
  // `inbox` (the provider's node class changes) delivers to this runtime from now until the runtime goes.
  void take_node_class_changes_from(NodeClassChangeInbox& inbox);

 private:
  class Informer;
  struct Delivery {
    const Resource* resource = nullptr;
    enum class What { RelistStarted, Object, RelistDone } what = What::Object;
    Change change = Change::Added;
    nlohmann::json object;
  };
  struct Timer {
    Instant at{};
    controllers::TimerId id = 0;
    std::function<void()> wake;
    bool operator>(const Timer& other) const { return at != other.at ? at > other.at : id > other.id; }
  };

  void deliver(Delivery delivery);     // informers' threads
  void post_answer(std::function<void()> answer);  // the launch workers' threads
  void apply(Delivery& delivery);
  void take_notice(const cloud::InstanceNotice& notice);
  void take_node_class_changes(const std::deque<std::string>& node_classes);
  void start_informer(Informer& informer);
  void start_acting();
  void settle();
  void run_due_timers();
  // The cloud's instance behind each node found on the cluster (not launched by this replica).
  void find_instances();
  void publish_node_group_status();

  // --- ObserverListener ---
  void node_registered(const std::string& node) override;
  void node_ready(const std::string& node) override;
  void pod_left(const std::string& node) override;
  void object_unreadable(const std::string& message) override;

  const kube::ApiClient& client_;
  cloud::CloudProvider& cloud_;
  cloud::NodeGroupProvider& cloud_node_groups_;
  RuntimeOptions options_;
  std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  TimeBase time_;
  RuntimeCounters counters_;

  state::ClusterState state_;
  ClusterObserver observer_;
  KubernetesWriter writer_;

  std::vector<std::unique_ptr<Informer>> informers_;
  std::vector<std::jthread> informer_threads_;
  std::atomic<std::size_t> unsynced_{0};
  std::atomic<bool> synced_{false};

  std::mutex inbox_mutex_;
  std::condition_variable inbox_changed_;  // a delivery arrived (loop), or room was made (informers)
  std::deque<Delivery> inbox_;
  std::deque<std::function<void()>> inspections_;
  std::deque<std::function<void()>> answers_;  // the cloud's answers to launches, for the controllers
  std::deque<cloud::InstanceNotice> notices_;  // the cloud's notices, taken once acting
  InstanceNoticeInbox* notice_inbox_ = nullptr;
  std::deque<std::string> node_class_changes_;  // node classes changed, taken once acting
  NodeClassChangeInbox* node_class_inbox_ = nullptr;
  bool stopping_ = false;

  std::priority_queue<Timer, std::vector<Timer>, std::greater<>> timers_;
  std::unordered_set<controllers::TimerId> cancelled_;
  controllers::TimerId next_timer_ = 1;

  bool acting_ = false;
  controllers::NodeNames names_;
  LaunchWorker launches_{cloud_, [this](std::function<void()> answer) { post_answer(std::move(answer)); }};
  controllers::Ports ports_{state_, *this, writer_, cloud_, cloud_node_groups_, launches_};
  controllers::NodeLifecycleController lifecycle_{ports_};
  controllers::TerminationController termination_{ports_};
  controllers::NodeRepairController node_repair_{ports_, options_.feature_gates.node_repair};
  controllers::ProvisioningController provisioning_;
  controllers::DisruptionController disruption_;
  controllers::StaticCapacityController static_capacity_{ports_, provisioning_, termination_};
  std::unique_ptr<controllers::ClusterAutoscalerController> node_groups_;
  std::optional<Instant> status_published_;  // the scan the last cluster-autoscaler-status reported
  ClusterAutoscalingMetrics autoscaling_metrics_{client_, time_};
  controllers::WorkloadAutoscalerController workload_autoscaler_;
};

}  // namespace scalewright::cluster
