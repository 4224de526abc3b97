#include "cli/validation.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "provisioning/instance_types.h"
#include "provisioning/nodeclaim_builder.h"
#include "sim/promql_subset.h"
#include "workloads/keda.h"

namespace scalewright::cli {

std::optional<Error> check_scaled_objects(const ManifestSet& objects, bool simulated) {
  for (const ScaledObject& so : objects.scaled_objects) {
    // KEDA's messages start with the object ("ScaledObject default/q: ..."); the origin names it already.
    const std::string keda_prefix = "ScaledObject " + so.meta.key() + ": ";
    // KEDA's rules as the simulator models its scalers: a trigger type it does not simulate (kafka, say) has
    // rules of its own there, so `check` leaves them to the warning the decoder gives.
    for (std::string problem : simulated ? workloads::scaled_object_problems(so) : std::vector<std::string>{}) {
      if (problem.starts_with(keda_prefix)) problem.erase(0, keda_prefix.size());
      return Error{objects.locate("ScaledObject", so.meta, "") + ": " + problem};
    }
    for (std::size_t i = 0; i < so.triggers.size(); ++i) {
      if (so.triggers[i].type != "prometheus") continue;
      auto query = so.triggers[i].metadata.find("query");
      if (query == so.triggers[i].metadata.end()) continue;  // the decoder refuses it
      const std::string field = "spec.triggers[" + std::to_string(i) + "].metadata.query";
      Result<sim::PromQuery> parsed = sim::parse_promql(query->second);
      if (!parsed) return Error{objects.locate("ScaledObject", so.meta, field) + ": " + parsed.error().message};
      if (simulated && parsed->metric != "http_requests_total") {
        return Error{objects.locate("ScaledObject", so.meta, field) +
                     ": the simulator serves http_requests_total (a request counter per loaded workload), not " +
                     parsed->metric};
      }
    }
  }
  return std::nullopt;
}

std::optional<Error> check_nodepools(const ManifestSet& objects, const cloud::Catalog& catalog) {
  provisioning::InstanceTypeIndex base(catalog, nullptr, Duration(0));
  std::map<const cloud::NodeClass*, std::pair<cloud::Catalog, std::unique_ptr<provisioning::InstanceTypeIndex>>> shaped;
  for (const NodePool& pool : objects.nodepools) {
    provisioning::InstanceTypeIndex* index = &base;
    const cloud::Catalog* types = &catalog;
    auto named = std::find_if(objects.node_classes.begin(), objects.node_classes.end(),
                              [&](const cloud::NodeClassPtr& c) { return c->reference() == pool.node_class; });
    if (named != objects.node_classes.end()) {
      auto [it, added] = shaped.try_emplace(named->get());
      if (added) {
        it->second.first = (*named)->shape(catalog);
        it->second.second = std::make_unique<provisioning::InstanceTypeIndex>(it->second.first, nullptr, Duration(0));
      }
      types = &it->second.first;
      index = it->second.second.get();
    } else if (pool.node_class.group == "karpenter.k8s.aws") {
      continue;
    }
    // The provisioner's own view of the NodePool (provisioning::nodepool_info): the types it could launch.
    if (!provisioning::nodepool_info(pool, *index).types.empty()) continue;
    // None: name the requirement after which nothing is left, the last of the shortest run of them, as written,
    // that already leaves no type.
    NodePool so_far = pool;
    so_far.requirements.clear();
    for (std::size_t r = 0; r < pool.requirements.size(); ++r) {
      so_far.requirements.push_back(pool.requirements[r]);
      if (!provisioning::nodepool_info(so_far, *index).types.empty()) continue;
      const LabelRequirement& requirement = pool.requirements[r].requirement;
      return Error{objects.locate("NodePool", pool.meta,
                                  "spec.template.spec.requirements[" + std::to_string(r) + "]") +
                   ": no instance type of region " + types->region() + " satisfies " +
                   std::string(requirement.key.str()) + " " + ValueSet::from(requirement).to_string() +
                   " together with the requirements before it, so the NodePool could never launch a node"};
    }
  }
  return std::nullopt;
}

}  // namespace scalewright::cli
