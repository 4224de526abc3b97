#include "scheduling/pod_query.h"

#include <algorithm>

namespace scalewright::scheduling {

void NamespaceLabels::set(const std::string& name, Labels labels) { by_name_[name] = std::move(labels); }

Labels NamespaceLabels::labels_of(const std::string& name) const {
  static const Symbol metadata_name("kubernetes.io/metadata.name");
  Labels labels;
  if (auto it = by_name_.find(name); it != by_name_.end()) labels = it->second;
  labels.set(metadata_name, Symbol(name));
  return labels;
}

bool PodMatcher::matches(const Pod& pod, const NamespaceLabels& namespace_labels) const {
  if (skip_terminating && pod.meta.deletion_timestamp) return false;
  if (!all_namespaces) {
    const std::string& ns = pod.meta.namespace_;
    bool listed = std::binary_search(namespaces.begin(), namespaces.end(), ns);
    if (!listed && !(namespace_selector && namespace_selector->matches(namespace_labels.labels_of(ns)))) {
      return false;
    }
  }
  return selector.matches(pod.meta.labels);
}

std::string canonical(const LabelSelector& selector) {
  // Requirements in key order, values sorted: equal selectors however written give equal text. Views, not
  // copies: this runs once per scheduling cycle for every pod with inter-pod terms or spread constraints.
  std::vector<const LabelRequirement*> order;
  order.reserve(selector.requirements.size());
  for (const LabelRequirement& r : selector.requirements) order.push_back(&r);
  std::sort(order.begin(), order.end(), [](const LabelRequirement* a, const LabelRequirement* b) {
    if (a->key.str() != b->key.str()) return a->key.str() < b->key.str();
    if (a->op != b->op) return a->op < b->op;
    return a->values.size() < b->values.size();
  });
  std::string out = "{";
  std::vector<std::string_view> values;
  for (const LabelRequirement* r : order) {
    values.clear();
    for (Symbol v : r->values) values.push_back(v.str());
    std::sort(values.begin(), values.end());
    out += r->key.str();
    out += ' ';
    out += to_string(r->op);
    for (std::string_view v : values) {
      out += ' ';
      out += v;
    }
    out += ';';
  }
  return out + "}";
}

std::string PodMatcher::key() const {
  std::string out = canonical(selector);
  if (all_namespaces) {
    out += " ns=*";
  } else {
    out += " ns=";
    for (const std::string& n : namespaces) out += n + ",";
    if (namespace_selector) out += " nssel=" + canonical(*namespace_selector);
  }
  if (skip_terminating) out += " live";
  return out;
}

std::optional<PodMatcher> matcher_for_term(const PodAffinityTerm& term, const std::string& owner_namespace) {
  if (!term.label_selector) return std::nullopt;
  PodMatcher m;
  m.selector = *term.label_selector;
  m.namespaces = term.namespaces;
  if (term.namespace_selector) {
    if (term.namespace_selector->empty()) {
      m.all_namespaces = true;  // namespaceSelector: {} selects every namespace
    } else {
      m.namespace_selector = term.namespace_selector;
    }
  } else if (m.namespaces.empty()) {
    m.namespaces.push_back(owner_namespace);
  }
  std::sort(m.namespaces.begin(), m.namespaces.end());
  m.namespaces.erase(std::unique(m.namespaces.begin(), m.namespaces.end()), m.namespaces.end());
  return m;
}

std::optional<PodMatcher> matcher_for_spread(const TopologySpreadConstraint& constraint, const Pod& pod) {
  if (!constraint.label_selector) return std::nullopt;
  PodMatcher m;
  m.selector = *constraint.label_selector;
  for (const std::string& key : constraint.match_label_keys) {
    if (const Symbol* value = pod.meta.labels.find(Symbol(key))) {
      m.selector.requirements.push_back({Symbol(key), SelectorOperator::In, {*value}});
    }
  }
  m.namespaces.push_back(pod.meta.namespace_);
  m.skip_terminating = true;
  return m;
}

std::string canonical(const PodAffinityTerm& term) {
  std::string out = term.label_selector ? canonical(*term.label_selector) : std::string("nil");
  out += " ns=";
  for (const std::string& n : term.namespaces) out += n + ",";
  if (term.namespace_selector) out += " nssel=" + canonical(*term.namespace_selector);
  out += " key=" + std::string(term.topology_key.str());
  return out;
}

}  // namespace scalewright::scheduling
