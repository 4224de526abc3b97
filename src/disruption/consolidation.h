#pragma once
// Karpenter's consolidation as a pure search over a snapshot: which nodes can go because their pods fit on the rest
// of the cluster (delete), or can give way to one cheaper node that holds what the rest cannot (replace).
//
// - Multi-node: Karpenter binary-searches the longest prefix of its first 100 candidates that one command can take
//   (delete, or replace by one node strictly cheaper than the prefix's sum). Here every candidate takes part: the
//   prefix search runs over all of them, and so does a sweep that, candidate after candidate, keeps every node
//   whose pods fit on what the nodes before it left (Cluster Autoscaler's way), so one pass can delete hundreds of
//   nodes. The command that saves more is chosen.
// - Single-node: the candidates in order, the first that can be deleted or replaced.
// Each try forks the snapshot and reverts it: no copy of the cluster per question.
// Each search has its file (multi_node.cpp, single_node.cpp, repack.cpp, and revalidation.cpp for the check before
// acting); what they share is search.h's.
//
// The rules on a replacement, as upstream's: exactly one new node, every instance type it may launch strictly
// cheaper than the candidates together (so never the same type at the same price); a NodeClaim that may be spot or
// on-demand is narrowed to spot (its price was judged as spot, and an on-demand fallback would cost more); spot
// replacing spot only with at least 15 cheaper types and launched from the 15 cheapest (so consolidation does not
// walk a node down the price ladder into the pools most likely to be interrupted), and only for one candidate's
// replacement the count is checked, as upstream.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/symbol.h"
#include "api/workloads.h"
#include "cloud/catalog.h"
#include "cloud/instance_type.h"
#include "provisioning/provisioner.h"
#include "scheduling/snapshot.h"

namespace scalewright::disruption {

// Upstream's threshold for spot-to-spot replacement.
inline constexpr std::size_t kMinTypesForSpotToSpot = 15;
// How many candidates upstream's multi-node consolidation looks at.
inline constexpr std::size_t kKarpenterMultiNodeCandidates = 100;
// On a NodePool, "true": its nodes are consolidated only as Karpenter does it (ConsolidationInput::as_karpenter).
inline constexpr std::string_view kAsKarpenterAnnotation = "scalewright.dev/consolidate-as-karpenter";

// Whether disrupting its node leaves the pod to be placed elsewhere: not a DaemonSet or mirror pod (they go with
// the node), and not finished.
bool needs_another_node(const Pod& pod);

// Whether a node or pod says karpenter.sh/do-not-disrupt: "true" (no voluntary disruption; a drain leaves the pod
// until its terminationGracePeriod is up).
bool says_do_not_disrupt(const ObjectMeta& meta);

// What evicting the pod costs, as upstream's EvictionCost: 1, plus its controller.kubernetes.io/pod-deletion-cost
// / 2^27, plus its priority / 2^25, clamped to [-10, 10].
double eviction_cost(const Pod& pod);

// The share of its life a node has left: 1 - age / expireAfter, in [0, 1]; 1 without expiry. A node near its
// expiry costs less to disrupt, since it goes soon anyway.
double lifetime_remaining(Duration age, const std::optional<Duration>& expire_after);

// A node consolidation may remove or replace: Ready, initialized, of a NodePool whose policy consolidates
// underutilized nodes, past consolidateAfter, and with nothing that forbids disrupting it (the caller checks that).
struct Candidate {
  scheduling::NodeId id = scheduling::kNoNode;  // in ConsolidationInput::cluster
  std::string node;
  std::string nodepool;
  std::string instance_type;
  cloud::CapacityType capacity_type = cloud::CapacityType::OnDemand;
  double price_per_hour = 0;
  ResourceList capacity;  // counted against its NodePool's limits until it goes
  // Its pods that must run elsewhere (not DaemonSet or mirror pods), as bound now; filled by add_pod().
  std::vector<std::shared_ptr<const Pod>> pods;
  // Each pod's scheduling class (the state's PodRecord::scheduling_class), empty where not known: pods of one class
  // get one answer from the scheduler, so a what-if asks once per class, not once per pod.
  std::vector<Symbol> classes;
  ResourceList requests;  // what its pods request, summed
  void add_pod(std::shared_ptr<const Pod> pod, Symbol scheduling_class = Symbol());
  // Sum of the pods' eviction costs × the node's lifetime remaining (upstream's disruption cost).
  double disruption_cost = 0;
  // Moves when its pods change: what a ConsolidationMemo says of it holds while this stays.
  std::uint64_t pods_version = 0;
};

// Karpenter's order, refined: least disruption per dollar an hour it saves first (an empty node first of all), then
// the more expensive, then by name.
void order_candidates(std::vector<Candidate>& candidates);

enum class Decision { Delete, Replace };
enum class Method { MultiNode, SingleNode, Repack, Drift };
std::string_view to_string(Decision decision);
std::string_view to_string(Method method);

struct Command {
  Decision decision = Decision::Delete;
  Method method = Method::SingleNode;
  std::vector<std::size_t> candidates;                    // indexes into ConsolidationInput::candidates
  // Replace: what is launched first. Karpenter's methods launch one node, its instance types each cheaper than the
  // candidates together; a repack launches as many as its plan needs, cheaper together.
  std::vector<provisioning::NewNodeClaim> replacements;
  std::size_t pods = 0;                                   // pods that move
  double price_before = 0;  // $/h of the candidates
  double price_after = 0;   // $/h of the replacements (Karpenter's: at the most expensive allowed offering); 0 for a delete
  double disruption_cost = 0;
  double savings() const { return price_before - price_after; }
};

// What earlier passes found that a later pass may take as still true, so that a pass costs what changed since the
// last one rather than the size of the cluster: the verdict on a candidate tried alone whose delete and replacement
// both failed, and the sets of candidates a multi-node try or a repack found no command for. A verdict holds while
// the candidates' pods are as they were and the context is the same: no node gained room (pods arriving only take
// room, and a delete or replacement that failed with more room fails with less), and nothing that prices or limits
// a replacement changed (NodePools, DaemonSets, departures, offerings marked or lapsed). Verdicts that depend on
// the moment (budgets, Balanced's shares) are not kept.
class ConsolidationMemo {
 public:
  // Starts a pass: a context unlike the last one's, or a moment past `valid_until`, forgets every verdict.
  void begin(std::uint64_t context, Instant now, std::optional<Instant> valid_until);

  struct Verdict {
    std::string reason;
    bool delete_failed = false;  // its pods fit on no other node
  };
  // The verdict on `c` tried alone, if its pods are as they were.
  const Verdict* find(const Candidate& c) const;
  void remember(const Candidate& c, Verdict verdict);
  // The verdict on replacing a node whose pods fit on no other node: it depends on what the node is and on its pods'
  // classes, not on which node it is, so one verdict serves every node alike (`shape` says what they are).
  const Verdict* find_shape(const std::string& shape) const;
  void remember_shape(const std::string& shape, Verdict verdict);
  // A try of a set of candidates (multi-node or repack, and the set's nodes: `key`) found no command.
  bool failed(const std::string& key) const;
  void remember_failed(const std::string& key);

 private:
  std::optional<std::uint64_t> context_;
  std::optional<Instant> valid_until_;
  std::unordered_map<std::string, std::pair<std::uint64_t, Verdict>> verdicts_;  // node -> its pods_version, verdict
  std::unordered_map<std::string, Verdict> shapes_;
  std::unordered_set<std::string> failed_sets_;
};

struct ConsolidationInput {
  // Ready nodes with their pods, candidates included. Forked for every try and reverted: left as it came.
  scheduling::ClusterSnapshot* cluster = nullptr;
  std::vector<Candidate> candidates;  // in the order they are tried (see order_candidates)
  // How many more nodes of each NodePool may be disrupted now (its budgets for reason Underutilized, less the nodes
  // disrupting); a NodePool absent here is not limited.
  std::map<std::string, std::int32_t> allowed;
  // For a replacement, as provisioning would launch it.
  std::vector<NodePool> nodepools;
  const cloud::Catalog* catalog = nullptr;
  std::map<std::string, const cloud::Catalog*> nodepool_catalogs;  // as ProvisioningInput's
  std::map<std::string, std::string> nodepools_not_ready;
  std::vector<Workload> daemonsets;
  std::map<std::string, ResourceList> nodepool_usage;
  const provisioning::UnavailableOfferings* unavailable = nullptr;
  Instant now{};
  // Karpenter's SpotToSpotConsolidation: may a spot node be replaced by a cheaper spot node at all.
  bool spot_to_spot = true;
  // Consolidate only as Karpenter itself does (a NodePool annotated kAsKarpenterAnnotation "true"): multi-node is
  // the longest-prefix search over the first kKarpenterMultiNodeCandidates candidates, no sweep; its command if it
  // has one, else single-node's; no repack. For comparing with upstream on the same workload.
  bool as_karpenter = false;
  // consolidationPolicy Balanced: per NodePool, the $/h and the disruption cost of all its nodes, the denominators
  // of the share a command saves and the share it disrupts.
  std::map<std::string, double> pool_cost;
  std::map<std::string, double> pool_disruption_cost;
  // Verdicts of earlier passes to reuse and this pass's to keep; null: none (a one-off question).
  ConsolidationMemo* memo = nullptr;
};

// Why the last try of a candidate did not become a command, for "why was this node kept?".
struct Kept {
  std::size_t candidate = 0;
  std::string reason;
};

struct ConsolidationResult {
  std::optional<Command> command;
  std::vector<Kept> kept;  // single-node: each candidate tried and not taken, with why
  std::size_t tries = 0;   // what-if simulations run
  std::size_t plans = 0;   // provisioning plans made for them (the dearest part of a try)
};

// The multi-node command over every candidate (nullopt-command when no two nodes can go together).
ConsolidationResult consolidate_multi_node(const ConsolidationInput& input);
// The first candidate that can be deleted or replaced on its own.
ConsolidationResult consolidate_single_node(const ConsolidationInput& input);
// Beyond Karpenter, asked when its methods find nothing: a cluster that no delete and no one-node replacement can
// improve may still be packed with fewer nodes. The least used candidates (2, 4, 8, ... of them, within the
// budgets) have their pods provisioned afresh, on the room other nodes have and on new nodes of the cheapest types
// that hold them; a repack goes ahead when it saves at least the price of the cheapest node it takes, and when
// kube-scheduler, taking the pods largest or smallest first, would find every one of them a place. Of the sizes
// that do, the one that saves the most per pod it moves.
ConsolidationResult consolidate_repack(const ConsolidationInput& input);

// The same question for a command computed earlier, asked again of the cluster as it is now (Karpenter's
// validation 15 s after computing): the command for exactly these candidates, or why it no longer holds. Here the
// pods that must move are placed where kube-scheduler would bind them, not on the first node with room: a delete
// that holds only by first fit would leave a pod pending once kube-scheduler spreads the others.
struct Revalidation {
  std::optional<Command> command;
  std::string reason;
};
Revalidation revalidate(const ConsolidationInput& input, const std::vector<std::size_t>& candidates,
                        Decision decision, Method method = Method::SingleNode);

// `a` saves more than `b`, or as much while moving fewer pods.
bool better(const Command& a, const Command& b);

// consolidationPolicy Balanced (Karpenter 1.14): a command goes ahead only where the share of its NodePools' cost it
// saves is at least half the share of their disruption cost it causes.
bool balanced_enough(const Command& command, const ConsolidationInput& input);

}  // namespace scalewright::disruption
