#include "controllers/disruption/drift.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "eviction/eviction.h"
#include "api/wording.h"
#include "controllers/static_capacity.h"
#include "disruption/consolidation.h"
#include "disruption/drift.h"

namespace scalewright::controllers {

void DriftMethod::look(Instant) {
  if (state_.nodepool_changes() == nodepools_seen_) return;
  nodepools_seen_ = state_.nodepool_changes();
  std::map<std::string, std::string> templates;
  for (const auto& [name, pool] : state_.nodepools()) {
    templates.emplace(name, pool.hash() + "\n" + pool.requirement_set().to_string());
  }
  if (templates != templates_) {
    templates_ = std::move(templates);
    due_ = true;
  }
  if (state_.node_class_changes() != node_classes_seen_) {
    node_classes_seen_ = state_.node_class_changes();
    due_ = true;
  }
}

std::optional<Instant> DriftMethod::next_pass(Instant now) const {
  if (!due_) return std::nullopt;
  return last_pass_ ? std::max(now, *last_pass_ + kDisruptionPollPeriod) : now;
}

bool DriftMethod::disrupt(Instant now) {
  if (!due_) return false;
  last_pass_ = now;
  if (rules_.cluster_settling()) return false;  // looked at again a poll period later
  struct Drifted {
    const state::NodeRecord* node;
    std::string reason;  // NodePoolDrifted, RequirementsDrifted, or the provider's own ("AMIDrift", ...)
  };
  std::vector<Drifted> drifted;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase != state::NodePhase::Ready || node.nodepool.empty() || termination_.draining(name)) continue;
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    if (pool == nullptr) continue;
    if (std::optional<disruption::DriftReason> reason =
            disruption::drifted(*pool, node.nodepool_hash, node.node.meta.labels, node.nodepool_hash_version)) {
      drifted.push_back({&node, std::string(disruption::to_string(*reason))});
      continue;
    }
    // Then the provider's checks, as Karpenter asks its CloudProvider; one it cannot answer now is not drifted now.
    const cloud::CloudResult<std::string> provider_reason =
        cloud_.is_drifted({name, node.instance_id, pool, &node.node.meta.labels});
    if (provider_reason && !provider_reason->empty()) drifted.push_back({&node, *provider_reason});
  }
  if (drifted.empty()) {
    due_ = false;
    return false;
  }
  // Oldest first, as Karpenter replaces drifted nodes.
  std::stable_sort(drifted.begin(), drifted.end(),
                   [](const Drifted& a, const Drifted& b) { return a.node->launched_at < b.node->launched_at; });
  const std::vector<eviction::PdbBudget> pdbs = eviction::pdb_budgets(state_.snapshot(), state_.pdbs());
  for (const Drifted& d : drifted) {
    const state::NodeRecord& node = *d.node;
    const std::string name = node.name();
    if (rules_.nomination_grace_ends(name) > now) continue;
    if (!rules_.why_not_disruptable(node, state_.snapshot().find_node(name), pdbs).empty()) continue;
    if (rules_.budget_allows(node.nodepool, DisruptionReason::Drifted) <= 0) continue;
    std::size_t pods = 0;
    provisioning::ProvisioningPlan plan;
    if (const NodePool* pool = state_.find_nodepool(node.nodepool); pool->is_static()) {
      // Karpenter's static drift: one node from the template for one, once the NodePool is down to its replicas
      // and while limits.nodes leaves room for the replacement beside it.
      const StaticNodeCount count = count_static_nodes(state_, termination_, node.nodepool);
      const bool limited = std::find(pool->limited_resources.begin(), pool->limited_resources.end(),
                                     nodes_resource()) != pool->limited_resources.end();
      if (count.running + count.pending_disruption > *pool->replicas) continue;
      if (limited && count.present + 1 > pool->limits.get(nodes_resource())) continue;
      const cloud::CloudResult<const cloud::Catalog*> types = cloud_.instance_types(*pool);
      if (!types) continue;
      std::optional<provisioning::NewNodeClaim> claim =
          provisioning::template_claim(*pool, **types, &provisioning_.unavailable(), now);
      if (!claim) continue;
      plan.new_claims.push_back(std::move(*claim));
      if (const scheduling::NodeId id = state_.snapshot().find_node(name); id != scheduling::kNoNode) {
        for (const scheduling::PlacedPod& placed : state_.snapshot().node(id).pods) {
          if (disruption::needs_another_node(*placed.pod)) ++pods;
        }
      }
    } else {
      plan = rules_.plan_without(name, now, pods);
      if (!plan.unschedulable.empty()) continue;  // its pods would have nowhere to go: kept, as Karpenter keeps it
    }
    DisruptionCommand command;
    command.reason = std::string(reason());
    command.nodes = {name};
    command.computed_at = now;
    command.command.method = disruption::Method::Drift;
    command.command.decision = plan.new_claims.empty() ? disruption::Decision::Delete : disruption::Decision::Replace;
    command.command.candidates = {0};
    command.command.pods = pods;
    command.command.price_before = node.price_per_hour;
    DisruptionCommand& queued = queue_.add(std::move(command));
    writer_.set_taint(name, disrupted_taint(), true);
    writer_.object_event({"Node", name, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: {}/{}; {}, {}", reason(),
                                      plan.new_claims.empty() ? "Delete" : "Replace", d.reason,
                                      plan.new_claims.empty() ? "its pods fit on the other nodes"
                                                              : plural(plan.new_claims.size(), "replacement"))});
    for (provisioning::NewNodeClaim& claim : plan.new_claims) {
      std::optional<std::string> launched = provisioning_.launch_replacement(
          std::move(claim), fmt::format("the replacement of drifted node {}", name));
      if (launched) queued.replacements.push_back(*launched);
    }
    record("drift", fmt::format("node {} drifted ({}): {}, {} move", name, d.reason,
                                queued.replacements.empty()
                                    ? std::string("its pods fit on the other nodes")
                                    : fmt::format("replaced by {}", joined(queued.replacements)),
                                plural(pods, "pod")));
    if (queued.replacements.size() < plan.new_claims.size()) {
      queue_.abandon("not every replacement could be launched");
    } else if (queued.replacements.empty()) {
      queue_.start_drains();
    } else {
      queued.stage = DisruptionCommand::Stage::Replacing;
    }
    return true;
  }
  return false;
}

}  // namespace scalewright::controllers
