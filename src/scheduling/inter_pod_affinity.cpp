#include "scheduling/inter_pod_affinity.h"

#include <algorithm>
#include <limits>

namespace scalewright::scheduling {
namespace {

// Weight of an existing pod's *required* affinity term in the incoming pod's score (kube-scheduler's
// hardPodAffinityWeight default).
constexpr std::int64_t kHardPodAffinityWeight = 1;

// Adds, for every live node that has `key`, that node's count of `query` pods to its domain.
void count_by_domain(const ClusterSnapshot& snapshot, QueryId query, Symbol key, std::int64_t weight,
                     DomainCounts& out) {
  const auto& nodes = snapshot.nodes();
  for (NodeId id = 0; id < nodes.size(); ++id) {
    if (nodes[id].removed) continue;
    std::int32_t n = snapshot.count(query, id);
    if (n == 0) continue;
    if (const Symbol* value = nodes[id].labels().find(key)) out[{key, *value}] += weight * n;
  }
}

bool in_domain(const NodeInfo& node, Symbol key, const DomainCounts& counts) {
  const Symbol* value = node.labels().find(key);
  if (!value) return false;
  auto it = counts.find({key, *value});
  return it != counts.end() && it->second > 0;
}

}  // namespace

InterPodAffinityFilter::InterPodAffinityFilter(const ClusterSnapshot& snapshot, const Pod& pod) {
  const NamespaceLabels& namespaces = snapshot.namespace_labels();
  for (const ExistingTermGroup& group : snapshot.existing_terms()) {
    if (group.kind != TermKind::RequiredAntiAffinity || !group.matcher) continue;
    if (!group.matcher->matches(pod, namespaces)) continue;
    const bool any_pods = std::any_of(group.pods_per_domain.begin(), group.pods_per_domain.end(),
                                      [](const auto& entry) { return entry.second > 0; });
    if (any_pods) existing_anti_affinity_.push_back(&group);
  }
  const Affinity& affinity = pod.spec.affinity;
  for (const PodAffinityTerm& term : affinity.required_pod_anti_affinity) {
    anti_affinity_keys_.push_back(term.topology_key);
    if (std::optional<PodMatcher> m = matcher_for_term(term, pod.meta.namespace_)) {
      count_by_domain(snapshot, snapshot.query(*m), term.topology_key, 1, anti_affinity_);
    }
  }
  if (!affinity.required_pod_affinity.empty()) {
    std::vector<PodMatcher> all_terms;
    bool any_nil = false;
    for (const PodAffinityTerm& term : affinity.required_pod_affinity) {
      affinity_keys_.push_back(term.topology_key);
      std::optional<PodMatcher> m = matcher_for_term(term, pod.meta.namespace_);
      if (m) {
        all_terms.push_back(std::move(*m));
      } else {
        any_nil = true;
      }
    }
    if (!any_nil) {
      QueryId query = snapshot.query(all_terms);
      for (Symbol key : affinity_keys_) count_by_domain(snapshot, query, key, 1, affinity_);
      matches_own_affinity_ = std::all_of(all_terms.begin(), all_terms.end(),
                                          [&](const PodMatcher& m) { return m.matches(pod, namespaces); });
    }
  }
  active_ = !existing_anti_affinity_.empty() || !anti_affinity_keys_.empty() || !affinity_keys_.empty();
}

// In kube-scheduler 1.26's order: the incoming pod's affinity, its anti-affinity, then existing pods'
// anti-affinity against it; a node is counted under the first that fails.
std::optional<std::string_view> InterPodAffinityFilter::check(const NodeInfo& node) const {
  if (!affinity_keys_.empty()) {
    bool pods_exist = true;
    for (Symbol key : affinity_keys_) {
      if (!node.labels().has(key)) return reasons::affinity;  // every topology key must be on the node
      if (!in_domain(node, key, affinity_)) pods_exist = false;
    }
    // The first pod of a group that matches its own terms may go anywhere the keys exist.
    if (!pods_exist && !(affinity_.empty() && matches_own_affinity_)) return reasons::affinity;
  }
  for (Symbol key : anti_affinity_keys_) {
    if (in_domain(node, key, anti_affinity_)) return reasons::anti_affinity;
  }
  for (const ExistingTermGroup* group : existing_anti_affinity_) {
    const Symbol* value = node.labels().find(group->topology_key);
    if (!value) continue;
    auto it = group->pods_per_domain.find(*value);
    if (it != group->pods_per_domain.end() && it->second > 0) return reasons::existing_anti_affinity;
  }
  return std::nullopt;
}

InterPodAffinityScorer::InterPodAffinityScorer(const ClusterSnapshot& snapshot, const Pod& pod,
                                               const std::vector<NodeId>& feasible) {
  DomainCounts weights;
  const Affinity& affinity = pod.spec.affinity;
  auto add_incoming = [&](const WeightedPodAffinityTerm& w, std::int64_t sign) {
    if (std::optional<PodMatcher> m = matcher_for_term(w.term, pod.meta.namespace_)) {
      count_by_domain(snapshot, snapshot.query(*m), w.term.topology_key, sign * w.weight, weights);
    }
  };
  for (const WeightedPodAffinityTerm& w : affinity.preferred_pod_affinity) add_incoming(w, +1);
  for (const WeightedPodAffinityTerm& w : affinity.preferred_pod_anti_affinity) add_incoming(w, -1);

  const NamespaceLabels& namespaces = snapshot.namespace_labels();
  for (const ExistingTermGroup& group : snapshot.existing_terms()) {
    std::int64_t weight = 0;
    switch (group.kind) {
      case TermKind::RequiredAffinity: weight = kHardPodAffinityWeight; break;
      case TermKind::PreferredAffinity: weight = group.weight; break;
      case TermKind::PreferredAntiAffinity: weight = -group.weight; break;
      case TermKind::RequiredAntiAffinity: continue;  // a filter, not a score
    }
    if (!group.matcher || !group.matcher->matches(pod, namespaces)) continue;
    for (const auto& [value, n] : group.pods_per_domain) weights[{group.topology_key, value}] += weight * n;
  }

  if (weights.empty()) return;
  scores_.assign(feasible.size(), 0);
  // Per topology key, the weight of each domain: a node looks up its own value once per key, rather than
  // testing every domain (there are as many hostname domains as nodes).
  std::vector<std::pair<Symbol, std::unordered_map<Symbol, std::int64_t>>> by_key;
  for (const auto& [domain, w] : weights) {
    auto it = std::find_if(by_key.begin(), by_key.end(), [&](const auto& e) { return e.first == domain.key; });
    if (it == by_key.end()) it = by_key.insert(by_key.end(), {domain.key, {}});
    it->second[domain.value] += w;
  }
  std::int64_t min = std::numeric_limits<std::int64_t>::max();
  std::int64_t max = std::numeric_limits<std::int64_t>::min();
  for (std::size_t f = 0; f < feasible.size(); ++f) {
    const NodeInfo& node = snapshot.node(feasible[f]);
    std::int64_t score = 0;
    for (const auto& [key, per_value] : by_key) {
      const Symbol* value = node.labels().find(key);
      if (!value) continue;
      auto hit = per_value.find(*value);
      if (hit != per_value.end()) score += hit->second;
    }
    scores_[f] = score;
    min = std::min(min, score);
    max = std::max(max, score);
  }
  std::int64_t range = max - min;
  for (std::int64_t& s : scores_) {
    s = range > 0 ? static_cast<std::int64_t>(static_cast<double>(kMaxNodeScore) *
                                              (static_cast<double>(s - min) / static_cast<double>(range)))
                  : 0;
  }
}

}  // namespace scalewright::scheduling
