#pragma once
// Karpenter's static provisioning and deprovisioning (its StaticCapacity feature): a NodePool with spec.replicas
// keeps exactly that many nodes, whether or not pods need them.
//  - Missing nodes are launched from the NodePool's template alone (the cheapest offering its requirements allow),
//    within limits.nodes, which counts every node of the NodePool there is (running, being disrupted or deleted).
//  - Extra nodes go, NodeClaims not launched yet first, then empty nodes, then those whose pods cost least to move;
//    a node with pods is drained as expiry drains it (PodDisruptionBudgets waited on, no disruption budget), since a
//    change of replicas is the user's own.
// A node being disrupted (tainted karpenter.sh/disrupted, or draining) does not count as running, so its replacement
// is launched; one tainted but not draining yet (a drift command's) does count toward the launches, as Karpenter
// counts nodes pending disruption. The provisioner never launches for a static NodePool, and disruption never
// consolidates one.
#include <map>
#include <optional>
#include <string>

#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/termination.h"

namespace scalewright::controllers {

// A static NodePool's nodes as Karpenter's NodePool state counts them.
struct StaticNodeCount {
  std::int64_t running = 0;             // launching or Ready, not being disrupted
  std::int64_t pending_disruption = 0;  // tainted karpenter.sh/disrupted, not draining yet
  std::int64_t present = 0;             // every node of the NodePool not terminated: what limits.nodes counts
};
StaticNodeCount count_static_nodes(const state::ClusterState& state, const TerminationController& termination,
                                   const std::string& nodepool);

class StaticCapacityController : private Controller {
 public:
  StaticCapacityController(const Ports& ports, ProvisioningController& provisioning, TerminationController& termination)
      : Controller(ports), provisioning_(provisioning), termination_(termination) {}

  // After every change: each static NodePool brought to its replicas.
  void reconcile();

 private:
  void scale_up(const NodePool& pool, const StaticNodeCount& count);
  void scale_down(const NodePool& pool, std::int64_t extra);

  ProvisioningController& provisioning_;
  TerminationController& termination_;
  std::map<std::string, std::string> said_;  // per NodePool: why it last held back, said once
  bool retry_due_ = false;                   // a launch found no offering: look again once the cache lets go
  std::uint64_t seen_ = ~std::uint64_t{0};   // the state's counters when last reconciled
};

}  // namespace scalewright::controllers
