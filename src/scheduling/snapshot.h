#pragma once
// The scheduler's view of a cluster: nodes, the pods bound to them and what they have requested, plus indexes
// that keep inter-pod questions cheap. A snapshot can be forked and reverted for what-if questions ("if this
// node went away, where would its pods go?"): changes are journaled, so a fork costs nothing and a revert costs
// only what changed since.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/node.h"
#include "api/pod.h"
#include "scheduling/first_fit_index.h"
#include "scheduling/pod_query.h"

namespace scalewright::scheduling {

using NodeId = std::uint32_t;
using QueryId = std::uint32_t;
inline constexpr NodeId kNoNode = static_cast<NodeId>(-1);

// The requests the scheduler scores with: like the pod's requests, but a container that requests no cpu or no
// memory counts as 100m / 200Mi, as kube-scheduler's non-zero defaults do.
struct NonZeroRequests {
  std::int64_t cpu_milli = 0;
  std::int64_t memory = 0;
};
NonZeroRequests non_zero_requests(const Pod& pod);

struct PlacedPod {
  std::shared_ptr<const Pod> pod;
  ResourceList requests;
  NonZeroRequests non_zero;
  // Its equivalence class where the one who placed it knows it (the observed state does), else empty: pods of one
  // class get one answer from every filter, so what-ifs over a node's pods ask once per class.
  Symbol scheduling_class;
};

struct NodeInfo {
  std::shared_ptr<const Node> node;
  std::uint64_t serial = 0;  // never reused within a process: caches about this node's labels key on it
  bool removed = false;
  ResourceList allocatable;  // the node's, kept beside the counters the filters compare it with
  ResourceList requested;
  NonZeroRequests non_zero_requested;
  std::vector<PlacedPod> pods;
  // Matching pods on this node, by QueryId. Mutable: registering a query fills a cache, it changes no state.
  mutable std::vector<std::int32_t> query_counts;

  const std::string& name() const { return node->meta.name; }
  const Labels& labels() const { return node->meta.labels; }
};

// Existing pods' inter-pod affinity terms, grouped by identical term: how many pods that carry the term sit in
// each domain of its topology key. The incoming pod is checked against each group once, not against each pod.
enum class TermKind { RequiredAffinity, RequiredAntiAffinity, PreferredAffinity, PreferredAntiAffinity };

struct ExistingTermGroup {
  TermKind kind = TermKind::RequiredAntiAffinity;
  std::int32_t weight = 0;
  Symbol topology_key;
  std::optional<PodMatcher> matcher;  // nullopt: matches no pod
  std::unordered_map<Symbol, std::int32_t> pods_per_domain;
};

class ClusterSnapshot {
 public:
  ClusterSnapshot() = default;

  NodeId add_node(Node node);
  // Removes the node and every pod on it.
  void remove_node(NodeId id);
  // Binds `pod` to `node`. The pod is stored as given (its spec.nodeName is not rewritten): where a pod sits is
  // the snapshot's own record, so a what-if can move a shared pod between nodes without copying it.
  void add_pod(Pod pod, NodeId node);
  void add_pod(std::shared_ptr<const Pod> pod, NodeId node, Symbol scheduling_class = Symbol());
  // Removes the pod with this "namespace/name"; false when it is not in the snapshot.
  bool remove_pod(const std::string& pod_key);

  NodeId find_node(std::string_view name) const;
  std::optional<NodeId> node_of_pod(const std::string& pod_key) const;
  const NodeInfo& node(NodeId id) const { return nodes_[id]; }
  // Every slot, removed nodes included (check NodeInfo::removed). A live node keeps its id; the slot of a node
  // removed outside any fork may later hold a new node (NodeInfo::serial tells them apart).
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  std::size_t live_node_count() const { return live_nodes_; }
  std::size_t pod_count() const { return pod_locations_.size(); }
  // The first live node in [from, to) whose pod slots, cpu and memory left may hold `need` (nodes it passes over
  // fail NodeResourcesFit, removed slots too); `to` when there is none. The room of nodes changed since the last
  // call is brought up to date first, so what-ifs that never ask pay one mark per change.
  NodeId next_with_room(NodeId from, NodeId to, const FirstFitIndex::Room& need) const;

  void set_namespace_labels(const std::string& name, Labels labels) { namespaces_.set(name, std::move(labels)); }
  const NamespaceLabels& namespace_labels() const { return namespaces_; }

  // Registers a query (once per distinct set of matchers) for the pods that match every matcher, and returns its
  // id; per-node counts are kept from then on.
  QueryId query(std::vector<PodMatcher> all_of) const;
  QueryId query(PodMatcher matcher) const { return query(std::vector<PodMatcher>{std::move(matcher)}); }
  std::int32_t count(QueryId query, NodeId node) const { return nodes_[node].query_counts[query]; }

  const std::vector<ExistingTermGroup>& existing_terms() const { return term_groups_; }

  // Pods matching `query`, summed per domain of `key` over the live nodes that carry the key (every such
  // domain present, with zero where no pod matches). Registered on first use and kept up to date as pods and
  // nodes come and go, so topology spread reads it instead of visiting every node.
  const std::unordered_map<Symbol, std::int64_t>& domain_counts(QueryId query, Symbol key) const;

  // What-if support. fork() opens a layer; revert() undoes everything since the matching fork();
  // commit() keeps the changes and closes the layer. Layers nest.
  void fork();
  void revert();
  void commit();
  std::size_t fork_depth() const { return fork_marks_.size(); }

 private:
  // One journaled change; revert applies its inverse. Kept small (a fork may journal a million placements): a
  // pod's key and requests are worked out again from the pod when the change is undone.
  struct Change {
    enum class Kind { AddedPod, RemovedPod, AddedNode, RemovedNode } kind;
    NodeId node = kNoNode;
    std::shared_ptr<const Pod> pod;  // AddedPod, RemovedPod
    Symbol scheduling_class;         // RemovedPod
  };

  static PlacedPod placed_pod(std::shared_ptr<const Pod> pod, Symbol scheduling_class);  // with its requests worked out
  void place(PlacedPod placed, NodeId node);
  PlacedPod unplace(const std::string& key);
  void index_terms(const Pod& pod, const NodeInfo& node, int delta);
  void room_changed(NodeId id) const;
  void record(Change change);
  bool matches(const std::vector<PodMatcher>& all_of, const Pod& pod) const;
  static std::uint64_t label_index_key(Symbol key, Symbol value) {
    return (static_cast<std::uint64_t>(key.id()) << 32) | value.id();
  }
  // Calls fn(q) for every registered query q that matches `pod`: the unindexed ones and those indexed under one
  // of the pod's labels.
  template <typename Fn>
  void for_each_matching_query(const Pod& pod, Fn&& fn) const {
    for (QueryId q : unindexed_queries_) {
      if (matches(queries_[q], pod)) fn(q);
    }
    if (queries_by_label_.empty()) return;
    for (const auto& [key, value] : pod.meta.labels) {
      auto it = queries_by_label_.find(label_index_key(key, value));
      if (it == queries_by_label_.end()) continue;
      for (QueryId q : it->second) {
        if (matches(queries_[q], pod)) fn(q);
      }
    }
  }

  std::vector<NodeInfo> nodes_;
  std::vector<NodeId> free_slots_;  // removed outside any fork: reused by add_node
  std::size_t live_nodes_ = 0;
  std::unordered_map<std::string, NodeId> node_by_name_;
  // Where each pod is: its node, and its place in that node's `pods`, so that removing a pod is O(1) rather than a
  // scan of the node's pods (a node of 1,000 pods emptied one by one was quadratic).
  struct PodLocation {
    NodeId node;
    std::size_t index;
  };
  std::unordered_map<std::string, PodLocation> pod_locations_;
  NamespaceLabels namespaces_;

  // Query and term indexes are caches over the pods; they change only alongside pods, so reverts keep them true.
  mutable std::vector<std::vector<PodMatcher>> queries_;
  mutable std::unordered_map<std::string, QueryId> query_by_key_;
  mutable std::unordered_map<std::uint64_t, std::vector<QueryId>> queries_by_label_;
  mutable std::vector<QueryId> unindexed_queries_;
  std::vector<ExistingTermGroup> term_groups_;
  std::unordered_map<std::string, std::size_t> term_group_by_key_;

  struct DomainTally {
    QueryId query = 0;
    Symbol key;
    std::unordered_map<Symbol, std::int64_t> pods;   // matching pods per domain
    std::unordered_map<Symbol, std::int32_t> nodes;  // live nodes per domain: a domain lives while it has nodes
  };
  void tally_node(const NodeInfo& node, int delta) const;
  void tally_pod(QueryId query, const NodeInfo& node, int delta) const;
  mutable std::vector<DomainTally> tallies_;
  mutable std::unordered_map<std::uint64_t, std::size_t> tally_by_key_;  // (query, key) -> index
  mutable std::vector<std::vector<std::size_t>> tallies_by_query_;      // query -> tally indexes

  std::vector<Change> journal_;
  std::vector<std::size_t> fork_marks_;

  // Each slot's room, and the slots changed since next_with_room last brought it up to date (once each): a cache.
  mutable FirstFitIndex room_;
  mutable std::vector<NodeId> room_stale_;
  mutable std::vector<bool> room_stale_mark_;
};

}  // namespace scalewright::scheduling
