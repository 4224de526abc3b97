#include "controllers/node_repair.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace scalewright::controllers {

NodeRepairController::NodeRepairController(const Ports& ports, bool enabled)
    : Controller(ports), enabled_(enabled) {
  if (enabled_) policies_ = ports.cloud.repair_policies();  // a provider's constant answer, asked once
}

std::optional<NodeRepairController::Unhealthy> NodeRepairController::unhealthy(const state::NodeRecord& node) const {
  std::optional<Unhealthy> first;
  for (const cloud::RepairStatement& statement : policies_) {
    auto condition = std::find_if(node.node.conditions.begin(), node.node.conditions.end(),
                                  [&](const NodeCondition& c) { return c.type == statement.condition_type; });
    if (condition == node.node.conditions.end() || condition->status != statement.condition_status) continue;
    auto since = node.condition_since.find(statement.condition_type);
    const Instant from = since != node.condition_since.end() ? since->second : node.launched_at;
    const Instant due = from + statement.toleration;
    if (!first || due < first->due) first = Unhealthy{&statement, from, due};
  }
  return first;
}

void NodeRepairController::wake_at(Instant at) {
  if (wake_ && wake_->first == at) return;
  if (wake_) clock_.cancel(wake_->second);
  const TimerId timer = clock_.wake_at(at, [this] {
    wake_.reset();
    reconcile();
  });
  wake_ = std::pair(at, timer);
}

void NodeRepairController::reconcile() {
  if (!enabled_ || policies_.empty()) return;
  const Instant now = clock_.now();
  struct PoolHealth {
    int nodes = 0;
    int unhealthy = 0;
  };
  std::map<std::string, PoolHealth, std::less<>> health;
  std::vector<std::pair<std::string, Unhealthy>> due;
  std::optional<Instant> next;
  for (const auto& [name, node] : state_.nodes()) {
    // A NodeClaim's registered node; one being drained or deleted is on its way out already.
    if (node.nodepool.empty() || node.phase != state::NodePhase::Ready) continue;
    PoolHealth& pool = health[node.nodepool];
    ++pool.nodes;
    const std::optional<Unhealthy> found = unhealthy(node);
    if (!found) continue;
    ++pool.unhealthy;
    if (found->due > now) {
      next = next ? std::min(*next, found->due) : found->due;
    } else {
      due.emplace_back(name, *found);
    }
  }
  std::erase_if(blocked_, [&](const std::string& name) {
    return std::none_of(due.begin(), due.end(), [&](const auto& d) { return d.first == name; });
  });
  for (const auto& [name, found] : due) {
    const state::NodeRecord& node = *state_.find_node(name);
    PoolHealth& pool = health[node.nodepool];
    // 20 % of the NodePool's nodes, rounded up: of three nodes, one may be repaired.
    const int allowed = (pool.nodes * kAllowedUnhealthyPercent + 99) / 100;
    const cloud::RepairStatement& statement = *found.statement;
    if (pool.unhealthy > allowed) {
      if (blocked_.insert(name).second) {
        const std::string why = fmt::format("{} of the {} nodes of NodePool {} are unhealthy, more than {} %",
                                            pool.unhealthy, pool.nodes, node.nodepool, kAllowedUnhealthyPercent);
        record("repair-blocked", fmt::format("node {} not repaired: {}", name, why));
        writer_.object_event({"Node", name, "Warning", "NodeRepairBlocked", "Repair", "Cannot repair node: " + why});
      }
      continue;
    }
    record("repair", fmt::format("node {} repaired: its {} condition has been {} for {} (NodePool {}; the cloud "
                                 "provider tolerates {}); deleted without a drain and its instance terminated",
                                 name, statement.condition_type, statement.condition_status,
                                 format_duration(now - found.since), node.nodepool,
                                 format_duration(statement.toleration)));
    writer_.object_event({"Node", name, "Warning", "Unhealthy", "Repair",
                          fmt::format("Repairing node: {} has been {} for {}", statement.condition_type,
                                      statement.condition_status, format_duration(now - found.since))});
    --pool.nodes;
    --pool.unhealthy;
    blocked_.erase(name);
    delete_node_and_instance(name);
  }
  if (next) wake_at(*next);
}

}  // namespace scalewright::controllers
