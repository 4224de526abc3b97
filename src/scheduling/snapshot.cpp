#include "scheduling/snapshot.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <stdexcept>

#include "api/saturating.h"

namespace scalewright::scheduling {
namespace {

std::uint64_t next_serial() {
  static std::atomic<std::uint64_t> serial{0};
  return ++serial;
}

constexpr std::int64_t kDefaultMilliCpuRequest = 100;             // kube-scheduler's non-zero cpu default
constexpr std::int64_t kDefaultMemoryRequest = 200LL * 1024 * 1024;  // and memory default (200Mi)

NonZeroRequests non_zero(const Container& c) {
  std::int64_t cpu = c.requests.cpu_milli();
  std::int64_t memory = c.requests.memory();
  return {cpu == 0 ? kDefaultMilliCpuRequest : cpu, memory == 0 ? kDefaultMemoryRequest : memory};
}

bool has_pod_terms(const Pod& pod) {
  const Affinity& a = pod.spec.affinity;
  return !a.required_pod_affinity.empty() || !a.required_pod_anti_affinity.empty() ||
         !a.preferred_pod_affinity.empty() || !a.preferred_pod_anti_affinity.empty();
}

NonZeroRequests operator+(NonZeroRequests a, NonZeroRequests b) {
  return {saturating_add(a.cpu_milli, b.cpu_milli), saturating_add(a.memory, b.memory)};
}

NonZeroRequests operator-(NonZeroRequests a, NonZeroRequests b) {
  return {saturating_sub(a.cpu_milli, b.cpu_milli), saturating_sub(a.memory, b.memory)};
}

}  // namespace

NonZeroRequests non_zero_requests(const Pod& pod) {
  // Same shape as Pod::effective_requests (sidecars count towards both phases), with defaults per container, and
  // saturating alike (see ResourceList).
  NonZeroRequests app, sidecars, init_peak;
  for (const Container& c : pod.spec.containers) app = app + non_zero(c);
  for (const Container& c : pod.spec.init_containers) {
    NonZeroRequests candidate = sidecars + non_zero(c);
    if (c.is_sidecar()) sidecars = candidate;
    init_peak.cpu_milli = std::max(init_peak.cpu_milli, candidate.cpu_milli);
    init_peak.memory = std::max(init_peak.memory, candidate.memory);
  }
  const NonZeroRequests running = app + sidecars;
  const NonZeroRequests peak{std::max(running.cpu_milli, init_peak.cpu_milli),
                             std::max(running.memory, init_peak.memory)};
  return peak + NonZeroRequests{pod.spec.overhead.cpu_milli(), pod.spec.overhead.memory()};
}

NodeId ClusterSnapshot::add_node(Node node) {
  if (node_by_name_.count(node.meta.name)) {
    throw std::invalid_argument("node " + node.meta.name + " is already in the snapshot");
  }
  NodeInfo info;
  info.allocatable = node.allocatable;
  info.node = std::make_shared<const Node>(std::move(node));
  info.serial = next_serial();
  info.query_counts.assign(queries_.size(), 0);
  NodeId id;
  // Outside a fork a removed node's slot is reused, so a long-running cluster that replaces nodes keeps as many
  // slots as it has nodes (the serial tells caches the slot holds another node). Inside a fork, revert undoes
  // an added node by popping the last slot, so new nodes go at the end.
  if (fork_marks_.empty() && !free_slots_.empty()) {
    id = free_slots_.back();
    free_slots_.pop_back();
    nodes_[id] = std::move(info);
  } else {
    id = static_cast<NodeId>(nodes_.size());
    nodes_.push_back(std::move(info));
  }
  node_by_name_.emplace(nodes_[id].name(), id);
  ++live_nodes_;
  room_changed(id);
  tally_node(nodes_[id], +1);
  record({Change::Kind::AddedNode, id, {}, {}});
  return id;
}

void ClusterSnapshot::remove_node(NodeId id) {
  NodeInfo& info = nodes_.at(id);
  if (info.removed) return;
  while (!info.pods.empty()) remove_pod(info.pods.back().pod->meta.key());
  tally_node(info, -1);
  info.removed = true;
  room_changed(id);
  --live_nodes_;
  node_by_name_.erase(info.name());
  if (fork_marks_.empty()) {
    info.pods.clear();
    free_slots_.push_back(id);
  }
  record({Change::Kind::RemovedNode, id, {}, {}});
}

void ClusterSnapshot::add_pod(Pod pod, NodeId node) { add_pod(std::make_shared<const Pod>(std::move(pod)), node); }

void ClusterSnapshot::add_pod(std::shared_ptr<const Pod> pod, NodeId node, Symbol scheduling_class) {
  if (nodes_.at(node).removed) throw std::invalid_argument("cannot bind a pod to a removed node");
  if (!fork_marks_.empty()) journal_.push_back({Change::Kind::AddedPod, node, pod, {}});
  place(placed_pod(std::move(pod), scheduling_class), node);
}

PlacedPod ClusterSnapshot::placed_pod(std::shared_ptr<const Pod> pod, Symbol scheduling_class) {
  const ResourceList requests = pod->effective_requests();
  const NonZeroRequests non_zero = non_zero_requests(*pod);
  return {std::move(pod), requests, non_zero, scheduling_class};
}

bool ClusterSnapshot::remove_pod(const std::string& pod_key) {
  auto it = pod_locations_.find(pod_key);
  if (it == pod_locations_.end()) return false;
  NodeId node = it->second.node;
  PlacedPod placed = unplace(pod_key);
  record({Change::Kind::RemovedPod, node, std::move(placed.pod), placed.scheduling_class});
  return true;
}

void ClusterSnapshot::place(PlacedPod placed, NodeId node) {
  NodeInfo& info = nodes_[node];
  const Pod& pod = *placed.pod;
  if (!pod_locations_.emplace(pod.meta.key(), PodLocation{node, info.pods.size()}).second) {
    throw std::invalid_argument("pod " + pod.meta.key() + " is already in the snapshot");
  }
  info.requested += placed.requests;
  info.non_zero_requested = info.non_zero_requested + placed.non_zero;
  room_changed(node);
  for_each_matching_query(pod, [&](QueryId q) {
    ++info.query_counts[q];
    tally_pod(q, info, +1);
  });
  if (has_pod_terms(pod)) index_terms(pod, info, +1);
  // Grown by half rather than doubled: a node's pods are most of the snapshot, and a full node left up to half its
  // list unused (a million pods on 661 nodes of 1,514 each: 31 MB).
  if (info.pods.size() == info.pods.capacity()) info.pods.reserve(info.pods.size() + info.pods.size() / 2 + 1);
  info.pods.push_back(std::move(placed));
}

PlacedPod ClusterSnapshot::unplace(const std::string& key) {
  auto location = pod_locations_.find(key);
  const NodeId location_node = location->second.node;
  NodeInfo& info = nodes_[location_node];
  const std::size_t index = location->second.index;
  pod_locations_.erase(location);
  PlacedPod placed = std::move(info.pods[index]);
  if (index + 1 != info.pods.size()) {
    // The last pod takes the freed place.
    info.pods[index] = std::move(info.pods.back());
    pod_locations_.at(info.pods[index].pod->meta.key()).index = index;
  }
  info.pods.pop_back();
  room_changed(location_node);
  const Pod& pod = *placed.pod;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (info.requested.any_saturated() || info.non_zero_requested.cpu_milli == kMax ||
      info.non_zero_requested.memory == kMax) {
    // A counter that saturated no longer knows its sum, and taking this pod off it would under-count the rest:
    // sum what remains again (only pods past int64 between them ever come here).
    info.requested = ResourceList();
    info.non_zero_requested = NonZeroRequests{};
    for (const PlacedPod& remaining : info.pods) {
      info.requested += remaining.requests;
      info.non_zero_requested = info.non_zero_requested + remaining.non_zero;
    }
  } else {
    info.requested -= placed.requests;
    info.non_zero_requested = info.non_zero_requested - placed.non_zero;
  }
  for_each_matching_query(pod, [&](QueryId q) {
    --info.query_counts[q];
    tally_pod(q, info, -1);
  });
  if (has_pod_terms(pod)) index_terms(pod, info, -1);
  return placed;
}

void ClusterSnapshot::index_terms(const Pod& pod, const NodeInfo& node, int delta) {
  auto account = [&](TermKind kind, std::int32_t weight, const PodAffinityTerm& term) {
    const Symbol* domain = node.labels().find(term.topology_key);
    if (!domain) return;  // a node without the key is in no domain of this term
    std::string key = std::to_string(static_cast<int>(kind)) + "/" + std::to_string(weight) + "/" +
                      pod.meta.namespace_ + "/" + canonical(term);
    auto [it, inserted] = term_group_by_key_.emplace(key, term_groups_.size());
    if (inserted) {
      ExistingTermGroup group;
      group.kind = kind;
      group.weight = weight;
      group.topology_key = term.topology_key;
      group.matcher = matcher_for_term(term, pod.meta.namespace_);
      term_groups_.push_back(std::move(group));
    }
    term_groups_[it->second].pods_per_domain[*domain] += delta;
  };
  const Affinity& a = pod.spec.affinity;
  for (const PodAffinityTerm& t : a.required_pod_affinity) account(TermKind::RequiredAffinity, 0, t);
  for (const PodAffinityTerm& t : a.required_pod_anti_affinity) account(TermKind::RequiredAntiAffinity, 0, t);
  for (const WeightedPodAffinityTerm& t : a.preferred_pod_affinity) {
    account(TermKind::PreferredAffinity, t.weight, t.term);
  }
  for (const WeightedPodAffinityTerm& t : a.preferred_pod_anti_affinity) {
    account(TermKind::PreferredAntiAffinity, t.weight, t.term);
  }
}

NodeId ClusterSnapshot::find_node(std::string_view name) const {
  auto it = node_by_name_.find(std::string(name));
  return it == node_by_name_.end() ? kNoNode : it->second;
}

std::optional<NodeId> ClusterSnapshot::node_of_pod(const std::string& pod_key) const {
  auto it = pod_locations_.find(pod_key);
  if (it == pod_locations_.end()) return std::nullopt;
  return it->second.node;
}

bool ClusterSnapshot::matches(const std::vector<PodMatcher>& all_of, const Pod& pod) const {
  return std::all_of(all_of.begin(), all_of.end(), [&](const PodMatcher& m) { return m.matches(pod, namespaces_); });
}

QueryId ClusterSnapshot::query(std::vector<PodMatcher> all_of) const {
  std::string key;
  for (const PodMatcher& m : all_of) key += m.key() + "&";
  auto [it, inserted] = query_by_key_.emplace(std::move(key), static_cast<QueryId>(queries_.size()));
  if (!inserted) return it->second;
  for (const NodeInfo& info : nodes_) {
    std::int32_t n = 0;
    for (const PlacedPod& p : info.pods) n += matches(all_of, *p.pod) ? 1 : 0;
    info.query_counts.push_back(n);
  }
  // Index the query by a label every matching pod must carry (an In requirement with one value), so a pod
  // added to the snapshot is tested only against queries that can match it.
  std::optional<std::uint64_t> label_key;
  for (const PodMatcher& m : all_of) {
    for (const LabelRequirement& r : m.selector.requirements) {
      if (r.op == SelectorOperator::In && r.values.size() == 1) label_key = label_index_key(r.key, r.values[0]);
    }
  }
  if (label_key) {
    queries_by_label_[*label_key].push_back(it->second);
  } else {
    unindexed_queries_.push_back(it->second);
  }
  queries_.push_back(std::move(all_of));
  tallies_by_query_.emplace_back();
  return it->second;
}

const std::unordered_map<Symbol, std::int64_t>& ClusterSnapshot::domain_counts(QueryId query, Symbol key) const {
  const std::uint64_t id = (static_cast<std::uint64_t>(query) << 32) | key.id();
  auto [it, inserted] = tally_by_key_.emplace(id, tallies_.size());
  if (!inserted) return tallies_[it->second].pods;
  DomainTally tally{query, key, {}, {}};
  for (NodeId n = 0; n < nodes_.size(); ++n) {
    const NodeInfo& node = nodes_[n];
    if (node.removed) continue;
    const Symbol* domain = node.labels().find(key);
    if (!domain) continue;
    ++tally.nodes[*domain];
    tally.pods[*domain] += node.query_counts[query];
  }
  tallies_.push_back(std::move(tally));
  tallies_by_query_[query].push_back(it->second);
  return tallies_.back().pods;
}

void ClusterSnapshot::tally_node(const NodeInfo& node, int delta) const {
  for (DomainTally& t : tallies_) {
    const Symbol* domain = node.labels().find(t.key);
    if (!domain) continue;
    // Pods leave a node before the node goes, and a new node has none: only the domain's node count moves.
    std::int32_t& nodes = t.nodes[*domain];
    nodes += delta;
    if (nodes > 0) {
      t.pods.try_emplace(*domain, 0);
    } else {
      t.nodes.erase(*domain);
      t.pods.erase(*domain);
    }
  }
}

void ClusterSnapshot::tally_pod(QueryId query, const NodeInfo& node, int delta) const {
  for (std::size_t index : tallies_by_query_[query]) {
    DomainTally& t = tallies_[index];
    if (const Symbol* domain = node.labels().find(t.key)) t.pods[*domain] += delta;
  }
}

void ClusterSnapshot::room_changed(NodeId id) const {
  if (id >= room_stale_mark_.size()) {
    room_stale_mark_.resize(std::max<std::size_t>(id + 1, 2 * room_stale_mark_.size()));
  }
  if (room_stale_mark_[id]) return;
  room_stale_mark_[id] = true;
  room_stale_.push_back(id);
}

NodeId ClusterSnapshot::next_with_room(NodeId from, NodeId to, const FirstFitIndex::Room& need) const {
  for (const NodeId id : room_stale_) {
    room_stale_mark_[id] = false;
    FirstFitIndex::Room room;  // a slot popped by a revert, or a removed node: nothing fits
    if (id < nodes_.size() && !nodes_[id].removed) {
      const NodeInfo& info = nodes_[id];
      room = {saturating_sub(info.allocatable.cpu_milli(), info.requested.cpu_milli()),
              saturating_sub(info.allocatable.memory(), info.requested.memory()),
              saturating_sub(info.allocatable.pods(), static_cast<std::int64_t>(info.pods.size()))};
    }
    room_.set(id, room);
  }
  room_stale_.clear();
  return static_cast<NodeId>(std::min<std::size_t>(room_.next(from, need), to));
}

void ClusterSnapshot::record(Change change) {
  if (!fork_marks_.empty()) journal_.push_back(std::move(change));
}

void ClusterSnapshot::fork() { fork_marks_.push_back(journal_.size()); }

void ClusterSnapshot::commit() {
  if (fork_marks_.empty()) throw std::logic_error("commit without fork");
  fork_marks_.pop_back();
  if (fork_marks_.empty()) journal_.clear();
}

void ClusterSnapshot::revert() {
  if (fork_marks_.empty()) throw std::logic_error("revert without fork");
  std::size_t mark = fork_marks_.back();
  fork_marks_.pop_back();
  // Undo newest first, without journaling the undo itself.
  while (journal_.size() > mark) {
    Change change = std::move(journal_.back());
    journal_.pop_back();
    switch (change.kind) {
      case Change::Kind::AddedPod:
        unplace(change.pod->meta.key());
        break;
      case Change::Kind::RemovedPod:
        place(placed_pod(std::move(change.pod), change.scheduling_class), change.node);
        break;
      case Change::Kind::AddedNode:
        node_by_name_.erase(nodes_[change.node].name());
        tally_node(nodes_[change.node], -1);
        nodes_.pop_back();  // added last, undone first
        room_changed(change.node);
        --live_nodes_;
        break;
      case Change::Kind::RemovedNode:
        nodes_[change.node].removed = false;
        room_changed(change.node);
        tally_node(nodes_[change.node], +1);
        node_by_name_.emplace(nodes_[change.node].name(), change.node);
        ++live_nodes_;
        break;
    }
  }
}

}  // namespace scalewright::scheduling
