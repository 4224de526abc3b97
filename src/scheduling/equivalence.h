#pragma once
// Equivalence classes of pods. Pods with identical scheduling constraints get identical answers from every
// filter that does not count other pods, so the scheduler computes those once per class; provisioning and
// scale-up estimates group pending pods the same way.
#include <string>
#include <vector>

#include "api/pod.h"

namespace scalewright::scheduling {

// Canonical text of what decides where the pod may run on its own: node name, node selector, node affinity and
// tolerations. Equal keys, equal static verdicts on every node.
std::string static_constraints_key(const Pod& pod);

// Canonical text of everything the scheduler reads from a pod: the static constraints plus namespace, labels,
// requests, host ports, pod (anti-)affinity, topology spread and priority.
std::string scheduling_key(const Pod& pod);

struct EquivalenceClass {
  std::string key;
  std::vector<std::size_t> members;  // indexes into the pods given, in their order
};

// Groups `pods` by scheduling_key, classes in order of first appearance.
std::vector<EquivalenceClass> group_equivalent(const std::vector<const Pod*>& pods);

}  // namespace scalewright::scheduling
