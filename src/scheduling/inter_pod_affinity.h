#pragma once
// InterPodAffinity: required affinity and anti-affinity of the incoming pod, existing pods' required
// anti-affinity against it (symmetry), and the preferred terms of both sides as a score.
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "scheduling/plugin_support.h"

namespace scalewright::scheduling {

// A (topology key, domain) pair, packed for hashing.
struct Domain {
  Symbol key;
  Symbol value;
  friend bool operator==(Domain a, Domain b) { return a.key == b.key && a.value == b.value; }
};
struct DomainHash {
  std::size_t operator()(Domain d) const noexcept {
    return (static_cast<std::size_t>(d.key.id()) << 32) ^ d.value.id();
  }
};
using DomainCounts = std::unordered_map<Domain, std::int64_t, DomainHash>;

class InterPodAffinityFilter {
 public:
  InterPodAffinityFilter(const ClusterSnapshot& snapshot, const Pod& pod);
  bool active() const { return active_; }
  std::optional<std::string_view> check(const NodeInfo& node) const;

 private:
  bool active_ = false;
  // Existing pods' anti-affinity term groups that match this pod: their domains are closed to it. Held by
  // pointer, not copied, so a cycle costs nothing per domain.
  std::vector<const ExistingTermGroup*> existing_anti_affinity_;
  std::vector<Symbol> anti_affinity_keys_;
  DomainCounts anti_affinity_;  // domains holding pods this pod's anti-affinity terms match
  std::vector<Symbol> affinity_keys_;
  DomainCounts affinity_;       // domains holding pods that match all of this pod's affinity terms
  bool matches_own_affinity_ = false;  // the first pod of a group may start it
};

class InterPodAffinityScorer {
 public:
  InterPodAffinityScorer(const ClusterSnapshot& snapshot, const Pod& pod, const std::vector<NodeId>& feasible);
  // Empty when every node scores the same (nothing to prefer): callers read a missing score as zero.
  const std::vector<std::int64_t>& scores() const { return scores_; }

 private:
  std::vector<std::int64_t> scores_;
};

}  // namespace scalewright::scheduling
