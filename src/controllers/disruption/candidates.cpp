#include "controllers/disruption/candidates.h"

#include <algorithm>

#include <fmt/format.h>

#include "eviction/eviction.h"
#include "disruption/budgets.h"
#include "disruption/consolidation.h"

namespace scalewright::controllers {

bool consolidated(const NodePool* pool) {
  return pool != nullptr && pool->consolidate_after && !pool->is_static();
}

void CandidateRules::look_at_node(const std::string& name) {
  // A node with pods nominated to it was last nominated now; one whose nominations ended since the last look, then.
  if (state_.nominees().contains(Symbol(name))) {
    nominated_.insert(name);
  } else if (nominated_.erase(name) > 0) {
    last_nominated_[name] = last_look_;
    nominations_ended_.emplace_back(last_look_, name);
  }
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->phase != state::NodePhase::Ready) node_pods_.erase(name);
}

void CandidateRules::looked(Instant now) {
  last_look_ = now;
  // Nominations that ended a grace period ago are forgotten, oldest first (a node nominated again since keeps its
  // later time).
  while (!nominations_ended_.empty() && nominations_ended_.front().first + kNominationGrace <= now) {
    const auto& [at, name] = nominations_ended_.front();
    if (auto seen = last_nominated_.find(name); seen != last_nominated_.end() && seen->second == at) {
      last_nominated_.erase(seen);
    }
    nominations_ended_.pop_front();
  }
}

Instant CandidateRules::nomination_grace_ends(const std::string& node) const {
  if (nominated_.contains(node)) return last_look_ + kNominationGrace;
  auto seen = last_nominated_.find(node);
  return seen == last_nominated_.end() ? Instant{} : seen->second + kNominationGrace;
}

std::int32_t CandidateRules::budget_allows(const std::string& pool_name, DisruptionReason reason) const {
  const NodePool* pool = state_.find_nodepool(pool_name);
  if (pool == nullptr) return 0;
  // Counted as Karpenter counts them: the NodePool's initialized nodes (Ready, or draining since), of which those
  // draining, NotReady or taken by the command under way are being disrupted already. A node still launching is
  // neither.
  std::int32_t nodes = 0;
  std::int32_t disrupting = 0;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.nodepool != pool_name) continue;
    if (node.phase != state::NodePhase::Ready && node.phase != state::NodePhase::Draining) continue;
    ++nodes;
    if (node.phase == state::NodePhase::Draining || node.failed_at || queue_.disrupting(name) ||
        termination_.draining(name)) {
      ++disrupting;
    }
  }
  const auto wall_clock = wall_clock_at_start_ + std::chrono::floor<std::chrono::seconds>(since_start(clock_.now()));
  return disruption::allowed_disruptions(*pool, reason, nodes, disrupting, wall_clock);
}

const CandidateRules::NodePods& CandidateRules::node_pods(const state::NodeRecord& node, scheduling::NodeId id) const {
  const scheduling::NodeInfo& info = state_.snapshot().node(id);
  auto [it, added] = node_pods_.try_emplace(node.name());
  NodePods& known = it->second;
  if (!added && known.serial == info.serial && known.version == node.pod_changes) return known;
  known = NodePods{};
  known.serial = info.serial;
  known.version = node.pod_changes;
  for (const scheduling::PlacedPod& placed : info.pods) {
    const Pod& pod = *placed.pod;
    if (!disruption::needs_another_node(pod)) continue;
    if (known.do_not_disrupt == std::string::npos && disruption::says_do_not_disrupt(pod.meta)) {
      known.do_not_disrupt = known.movable.size();
    }
    known.movable.push_back(placed.pod);
    known.classes.push_back(placed.scheduling_class);
    known.requests += placed.requests;
    known.eviction_cost += disruption::eviction_cost(pod);
  }
  return known;
}

std::string CandidateRules::why_not_disruptable(const state::NodeRecord& node, scheduling::NodeId id,
                                                const std::vector<eviction::PdbBudget>& pdbs) const {
  if (disruption::says_do_not_disrupt(node.node.meta)) return "Node has \"karpenter.sh/do-not-disrupt\" annotation";
  if (id == scheduling::kNoNode) return "";
  const NodePods& pods = node_pods(node, id);
  // The pods in their order on the node, the first that forbids it saying why: up to the first that says
  // do-not-disrupt, the eviction API's own answer now (a pod it would refuse keeps the node: Karpenter's pdb check).
  const std::size_t asked = std::min(pods.do_not_disrupt, pods.movable.size());
  for (std::size_t i = 0; i < asked && !pdbs.empty(); ++i) {
    const Pod& pod = *pods.movable[i];
    const eviction::EvictionVerdict verdict = eviction::may_evict(pod, pdbs);
    if (verdict.outcome == eviction::EvictionOutcome::RefusedByBudget) {
      return fmt::format("PDB \"{}\" prevents pod evictions", pdbs[*verdict.budget].pdb.meta.key());
    }
    if (verdict.outcome == eviction::EvictionOutcome::MoreThanOneBudget) {
      return fmt::format("Pod \"{}\" is covered by more than one PDB", pod.meta.key());
    }
  }
  if (asked < pods.movable.size()) {
    return fmt::format("Pod \"{}\" has \"karpenter.sh/do-not-disrupt\" annotation",
                       pods.movable[asked]->meta.key());
  }
  return "";
}

bool CandidateRules::cluster_settling() const {
  // A pod the provisioner found no NodePool for (its verdict published) waits for a change of its own, not for
  // capacity: it does not count, or one pod that fits nowhere would stop drift and consolidation for good.
  for (const auto& [key, pod] : state_.unbound()) {
    if (!pod->daemon && !provisioning_.said_unschedulable(*pod)) return true;
  }
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase == state::NodePhase::Launching) return true;
  }
  return false;
}

// A provisioning plan without the node, on a what-if that ends before anything is done.
provisioning::ProvisioningPlan CandidateRules::plan_without(const std::string& name, Instant now,
                                                            std::size_t& pods) const {
  state::ClusterState::WhatIf what_if(state_);
  scheduling::ClusterSnapshot& snapshot = what_if.snapshot();
  provisioning::ProvisioningInput input;
  describe_cluster(state_, cloud_, input);
  if (const scheduling::NodeId id = snapshot.find_node(name); id != scheduling::kNoNode) {
    for (const scheduling::PlacedPod& placed : snapshot.node(id).pods) {
      const Pod& pod = *placed.pod;
      if (!disruption::needs_another_node(pod)) continue;
      auto copy = std::make_shared<Pod>(pod);
      copy->spec.node_name.clear();
      input.pending.push_back(std::move(copy));
      ++pods;
    }
    snapshot.remove_node(id);
  }
  input.cluster = &snapshot;
  input.unavailable = &provisioning_.unavailable();
  input.now = now;
  return provisioning::plan_provisioning(input);
}

}  // namespace scalewright::controllers
