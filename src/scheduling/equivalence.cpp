#include "scheduling/equivalence.h"

#include <algorithm>
#include <unordered_map>

#include "scheduling/pod_query.h"

namespace scalewright::scheduling {
namespace {

std::string text(const LabelRequirement& r) {
  std::vector<std::string> values;
  for (Symbol v : r.values) values.emplace_back(v.str());
  std::sort(values.begin(), values.end());
  std::string out = std::string(r.key.str()) + " " + std::string(to_string(r.op));
  for (const std::string& v : values) out += " " + v;
  return out;
}

std::string text(const NodeSelectorTerm& term) {
  std::string out = "[";
  for (const LabelRequirement& r : term.match_expressions) out += text(r) + ";";
  out += "|";
  for (const LabelRequirement& r : term.match_fields) out += text(r) + ";";
  return out + "]";
}

std::string text(const Labels& labels) {
  std::vector<std::string> entries;
  for (const auto& [k, v] : labels) entries.push_back(std::string(k.str()) + "=" + std::string(v.str()));
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const std::string& e : entries) out += e + ",";
  return out;
}

}  // namespace

std::string static_constraints_key(const Pod& pod) {
  std::string out = "node=" + pod.spec.node_name + " sel=" + text(pod.spec.node_selector) + " req=";
  const Affinity& a = pod.spec.affinity;
  if (a.required_node_affinity) {
    for (const NodeSelectorTerm& t : a.required_node_affinity->terms) out += text(t);
  } else {
    out += "none";
  }
  out += " pref=";
  for (const PreferredSchedulingTerm& t : a.preferred_node_affinity) out += std::to_string(t.weight) + text(t.preference);
  out += " tol=";
  for (const Toleration& t : pod.spec.tolerations) {
    out += t.key + (t.op == TolerationOperator::Exists ? "~" : "=") + t.value + ":" +
           (t.effect ? std::string(to_string(*t.effect)) : std::string("*")) + ";";
  }
  return out;
}

std::string scheduling_key(const Pod& pod) {
  std::string out = static_constraints_key(pod);
  out += " ns=" + pod.meta.namespace_ + " labels=" + text(pod.meta.labels);
  out += " req=" + pod.effective_requests().to_string();
  out += " ports=";
  for (const ContainerPort& p : pod.host_ports()) out += p.protocol + "/" + p.host_ip + ":" + std::to_string(p.host_port) + ",";
  const Affinity& a = pod.spec.affinity;
  auto terms = [&](const char* name, const std::vector<PodAffinityTerm>& list) {
    out += std::string(" ") + name + "=";
    for (const PodAffinityTerm& t : list) out += canonical(t) + ";";
  };
  auto weighted = [&](const char* name, const std::vector<WeightedPodAffinityTerm>& list) {
    out += std::string(" ") + name + "=";
    for (const WeightedPodAffinityTerm& t : list) out += std::to_string(t.weight) + canonical(t.term) + ";";
  };
  terms("aff", a.required_pod_affinity);
  terms("anti", a.required_pod_anti_affinity);
  weighted("paff", a.preferred_pod_affinity);
  weighted("panti", a.preferred_pod_anti_affinity);
  out += " spread=";
  for (const TopologySpreadConstraint& c : pod.spec.topology_spread_constraints) {
    out += std::to_string(c.max_skew) + "/" + std::string(c.topology_key.str()) + "/" +
           (c.when_unsatisfiable == UnsatisfiableConstraintAction::DoNotSchedule ? "D" : "A") + "/" +
           (c.label_selector ? canonical(*c.label_selector) : std::string("nil")) + "/" +
           std::to_string(c.min_domains.value_or(0)) + "/" +
           (c.node_affinity_policy == NodeInclusionPolicy::Honor ? "H" : "I") +
           (c.node_taints_policy == NodeInclusionPolicy::Honor ? "H" : "I") + ";";
    for (const std::string& k : c.match_label_keys) out += k + ",";
  }
  out += " prio=" + std::to_string(pod.priority());
  return out;
}

std::vector<EquivalenceClass> group_equivalent(const std::vector<const Pod*>& pods) {
  std::vector<EquivalenceClass> classes;
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < pods.size(); ++i) {
    std::string key = scheduling_key(*pods[i]);
    auto [it, inserted] = index.emplace(key, classes.size());
    if (inserted) classes.push_back({std::move(key), {}});
    classes[it->second].members.push_back(i);
  }
  return classes;
}

}  // namespace scalewright::scheduling
