#include "controllers/disruption.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "disruption/budgets.h"

namespace scalewright::controllers {

void DisruptionController::reconcile() {
  std::optional<Duration> earliest;
  const Duration now = clock_.now();
  for (const auto& [node, pods] : state_.nominees()) {
    if (!pods.empty()) last_nominated_[node.string()] = now;
  }
  std::erase_if(last_nominated_, [&](const auto& seen) { return seen.second + kNominationGrace <= now; });
  // Rebuilt at every look, so that a node that stopped being empty, left, or was replaced by a namesake starts over.
  std::map<std::string, Duration> empty_since;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase != state::NodePhase::Ready || node.nodepool.empty() || node.busy > 0) continue;
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    if (pool == nullptr || !pool->consolidate_after) continue;
    auto was = empty_since_.find(name);
    const Duration since =
        empty_since.emplace_hint(empty_since.end(), name, was == empty_since_.end() ? now : was->second)->second;
    const Duration due = std::max(since + *pool->consolidate_after, nomination_grace_ends(name));
    if (!earliest || due < *earliest) earliest = due;
  }
  empty_since_ = std::move(empty_since);
  if (earliest) schedule_pass(std::max(*earliest, now));
}

Duration DisruptionController::nomination_grace_ends(const std::string& node) const {
  auto seen = last_nominated_.find(node);
  return seen == last_nominated_.end() ? Duration(0) : seen->second + kNominationGrace;
}

void DisruptionController::schedule_pass(Duration at) {
  if (pass_pending_) return;
  pass_pending_ = true;
  clock_.wake_at(at, [this] {
    pass_pending_ = false;
    on_pass();
  });
}

void DisruptionController::on_pass() {
  const Duration now = clock_.now();
  // Budgets, counted as Karpenter counts them: the NodePool's initialized nodes (Ready, or draining since), of which
  // those draining or NotReady are being disrupted already. A node still launching is neither.
  struct PoolNodes {
    std::int32_t nodes = 0;
    std::int32_t disrupting = 0;
  };
  std::map<std::string, PoolNodes> pool_nodes;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.nodepool.empty()) continue;
    if (node.phase != state::NodePhase::Ready && node.phase != state::NodePhase::Draining) continue;
    PoolNodes& counts = pool_nodes[node.nodepool];
    ++counts.nodes;
    if (node.phase == state::NodePhase::Draining || node.failed_at) ++counts.disrupting;
  }
  const auto wall_clock = wall_clock_at_start_ + std::chrono::floor<std::chrono::seconds>(now);
  std::map<std::string, std::int32_t> allowed;
  for (const auto& [pool_name, counts] : pool_nodes) {
    if (const NodePool* pool = state_.find_nodepool(pool_name)) {
      allowed[pool_name] = disruption::allowed_disruptions(*pool, DisruptionReason::Empty, counts.nodes,
                                                           counts.disrupting, wall_clock);
    }
  }
  std::set<std::string> blocked;
  for (const auto& [name, node] : state_.nodes()) {
    if (node.phase != state::NodePhase::Ready) continue;
    auto since = empty_since_.find(name);
    if (since == empty_since_.end()) continue;
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    if (pool == nullptr || !pool->consolidate_after) continue;
    if (since->second + *pool->consolidate_after > now || nomination_grace_ends(name) > now) continue;
    if (allowed[node.nodepool] <= 0) {
      blocked.insert(node.nodepool);
      continue;
    }
    --allowed[node.nodepool];
    record("removed", fmt::format("node {} empty, removed after {}", name, format_duration(now - since->second)));
    const std::string instance = node.instance_id;
    writer_.delete_node(name);
    if (!instance.empty()) cloud_.terminate(instance);
  }
  // Said on the NodePool once while its budgets keep holding nodes back, in Karpenter's words.
  for (const std::string& pool : blocked) {
    if (budget_blocked_.contains(pool)) continue;
    writer_.object_event({"NodePool", pool, "Normal", "DisruptionBlocked", "Disrupt",
                          "No allowed disruptions for disruption reason Empty due to blocking budget"});
  }
  budget_blocked_ = std::move(blocked);
  if (!budget_blocked_.empty()) schedule_pass(now + kPollPeriod);
}

void DisruptionController::interruption_notice(const std::string& name, Duration notice) {
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr) return;
  record("interruption", fmt::format("spot interruption notice for node {} ({} {}); draining, reclaimed in {}", name,
                                     node->instance_type, node->zone, format_duration(notice)));
  writer_.drain(name);
}

}  // namespace scalewright::controllers
