#include "provisioning/daemon_overhead.h"

#include <algorithm>

namespace scalewright::provisioning {

DaemonOverhead::DaemonOverhead(const std::vector<Workload>& daemonsets, InstanceTypeIndex& types) : types_(types) {
  for (const Workload& ds : daemonsets) {
    if (ds.kind != WorkloadKind::DaemonSet) continue;
    const Pod pod = ds.make_pod(0);
    Daemon daemon;
    daemon.requests = pod.effective_requests();
    daemon.tolerations = pod.spec.tolerations;
    const RequirementSet base = RequirementSet::from_labels(pod.spec.node_selector);
    std::vector<RequirementSet> terms;
    if (const auto& required = pod.spec.affinity.required_node_affinity) {
      for (const NodeSelectorTerm& term : required->terms) {
        if (!term.match_fields.empty() || term.match_expressions.empty()) continue;
        terms.push_back(base.intersect(RequirementSet::from_term(term)));
      }
    } else {
      terms.push_back(base);
    }
    const std::size_t index = daemons_.size();
    for (RequirementSet& term : terms) {
      if (alternatives_.size() == 64) break;
      daemon.bits |= std::uint64_t{1} << alternatives_.size();
      alternatives_.push_back({index, std::move(term)});
    }
    daemons_.push_back(std::move(daemon));
  }

  // The type side: every key some type labels must allow that type's value (or its absence).
  std::vector<TypeSet> allowed;
  allowed.reserve(alternatives_.size());
  for (const Alternative& alternative : alternatives_) {
    TypeSet set(types_.size(), true);
    for (const auto& [key, values] : alternative.requirements.keys()) {
      if (is_offering_key(key) || !types_.labelled(key)) continue;
      set &= types_.matching(key, values);
    }
    allowed.push_back(std::move(set));
  }
  type_mask_.assign(types_.size(), 0);
  for (std::size_t t = 0; t < types_.size(); ++t) {
    for (std::size_t a = 0; a < alternatives_.size(); ++a) {
      if (allowed[a].test(t)) type_mask_[t] |= std::uint64_t{1} << a;
    }
  }
}

std::uint64_t DaemonOverhead::claim_mask(const RequirementSet& requirements, const std::vector<Taint>& taints) const {
  std::uint64_t mask = 0;
  for (std::size_t a = 0; a < alternatives_.size(); ++a) {
    const Alternative& alternative = alternatives_[a];
    const Daemon& daemon = daemons_[alternative.daemon];
    const bool tolerated = std::all_of(taints.begin(), taints.end(), [&](const Taint& taint) {
      return taint.effect == TaintEffect::PreferNoSchedule || tolerates_all(daemon.tolerations, taint);
    });
    if (!tolerated || !alternative.requirements.compatible(requirements)) continue;
    // A key neither the claim nor any type defines must be allowed to be absent.
    const bool defined = std::all_of(
        alternative.requirements.keys().begin(), alternative.requirements.keys().end(), [&](const auto& entry) {
          const std::string& key = entry.first;
          return requirements.has(key) || is_offering_key(key) || types_.labelled(key) ||
                 entry.second.allows_absent();
        });
    if (defined) mask |= std::uint64_t{1} << a;
  }
  return mask;
}

const ResourceList& DaemonOverhead::requests(std::uint64_t claim_mask, std::size_t type) {
  const std::uint64_t landing = claim_mask & type_mask_[type];
  // Type after type of one claim, the same DaemonSets land: the last answer is usually the next.
  if (last_ != nullptr && landing == last_landing_) return *last_;
  auto it = by_mask_.find(landing);
  if (it != by_mask_.end()) {
    last_landing_ = landing;
    last_ = &it->second;
    return it->second;
  }
  ResourceList total;
  for (const Daemon& daemon : daemons_) {
    if (landing & daemon.bits) total += daemon.requests;
  }
  return by_mask_.emplace(landing, std::move(total)).first->second;
}

}  // namespace scalewright::provisioning
