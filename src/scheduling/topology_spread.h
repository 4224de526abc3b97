#pragma once
// PodTopologySpread: DoNotSchedule constraints filter nodes by skew; ScheduleAnyway constraints score them.
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scheduling/plugin_support.h"

namespace scalewright::scheduling {

class SpreadFilter {
 public:
  // Pre-filter: matching pods per domain, over every node the constraint considers (a node needs every
  // constraint's key; nodeAffinityPolicy/nodeTaintsPolicy decide whether a node's pods count).
  SpreadFilter(const ClusterSnapshot& snapshot, const Pod& pod, const StaticVerdictLookup& verdicts);
  // Holds pointers into itself and into the snapshot's tallies: not copied, used within one cycle.
  SpreadFilter(const SpreadFilter&) = delete;
  SpreadFilter& operator=(const SpreadFilter&) = delete;
  bool active() const { return !constraints_.empty(); }
  // nullopt when the node passes, else kube-scheduler's reason.
  std::optional<std::string_view> check(const NodeInfo& node) const;

 private:
  struct Constraint {
    Symbol key;
    std::int32_t max_skew = 1;
    std::int32_t self_match = 0;
    std::unordered_map<Symbol, std::int64_t> counted;  // filled by visiting nodes, when the tally cannot serve
    const std::unordered_map<Symbol, std::int64_t>* per_domain = nullptr;  // `counted`, or the snapshot's tally
    std::int64_t min_match = 0;
    std::vector<std::pair<Symbol, bool>> few_domains;  // domain -> passes, when there are at most kFewDomains
  };
  static constexpr std::size_t kFewDomains = 16;
  std::vector<Constraint> constraints_;
};

class SpreadScorer {
 public:
  SpreadScorer(const ClusterSnapshot& snapshot, const Pod& pod, const std::vector<NodeId>& feasible,
               const StaticVerdictLookup& verdicts);
  // Normalized scores, one per feasible node, in the order given.
  // Empty when every node scores the same (nothing to prefer): callers read a missing score as zero.
  const std::vector<std::int64_t>& scores() const { return scores_; }

 private:
  std::vector<std::int64_t> scores_;
};

}  // namespace scalewright::scheduling
