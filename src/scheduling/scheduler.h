#pragma once
// kube-scheduler's default profile (v1.26) as a pure function of a snapshot and a pod: the filters in upstream
// order, each rejected node counted under the first filter it fails, and the default score plugins with their
// weights, so the simulation picks the node kube-scheduler would pick.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/pod.h"
#include "scheduling/plugin_support.h"
#include "scheduling/snapshot.h"

namespace scalewright::scheduling {

enum class ScoringStrategy { LeastAllocated, MostAllocated };

struct SchedulerOptions {
  // NodeResourcesFit's scoring strategy: LeastAllocated spreads (kube-scheduler's default), MostAllocated packs.
  ScoringStrategy scoring = ScoringStrategy::LeastAllocated;
  // kube-scheduler's percentageOfNodesToScore: stop filtering once this share of the nodes is found feasible,
  // starting each cycle where the last one stopped. 0 is upstream's adaptive default (50% minus 1% per 125
  // nodes, at least 5%, never fewer than 100 nodes); 100 filters and scores every node.
  int percentage_of_nodes_to_score = 0;
};

struct SchedulingResult {
  NodeId chosen = kNoNode;
  std::vector<NodeId> feasible;  // in the order filtered (snapshot order when every node is scored)
  // When nothing fits: "0/4 nodes are available: 1 node(s) were unschedulable, 3 Insufficient cpu."
  std::string reason;
  // The same, as a histogram: reason -> number of nodes.
  std::map<std::string, int> reasons;
  bool scheduled() const { return chosen != kNoNode; }
};

class Scheduler {
 public:
  explicit Scheduler(SchedulerOptions options = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Whether a pod that fits nowhere is told why (SchedulingResult::reason, reasons): that filters every node again.
  enum class Explain { Reasons, NoReasons };
  // Filters live nodes (all of them, or as many as percentage_of_nodes_to_score asks for), scores the feasible
  // ones and picks the best (ties go to the earliest node filtered).
  SchedulingResult schedule(const ClusterSnapshot& snapshot, const Pod& pod,
                            Explain explain = Explain::Reasons) const;

  // The first live node, in snapshot order starting at `start`, on which the pod passes every filter; kNoNode
  // when there is none. No scoring: for what-if questions where any fit will do.
  NodeId find_fit(const ClusterSnapshot& snapshot, const Pod& pod, NodeId start = 0) const;

  // Why `pod` cannot run on `node`, in kube-scheduler's words (empty when it can).
  std::vector<std::string> rejections(const ClusterSnapshot& snapshot, const Pod& pod, NodeId node) const;

  const SchedulerOptions& options() const { return options_; }

 private:
  StaticVerdictTable& verdicts_for(const Pod& pod) const;

  SchedulerOptions options_;
  // Per-node results that depend only on the node and the pod's static constraints (tolerations, node
  // selector, node affinity), cached per equivalence class of those constraints. A cache, hence mutable; a
  // Scheduler serves one thread at a time.
  mutable std::unordered_map<std::string, std::unique_ptr<StaticVerdictTable>> static_cache_;
  mutable std::size_t next_start_node_ = 0;  // where the next cycle starts filtering, as upstream rotates it
};

// How many feasible nodes a cycle looks for among `live_nodes`, as kube-scheduler's numFeasibleNodesToFind.
std::size_t feasible_nodes_to_find(int percentage_of_nodes_to_score, std::size_t live_nodes);

// "0/4 nodes are available: ..." from a histogram of reasons, sorted as kube-scheduler sorts them.
std::string format_fit_error(std::size_t node_count, const std::map<std::string, int>& reasons);

}  // namespace scalewright::scheduling
