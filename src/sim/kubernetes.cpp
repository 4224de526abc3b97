// What Kubernetes itself does in the simulated cluster: the ReplicaSet/StatefulSet/Job and DaemonSet controllers,
// kube-scheduler's binding, the kubelet (readiness, grace periods), the node lifecycle controller and its taint
// manager, and metrics-server's scrape. Every change is observed into the cluster state the controllers read.
#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "api/integer.h"
#include "scheduling/placement.h"
#include "sim/simulation.h"

namespace scalewright::sim {
namespace {

// kube-controller-manager's node lifecycle: a node that stops reporting is tainted unreachable, and a pod that does
// not say how long it tolerates that gets 300 s (the DefaultTolerationSeconds admission plugin).
constexpr std::string_view kUnreachableTaint = "node.kubernetes.io/unreachable";
constexpr std::int64_t kDefaultUnreachableTolerationSeconds = 300;

// How long `pod` stays on a node that became unreachable: its toleration of the unreachable NoExecute taint
// (nullopt: for good), or the 300 s every pod without one is given.
std::optional<Duration> unreachable_toleration(const Pod& pod) {
  const Taint taint{std::string(kUnreachableTaint), "", TaintEffect::NoExecute};
  for (const Toleration& t : pod.spec.tolerations) {
    if (!t.tolerates(taint)) continue;
    if (!t.toleration_seconds) return std::nullopt;
    return Duration(std::max<std::int64_t>(*t.toleration_seconds, 0) * 1000);
  }
  return Duration(kDefaultUnreachableTolerationSeconds * 1000);
}

// The ordinal of a StatefulSet's pod from its key ("<namespace>/<name>-<ordinal>"); -1 for a pod named otherwise.
std::int32_t statefulset_ordinal(const Workload& set, std::string_view pod_key) {
  const std::string prefix = set.meta.namespace_ + "/" + set.meta.name + "-";
  if (!pod_key.starts_with(prefix)) return -1;
  std::optional<std::int64_t> ordinal = parse_integer(pod_key.substr(prefix.size()));
  return ordinal && *ordinal >= 0 && *ordinal < std::numeric_limits<std::int32_t>::max()
             ? static_cast<std::int32_t>(*ordinal)
             : -1;
}

}  // namespace

// A node that came with the manifests costs what its instance type costs in its zone (on-demand unless labelled
// spot), so that the summary's bill includes it.
void Simulation::price_static_node(state::NodeRecord& node) const {
  const cloud::NodeOffering found = cloud::offering_of_node(cloud_.catalog(), node.node.meta.labels);
  const Symbol* type = node.node.meta.labels.find(Symbol(well_known::instance_type));
  if (type == nullptr) return;
  node.instance_type = type->string();
  node.capacity_type = std::string(cloud::to_string(found.capacity_type));
  if (found.type == nullptr) return;
  if (found.offering != nullptr) {
    node.zone = found.offering->zone;
    node.price_per_hour = found.offering->price_per_hour;
  } else {
    node.price_per_hour = found.type->cheapest(found.capacity_type).value_or(0);
  }
}

// The ReplicaSet, StatefulSet and Job controllers: each workload whose replicas or pods changed gets the pods it
// is missing, or loses the ones it has too many of.
void Simulation::reconcile_workloads() {
  for (auto& [key, record] : state_.workloads()) {
    if (!stopped_.empty()) return;
    if (!record.dirty) continue;
    record.dirty = false;
    const Workload& w = record.workload;
    if (w.kind == WorkloadKind::DaemonSet) continue;
    if (w.kind == WorkloadKind::StatefulSet && w.pod_management_policy == PodManagementPolicy::OrderedReady) {
      reconcile_ordered(key, record);
      continue;
    }
    const auto want = static_cast<std::size_t>(std::max(w.replicas, 0));
    const std::size_t have = record.pods.size();
    if (have < want) {
      std::int32_t ordinal = w.kind == WorkloadKind::StatefulSet ? 0 : record.next_ordinal;
      for (std::size_t missing = want - have; missing > 0 && stopped_.empty(); ++ordinal) {
        Pod pod = w.make_pod(ordinal);
        if (record.pods.count(pod.meta.key())) continue;
        create_pod(std::move(pod), key);
        --missing;
      }
      if (w.kind != WorkloadKind::StatefulSet) record.next_ordinal = ordinal;
    } else if (have > want) {
      std::vector<std::string> mine(record.pods.begin(), record.pods.end());
      // As the ReplicaSet controller: pods not yet bound go first, then the newest. A StatefulSet's go from the
      // highest ordinal down.
      std::sort(mine.begin(), mine.end(), [&](const std::string& a, const std::string& b) {
        if (w.kind == WorkloadKind::StatefulSet) return statefulset_ordinal(w, a) > statefulset_ordinal(w, b);
        const state::PodRecord& pa = *state_.find_pod(a);
        const state::PodRecord& pb = *state_.find_pod(b);
        if (pa.bound_at.has_value() != pb.bound_at.has_value()) return !pa.bound_at.has_value();
        return pa.created != pb.created ? pa.created > pb.created : a > b;
      });
      for (std::size_t i = 0; i < mine.size() - want; ++i) delete_pod(mine[i]);
    }
    record.dirty = false;  // its own creations and deletions above are what it asked for
  }
}

// The StatefulSet controller with podManagementPolicy OrderedReady (its "monotonic" mode): the pods of ordinals
// [0, replicas) are walked in order, and the first that is missing is made, unless one before it is not Running and
// Ready or is terminating; only when all of them run are the pods above replicas removed, highest ordinal first,
// one at a time, each over its grace period. Here a pod runs once bound to a node that reports.
void Simulation::reconcile_ordered(const std::string& key, state::WorkloadRecord& record) {
  const Workload& w = record.workload;
  const std::int32_t want = std::max(w.replicas, 0);
  const std::string prefix = w.meta.namespace_ + "/" + w.meta.name + "-";
  auto pod_named = [&](std::int32_t ordinal) { return state_.find_pod(prefix + std::to_string(ordinal)); };
  auto running_and_ready = [&](const state::PodRecord& pod) {
    return pod.bound_at && !pod.terminating_until && !state_.node_failed_at(pod);
  };
  // The pods above the replicas reach up to the highest ordinal made, or owned (a running pod from the manifests).
  // Looked at anew, as every ordinal is, when nothing is known to run (a pod went since the last look).
  if (record.running_prefix == 0) {
    for (std::string_view owned : record.pods) {
      record.next_ordinal = std::max(record.next_ordinal, statefulset_ordinal(w, owned) + 1);
    }
  }
  for (std::int32_t ordinal = std::min(record.running_prefix, want); ordinal < want; ++ordinal) {
    const state::PodRecord* pod = pod_named(ordinal);
    if (pod == nullptr) {
      create_pod(w.make_pod(ordinal), key);
      record.next_ordinal = std::max(record.next_ordinal, ordinal + 1);
      return;
    }
    if (!running_and_ready(*pod)) return;  // terminating, pending, or on a node that stopped reporting
    record.running_prefix = ordinal + 1;
  }
  // Pods above the replicas: the first unhealthy one may go although it does not run; any other waits for it.
  std::optional<std::int32_t> first_unhealthy;
  for (std::int32_t ordinal = want; ordinal < record.next_ordinal; ++ordinal) {
    const state::PodRecord* pod = pod_named(ordinal);
    if (pod != nullptr && !running_and_ready(*pod)) {
      first_unhealthy = ordinal;
      break;
    }
  }
  for (std::int32_t ordinal = record.next_ordinal - 1; ordinal >= want; --ordinal) {
    state::PodRecord* pod = pod_named(ordinal);
    if (pod == nullptr) {
      record.next_ordinal = ordinal;  // nothing left above it
      continue;
    }
    if (pod->terminating_until) return;
    if (!running_and_ready(*pod) && first_unhealthy != ordinal) return;
    if (!pod->bound_at) {  // nothing runs: it goes at once
      delete_pod(std::string(pod->key));
      continue;
    }
    const std::int64_t grace = pod->pod->spec.termination_grace_period_seconds.value_or(
        kDefaultTerminationGracePeriodSeconds);
    const Instant stops_at = now_ + Duration(std::max<std::int64_t>(grace, 0) * 1000);
    state_.pod_deleting(*pod, stops_at, now_);
    push({stops_at, 0, EventKind::PodTerminated, 0, std::string(pod->key), {}});
    return;
  }
}

void Simulation::create_pod(Pod pod, const std::string& workload) {
  if (state_.pods().size() >= limits_.max_pods) {
    if (state_.find_pod(pod.meta.key()) != nullptr) return;
    stop(fmt::format("the simulation holds at most {} pods; {} asked for more", limits_.max_pods,
                     workload.empty() ? "pod " + pod.meta.key() : workload));
    return;
  }
  state_.pod_created(std::move(pod), workload, now_);
}

void Simulation::delete_pod(const std::string& key) {
  const state::PodRecord* pod = state_.find_pod(key);
  if (pod == nullptr) return;
  record_outcome(*pod);
  state_.pod_deleted(key);
}

void Simulation::bind(state::PodRecord& pod, scheduling::NodeId node, bool count_wait) {
  state_.pod_bound(pod, node, now_);
  if (!pod.daemon && count_wait) waits_.push_back(now_ - pod.created);
}

// kube-scheduler's loop, one pass: pending pods in queue order, each bound before the next. Pods equivalent to
// one that just failed fail too without another try, which keeps a pass over 50,000 replicas cheap: the pass
// walks each class's queue only while its pods bind.
void Simulation::schedule_pending() {
  if (state_.scheduling_changes() == scheduling_seen_) return;
  scheduling_seen_ = state_.scheduling_changes();
  // The classes' first pods, best first (a heap ordered by the queue order, reversed for std::push_heap).
  auto later = [](const state::PodRecord* a, const state::PodRecord* b) { return state::QueueOrder()(b, a); };
  std::vector<state::PodRecord*> heads;
  heads.reserve(state_.queue().size());
  for (const auto& [cls, pods] : state_.queue()) heads.push_back(*pods.begin());
  std::make_heap(heads.begin(), heads.end(), later);
  std::map<std::string, int> bound_per_node;
  while (!heads.empty()) {
    std::pop_heap(heads.begin(), heads.end(), later);
    state::PodRecord* pod = heads.back();
    heads.pop_back();
    // A pod that fits nowhere waits, its class with it; why is the provisioner's to say.
    const scheduling::SchedulingResult result =
        scheduler_.schedule(state_.snapshot(), *pod->pod, scheduling::Scheduler::Explain::NoReasons);
    if (!result.scheduled()) continue;  // its class fails for the rest of the pass
    const Symbol cls = pod->scheduling_class;
    bind(*pod, result.chosen);
    ++bound_per_node[state_.snapshot().node(result.chosen).name()];
    if (auto next = state_.queue().find(cls); next != state_.queue().end()) {
      heads.push_back(*next->second.begin());
      std::push_heap(heads.begin(), heads.end(), later);
    }
  }
  if (!bound_per_node.empty()) {
    int total = 0;
    std::string where;
    for (const auto& [node, n] : bound_per_node) {
      total += n;
      where += fmt::format("{}{}: {}", where.empty() ? "" : ", ", node, n);
    }
    note("bound", fmt::format("{} bound ({})", plural(static_cast<std::size_t>(total), "pod"), where));
  }
  if (const std::size_t unreported = state_.unreported_pending(); unreported > 0) {
    note("pending", fmt::format("{} pending: no node fits them", plural(unreported, "pod")));
  }
  state_.pending_reported();
  state_.check_indexes();
}

// The kubelet registered the node and reports it Ready: it joins scheduling, and the DaemonSet controller places
// its pods there.
void Simulation::on_node_ready(const std::string& name) {
  state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->phase != state::NodePhase::Launching) return;
  state_.node_ready(*node);
  lifecycle_.registered(name);
  add_daemon_pods(*node);
}

void Simulation::add_daemon_pods(const state::NodeRecord& node) {
  const scheduling::NodeId id = state_.snapshot().find_node(node.name());
  if (id == scheduling::kNoNode) return;
  for (auto& [key, record] : state_.workloads()) {
    if (record.workload.kind != WorkloadKind::DaemonSet) continue;
    std::optional<Pod> pod = scheduling::daemon_pod_for_node(record.workload, node.node, record.next_ordinal);
    if (!pod) continue;
    // One pod per DaemonSet and node: the name carries the node so that re-adding is a no-op.
    pod->meta.name = record.workload.meta.name + "-" + node.name();
    const std::string pod_key = pod->meta.key();
    if (state_.find_pod(pod_key) != nullptr) continue;
    ++record.next_ordinal;
    create_pod(std::move(*pod), key);
    state::PodRecord* created = state_.find_pod(pod_key);
    if (created == nullptr) continue;  // past the pod limit: the run stops
    // The pod is pinned to this node and the controller has checked selectors and taints: what is left is
    // whether it fits (asking the scheduler would cache verdicts for a class of one pod per node).
    const scheduling::NodeInfo& info = state_.snapshot().node(id);
    if ((info.requested + created->pod->effective_requests()).fits_in(info.allocatable)) bind(*created, id);
  }
}

void Simulation::set_unschedulable(const std::string& node_name, bool unschedulable) {
  state::NodeRecord* node = state_.find_node(node_name);
  if (node == nullptr) return;
  node->node.unschedulable = unschedulable;
  state_.node_updated(*node);
}

void Simulation::mark_deleted(state::PodRecord& pod, std::optional<Instant> stops_at) {
  state_.pod_deleting(pod, stops_at.value_or(Instant::max()), now_);
  const std::string key(pod.key);
  // The ReplicaSet controller creates the replacement before anything else looks: a PDB counts it as expected
  // (and not yet healthy) from this instant on.
  reconcile_workloads();
  if (stops_at) push({*stops_at, 0, EventKind::PodTerminated, 0, key, {}});
}

// The kubelet confirms that an evicted pod stopped after its grace period.
void Simulation::on_pod_terminated(const std::string& key) {
  const state::PodRecord* pod = state_.find_pod(key);
  // The pod may have gone already with its node, and a new pod may carry its name (a StatefulSet's).
  if (pod == nullptr || !pod->terminating_until || *pod->terminating_until > now_) return;
  const std::string node = pod->pod->spec.node_name;
  delete_pod(key);
  termination_.pod_terminated(node);
}

// A node stops reporting: the node lifecycle controller sets its Ready condition Unknown and taints it unreachable
// (NoSchedule, NoExecute); its pods are NotReady at once and deleted when their toleration ends. The instance keeps
// running (and billing) until an autoscaler or the timeline removes the node.
void Simulation::on_node_failure(const NodeFailureEvent& failure) {
  std::vector<state::NodeRecord*> matching;
  for (auto& [name, node] : state_.nodes()) {
    if (node.phase != state::NodePhase::Ready || node.failed_at) continue;
    if (!failure.node_group.empty() && node.node_group != failure.node_group) continue;
    if (!failure.nodepool.empty() && node.nodepool != failure.nodepool) continue;
    matching.push_back(&node);
  }
  std::stable_sort(matching.begin(), matching.end(),
                   [](const auto* a, const auto* b) { return a->launched_at < b->launched_at; });
  if (matching.empty()) {
    note("warning", "node failure: no Ready node" + (failure.node_group.empty() ? "" : " of " + failure.node_group) +
                        (failure.nodepool.empty() ? "" : " of NodePool " + failure.nodepool) + " to fail");
    return;
  }
  // Pods on the failing nodes are no longer Ready: OrderedReady StatefulSets look at every ordinal again.
  for (auto& [key, record] : state_.workloads()) record.running_prefix = 0;
  for (std::int32_t i = 0; i < failure.count && i < static_cast<std::int32_t>(matching.size()); ++i) {
    state::NodeRecord& node = *matching[static_cast<std::size_t>(i)];
    const std::string& name = node.name();
    node.failed_at = now_;
    auto ready = std::find_if(node.node.conditions.begin(), node.node.conditions.end(),
                              [](const NodeCondition& c) { return c.type == "Ready"; });
    if (ready == node.node.conditions.end()) ready = node.node.conditions.insert(ready, NodeCondition{"Ready", "", ""});
    ready->status = "Unknown";
    ready->reason = "NodeStatusUnknown";
    node.condition_since["Ready"] = now_;
    for (TaintEffect effect : {TaintEffect::NoSchedule, TaintEffect::NoExecute}) {
      node.node.taints.push_back({std::string(kUnreachableTaint), "", effect});
    }
    state_.node_updated(node);
    std::set<Instant> deletions;
    std::size_t pods = 0;
    if (const scheduling::NodeId id = state_.snapshot().find_node(name); id != scheduling::kNoNode) {
      for (const auto& placed : state_.snapshot().node(id).pods) {
        const state::PodRecord& pod = *state_.find_pod(placed.pod->meta.key());
        if (pod.daemon || pod.terminating_until) continue;
        ++pods;
        if (std::optional<Duration> toleration = unreachable_toleration(*pod.pod)) deletions.insert(now_ + *toleration);
      }
    }
    for (Instant at : deletions) push({at, 0, EventKind::TaintEviction, 0, name, {}});
    note("node-failure", fmt::format("node {} stopped reporting: NotReady, tainted {}; {} on it, each deleted when "
                                     "its toleration of the taint ends ({} by default)",
                                     name, kUnreachableTaint, plural(pods, "pod"),
                                     format_duration(Duration(kDefaultUnreachableTolerationSeconds * 1000))));
  }
}

// The taint manager deletes the pods whose toleration of the unreachable taint ends now. The kubelet cannot confirm
// it, so they stay Terminating on the node (holding its room) until the node goes; their controllers replace them.
void Simulation::on_taint_eviction(const std::string& name) {
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->phase != state::NodePhase::Ready || !node->failed_at) return;
  const scheduling::NodeId id = state_.snapshot().find_node(name);
  if (id == scheduling::kNoNode) return;
  std::vector<state::PodRecord*> due;
  for (const auto& placed : state_.snapshot().node(id).pods) {
    state::PodRecord& pod = *state_.find_pod(placed.pod->meta.key());
    if (pod.daemon || pod.terminating_until) continue;
    std::optional<Duration> toleration = unreachable_toleration(*pod.pod);
    if (toleration && *node->failed_at + *toleration == now_) due.push_back(&pod);
  }
  for (state::PodRecord* pod : due) mark_deleted(*pod, std::nullopt);
  if (!due.empty()) {
    note("taint-eviction", fmt::format("{} on unreachable node {} deleted after {}; controllers create replacements",
                                       plural(due.size(), "pod"), name, format_duration(now_ - *node->failed_at)));
  }
}

// metrics-server's scrape of the pods that serve load; the HPA controller syncs on what it scraped.
void Simulation::on_metrics_scrape() {
  std::map<std::string, std::vector<RunningPod>> running;
  for (const auto& [key, pod] : state_.pods()) {
    // An evicted pod is out of its Service's endpoints: it gets no requests while it shuts down.
    if (!pod.bound_at || pod.daemon || pod.workload.empty() || pod.terminating_until) continue;
    if (state_.node_failed_at(pod)) continue;
    std::int64_t limit = 0;
    if (!pod.pod->spec.containers.empty()) limit = pod.pod->spec.containers.front().limits.cpu_milli();
    running[pod.workload.string()].push_back({key, *pod.bound_at, limit});
  }
  load_.scrape(now_, running);
  push({now_ + LoadModel::kScrapeInterval, 0, EventKind::MetricsScrape, 0, {}, {}});
  workload_autoscaler_.metrics_scraped();
}

void Simulation::record_outcome(const state::PodRecord& pod) {
  if (pod.daemon || !object_records_) return;
  PodOutcome outcome{pod.pod->meta.key(), {}, {}, std::nullopt, pod.created};
  if (pod.bound_at) {
    outcome.node = pod.pod->spec.node_name;
    if (const state::NodeRecord* node = state_.find_node(outcome.node)) outcome.nodepool = node->nodepool;
    outcome.wait = *pod.bound_at - pod.created;
  }
  outcomes_.push_back(std::move(outcome));
}

}  // namespace scalewright::sim
