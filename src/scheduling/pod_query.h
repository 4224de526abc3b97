#pragma once
// Which pods a selector-and-namespace question is about: an inter-pod affinity term, or a topology spread
// constraint, seen from the pod that carries it. Queries are registered with the snapshot, which then keeps a
// per-node count of matching pods up to date as pods come and go, so a scheduling cycle reads counts instead
// of walking every pod in the cluster.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/pod.h"

namespace scalewright::scheduling {

// Namespace labels, for affinity terms with a namespaceSelector. Every namespace also carries
// kubernetes.io/metadata.name=<name>, as the API server sets it.
class NamespaceLabels {
 public:
  void set(const std::string& name, Labels labels);
  Labels labels_of(const std::string& name) const;

 private:
  std::map<std::string, Labels> by_name_;
};

// One pod-matching condition: a label selector over a set of namespaces.
struct PodMatcher {
  LabelSelector selector;
  bool all_namespaces = false;
  std::vector<std::string> namespaces;          // explicit names (sorted)
  std::optional<LabelSelector> namespace_selector;
  bool skip_terminating = false;  // topology spread ignores pods being deleted; affinity does not

  bool matches(const Pod& pod, const NamespaceLabels& namespaces) const;
  std::string key() const;  // canonical text: equal keys match the same pods
};

// The matcher for an affinity term of a pod in `owner_namespace`; nullopt when the term's selector is absent
// (such a term matches no pod).
std::optional<PodMatcher> matcher_for_term(const PodAffinityTerm& term, const std::string& owner_namespace);

// The matcher for a spread constraint of `pod`: its selector (plus matchLabelKeys taken from the pod's own
// labels) in the pod's namespace; nullopt when the selector is absent.
std::optional<PodMatcher> matcher_for_spread(const TopologySpreadConstraint& constraint, const Pod& pod);

std::string canonical(const LabelSelector& selector);
std::string canonical(const PodAffinityTerm& term);

}  // namespace scalewright::scheduling
