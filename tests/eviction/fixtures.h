#pragma once
// Pods and PodDisruptionBudgets as the eviction and drain tests build them.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eviction/eviction.h"

namespace scalewright::eviction::fixtures {

inline std::shared_ptr<const Pod> make_pod(const std::string& name, const std::string& owner_kind = "ReplicaSet",
                                           const std::string& ns = "default", const std::string& app = "web") {
  Pod pod;
  pod.meta.name = name;
  pod.meta.namespace_ = ns;
  pod.meta.labels.set(Symbol("app"), Symbol(app));
  if (!owner_kind.empty()) pod.meta.owner_references.push_back({"apps/v1", owner_kind, "owner", "owner-uid", true});
  pod.status.phase = PodPhase::Running;
  return std::make_shared<const Pod>(std::move(pod));
}

inline std::shared_ptr<const Pod> with(std::shared_ptr<const Pod> base, const std::function<void(Pod&)>& edit) {
  Pod pod = *base;
  edit(pod);
  return std::make_shared<const Pod>(std::move(pod));
}

inline PodDisruptionBudget pdb(const std::string& ns, const std::string& app) {
  PodDisruptionBudget b;
  b.meta.name = app + "-pdb";
  b.meta.namespace_ = ns;
  b.selector = LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol(app)}}}};
  return b;
}

// A budget that allows `allowed` disruptions, with no healthy pod counted.
inline PdbBudget budget(PodDisruptionBudget pdb, std::int32_t allowed) {
  PdbBudget b;
  b.pdb = std::move(pdb);
  b.disruptions_allowed = allowed;
  return b;
}

// `base` with its Ready condition set to `status` ("True", "False").
inline std::shared_ptr<const Pod> ready(std::shared_ptr<const Pod> base, const std::string& status) {
  return with(std::move(base), [&](Pod& p) { p.status.conditions.push_back({"Ready", status, ""}); });
}

// web-1 and web-2 Ready, web-3 Running but not Ready: 3 expected, 2 healthy.
struct UnhealthyCase {
  std::shared_ptr<const Pod> web1 = ready(make_pod("web-1"), "True");
  std::shared_ptr<const Pod> web2 = ready(make_pod("web-2"), "True");
  std::shared_ptr<const Pod> web3 = ready(make_pod("web-3"), "False");
  std::vector<PdbBudget> budgets(PodDisruptionBudget b) const {
    return {pdb_budget(b, {web1.get(), web2.get(), web3.get()})};
  }
};

}  // namespace scalewright::eviction::fixtures
