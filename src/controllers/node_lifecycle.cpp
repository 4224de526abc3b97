#include "controllers/node_lifecycle.h"

#include <fmt/format.h>

#include "controllers/cluster_autoscaler_controller.h"

namespace scalewright::controllers {

void NodeLifecycleController::launched(const std::string& node, Duration limit, std::optional<Instant> since) {
  registering_[node] = clock_.wake_at(since.value_or(clock_.now()) + limit,
                                      [this, node, limit] { on_registration_timeout(node, limit); });
}

void NodeLifecycleController::registered(const std::string& name) {
  if (auto it = registering_.find(name); it != registering_.end()) {
    clock_.cancel(it->second);
    registering_.erase(it);
  }
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr) return;
  const Instant now = clock_.now();
  if ((!node->nodepool.empty() || !node->node_group.empty()) && now > node->launched_at) {
    record("ready", fmt::format("node {} Ready ({} after launch)", name, format_duration(now - node->launched_at)));
  }
}

void NodeLifecycleController::reconcile() {
  if (state_.node_departures() == departures_seen_) return;
  departures_seen_ = state_.node_departures();
  std::erase_if(registering_, [&](const auto& entry) {
    if (state_.in_flight(entry.first)) return false;
    clock_.cancel(entry.second);
    return true;
  });
}

void NodeLifecycleController::on_registration_timeout(const std::string& name, Duration limit) {
  registering_.erase(name);
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr || node->phase != state::NodePhase::Launching) return;
  const std::string group = node->node_group;
  record("registration-timeout", fmt::format("{} {} did not become Ready within {}; deleted",
                                             group.empty() ? "NodeClaim" : "node", name, format_duration(limit)));
  delete_node_and_instance(name);
  if (!group.empty() && node_groups_ != nullptr) node_groups_->provisioning_failed(group, "FailedToRegister");
}

}  // namespace scalewright::controllers
