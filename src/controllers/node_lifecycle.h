#pragma once
// A launched node's life until it is Ready: it must register within its limit (15 min for a NodeClaim, as
// Karpenter's registration TTL; --max-node-provision-time for a node group's instance), or it is deleted, its
// instance terminated, and its group backs off.
#include <optional>
#include <string>
#include <unordered_map>

#include "api/instant.h"
#include "cloud/cloud_provider.h"
#include "controllers/ports.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

class ClusterAutoscalerController;

class NodeLifecycleController : private Controller {
 public:
  // Karpenter's registration TTL: a NodeClaim whose node is not Ready by then is given up on.
  static constexpr Duration kRegistrationTtl{15 * 60'000};

  explicit NodeLifecycleController(const Ports& ports) : Controller(ports) {}
  // Where a group's node that never registered is reported (its group backs off).
  void set_node_groups(ClusterAutoscalerController* node_groups) { node_groups_ = node_groups; }

  // `node` was launched (now, or at `since` by an earlier leader): it must be Ready within `limit` of then.
  void launched(const std::string& node, Duration limit, std::optional<Instant> since = std::nullopt);
  // `node` registered and is Ready.
  void registered(const std::string& node);
  // Stops watching nodes that left launching another way (drained or deleted before they registered).
  void reconcile();

 private:
  void on_registration_timeout(const std::string& node, Duration limit);

  ClusterAutoscalerController* node_groups_ = nullptr;
  std::unordered_map<std::string, TimerId> registering_;  // node -> its registration deadline
  std::uint64_t departures_seen_ = 0;                     // the state's node_departures() at the last reconcile
};

}  // namespace scalewright::controllers
