#pragma once
// What provisioning reads from a pending pod, with its preferences treated as requirements (Karpenter's way:
// a preference is honoured on new capacity until the pod cannot be placed, then relaxed one at a time).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/pod.h"
#include "api/requirements.h"
#include "provisioning/pending_pods.h"
#include "scheduling/pod_query.h"

namespace scalewright::provisioning {

// A pod-to-pod constraint of the incoming pod: a topology spread constraint, an affinity or an anti-affinity
// term, each over one topology key.
struct TopologyTerm {
  enum class Kind : std::uint8_t { Spread, Affinity, AntiAffinity };
  Kind kind = Kind::Spread;
  Symbol key;
  std::int32_t max_skew = 1;
  std::optional<std::int32_t> min_domains;
  std::optional<scheduling::PodMatcher> matcher;  // nullopt: the selector is absent and matches no pod
  bool honor_node_affinity = true;  // spread: count only where the pod itself could run (nodeAffinityPolicy)
  bool honor_taints = false;        // spread: count only where the pod tolerates the taints (nodeTaintsPolicy)

  // "topology spread on "topology.kubernetes.io/zone"", for reasons.
  std::string describe() const;
};

struct PodConstraints {
  Pod pod;  // preferences written as requirements, for the scheduler's filters on existing nodes
  ResourceList requests;  // of the pod these were built from (classes sharing them keep their own)
  // The node requirements new capacity must meet, one alternative per ORed required node selector term, each
  // with the node selector and the preferred node affinity terms. Empty when no new node can match.
  std::vector<RequirementSet> requirements;
  // The same without the preferred terms: the domains the pod may run in, for topology counting.
  std::vector<RequirementSet> strict;
  std::vector<TopologyTerm> terms;
  std::vector<ContainerPort> host_ports;
  // No zonal spread or affinity term: once new or existing capacity rejects the pod, it rejects every later pod
  // of the same kind too, since capacity only fills up and claims only narrow.
  bool monotone = true;
  std::string static_key;  // scheduling::static_constraints_key of the pod as given
};

// The constraints of `pod`, its preferences treated as requirements.
PodConstraints constraints_of(const Pod& pod);
// PodConstraints::pod alone: `pod` with its preferences required, as the scheduler's filters see it.
Pod scheduler_pod(const Pod& pod);
// True when relax(pod) has something left to drop (without copying the pod).
bool relaxable(const Pod& pod);

// True when the two pods have the same scheduling constraints (everything scheduling::scheduling_key reads but
// requests, which callers compare themselves), without building the key: consecutive pods of one workload are
// recognised cheaply.
// Labels are compared on `label_keys` only (sorted), or all of them when it is null.
bool same_scheduling_constraints(const Pod& a, const Pod& b, const std::vector<Symbol>* label_keys = nullptr);

// The label keys any of these pods' spread or pod (anti-)affinity selectors read, or that the snapshot's
// existing pods' affinity terms read, sorted: pods that differ only in other labels are placed alike.
std::vector<Symbol> selector_label_keys(const PendingPods& pods,
                                        const std::vector<const LabelSelector*>& more = {});
// `labels` restricted to `keys` (sorted).
Labels only_keys(const Labels& labels, const std::vector<Symbol>& keys);

// `pod` with one preference less, in Karpenter's order: preferred pod anti-affinity terms, then preferred pod
// affinity terms, then preferred node affinity terms (the lowest weight first in each), then ScheduleAnyway
// spread constraints. nullopt when nothing is left to relax.
std::optional<Pod> relax(const Pod& pod);

}  // namespace scalewright::provisioning
