#include "controllers/disruption/emptiness.h"

#include <algorithm>

#include <fmt/format.h>

#include "disruption/consolidation.h"

namespace scalewright::controllers {

void EmptinessMethod::look_at_node(const std::string& name, Instant now) {
  const state::NodeRecord* node = state_.find_node(name);
  const bool ready = node != nullptr && node->phase == state::NodePhase::Ready && !node->nodepool.empty();
  const NodePool* pool = ready ? state_.find_nodepool(node->nodepool) : nullptr;
  // A node that says do-not-disrupt is not removed empty either (consolidation says DisruptionBlocked of it); one
  // that stopped being empty, left, or was replaced by a namesake starts over.
  if (consolidated(pool) && node->busy == 0 && !disruption::says_do_not_disrupt(node->node.meta)) {
    empty_since_.try_emplace(name, now);
  } else {
    empty_since_.erase(name);
  }
}

std::optional<Instant> EmptinessMethod::next_pass(Instant) const {
  // While budgets hold empty nodes back, the next look is a poll period later.
  std::optional<Instant> earliest;
  for (const auto& [name, since] : empty_since_) {
    const state::NodeRecord* node = state_.find_node(name);
    const NodePool* pool = node == nullptr ? nullptr : state_.find_nodepool(node->nodepool);
    if (pool == nullptr || !pool->consolidate_after) continue;  // kept only for such nodes: never so
    const Instant due = std::max({since + *pool->consolidate_after, rules_.nomination_grace_ends(name), held_until_});
    if (!earliest || due < *earliest) earliest = due;
  }
  return earliest;
}

bool EmptinessMethod::disrupt(Instant now) {
  if (now < held_until_) return false;  // budgets held nodes back: the next look is a poll period later
  std::map<std::string, std::int32_t> allowed;
  std::set<std::string> blocked;
  bool removed = false;
  // The empty nodes as the last look found them, by name as the state lists nodes.
  for (auto since = empty_since_.begin(); since != empty_since_.end(); ++since) {
    const std::string& name = since->first;
    const state::NodeRecord* found = state_.find_node(name);
    if (found == nullptr || found->phase != state::NodePhase::Ready) continue;
    const state::NodeRecord& node = *found;
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    if (pool == nullptr || !pool->consolidate_after) continue;
    if (since->second + *pool->consolidate_after > now || rules_.nomination_grace_ends(name) > now) continue;
    auto budget = allowed.find(node.nodepool);
    if (budget == allowed.end()) {
      budget = allowed.emplace(node.nodepool, rules_.budget_allows(node.nodepool, DisruptionReason::Empty)).first;
    }
    if (budget->second <= 0) {
      blocked.insert(node.nodepool);
      continue;
    }
    --budget->second;
    record("removed", fmt::format("node {} empty, removed after {}", name, format_duration(now - since->second)));
    writer_.object_event({"Node", name, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: {}/Delete; empty since {}, its NodePool's consolidateAfter "
                                      "is {}",
                                      reason(), format_time(since->second), format_duration(*pool->consolidate_after))});
    delete_node_and_instance(name);
    removed = true;
  }
  // Said on the NodePool once while its budgets keep holding nodes back, in Karpenter's words.
  for (const std::string& pool : blocked) {
    if (budget_blocked_.contains(pool)) continue;
    writer_.object_event({"NodePool", pool, "Normal", "DisruptionBlocked", "Disrupt",
                          "No allowed disruptions for disruption reason Empty due to blocking budget"});
  }
  budget_blocked_ = std::move(blocked);
  held_until_ = budget_blocked_.empty() ? Instant{} : now + kDisruptionPollPeriod;
  return removed;
}

}  // namespace scalewright::controllers
