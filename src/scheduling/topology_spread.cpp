#include "scheduling/topology_spread.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace scalewright::scheduling {
namespace {

struct Counted {
  const TopologySpreadConstraint* constraint;
  std::optional<QueryId> query;  // nullopt: the selector is absent and matches nothing
};

std::vector<Counted> constraints_of(const ClusterSnapshot& snapshot, const Pod& pod,
                                    UnsatisfiableConstraintAction action) {
  std::vector<Counted> out;
  for (const TopologySpreadConstraint& c : pod.spec.topology_spread_constraints) {
    if (c.when_unsatisfiable != action) continue;
    std::optional<PodMatcher> matcher = matcher_for_spread(c, pod);
    out.push_back({&c, matcher ? std::optional<QueryId>(snapshot.query(*matcher)) : std::nullopt});
  }
  return out;
}

bool has_every_key(const NodeInfo& node, const std::vector<Counted>& constraints) {
  return std::all_of(constraints.begin(), constraints.end(),
                     [&](const Counted& c) { return node.labels().has(c.constraint->topology_key); });
}

bool included(const TopologySpreadConstraint& c, const StaticVerdict& v) {
  if (c.node_affinity_policy == NodeInclusionPolicy::Honor && !v.matches_node_affinity) return false;
  if (c.node_taints_policy == NodeInclusionPolicy::Honor && !v.tolerates_taints) return false;
  return true;
}

std::int32_t self_match(const Pod& pod, const TopologySpreadConstraint& c) {
  std::optional<PodMatcher> m = matcher_for_spread(c, pod);
  return m && m->selector.matches(pod.meta.labels) ? 1 : 0;
}

}  // namespace

SpreadFilter::SpreadFilter(const ClusterSnapshot& snapshot, const Pod& pod, const StaticVerdictLookup& verdicts) {
  std::vector<Counted> counted = constraints_of(snapshot, pod, UnsatisfiableConstraintAction::DoNotSchedule);
  if (counted.empty()) return;
  constraints_.resize(counted.size());
  for (std::size_t i = 0; i < counted.size(); ++i) {
    constraints_[i].key = counted[i].constraint->topology_key;
    constraints_[i].max_skew = counted[i].constraint->max_skew;
    constraints_[i].self_match = self_match(pod, *counted[i].constraint);
  }
  // The node inclusion policies need the node's static verdict only when they can exclude it: Honor with a
  // node selector or required affinity to honour, or Honor for taints. Otherwise every node with the keys counts.
  const bool has_node_selection = !pod.spec.node_selector.empty() || pod.spec.affinity.required_node_affinity;
  const bool needs_verdict = std::any_of(counted.begin(), counted.end(), [&](const Counted& c) {
    return (c.constraint->node_affinity_policy == NodeInclusionPolicy::Honor && has_node_selection) ||
           c.constraint->node_taints_policy == NodeInclusionPolicy::Honor;
  });
  // One constraint whose policies exclude no node is what the snapshot's per-domain tally answers directly;
  // otherwise (several keys, where a node needs them all, or a policy that excludes nodes) visit every node.
  if (counted.size() == 1 && !needs_verdict && counted[0].query) {
    constraints_[0].per_domain = &snapshot.domain_counts(*counted[0].query, constraints_[0].key);
  } else {
    std::vector<const Symbol*> domains(counted.size());
    const auto& nodes = snapshot.nodes();
    for (NodeId id = 0; id < nodes.size(); ++id) {
      const NodeInfo& node = nodes[id];
      if (node.removed) continue;
      bool every_key = true;
      for (std::size_t i = 0; i < counted.size() && every_key; ++i) {
        domains[i] = node.labels().find(constraints_[i].key);
        every_key = domains[i] != nullptr;
      }
      if (!every_key) continue;
      const StaticVerdict* verdict = needs_verdict ? &verdicts(id) : nullptr;
      for (std::size_t i = 0; i < counted.size(); ++i) {
        if (verdict && !included(*counted[i].constraint, *verdict)) continue;
        std::int64_t n = counted[i].query ? snapshot.count(*counted[i].query, id) : 0;
        constraints_[i].counted[*domains[i]] += n;
      }
    }
    for (Constraint& c : constraints_) c.per_domain = &c.counted;
  }
  for (std::size_t i = 0; i < counted.size(); ++i) {
    Constraint& c = constraints_[i];
    std::int64_t min = std::numeric_limits<std::int32_t>::max();
    for (const auto& [domain, n] : *c.per_domain) min = std::min(min, n);
    const std::optional<std::int32_t>& min_domains = counted[i].constraint->min_domains;
    // With fewer domains than minDomains, the global minimum counts as zero.
    if (min_domains && static_cast<std::int64_t>(c.per_domain->size()) < *min_domains) min = 0;
    c.min_match = min;
    // Few domains (zones): the verdict per domain, decided once, scanned linearly by check().
    if (c.per_domain->size() <= kFewDomains) {
      for (const auto& [domain, n] : *c.per_domain) {
        c.few_domains.emplace_back(domain, n + c.self_match - c.min_match <= c.max_skew);
      }
    }
  }
}

std::optional<std::string_view> SpreadFilter::check(const NodeInfo& node) const {
  for (const Constraint& c : constraints_) {
    const Symbol* domain = node.labels().find(c.key);
    if (!domain) return reasons::spread_missing_label;
    if (!c.few_domains.empty()) {
      auto few = std::find_if(c.few_domains.begin(), c.few_domains.end(),
                              [&](const auto& entry) { return entry.first == *domain; });
      if (few != c.few_domains.end()) {
        if (!few->second) return reasons::spread;
        continue;
      }
    }
    auto it = c.per_domain->find(*domain);
    std::int64_t match = it == c.per_domain->end() ? 0 : it->second;
    if (match + c.self_match - c.min_match > c.max_skew) return reasons::spread;
  }
  return std::nullopt;
}

SpreadScorer::SpreadScorer(const ClusterSnapshot& snapshot, const Pod& pod, const std::vector<NodeId>& feasible,
                           const StaticVerdictLookup& verdicts) {
  std::vector<Counted> counted = constraints_of(snapshot, pod, UnsatisfiableConstraintAction::ScheduleAnyway);
  // Without ScheduleAnyway constraints upstream scores nothing: every node gets the same score (zero).
  if (counted.empty()) return;
  scores_.assign(feasible.size(), 0);
  static const Symbol hostname(well_known::hostname);

  std::vector<bool> ignored(feasible.size(), false);
  std::size_t ignored_count = 0;
  // Domains seen among the feasible nodes, per constraint; only these collect counts.
  std::vector<std::unordered_map<Symbol, std::int64_t>> per_domain(counted.size());
  for (std::size_t f = 0; f < feasible.size(); ++f) {
    const NodeInfo& node = snapshot.node(feasible[f]);
    if (!has_every_key(node, counted)) {
      ignored[f] = true;
      ++ignored_count;
      continue;
    }
    for (std::size_t i = 0; i < counted.size(); ++i) {
      if (counted[i].constraint->topology_key == hostname) continue;
      per_domain[i].emplace(*node.labels().find(counted[i].constraint->topology_key), 0);
    }
  }
  std::vector<double> weights(counted.size());
  for (std::size_t i = 0; i < counted.size(); ++i) {
    std::size_t size = counted[i].constraint->topology_key == hostname ? feasible.size() - ignored_count
                                                                          : per_domain[i].size();
    weights[i] = std::log(static_cast<double>(size + 2));
  }
  const auto& nodes = snapshot.nodes();
  for (NodeId id = 0; id < nodes.size(); ++id) {
    const NodeInfo& node = nodes[id];
    if (node.removed || counted.empty() || !has_every_key(node, counted)) continue;
    const StaticVerdict& verdict = verdicts(id);
    for (std::size_t i = 0; i < counted.size(); ++i) {
      if (counted[i].constraint->topology_key == hostname || !included(*counted[i].constraint, verdict)) continue;
      auto it = per_domain[i].find(*node.labels().find(counted[i].constraint->topology_key));
      if (it == per_domain[i].end() || !counted[i].query) continue;
      it->second += snapshot.count(*counted[i].query, id);
    }
  }

  std::int64_t min_score = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_score = 0;
  for (std::size_t f = 0; f < feasible.size(); ++f) {
    if (ignored[f]) continue;
    const NodeInfo& node = snapshot.node(feasible[f]);
    double score = 0;
    for (std::size_t i = 0; i < counted.size(); ++i) {
      const TopologySpreadConstraint& c = *counted[i].constraint;
      std::int64_t n = 0;
      if (c.topology_key == hostname) {
        n = counted[i].query ? snapshot.count(*counted[i].query, feasible[f]) : 0;
      } else {
        n = per_domain[i].at(*node.labels().find(c.topology_key));
      }
      score += static_cast<double>(n) * weights[i] + static_cast<double>(c.max_skew - 1);
    }
    scores_[f] = static_cast<std::int64_t>(std::llround(score));
    min_score = std::min(min_score, scores_[f]);
    max_score = std::max(max_score, scores_[f]);
  }
  // Fewer matching pods is better: reverse against the range, ignored nodes score zero.
  for (std::size_t f = 0; f < feasible.size(); ++f) {
    if (ignored[f]) {
      scores_[f] = 0;
    } else if (max_score == 0) {
      scores_[f] = kMaxNodeScore;
    } else {
      scores_[f] = kMaxNodeScore * (max_score + min_score - scores_[f]) / max_score;
    }
  }
}

}  // namespace scalewright::scheduling
