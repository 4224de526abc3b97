#pragma once
// Pieces the scheduler's plugins share: per-node facts that depend only on a pod's static constraints, the
// reason strings in kube-scheduler's words, and score normalization.
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "scheduling/snapshot.h"

namespace scalewright::scheduling {

inline constexpr std::int64_t kMaxNodeScore = 100;

namespace reasons {
inline constexpr std::string_view unschedulable = "node(s) were unschedulable";
inline constexpr std::string_view node_name = "node(s) didn't match the requested node name";
inline constexpr std::string_view node_affinity = "node(s) didn't match Pod's node affinity/selector";
inline constexpr std::string_view node_ports = "node(s) didn't have free ports for the requested pod ports";
inline constexpr std::string_view too_many_pods = "Too many pods";
inline constexpr std::string_view spread_missing_label =
    "node(s) didn't match pod topology spread constraints (missing required label)";
inline constexpr std::string_view spread = "node(s) didn't match pod topology spread constraints";
inline constexpr std::string_view existing_anti_affinity = "node(s) didn't satisfy existing pods anti-affinity rules";
inline constexpr std::string_view anti_affinity = "node(s) didn't match pod anti-affinity rules";
inline constexpr std::string_view affinity = "node(s) didn't match pod affinity rules";
}  // namespace reasons

// What a node is to a pod, judged from the node alone and the pod's tolerations, node selector and node
// affinity. Identical for every pod with the same static constraints, so it is computed once per such class.
struct StaticVerdict {
  enum class Failure : std::uint8_t { None, Unschedulable, NodeName, Taint, NodeAffinity };
  std::uint64_t serial = 0;  // NodeInfo::serial this was computed for; 0 = not computed
  Failure failure = Failure::None;
  bool matches_node_affinity = false;  // nodeSelector and required node affinity
  bool tolerates_taints = false;       // every NoSchedule and NoExecute taint
  std::int32_t untolerated_taint = -1;  // index into the node's taints, for the reason
  std::int64_t intolerable_prefer_no_schedule = 0;  // TaintToleration's raw score
  std::int64_t preferred_affinity_weight = 0;       // NodeAffinity's raw score
};

StaticVerdict judge_statically(const Pod& pod, const NodeInfo& node);

// The static verdicts of one class of pods, node by node, computed on first use and again when a node slot
// holds a different node (its serial changed).
class StaticVerdictTable {
 public:
  explicit StaticVerdictTable(Pod exemplar) : exemplar_(std::move(exemplar)) {}
  // Inline: called for every node a cycle visits. Recomputed when the slot holds another node's verdict.
  const StaticVerdict& get(const ClusterSnapshot& snapshot, NodeId id) {
    if (id >= by_node_.size()) by_node_.resize(id + 1);
    StaticVerdict& v = by_node_[id];
    const NodeInfo& node = snapshot.node(id);
    if (v.serial != node.serial) v = judge_statically(exemplar_, node);
    return v;
  }

 private:
  Pod exemplar_;  // a pod of the class: only its static constraints are read
  std::vector<StaticVerdict> by_node_;
};

// The static verdicts of one pod class over one snapshot, looked up per node on the hot path (a plain object
// rather than a std::function so the call inlines).
class StaticVerdictLookup {
 public:
  StaticVerdictLookup(StaticVerdictTable& table, const ClusterSnapshot& snapshot) : table_(&table), snapshot_(&snapshot) {}
  const StaticVerdict& operator()(NodeId id) const { return table_->get(*snapshot_, id); }

 private:
  StaticVerdictTable* table_;
  const ClusterSnapshot* snapshot_;
};

// framework's DefaultNormalizeScore: scale to [0, 100] by the maximum, optionally reversed.
void default_normalize(std::vector<std::int64_t>& scores, bool reverse);

}  // namespace scalewright::scheduling
