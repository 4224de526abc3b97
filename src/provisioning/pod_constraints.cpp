#include "provisioning/pod_constraints.h"

#include <algorithm>

#include "scheduling/equivalence.h"

namespace scalewright::provisioning {
namespace {

// A term that can describe a new node: match expressions only (matchFields name existing nodes).
bool usable_for_new_nodes(const NodeSelectorTerm& term) {
  return term.match_fields.empty() && !term.match_expressions.empty();
}

std::vector<RequirementSet> required_alternatives(const Pod& pod) {
  const RequirementSet base = RequirementSet::from_labels(pod.spec.node_selector);
  std::vector<RequirementSet> out;
  const auto& required = pod.spec.affinity.required_node_affinity;
  if (!required) {
    out.push_back(base);
    return out;
  }
  for (const NodeSelectorTerm& term : required->terms) {
    if (!usable_for_new_nodes(term)) continue;
    RequirementSet alternative = base.intersect(RequirementSet::from_term(term));
    if (!alternative.unsatisfiable()) out.push_back(std::move(alternative));
  }
  return out;
}

template <typename Terms>
std::size_t lowest_weight(const Terms& terms) {
  std::size_t at = 0;
  for (std::size_t i = 1; i < terms.size(); ++i) {
    if (terms[i].weight < terms[at].weight) at = i;
  }
  return at;
}

bool same_term(const PodAffinityTerm& a, const PodAffinityTerm& b) {
  return a.topology_key == b.topology_key && a.label_selector == b.label_selector && a.namespaces == b.namespaces &&
         a.namespace_selector == b.namespace_selector;
}

bool same_terms(const std::vector<PodAffinityTerm>& a, const std::vector<PodAffinityTerm>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_term);
}

bool same_weighted(const std::vector<WeightedPodAffinityTerm>& a, const std::vector<WeightedPodAffinityTerm>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const auto& x, const auto& y) {
    return x.weight == y.weight && same_term(x.term, y.term);
  });
}

bool same_spread(const TopologySpreadConstraint& a, const TopologySpreadConstraint& b) {
  return a.max_skew == b.max_skew && a.topology_key == b.topology_key &&
         a.when_unsatisfiable == b.when_unsatisfiable && a.label_selector == b.label_selector &&
         a.min_domains == b.min_domains && a.node_affinity_policy == b.node_affinity_policy &&
         a.node_taints_policy == b.node_taints_policy && a.match_label_keys == b.match_label_keys;
}

bool same_labels(const Labels& a, const Labels& b, const std::vector<Symbol>* keys) {
  if (keys == nullptr) return a == b;
  auto relevant = [keys](const Labels::Entry& e) { return std::binary_search(keys->begin(), keys->end(), e.first); };
  auto x = a.begin();
  auto y = b.begin();
  while (true) {
    while (x != a.end() && !relevant(*x)) ++x;
    while (y != b.end() && !relevant(*y)) ++y;
    if (x == a.end() || y == b.end()) return x == a.end() && y == b.end();
    if (*x != *y) return false;
    ++x;
    ++y;
  }
}

void add_keys(const LabelSelector& selector, std::vector<Symbol>& out) {
  for (const LabelRequirement& r : selector.requirements) out.push_back(r.key);
}

}  // namespace

Labels only_keys(const Labels& labels, const std::vector<Symbol>& keys) {
  Labels out;
  for (const auto& [key, value] : labels) {
    if (std::binary_search(keys.begin(), keys.end(), key)) out.set(key, value);
  }
  return out;
}

std::vector<Symbol> selector_label_keys(const PendingPods& pods, const std::vector<const LabelSelector*>& more) {
  std::vector<Symbol> out;
  for (const LabelSelector* selector : more) add_keys(*selector, out);
  for (const Pod& pod : pods) {
    for (const TopologySpreadConstraint& c : pod.spec.topology_spread_constraints) {
      if (c.label_selector) add_keys(*c.label_selector, out);
      for (const std::string& key : c.match_label_keys) out.emplace_back(key);
    }
    const Affinity& a = pod.spec.affinity;
    for (const auto* terms : {&a.required_pod_affinity, &a.required_pod_anti_affinity}) {
      for (const PodAffinityTerm& t : *terms) {
        if (t.label_selector) add_keys(*t.label_selector, out);
      }
    }
    for (const auto* terms : {&a.preferred_pod_affinity, &a.preferred_pod_anti_affinity}) {
      for (const WeightedPodAffinityTerm& t : *terms) {
        if (t.term.label_selector) add_keys(*t.term.label_selector, out);
      }
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool same_scheduling_constraints(const Pod& a, const Pod& b, const std::vector<Symbol>* label_keys) {
  const PodSpec& x = a.spec;
  const PodSpec& y = b.spec;
  const Affinity& p = x.affinity;
  const Affinity& q = y.affinity;
  return a.meta.namespace_ == b.meta.namespace_ && same_labels(a.meta.labels, b.meta.labels, label_keys) &&
         x.node_name == y.node_name &&
         x.node_selector == y.node_selector && a.priority() == b.priority() && x.tolerations == y.tolerations &&
         p.required_node_affinity == q.required_node_affinity &&
         std::equal(p.preferred_node_affinity.begin(), p.preferred_node_affinity.end(),
                    q.preferred_node_affinity.begin(), q.preferred_node_affinity.end(),
                    [](const auto& m, const auto& n) { return m.weight == n.weight && m.preference == n.preference; }) &&
         same_terms(p.required_pod_affinity, q.required_pod_affinity) &&
         same_terms(p.required_pod_anti_affinity, q.required_pod_anti_affinity) &&
         same_weighted(p.preferred_pod_affinity, q.preferred_pod_affinity) &&
         same_weighted(p.preferred_pod_anti_affinity, q.preferred_pod_anti_affinity) &&
         std::equal(x.topology_spread_constraints.begin(), x.topology_spread_constraints.end(),
                    y.topology_spread_constraints.begin(), y.topology_spread_constraints.end(), same_spread) &&
         a.host_ports() == b.host_ports();
}

std::string TopologyTerm::describe() const {
  std::string what;
  switch (kind) {
    case Kind::Spread: what = "topology spread"; break;
    case Kind::Affinity: what = "pod affinity"; break;
    case Kind::AntiAffinity: what = "pod anti-affinity"; break;
  }
  return what + " on \"" + std::string(key.str()) + "\"";
}

Pod scheduler_pod(const Pod& original) {
  Pod out = original;
  Affinity& a = out.spec.affinity;
  if (!a.preferred_node_affinity.empty()) {
    if (!a.required_node_affinity) a.required_node_affinity = NodeSelector{{NodeSelectorTerm{}}};
    for (NodeSelectorTerm& term : a.required_node_affinity->terms) {
      for (const PreferredSchedulingTerm& preferred : a.preferred_node_affinity) {
        const NodeSelectorTerm& p = preferred.preference;
        term.match_expressions.insert(term.match_expressions.end(), p.match_expressions.begin(),
                                      p.match_expressions.end());
        term.match_fields.insert(term.match_fields.end(), p.match_fields.begin(), p.match_fields.end());
      }
    }
    a.preferred_node_affinity.clear();
  }
  for (const WeightedPodAffinityTerm& w : a.preferred_pod_affinity) a.required_pod_affinity.push_back(w.term);
  for (const WeightedPodAffinityTerm& w : a.preferred_pod_anti_affinity) a.required_pod_anti_affinity.push_back(w.term);
  a.preferred_pod_affinity.clear();
  a.preferred_pod_anti_affinity.clear();
  for (TopologySpreadConstraint& c : out.spec.topology_spread_constraints) {
    c.when_unsatisfiable = UnsatisfiableConstraintAction::DoNotSchedule;
  }
  return out;
}

PodConstraints constraints_of(const Pod& original) {
  PodConstraints out;
  {
    // Preferences are relaxed away level by level; what identifies the pod's node constraints must not change.
    Pod key_pod;
    key_pod.spec.node_name = original.spec.node_name;
    key_pod.spec.node_selector = original.spec.node_selector;
    key_pod.spec.affinity.required_node_affinity = original.spec.affinity.required_node_affinity;
    key_pod.spec.tolerations = original.spec.tolerations;
    out.static_key = scheduling::static_constraints_key(key_pod);
  }
  out.requests = original.effective_requests();
  out.host_ports = original.host_ports();
  out.strict = required_alternatives(original);

  // Preferred node affinity narrows every alternative; a preference that names existing nodes or nothing at all
  // cannot be met by a new node.
  const Affinity& affinity = original.spec.affinity;
  out.requirements = out.strict;
  for (const PreferredSchedulingTerm& preferred : affinity.preferred_node_affinity) {
    if (!usable_for_new_nodes(preferred.preference)) {
      out.requirements.clear();
      break;
    }
    const RequirementSet extra = RequirementSet::from_term(preferred.preference);
    for (RequirementSet& alternative : out.requirements) alternative = alternative.intersect(extra);
  }
  // A requirement naming particular hosts can only be met by existing nodes: new nodes get names of their own.
  static const std::string hostname(well_known::hostname);
  auto names_hosts = [](const RequirementSet& r) {
    const ValueSet* hosts = r.find(hostname);
    return hosts != nullptr && !hosts->is_complement();
  };
  std::erase_if(out.requirements,
                [&](const RequirementSet& r) { return r.unsatisfiable() || names_hosts(r); });

  // The pod the scheduler sees: the same preferences, required.
  out.pod = scheduler_pod(original);
  const Affinity& a = out.pod.spec.affinity;

  const std::string& ns = out.pod.meta.namespace_;
  for (const TopologySpreadConstraint& c : out.pod.spec.topology_spread_constraints) {
    TopologyTerm term;
    term.kind = TopologyTerm::Kind::Spread;
    term.key = c.topology_key;
    term.max_skew = c.max_skew;
    term.min_domains = c.min_domains;
    term.matcher = scheduling::matcher_for_spread(c, out.pod);
    term.honor_node_affinity = c.node_affinity_policy == NodeInclusionPolicy::Honor;
    term.honor_taints = c.node_taints_policy == NodeInclusionPolicy::Honor;
    out.terms.push_back(std::move(term));
  }
  auto add_terms = [&](const std::vector<PodAffinityTerm>& terms, TopologyTerm::Kind kind) {
    for (const PodAffinityTerm& t : terms) {
      TopologyTerm term;
      term.kind = kind;
      term.key = t.topology_key;
      term.matcher = scheduling::matcher_for_term(t, ns);
      out.terms.push_back(std::move(term));
    }
  };
  add_terms(a.required_pod_affinity, TopologyTerm::Kind::Affinity);
  add_terms(a.required_pod_anti_affinity, TopologyTerm::Kind::AntiAffinity);
  // Anti-affinity only ever rules out more as pods arrive, and so does spread over hostnames (a new host is
  // always possible, so its minimum stays 0). Spread over zones and affinity can admit a pod later.
  static const Symbol hostname_key(well_known::hostname);
  out.monotone = std::all_of(out.terms.begin(), out.terms.end(), [](const TopologyTerm& t) {
    return t.kind == TopologyTerm::Kind::AntiAffinity ||
           (t.kind == TopologyTerm::Kind::Spread && t.key == hostname_key);
  });
  return out;
}

bool relaxable(const Pod& pod) {
  const Affinity& a = pod.spec.affinity;
  return !a.preferred_pod_anti_affinity.empty() || !a.preferred_pod_affinity.empty() ||
         !a.preferred_node_affinity.empty() ||
         std::any_of(pod.spec.topology_spread_constraints.begin(), pod.spec.topology_spread_constraints.end(),
                     [](const TopologySpreadConstraint& c) {
                       return c.when_unsatisfiable == UnsatisfiableConstraintAction::ScheduleAnyway;
                     });
}

std::optional<Pod> relax(const Pod& pod) {
  Pod out = pod;
  Affinity& a = out.spec.affinity;
  if (!a.preferred_pod_anti_affinity.empty()) {
    a.preferred_pod_anti_affinity.erase(a.preferred_pod_anti_affinity.begin() +
                                        static_cast<std::ptrdiff_t>(lowest_weight(a.preferred_pod_anti_affinity)));
    return out;
  }
  if (!a.preferred_pod_affinity.empty()) {
    a.preferred_pod_affinity.erase(a.preferred_pod_affinity.begin() +
                                   static_cast<std::ptrdiff_t>(lowest_weight(a.preferred_pod_affinity)));
    return out;
  }
  if (!a.preferred_node_affinity.empty()) {
    a.preferred_node_affinity.erase(a.preferred_node_affinity.begin() +
                                    static_cast<std::ptrdiff_t>(lowest_weight(a.preferred_node_affinity)));
    return out;
  }
  auto& spread = out.spec.topology_spread_constraints;
  auto anyway = std::find_if(spread.begin(), spread.end(), [](const TopologySpreadConstraint& c) {
    return c.when_unsatisfiable == UnsatisfiableConstraintAction::ScheduleAnyway;
  });
  if (anyway != spread.end()) {
    spread.erase(anyway);
    return out;
  }
  return std::nullopt;
}

}  // namespace scalewright::provisioning
