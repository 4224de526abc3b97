#include "sim/simulator.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>

#include <fmt/format.h>

#include "api/wording.h"
#include "sim/cluster_autoscaler_setup.h"
#include "sim/simulation.h"

namespace scalewright::sim {

Simulation::Simulation(SimulationInput input)
    : scenario_(std::move(input.scenario)),
      cluster_api_objects_(input.objects.cluster_api_objects),
      cloud_(std::move(input.catalog), scenario_.cloud, scenario_.seed),
      status_at_(std::move(input.status_at)),
      stream_(input.timeline_sink),
      limits_(input.limits),
      object_records_(input.object_records),
      names_(scenario_.seed ^ 0x5ca1e5ca1eull),
      provisioning_(ports_, names_, lifecycle_,
                    provisioning::BatchWindow{scenario_.batching.idle, scenario_.batching.max}) {
  cloud_.cap_instances(limits_.max_nodes, [this](std::size_t max) {
    stop(fmt::format("the simulation holds at most {} nodes; more were to be launched", max));
  });
  // Without spec.clusterAutoscaler, CA's own Deployment configures the CA this simulation runs (the CLI has
  // usually done this already, and refused two of them).
  if (!scenario_.cluster_autoscaler) {
    if (Result<std::optional<std::string>> adopted =
            sim::adopt_cluster_autoscaler_deployment(scenario_, input.objects.cluster_autoscaler_deployments);
        adopted && *adopted) {
      note("cluster-autoscaler", **adopted);
    }
  }
  for (const std::string& unknown : cloud_.catalog().notes()) {
    if (catalog_notes_.insert(unknown).second) note("catalog", unknown);
  }
  if (!scenario_.cluster_autoscaler && !cluster_api_objects_.empty()) {
    note("warning", fmt::format("the files hold {} and no Cluster Autoscaler runs (spec.clusterAutoscaler, or its "
                                "Deployment): nothing scales them",
                                plural(cluster_api_objects_.size(), "Cluster API object")));
  }
  apply_objects(std::move(input.objects));
  start_cluster_autoscaler();
}

void Simulation::push(Event e) {
  e.sequence = next_sequence_++;
  events_.push(std::move(e));
}

controllers::TimerId Simulation::wake_at(Instant at, std::function<void()> wake) {
  const controllers::TimerId id = next_sequence_;
  push({std::max(at, now_), 0, EventKind::Timer, 0, {}, std::move(wake)});
  return id;
}

// The next event due no later than the scenario's end (and at `at`, when given), cancelled timers dropped unseen.
bool Simulation::pop_due(Event& out, std::optional<Instant> at) {
  while (!events_.empty()) {
    const Event& top = events_.top();
    if (top.kind == EventKind::Timer && cancelled_.erase(top.sequence) > 0) {
      events_.pop();
      continue;
    }
    if (top.at > end() || (at && top.at != *at)) return false;
    out = std::move(const_cast<Event&>(top));  // popped next: its order fields stay readable for the heap
    events_.pop();
    return true;
  }
  return false;
}

SimulationReport Simulation::run() {
  for (std::size_t i = 0; i < scenario_.timeline.size(); ++i) {
    push({scenario_.timeline[i].at, 0, EventKind::Timeline, i, {}, {}});
  }
  for (const SpotInterruptionEvent& s : scenario_.cloud.faults.spot_interruptions) {
    push({s.at, 0, EventKind::SpotNotice, static_cast<std::size_t>(s.count), {}, {}});
  }
  for (std::size_t i = 0; i < scenario_.cloud.faults.node_failures.size(); ++i) {
    push({scenario_.cloud.faults.node_failures[i].at, 0, EventKind::NodeFailure, i, {}, {}});
  }
  if (node_groups_) {
    for (Instant at : status_at_) push({at, 0, EventKind::StatusRequest, 0, {}, {}});
  }
  settle();
  stream_.flush(timeline_, progress());
  Event e;
  while (stopped_.empty() && pop_due(e, std::nullopt)) {
    advance_to(e.at);
    handle(e);
    // Everything due at this instant happens before the cluster settles, as controllers see one state.
    while (pop_due(e, now_)) handle(e);
    settle();
    // The instant settles as it would have (pods already made go pending), then the run ends on that line.
    if (!stopped_.empty()) note("stopped", fmt::format("run stopped: {}", stopped_));
    stream_.flush(timeline_, progress());
    if (status_requested_) {
      status_requested_ = false;
      statuses_.push_back({now_, node_groups_->loop().status(now_, kWallClockAtStart)});
    }
  }
  advance_to(end());
  stream_.flush(timeline_, progress());
  return report();
}

void Simulation::handle(Event& e) {
  cloud_.set_now(now_);
  switch (e.kind) {
    case EventKind::Timeline: run_timeline_step(scenario_.timeline[e.index]); break;
    case EventKind::Timer: e.wake(); break;
    case EventKind::NodeReady: on_node_ready(e.subject); break;
    case EventKind::SpotNotice: on_spot_notice(static_cast<std::int32_t>(e.index)); break;
    case EventKind::SpotReclaim: on_spot_reclaim(e.subject); break;
    case EventKind::MetricsScrape: on_metrics_scrape(); break;
    case EventKind::PodTerminated: on_pod_terminated(e.subject); break;
    case EventKind::StatusRequest: status_requested_ = true; break;
    case EventKind::NodeFailure: on_node_failure(scenario_.cloud.faults.node_failures[e.index]); break;
    case EventKind::TaintEviction: on_taint_eviction(e.subject); break;
  }
}

// After anything changes: the workload controllers create and delete pods, kube-scheduler binds what fits, and the
// autoscaling controllers look at what is left (pods that fit nowhere open or extend a provisioning batch).
void Simulation::settle() {
  state_.retire_terminated();
  // An OrderedReady StatefulSet makes its next pod once the one before runs: the controllers and kube-scheduler go
  // round while a pass binds such a pod.
  std::uint64_t running;
  do {
    running = state_.ordered_pods_running();
    reconcile_workloads();
    schedule_pending();
  } while (state_.ordered_pods_running() != running && stopped_.empty());
  provisioning_.reconcile();
  static_capacity_.reconcile();
  lifecycle_.reconcile();
  disruption_.reconcile();
  node_repair_.reconcile();
  termination_.reconcile();
  peak_nodes_ = std::max(peak_nodes_, state_.live_nodes());
}

void Simulation::run_timeline_step(const TimelineStep& step) {
  const ObjectReference& t = step.target;
  switch (step.action) {
    case TimelineStep::Action::Scale: {
      if (t.kind == "NodePool") {  // kubectl scale nodepool: a static NodePool's replicas
        const NodePool* pool = state_.find_nodepool(t.name);
        if (pool == nullptr || !pool->is_static()) {
          note("warning", fmt::format("scale: no static NodePool {}", t.name));  // refused when the files loaded
          return;
        }
        note("scale", fmt::format("scale NodePool {} {} -> {}", t.name, *pool->replicas, step.replicas));
        state_.nodepool_scaled(t.name, step.replicas);
        return;
      }
      auto it = state_.workloads().find(object_key(t.kind, t.namespace_, t.name));
      if (it == state_.workloads().end()) {
        note("warning", fmt::format("scale: no {} {}/{}", t.kind, t.namespace_, t.name));
        return;
      }
      note("scale", fmt::format("scale {} {}/{} {} -> {}", t.kind, t.namespace_, t.name, it->second.workload.replicas,
                                step.replicas));
      state_.workload_scaled(it->first, step.replicas);
      return;
    }
    case TimelineStep::Action::Apply: {
      Result<ManifestSet> objects = decode_applied(step.apply_source, "timeline apply");
      if (!objects) {
        note("warning", objects.error().message);  // validated when the scenario loaded; kept for safety
        return;
      }
      note("apply", "apply objects");
      if (!objects->cluster_api_objects.empty()) {
        note("warning", fmt::format("{} applied: Cluster Autoscaler's node groups are the Cluster API objects the run "
                                    "starts with; these change nothing",
                                    plural(objects->cluster_api_objects.size(), "Cluster API object")));
      }
      apply_objects(std::move(*objects));
      return;
    }
    case TimelineStep::Action::Delete: {
      if (t.kind == "NodePool") {
        state_.nodepool_deleted(t.name);
      } else if (t.kind == "Pod") {
        delete_pod(t.namespace_ + "/" + t.name);
      } else if (t.kind == "Node") {
        const state::NodeRecord* node = state_.find_node(t.name);
        if (node != nullptr && node->phase != state::NodePhase::Terminated) {
          const std::string instance = node->instance_id;
          delete_node(t.name);
          if (!instance.empty()) cloud_.terminate(instance);
        }
      } else {
        for (const std::string& k : state_.workload_deleted(object_key(t.kind, t.namespace_, t.name))) delete_pod(k);
      }
      note("delete", fmt::format("delete {} {}", t.kind,
                                 t.kind == "NodePool" || t.kind == "Node" ? t.name : t.namespace_ + "/" + t.name));
      return;
    }
    case TimelineStep::Action::Load: {
      const std::string key = object_key(t.kind, t.namespace_, t.name);
      auto it = state_.workloads().find(key);
      if (it == state_.workloads().end()) {
        note("warning", fmt::format("load: no {} {}/{}", t.kind, t.namespace_, t.name));
        return;
      }
      std::vector<std::pair<std::string, std::string>> labels{{"namespace", t.namespace_}};
      for (const auto& [k, v] : it->second.workload.pod_template.meta.labels) labels.emplace_back(k.str(), v.str());
      load_.set_load(key, std::move(labels), step.load, step.cost, now_);
      note("load", fmt::format("load {} {}/{}: {}", t.kind, t.namespace_, t.name, describe(step.load)));
      start_autoscaling();
      return;
    }
    case TimelineStep::Action::Cordon:
    case TimelineStep::Action::Uncordon: {
      const bool cordon = step.action == TimelineStep::Action::Cordon;
      set_unschedulable(step.node, cordon);
      note(cordon ? "cordon" : "uncordon", fmt::format("{} node {}", cordon ? "cordon" : "uncordon", step.node));
      return;
    }
  }
}

void Simulation::apply_objects(ManifestSet objects) {
  for (cloud::NodeClassPtr& node_class : objects.node_classes) cloud_.node_class_applied(std::move(node_class));
  if (!objects.node_classes.empty()) state_.node_class_applied();
  for (NodePool& pool : objects.nodepools) state_.nodepool_applied(std::move(pool));
  // A NodePool whose node class is not there is not Ready: it launches nothing, and the report says why once.
  for (const auto& [name, pool] : state_.nodepools()) {
    const cloud::CloudResult<const cloud::Catalog*> types = cloud_.instance_types(pool);
    const bool ready = types.ok();
    // What the data does not know, said once: a region's unknown spot prices, the types a Windows class leaves out.
    for (const std::string& unknown : ready ? (*types)->notes() : std::vector<std::string>{}) {
      if (catalog_notes_.insert(unknown).second) note("catalog", unknown);
    }
    if (cloud_.takes_default_node_class(pool)) {
      const std::string line = fmt::format(
          "NodePool {} names {} {}, which the files do not hold: its nodes take the getting-started EC2NodeClass's "
          "shape (AL2023, 20 GiB root volume, Karpenter's kubelet defaults)",
          name, pool.node_class.kind, pool.node_class.name);
      if (catalog_notes_.insert(line).second) note("catalog", line);
    }
    if (ready == !not_ready_.contains(name)) continue;
    if (ready) {
      not_ready_.erase(name);
      note("nodepool-ready", fmt::format("NodePool {} is ready: its {} {} is there", name, pool.node_class.kind,
                                         pool.node_class.name));
    } else {
      const std::string& why = types.error().message;
      not_ready_.insert(name);
      note("nodepool-not-ready", fmt::format("NodePool {} is {}; it launches nothing", name, why));
      object_event({"NodePool", name, "Warning", "NodeClassNotReady", "Provision",
                    fmt::format("NodePool {}: NodeClassReady=False: {}", name, why)});
    }
  }
  for (const Namespace& ns : objects.namespaces) state_.namespace_seen(ns);
  for (Node& n : objects.nodes) {
    if (state_.find_node(n.meta.name) != nullptr) continue;
    state::NodeRecord node;
    node.node = std::move(n);
    node.launched_at = now_;
    price_static_node(node);
    node.nodepool = nodepool_of(node.node);
    const std::string name = node.name();
    state_.node_added(std::move(node));
    on_node_ready(name);
  }
  for (Workload& w : objects.workloads) {
    const state::WorkloadRecord& record = state_.workload_applied(std::move(w));
    if (record.workload.kind == WorkloadKind::DaemonSet) {
      for (const auto& [name, node] : state_.nodes()) {
        if (node.phase == state::NodePhase::Ready) add_daemon_pods(node);
      }
    }
  }
  for (Pod& p : objects.pods) {
    if (p.is_terminal()) continue;
    const std::string node = p.spec.node_name;
    p.spec.node_name.clear();
    const std::string key = p.meta.key();
    const std::string workload = workload_of(p);
    create_pod(std::move(p), workload);
    const scheduling::NodeId id = node.empty() ? scheduling::kNoNode : state_.snapshot().find_node(node);
    state::PodRecord* pod = state_.find_pod(key);
    if (id != scheduling::kNoNode && pod != nullptr && !pod->bound_at) {
      bind(*pod, id, /*count_wait=*/false);  // already running when the scenario starts
    }
  }
  for (PodDisruptionBudget& pdb : objects.pod_disruption_budgets) state_.pdb_applied(std::move(pdb));
  for (ConfigMap& config_map : objects.config_maps) state_.config_map_applied(std::move(config_map));
  for (HorizontalPodAutoscaler& hpa : objects.horizontal_pod_autoscalers) state_.hpa_applied(std::move(hpa));
  for (ScaledObject& scaled : objects.scaled_objects) state_.scaled_object_applied(std::move(scaled));
  if (!objects.horizontal_pod_autoscalers.empty() || !objects.scaled_objects.empty()) start_autoscaling();
  state_.objects_applied();
}

// A node that a NodePool of the scenario launched (Karpenter labels it with its NodePool) is that NodePool's, as
// `scalewright run` sees it: counted in its limits and removed as its disruption decides. Any other node is static.
std::string Simulation::nodepool_of(const Node& node) const {
  const Symbol* pool = node.meta.labels.find(Symbol(karpenter_labels::nodepool));
  return pool != nullptr && state_.find_nodepool(pool->string()) != nullptr ? pool->string() : std::string();
}

// The workload of the scenario that controls a pod from the manifests (`kubectl get pods -o yaml`, `scalewright
// snapshot`), so that the pod counts toward its replicas instead of being added to them; "" for a pod of its own.
// A Deployment's pods name its ReplicaSet, <deployment>-<pod-template-hash>, as Workload::make_pod names them.
std::string Simulation::workload_of(const Pod& pod) const {
  const OwnerReference* owner = pod.meta.controller();
  if (owner == nullptr || owner->kind == "DaemonSet") return "";  // a DaemonSet places its own pod on every node
  const std::string& namespace_ = pod.meta.namespace_;
  if (std::string key = object_key(owner->kind, namespace_, owner->name); state_.workloads().contains(key)) return key;
  const Symbol* hash = pod.meta.labels.find(Symbol("pod-template-hash"));
  if (owner->kind != "ReplicaSet" || hash == nullptr) return "";
  const std::string suffix = "-" + hash->string();
  if (owner->name.size() <= suffix.size() || !owner->name.ends_with(suffix)) return "";
  std::string key = object_key("Deployment", namespace_, owner->name.substr(0, owner->name.size() - suffix.size()));
  return state_.workloads().contains(key) ? key : "";
}

// Cluster Autoscaler runs when the scenario gives it flags: the groups' nodes (an Auto Scaling group's desired
// capacity, a Cluster API object's replicas) are running when the scenario starts, and CA scans from t=0 on.
void Simulation::start_cluster_autoscaler() {
  if (!scenario_.cluster_autoscaler) return;
  std::vector<std::string> notes;
  Result<controllers::ClusterAutoscalerLoop> loop =
      cluster_autoscaler_loop(scenario_, cloud_.catalog(), state_.config_maps(), cluster_api_objects_, &notes);
  if (!loop) {
    note("warning", "cluster autoscaler not started: " + loop.error().message);  // the CLI checks this first
    return;
  }
  for (std::string& line : notes) note("warning", std::move(line));
  // The simulated cloud plays the groups; their instances take their names from the stream that names every node,
  // after the group's name (a Cluster API group's id is Kind/namespace/name: after its object's, as its Machines).
  cloud::PlayedNodeGroups& groups = cloud_.node_groups();
  groups.set_namer(
      [this](const std::string& group) { return names_.next(group.substr(group.rfind('/') + 1), state_); });
  // A Cluster API group's nodes are what its annotations say, not one of the catalog's types.
  const bool own_types = runs_on_cluster_api(scenario_);
  for (const nodegroups::NodeGroup& group : loop->groups()) {
    // Discovery found an Auto Scaling group's type in the same catalog.
    if (std::optional<Error> refused = groups.add(controllers::played_group(group, own_types))) {
      note("warning", refused->message);
    }
  }
  node_groups_ =
      std::make_unique<controllers::ClusterAutoscalerController>(ports_, lifecycle_, termination_, std::move(*loop));
  provisioning_.defer_to(node_groups_.get());
  node_groups_->hand_off_to(&provisioning_);
  lifecycle_.set_node_groups(node_groups_.get());
  node_groups_->start();
}

// The metrics scrape and the HPA controller's sync start with the first autoscaler or load; KEDA polls whenever
// a ScaledObject is due.
void Simulation::start_autoscaling() {
  if (!autoscaling_started_) {
    autoscaling_started_ = true;
    push({now_, 0, EventKind::MetricsScrape, 0, {}, {}});
  }
  workload_autoscaler_.reconcile();
}

// The cloud's spot interruption warnings: the oldest spot nodes get them, and are reclaimed two minutes later.
void Simulation::on_spot_notice(std::int32_t count) {
  std::vector<const state::NodeRecord*> spot;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.capacity_type == "spot" &&
        (node.phase == state::NodePhase::Ready || node.phase == state::NodePhase::Launching)) {
      spot.push_back(&node);
    }
  }
  std::stable_sort(spot.begin(), spot.end(),
                   [](const auto* a, const auto* b) { return a->launched_at < b->launched_at; });
  for (std::int32_t i = 0; i < count && i < static_cast<std::int32_t>(spot.size()); ++i) {
    const std::string name = spot[static_cast<std::size_t>(i)]->name();
    ++interruptions_;
    state_.interruption_noticed(*state_.find_node(name), now_ + kSpotNotice);
    push({now_ + kSpotNotice, 0, EventKind::SpotReclaim, 0, name, {}});
  }
  // The notices reach the disruption controller as a watch would deliver them: it reconciles on them at once, so
  // the pods it evicts are replaced and scheduled in this instant's settling.
  disruption_.reconcile();
}

void Simulation::on_spot_reclaim(const std::string& name) {
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->phase == state::NodePhase::Terminated) return;
  const std::string instance = node->instance_id;
  const std::string group = node->node_group;
  delete_node(name);
  if (!instance.empty()) cloud_.terminate(instance);
  note("reclaimed", fmt::format("spot node {} reclaimed by the cloud", name));
  // An Auto Scaling group keeps its desired capacity: it launches a replacement. Played as the reclaimed instance's
  // place given back and taken again by a launch.
  if (node_groups_ != nullptr) {
    if (const nodegroups::NodeGroup* g = node_groups_->loop().group(group)) {
      (void)cloud_.node_groups().decrease_target_size(group, 1);
      node_groups_->launch(*g, 1, "the replacement of a reclaimed spot instance");
    }
  }
}

// Ends the run at the current instant: the report covers the run up to now, and says why it ended.
void Simulation::stop(std::string reason) {
  if (!stopped_.empty()) return;
  stopped_ = std::move(reason);
  scenario_.duration = since_start(now_);
}

RunProgress Simulation::progress() const {
  const std::size_t pending = state_.unbound().size();
  return {now_, scenario_.duration, state_.pods().size() - pending, pending, state_.live_nodes()};
}

Sample Simulation::sample(Instant at) const {
  Sample s;
  s.at = at;
  if (!sampled_nodes_.take().empty() || !node_tally_) {
    // Counted by what names them, and named once per kind.
    NodeTally tally;
    std::map<std::tuple<std::string_view, std::string_view, std::string_view>, std::int32_t> counts;
    for (const auto& [name, node] : state_.nodes()) {
      if (node.phase == state::NodePhase::Terminated) continue;
      ++counts[{node.node_group, node.nodepool, node.capacity_type}];
      tally.cost_per_hour += node.price_per_hour;
    }
    for (const auto& [kind, count] : counts) {
      const auto& [group, nodepool, capacity_type] = kind;
      const std::string owner = !group.empty()      ? "group/" + std::string(group)
                                : !nodepool.empty() ? std::string(nodepool)
                                                    : std::string("(manifests)");
      tally.nodes[owner + " " + (capacity_type.empty() ? std::string("on-demand") : std::string(capacity_type))] +=
          count;
    }
    node_tally_ = std::move(tally);
  }
  s.nodes = node_tally_->nodes;
  s.cost_per_hour = node_tally_->cost_per_hour;
  for (const auto& [key, pod] : state_.unbound()) {
    if (pod->daemon) continue;
    ++s.pending_pods;
    s.longest_wait = std::max(s.longest_wait, at - pod->created);
  }
  const ResourceList& requested = state_.ready_requested();
  const ResourceList& allocatable = state_.ready_allocatable();
  if (allocatable.cpu_milli() > 0) {
    s.cpu_allocation = static_cast<double>(requested.cpu_milli()) / static_cast<double>(allocatable.cpu_milli());
  }
  if (allocatable.memory() > 0) {
    s.memory_allocation = static_cast<double>(requested.memory()) / static_cast<double>(allocatable.memory());
  }
  s.autoscalers = workload_autoscaler_.readings();
  return s;
}

void Simulation::advance_to(Instant t) {
  if (t <= now_) return;
  // The samples due from now until t: the cluster stays as it is in between.
  if (sample_interval_.count() == 0) {
    sample_interval_ = std::max(Duration(10'000), Duration(scenario_.duration.count() / kSamples));
  }
  for (Instant at(Duration((since_start(now_).count() + sample_interval_.count() - 1) / sample_interval_.count() *
                           sample_interval_.count()));
       at < t; at += sample_interval_) {
    samples_.push_back(sample(at));
  }
  const double seconds = static_cast<double>((t - now_).count()) / 1000;
  const ResourceList& requested = state_.ready_requested();
  const ResourceList& allocatable = state_.ready_allocatable();
  if (allocatable.cpu_milli() > 0) {
    cpu_allocation_integral_ +=
        seconds * static_cast<double>(requested.cpu_milli()) / static_cast<double>(allocatable.cpu_milli());
    if (allocatable.memory() > 0) {
      memory_allocation_integral_ +=
          seconds * static_cast<double>(requested.memory()) / static_cast<double>(allocatable.memory());
    }
    ready_time_ += seconds;
  }
  now_ = t;
}

SimulationReport Simulation::report() {
  SimulationReport r;
  r.scenario = scenario_.meta.name;
  r.seed = scenario_.seed;
  r.duration = scenario_.duration;
  r.stopped = stopped_;
  r.timeline = std::move(timeline_);
  r.samples = std::move(samples_);
  r.samples.push_back(sample(now_));  // the end
  r.sample_interval = sample_interval_;
  Summary& s = r.summary;
  s.autoscalers = workload_autoscaler_.summary(end());
  std::map<std::tuple<std::string, std::string, std::string>, CostLine> lines;
  state_.retire_terminated();
  std::vector<const state::NodeRecord*> every_node;
  for (const state::NodeRecord& node : state_.retired()) every_node.push_back(&node);
  for (const auto& [name, node] : state_.nodes()) every_node.push_back(&node);
  for (const state::NodeRecord* n : every_node) {
    const state::NodeRecord& node = *n;
    const Instant ended = node.terminated_at.value_or(end());
    const double hours = static_cast<double>((ended - node.launched_at).count()) / 3'600'000.0;
    const std::string owner = node.node_group.empty() ? node.nodepool : "group/" + node.node_group;
    CostLine& line = lines[{owner, node.instance_type, node.capacity_type}];
    line.nodepool = owner;
    line.instance_type = node.instance_type;
    line.capacity_type = node.capacity_type;
    ++line.nodes;
    line.node_hours += hours;
    line.cost += hours * node.price_per_hour;
    s.nodes_at_end += node.phase != state::NodePhase::Terminated;
  }
  for (auto& [key, line] : lines) {
    s.total_cost += line.cost;
    s.total_node_hours += line.node_hours;
    s.cost_lines.push_back(std::move(line));
  }
  if (object_records_) {
    for (const auto& [key, pod] : state_.pods()) record_outcome(pod);
  }
  std::stable_sort(outcomes_.begin(), outcomes_.end(),
                   [](const PodOutcome& a, const PodOutcome& b) { return a.pod < b.pod; });
  r.pods = std::move(outcomes_);
  r.events = std::move(object_events_);
  s.pod_wait.pods_bound = waits_.size();
  for (const auto& [key, pod] : state_.pods()) s.pod_wait.pods_pending_at_end += !pod.bound_at && !pod.daemon;
  s.pod_wait.p50 = quantile(waits_, 0.50);
  s.pod_wait.p99 = quantile(waits_, 0.99);
  s.pod_wait.max = waits_.empty() ? Duration(0) : *std::max_element(waits_.begin(), waits_.end());
  s.peak_nodes = peak_nodes_;
  s.launches = launches_;
  s.insufficient_capacity_errors = cloud_.insufficient_capacity_errors();
  s.spot_interruptions = interruptions_;
  s.evictions = evictions_;
  if (node_groups_) r.cluster_autoscaler_status = node_groups_->loop().status(now_, kWallClockAtStart);
  r.cluster_autoscaler_status_at = std::move(statuses_);
  s.dropped_requests = load_.dropped_requests();
  if (ready_time_ > 0) {
    s.mean_cpu_allocation = cpu_allocation_integral_ / ready_time_;
    s.mean_memory_allocation = memory_allocation_integral_ / ready_time_;
  }
  return r;
}

SimulationReport simulate(SimulationInput input) {
  return Simulation(std::move(input)).run();
}

}  // namespace scalewright::sim
