#pragma once
// Fake ports for the controllers' unit tests: a virtual clock whose timers the test runs, a ClusterWriter that
// records every call and observes its effect into a state::ClusterState (as the API server and a watch would, and
// as the simulator's ports do: src/sim/simulated_ports.cpp), a cloud over the provisioning tests' catalog that
// records launches and terminations, fixed metrics for the workload autoscalers, and builders for what the tests
// observe into the state.
//
// Recorded calls read "<time> <call> <arguments>", the time as Go prints durations: "30s delete_node n1".
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "../provisioning/fixtures.h"
#include "api/instant.h"
#include "cloud/cloud_provider.h"
#include "cloud/played_node_groups.h"
#include "controllers/ports.h"
#include "controllers/workload_autoscaler_loop.h"
#include "state/cluster_state.h"
#include "units.h"
#include "workloads/hpa.h"
#include "workloads/keda.h"

namespace scalewright::controllers::fakes {

using namespace std::chrono_literals;

// --- the clock -------------------------------------------------------------------------------------------------

class FakeClock : public Clock {
 public:
  Instant now() const override { return now_; }
  TimerId wake_at(Instant at, std::function<void()> wake) override {
    const TimerId id = next_id_++;
    timers_.emplace(std::pair(std::max(at, now_), id), std::move(wake));
    return id;
  }
  void cancel(TimerId timer) override { cancelled_.insert(timer); }

  // Runs every timer due by `t` in (time, order set) order, those set meanwhile included, cancelled ones skipped;
  // the clock reads each timer's time while it runs, and `t` after.
  void advance_to(Instant t) {
    while (!timers_.empty() && timers_.begin()->first.first <= t) {
      auto timer = timers_.extract(timers_.begin());
      if (cancelled_.erase(timer.key().second) > 0) continue;
      now_ = timer.key().first;
      timer.mapped()();
    }
    now_ = std::max(now_, t);
  }
  // When the timers not yet run (nor cancelled) are due, earliest first.
  std::vector<Instant> pending() const {
    std::vector<Instant> out;
    for (const auto& [key, wake] : timers_) {
      if (!cancelled_.contains(key.second)) out.push_back(key.first);
    }
    return out;
  }

 private:
  Instant now_{};
  TimerId next_id_ = 1;
  std::map<std::pair<Instant, TimerId>, std::function<void()>> timers_;
  std::set<TimerId> cancelled_;
};

// --- the cluster writer ----------------------------------------------------------------------------------------

class FakeWriter : public ClusterWriter {
 public:
  FakeWriter(state::ClusterState& state, FakeClock& clock) : state_(state), clock_(clock) {}

  std::vector<std::string> calls;     // every change asked for, in order
  std::vector<TimelineEntry> events;  // every record()
  // The kubelet, when set: an evicted pod stops when its grace period ends (a timer of the clock); it leaves the
  // state and this is told its node (TerminationController::pod_terminated). There is no ReplicaSet controller:
  // a test observes replacements itself.
  std::function<void(const std::string& node)> on_pod_terminated;

  // The recorded calls whose name is `call` ("delete_node", "evict", ...).
  std::vector<std::string> calls_of(std::string_view call) const {
    std::vector<std::string> out;
    for (const std::string& c : calls) {
      const std::size_t space = c.find(' ');
      if (c.compare(space + 1, call.size(), call) == 0 && c.size() > space + 1 + call.size() &&
          c[space + 1 + call.size()] == ' ') {
        out.push_back(c);
      }
    }
    return out;
  }
  // The recorded events of `kind`, as "<time> <message>".
  std::vector<std::string> events_of(std::string_view kind) const {
    std::vector<std::string> out;
    for (const TimelineEntry& e : events) {
      if (e.kind == kind) out.push_back(format_duration(since_start(e.at)) + " " + e.message);
    }
    return out;
  }

  void record(TimelineEntry entry) override { events.push_back(std::move(entry)); }
  std::vector<std::string> object_events;  // every object_event(), as "<time> <Kind> <key> <reason>: <message>"
  void object_event(ObjectEvent event) override {
    object_events.push_back(fmt::format("{} {} {} {}: {}", format_duration(since_start(clock_.now())), event.kind,
                                        event.key, event.reason, event.message));
  }
  void nominate(const state::PodRecord& pod, const std::string& node) override {
    call(fmt::format("nominate {} -> {}", pod.key, node.empty() ? "none" : node));
    state_.pod_nominated(record_of(pod), node.empty() ? Symbol() : Symbol(node));
  }
  void release_nominations(const std::string& node) override {
    call("release_nominations " + node);
    state_.nominations_released(node);
  }
  void evict(const state::PodRecord& pod, Duration grace) override {
    call(fmt::format("evict {} grace={}", pod.key, format_duration(grace)));
    const Instant stops_at = clock_.now() + grace;
    state_.pod_deleting(record_of(pod), stops_at, clock_.now());
    if (!on_pod_terminated) return;
    clock_.wake_at(stops_at, [this, key = std::string(pod.key)] {
      const state::PodRecord* gone = state_.find_pod(key);
      if (gone == nullptr || !gone->terminating_until || *gone->terminating_until > clock_.now()) return;
      const std::string node = gone->pod->spec.node_name;
      state_.pod_deleted(key);
      on_pod_terminated(node);
    });
  }
  void set_taint(const std::string& node_name, const Taint& taint, bool present) override {
    call(fmt::format("taint {} {}{}", node_name, present ? "+" : "-", taint.key));
    state::NodeRecord* node = state_.find_node(node_name);
    if (node == nullptr) return;
    std::erase_if(node->node.taints, [&](const Taint& t) { return t.key == taint.key; });
    if (present) node->node.taints.push_back(taint);
    state_.node_updated(*node);
  }
  bool nodeclaim_created(state::NodeRecord claim, const std::vector<cloud::LaunchOption>&) override {
    call("nodeclaim_created " + claim.name());
    state_.node_added(std::move(claim));
    return true;
  }
  void nodeclaim_not_launched(const std::string& name) override {
    call("nodeclaim_not_launched " + name);
    state_.nodeclaim_not_launched(name);
  }
  void node_launched(state::NodeRecord node, bool running_already) override {
    call(fmt::format("node_launched {} {} {} {}{}", node.name(), node.instance_type, node.zone, node.capacity_type,
                     running_already ? " running" : ""));
    state::NodeRecord& launched = state_.node_launched(std::move(node));
    if (running_already) state_.node_ready(launched);
  }
  void delete_node(const std::string& name) override {
    call("delete_node " + name);
    state::NodeRecord* node = state_.find_node(name);
    if (node == nullptr || node->phase == state::NodePhase::Terminated) return;
    if (node->phase != state::NodePhase::Draining) drain_node(name);
    state_.node_terminated(*node, clock_.now());
  }
  void release_nodeclaim(const std::string& name) override { call("release_nodeclaim " + name); }
  void scale(const std::string& workload, std::int32_t replicas) override {
    call(fmt::format("scale {} {}", workload, replicas));
    state_.workload_scaled(workload, replicas);
  }

 private:
  // The state's record of the pod a controller names (the controllers hold it const).
  state::PodRecord& record_of(const state::PodRecord& pod) { return *state_.find_pod(std::string(pod.key)); }
  void call(const std::string& what) { calls.push_back(format_duration(since_start(clock_.now())) + " " + what); }
  // Cordons the node and deletes its pods at once, as the simulator's drain.
  void drain_node(const std::string& name) {
    state::NodeRecord* node = state_.find_node(name);
    if (node == nullptr) return;
    std::vector<std::string> deleted;
    if (const scheduling::NodeId id = state_.snapshot().find_node(name); id != scheduling::kNoNode) {
      for (const auto& placed : state_.snapshot().node(id).pods) deleted.push_back(placed.pod->meta.key());
    }
    for (const std::string& key : deleted) state_.pod_deleted(key);
    state_.nominations_released(name);
    state_.node_draining(*node);
  }

  state::ClusterState& state_;
  FakeClock& clock_;
};

// --- the cloud -------------------------------------------------------------------------------------------------

// Over provisioning::fixtures::make_catalog() (two zones; see its table). Instances are "i-1", "i-2", ... in the
// order launched or started.
class FakeCloud : public cloud::CloudProvider {
 public:
  std::vector<std::string> calls;  // "launch g.xlarge zone-a spot", "terminate i-1"

  // Launches from this offering return insufficient capacity from now on.
  void out_of_capacity(const std::string& type, const std::string& zone, cloud::CapacityType capacity_type) {
    no_capacity_.insert({type, zone, std::string(cloud::to_string(capacity_type))});
  }
  // An instance running before the test starts (not a recorded launch): its id.
  cloud::Instance start(const std::string& node_name, const std::string& type, const std::string& zone) {
    const cloud::InstanceType* t = catalog_.find(type);
    const std::string id = "i-" + std::to_string(next_id_++);
    const cloud::Instance instance{id, node_name, t, *t->offering(zone, cloud::CapacityType::OnDemand),
                                   "fake:///" + id};
    running_[instance.id] = instance;
    return instance;
  }

  // Instance id -> why the provider finds it drifted ("AMIDrift"), what is_drifted answers.
  std::map<std::string, std::string> drifted_instances;
  cloud::CloudResult<std::string> is_drifted(const cloud::ClaimedInstance& claim) const override {
    const auto found = drifted_instances.find(claim.instance_id);
    return found == drifted_instances.end() ? std::string() : found->second;
  }

  // What repair_policies answers (none unless a test sets them).
  std::vector<cloud::RepairStatement> repair_statements;
  std::vector<cloud::RepairStatement> repair_policies() const override { return repair_statements; }

  // Every create is refused with `error` from now on (an account limit, credentials not allowed to launch).
  void refuse_creates(cloud::CloudError error) { refuse_creates_ = std::move(error); }
  // The next `count` terminations are refused as throttled (the cloud's rate limit), each still recorded.
  void throttle_terminations(int count) { throttled_terminations_ = count; }

  const cloud::Catalog& catalog() const override { return catalog_; }
  // While set, every NodePool's class is not ready (instance_types answers NodeClassNotReady with this message).
  std::optional<std::string> node_class_not_ready;
  cloud::CloudResult<const cloud::Catalog*> instance_types(const NodePool& pool) const override {
    if (node_class_not_ready) return cloud::CloudError{cloud::ErrorClass::NodeClassNotReady, *node_class_not_ready, {}};
    return cloud::CloudProvider::instance_types(pool);
  }
  // Its node groups, played in memory as the simulated cloud plays them; instances named "<group>-new-1",
  // "<group>-new-2", ... in the order launched.
  cloud::PlayedNodeGroups& node_groups() { return groups_; }
  // Tries the offerings in order, a "launch" call each, as the simulated cloud does.
  cloud::CloudResult<cloud::Created> create(const cloud::CreateRequest& request) override {
    if (refuse_creates_) {
      calls.push_back("create " + request.name + " refused");
      return *refuse_creates_;
    }
    cloud::Created created;
    for (const cloud::LaunchOption& option : request.offerings) {
      const std::string capacity_type(cloud::to_string(option.offering->capacity_type));
      calls.push_back(fmt::format("launch {} {} {}", option.instance_type->name, option.offering->zone, capacity_type));
      if (no_capacity_.contains({option.instance_type->name, option.offering->zone, capacity_type})) {
        created.unavailable.push_back(option);
        continue;
      }
      const std::string id = "i-" + std::to_string(next_id_++);
      created.instance = cloud::Instance{id, request.name, option.instance_type, *option.offering, "fake:///" + id};
      created.launched = option;
      running_[id] = created.instance;
      return created;
    }
    return cloud::CloudError{cloud::ErrorClass::InsufficientCapacity,
                             fmt::format("InsufficientInstanceCapacity: no capacity for {} offerings",
                                         created.unavailable.size()),
                             std::move(created.unavailable)};
  }
  cloud::CloudResult<cloud::Deleted> terminate(const std::string& instance_id) override {
    calls.push_back("terminate " + instance_id);
    if (throttled_terminations_ > 0) {
      --throttled_terminations_;
      return cloud::CloudError{cloud::ErrorClass::Throttled, "RequestLimitExceeded: Request limit exceeded.", {}};
    }
    groups_.forget(instance_id);
    if (running_.erase(instance_id) == 0) return cloud::not_found(instance_id);
    return cloud::Deleted{};
  }
  cloud::CloudResult<cloud::Instance> get(const std::string& instance_id) const override {
    auto it = running_.find(instance_id);
    if (it == running_.end()) return cloud::not_found(instance_id);
    return it->second;
  }
  cloud::CloudResult<std::vector<cloud::Instance>> list() const override {
    std::vector<cloud::Instance> out;
    for (const auto& [id, instance] : running_) out.push_back(instance);
    return out;
  }

 private:
  cloud::Catalog catalog_ = provisioning::fixtures::make_catalog();
  int throttled_terminations_ = 0;
  int group_instances_named_ = 0;
  cloud::PlayedNodeGroups groups_{
      catalog_, [this](const std::string& group) { return group + "-new-" + std::to_string(++group_instances_named_); },
      [this](const cloud::CreateRequest& request) { return create(request); },
      [this](const std::string& id) { return terminate(id); }};
  std::optional<cloud::CloudError> refuse_creates_;
  std::set<std::tuple<std::string, std::string, std::string>> no_capacity_;  // type, zone, capacity type
  std::map<std::string, cloud::Instance> running_;
  std::uint64_t next_id_ = 1;
};

// --- the metrics ------------------------------------------------------------------------------------------------

// metrics.k8s.io answering fixed cpu usage per pod name, each sample taken now over `window`; every trigger
// reads `trigger_value`. Other metrics are errors.
class FakeMetrics : public AutoscalingMetrics, public workloads::MetricsSource, public workloads::TriggerReader {
 public:
  explicit FakeMetrics(const Clock& clock) : clock_(clock) {}

  std::map<std::string, std::int64_t> cpu_milli;  // pod name -> usage
  Duration window{15'000};                        // metrics-server's scrape interval
  double trigger_value = 0;

  const workloads::MetricsSource& pod_metrics() const override { return *this; }
  const workloads::TriggerReader& triggers() const override { return *this; }

  Result<std::map<std::string, workloads::PodMetricSample>> pod_resource_usage(const std::string&,
                                                                               const std::string& resource,
                                                                               const std::string&,
                                                                               const LabelSelector&) const override {
    if (resource != "cpu") return Error{"only cpu is measured"};
    std::map<std::string, workloads::PodMetricSample> samples;
    for (const auto& [pod, milli] : cpu_milli) samples[pod] = {milli, clock_.now(), window};
    return samples;
  }
  Result<std::map<std::string, workloads::PodMetricSample>> pod_metric(const std::string&, const MetricIdentifier&,
                                                                       const LabelSelector&) const override {
    return Error{"no custom metrics"};
  }
  Result<std::int64_t> object_metric(const std::string&, const MetricIdentifier&,
                                     const CrossVersionObjectReference&) const override {
    return Error{"no custom metrics"};
  }
  Result<std::vector<std::int64_t>> external_metric(const std::string&, const MetricIdentifier&) const override {
    return Error{"no external metrics"};
  }
  Result<double> read(const ScaledObject&, std::size_t) const override { return trigger_value; }

 private:
  const Clock& clock_;
};

// --- what the tests observe into the state ---------------------------------------------------------------------

// Launches held until the test answers them, as `scalewright run`'s launch workers answer a while later: what a
// controller does between a NodeClaim's creation and its launch's answer.
class HeldLaunches final : public Launches {
 public:
  explicit HeldLaunches(cloud::CloudProvider& cloud) : cloud_(cloud) {}
  void launch(cloud::CreateRequest request, Answered answered) override {
    held_.emplace_back(std::move(request), std::move(answered));
  }
  std::size_t held() const { return held_.size(); }
  const cloud::CreateRequest& request(std::size_t i) const { return held_.at(i).first; }
  // The cloud is called for the `i`-th launch held, and its answer handed back.
  void answer(std::size_t i) { held_.at(i).second(cloud_.create(held_.at(i).first)); }

 private:
  cloud::CloudProvider& cloud_;
  std::vector<std::pair<cloud::CreateRequest, Answered>> held_;
};

// The observed cluster and the fake ports over it, which every controller test starts from.
struct FakeCluster {
  state::ClusterState state;
  FakeClock clock;
  FakeWriter writer{state, clock};
  FakeCloud cloud;
  LaunchesAtOnce launches{cloud};
  Ports ports{state, clock, writer, cloud, cloud.node_groups(), launches};
};

// A node of `type` (the catalog's) in zone-a, of `nodepool` (empty: none), running on an instance the cloud
// started: Ready when `ready`, else a NodeClaim still launching.
inline state::NodeRecord& add_node(state::ClusterState& state, FakeCloud& cloud, const std::string& name,
                                   const std::string& nodepool, bool ready = true,
                                   const std::string& type = "c.2xlarge") {
  const cloud::Instance instance = cloud.start(name, type, "zone-a");
  state::NodeRecord node;
  node.nodepool = nodepool;
  node.instance_id = instance.id;
  node.instance_type = type;
  node.zone = instance.offering.zone;
  node.capacity_type = std::string(cloud::to_string(instance.offering.capacity_type));
  node.price_per_hour = instance.offering.price_per_hour;
  node.launched_at = Instant{};
  node.node.meta.name = name;
  node.node.meta.labels = instance.instance_type->labels;
  node.node.meta.labels.set(Symbol(well_known::hostname), Symbol(name));
  node.node.meta.labels.set(Symbol(well_known::zone), Symbol(node.zone));
  node.node.meta.labels.set(Symbol(karpenter_labels::capacity_type), Symbol(node.capacity_type));
  if (!nodepool.empty()) node.node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol(nodepool));
  node.node.capacity = instance.instance_type->capacity;
  node.node.allocatable = instance.instance_type->allocatable;
  state::NodeRecord& added = state.node_added(std::move(node));
  if (ready) state.node_ready(added);
  return added;
}

// A pod of namespace default created now (owned by `workload`, empty: a bare pod) and pending.
inline state::PodRecord& add_pod(state::ClusterState& state, const Clock& clock, const std::string& name,
                                 std::int64_t cpu_milli, const std::string& app = "", const std::string& workload = "") {
  return *state.pod_created(provisioning::fixtures::make_pod(name, cpu_milli, 256 * kMi, app),
                            workload, clock.now());
}

// kube-scheduler bound `pod` to the Ready node `node` now.
inline void bind_pod(state::ClusterState& state, const Clock& clock, state::PodRecord& pod, const std::string& node) {
  state.pod_bound(pod, state.snapshot().find_node(node), clock.now());
}

// Every pod nominated to `node`, by key.
inline std::vector<std::string> nominated_to(const state::ClusterState& state, const std::string& node) {
  std::vector<std::string> out;
  for (const auto& [key, pod] : state.pods()) {
    if (pod.nominated_node.str() == node) out.push_back(key);
  }
  return out;
}

}  // namespace scalewright::controllers::fakes
