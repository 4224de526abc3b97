#pragma once
// What every disruption method asks of a node before it disrupts it, in one place (Karpenter's disruption.Candidate
// and helpers.go): whether pods were nominated to it lately, whether it or one of its pods forbids disrupting it,
// how many of its NodePool's nodes the budgets let go now, whether the cluster is still settling, and what its pods
// would need besides the rest of the cluster.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/instant.h"
#include "controllers/disruption/queue.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/termination.h"
#include "eviction/eviction.h"
#include "provisioning/provisioner.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

// Whether the NodePool's nodes are consolidated (removed empty, or as underutilized): it sets consolidateAfter, and
// is not static (a static NodePool's consolidation fields are ignored).
bool consolidated(const NodePool* pool);

class CandidateRules : private Controller {
 public:
  // A node pods were nominated to this recently is no candidate (Karpenter's rule): in a real cluster its
  // nominations end when it is Ready, a moment before kube-scheduler binds them, and with consolidateAfter 0s it
  // would be removed in between.
  static constexpr Duration kNominationGrace{20'000};

  // Budget schedules read the wall clock (UTC): `wall_clock_at_start` at time 0.
  CandidateRules(const Ports& ports, TerminationController& termination, ProvisioningController& provisioning,
                 const CommandQueue& queue, std::chrono::sys_seconds wall_clock_at_start)
      : Controller(ports),
        termination_(termination),
        provisioning_(provisioning),
        queue_(queue),
        wall_clock_at_start_(wall_clock_at_start) {}

  // A node changed (or every node, after a NodePool changed): whether pods are nominated to it, and, when it is
  // gone or going, it leaves what was read of its pods.
  void look_at_node(const std::string& name);
  // The end of a look at time `now`: nominations that ended a grace period ago are forgotten.
  void looked(Instant now);
  // When the node's last nomination stops keeping it from being a candidate (0 when it had none lately).
  Instant nomination_grace_ends(const std::string& node) const;

  // How many more of the NodePool's nodes its budgets allow disrupted now for `reason`.
  std::int32_t budget_allows(const std::string& pool, DisruptionReason reason) const;

  // What consolidation reads of a node's pods, kept while they stay as they were (NodeRecord::pod_changes), so
  // that a pass reads only the nodes whose pods changed since the last one.
  struct NodePods {
    std::uint64_t serial = 0;   // the snapshot's node (a namesake, or the node put back with new taints, is another)
    std::uint64_t version = 0;  // its pod_changes then
    std::vector<std::shared_ptr<const Pod>> movable;  // the pods that must run elsewhere (needs_another_node)
    std::vector<Symbol> classes;                       // their scheduling classes
    ResourceList requests;                             // theirs, summed
    double eviction_cost = 0;                          // theirs, summed
    // The first of them that says karpenter.sh/do-not-disrupt (an index into movable), or npos.
    std::size_t do_not_disrupt = std::string::npos;
  };
  const NodePods& node_pods(const state::NodeRecord& node, scheduling::NodeId id) const;
  // Why `node` may not be disrupted now (do-not-disrupt on it or a pod, a pod the eviction API would refuse), or
  // empty.
  std::string why_not_disruptable(const state::NodeRecord& node, scheduling::NodeId id,
                                  const std::vector<eviction::PdbBudget>& pdbs) const;

  // Provisioning first: while pods are pending or NodeClaims in flight, the cluster is about to change, and what a
  // what-if says of it now would not hold.
  bool cluster_settling() const;
  // What the node's pods need besides the rest of the cluster, as a provisioning plan; `pods` is told how many move.
  provisioning::ProvisioningPlan plan_without(const std::string& node, Instant now, std::size_t& pods) const;

 private:
  TerminationController& termination_;
  ProvisioningController& provisioning_;
  const CommandQueue& queue_;
  std::chrono::sys_seconds wall_clock_at_start_;
  std::map<std::string, Instant> last_nominated_;  // nodes whose nominations ended, when last seen with some
  std::deque<std::pair<Instant, std::string>> nominations_ended_;  // the same, in the order they ended
  std::set<std::string> nominated_;                 // nodes with pods nominated to them at the last look
  Instant last_look_{};                             // when the last look was
  mutable std::unordered_map<std::string, NodePods> node_pods_;  // per Ready NodePool node, as last read
};

}  // namespace scalewright::controllers
