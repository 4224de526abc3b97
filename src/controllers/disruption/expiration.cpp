#include "controllers/disruption/expiration.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace scalewright::controllers {

void ExpirationMethod::look(Instant) {
  std::erase_if(expiring_, [&](const std::string& name) { return !termination_.draining(name); });
  // The controller looks at every node again after a NodePool changed: expiries_ is then as new as the NodePools.
  nodepools_looked_ = state_.nodepool_changes();
}

void ExpirationMethod::look_at_node(const std::string& name, Instant) {
  if (auto was = expiry_of_.find(name); was != expiry_of_.end()) {
    expiries_.erase({was->second, name});
    expiry_of_.erase(was);
  }
  const state::NodeRecord* node = state_.find_node(name);
  const bool ready = node != nullptr && node->phase == state::NodePhase::Ready && !node->nodepool.empty();
  const NodePool* pool = ready ? state_.find_nodepool(node->nodepool) : nullptr;
  if (pool != nullptr && pool->expire_after) {
    const Instant expires = node->launched_at + *pool->expire_after;
    expiry_of_.emplace(name, expires);
    expiries_.emplace(expires, name);
  }
}

std::optional<Instant> ExpirationMethod::next_pass(Instant) const {
  for (const auto& [expires, name] : expiries_) {
    if (!expiring_.contains(name)) return expires;
  }
  return std::nullopt;
}

bool ExpirationMethod::disrupt(Instant now) {
  // The nodes whose expiry the last look found passed (all nodes, if a NodePool changed since), by name.
  std::vector<std::string> candidates;
  if (state_.nodepool_changes() != nodepools_looked_) {
    for (const auto& [name, node] : state_.nodes()) candidates.push_back(name);
  } else {
    for (auto it = expiries_.begin(); it != expiries_.end() && it->first <= now; ++it) candidates.push_back(it->second);
    std::sort(candidates.begin(), candidates.end());
  }
  std::vector<std::string> due;
  for (const std::string& name : candidates) {
    const state::NodeRecord* node = state_.find_node(name);
    if (node == nullptr || node->phase != state::NodePhase::Ready || node->nodepool.empty()) continue;
    if (expiring_.contains(name) || termination_.draining(name)) continue;
    const NodePool* pool = state_.find_nodepool(node->nodepool);
    if (pool == nullptr || !pool->expire_after || node->launched_at + *pool->expire_after > now) continue;
    due.push_back(name);
  }
  for (const std::string& name : due) {
    const state::NodeRecord& node = *state_.find_node(name);
    const NodePool* pool = state_.find_nodepool(node.nodepool);
    record("expired", fmt::format("node {} expired: launched {} ago, its NodePool's expireAfter is {}; draining{}",
                                  name, format_duration(now - node.launched_at), format_duration(*pool->expire_after),
                                  pool->termination_grace_period
                                      ? fmt::format(" within its terminationGracePeriod of {}",
                                                    format_duration(*pool->termination_grace_period))
                                      : std::string()));
    writer_.object_event({"Node", name, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: {}; launched {} ago, its NodePool's expireAfter is {}",
                                      reason(), format_duration(now - node.launched_at),
                                      format_duration(*pool->expire_after))});
    expiring_.insert(name);
    termination_.drain(name, node.nodepool, now, karpenter_drain_rules(pool),
                       [this](const std::string& done, const std::string&, bool) { expiring_.erase(done); });
  }
  return false;
}

}  // namespace scalewright::controllers
