#pragma once
// Karpenter's disruption controller. One method acts per pass, in Karpenter's order:
//  - emptiness: a NodePool node with no pods but DaemonSet pods, and none planned onto it, is removed after the
//    NodePool's consolidateAfter, at most as many at once as its budgets allow for reason Empty;
//  - drift: a node whose NodePool's template changed since its launch (the template hash Karpenter stamps on its
//    NodeClaim) or whose labels its NodePool's requirements no longer allow is replaced, oldest first, within the
//    budgets for reason Drifted: what its pods need is launched first, and the node drained once that is Ready;
//  - consolidation (consolidationPolicy WhenEmptyOrUnderutilized or Balanced): multi-node, single-node and,
//    beyond Karpenter, a repack onto fewer new nodes, as src/disruption/consolidation.h searches them, within the
//    budgets for reason Underutilized; the command that saves most goes ahead.
// A consolidation command is computed, then checked again 15 s later against the cluster as it is then and
// abandoned if it no longer holds; its nodes are tainted karpenter.sh/disrupted:NoSchedule, a replacement is
// launched and must be Ready before any of them is drained, and the drains go through the eviction API's rules
// (TerminationController: PDBs respected, nothing forced). One command at a time.
// A candidate is Ready, past consolidateAfter since a pod last came or went, not nominated to within 20 s, and
// neither it nor one of its pods says karpenter.sh/do-not-disrupt, nor is one of its pods covered by a
// PodDisruptionBudget that allows no eviction now (said once per node as a DisruptionBlocked event).
// Expiry: a node whose NodePool's expireAfter has passed since its launch is drained and deleted, whatever the
// budgets (Karpenter's expiration is not a disruption method); the NodePool's terminationGracePeriod bounds how long
// its drain waits on PodDisruptionBudgets before the pods left are deleted and the node goes anyway.
// A spot interruption notice taints and drains its node at once (evictions, as any of Karpenter's drains), and the
// capacity its pods need besides the rest of the cluster is launched in parallel, not after the drain: the cloud
// reclaims the instance two minutes later whatever is left on it.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "cloud/cloud_provider.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/static_capacity.h"
#include "controllers/termination.h"
#include "disruption/consolidation.h"
#include "nodegroups/drainability.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

class DisruptionController : private Controller {
 public:
  // How often disruption looks again while something may change (Karpenter's poll period).
  static constexpr Duration kPollPeriod{10'000};
  // A node pods were nominated to this recently is no candidate (Karpenter's rule): in a real cluster its
  // nominations end when it is Ready, a moment before kube-scheduler binds them, and with consolidateAfter 0s it
  // would be removed in between.
  static constexpr Duration kNominationGrace{20'000};
  // A consolidation command is checked again this long after it was computed, before anything is done.
  static constexpr Duration kValidationDelay{15'000};

  // Budget schedules read the wall clock (UTC): `wall_clock_at_start` at time 0.
  DisruptionController(const Ports& ports, TerminationController& termination, ProvisioningController& provisioning,
                       std::chrono::sys_seconds wall_clock_at_start)
      : Controller(ports),
        termination_(termination),
        provisioning_(provisioning),
        wall_clock_at_start_(wall_clock_at_start) {}

  // After every change: which nodes are empty since when, when pods last came or went, the progress of a command
  // under way, and a disruption pass when one is due.
  void reconcile();
  // The cloud warned that `node`'s spot instance is reclaimed in `notice`.
  void interruption_notice(const std::string& node, Duration notice);

 private:
  struct Candidates {
    std::vector<disruption::Candidate> list;
    std::map<std::string, std::string> blocked;  // node -> why it cannot be disrupted now
    std::map<std::string, double> pool_cost;
    std::map<std::string, double> pool_disruption_cost;
    std::optional<Duration> next_due;  // when the next node passes consolidateAfter
  };
  struct Command {
    disruption::Command command;
    std::vector<std::string> nodes;
    Duration computed_at{0};
    enum class Stage { Validating, Replacing, Draining } stage = Stage::Validating;
    std::vector<std::string> replacements;  // the replacements' NodeClaims, once launched
    std::string reason = "Underutilized";   // Karpenter's disruption reason: Underutilized, Drifted
    std::set<std::string> draining;   // nodes whose drain has not ended yet
  };

  void on_pass();
  void schedule_pass(Duration at);
  // Drains the NodePool nodes whose expireAfter has passed.
  void expire_due_nodes(Duration now);
  // Brings what is kept per node (emptiness, pod events, expiry, nominations) up to date for one node.
  void look_at_node(const std::string& name, Duration now);
  // When the node's last nomination stops keeping it from being a candidate (0 when it had none lately).
  Duration nomination_grace_ends(const std::string& node) const;
  // How many more of the NodePool's nodes its budgets allow disrupted now for `reason` (Empty, Underutilized).
  std::int32_t budget_allows(const std::string& pool, DisruptionReason reason) const;
  bool remove_empty_nodes(Duration now);
  Candidates consolidation_candidates(Duration now) const;
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
                                  const std::vector<nodegroups::PdbBudget>& pdbs) const;
  // What a consolidation verdict depends on besides the candidates' own pods (see disruption::ConsolidationMemo).
  std::uint64_t verdict_context() const;
  disruption::ConsolidationInput consolidation_input(Candidates& candidates, scheduling::ClusterSnapshot& cluster,
                                                     Duration now) const;
  void consolidate(Duration now);
  // Provisioning first: while pods are pending or NodeClaims in flight, the cluster is about to change, and what a
  // what-if says of it now would not hold.
  bool cluster_settling() const;
  // What the node's pods need besides the rest of the cluster, as a provisioning plan; `pods` is told how many move.
  provisioning::ProvisioningPlan plan_without(const std::string& node, Duration now, std::size_t& pods) const;
  // Drift: the oldest drifted node within its NodePool's budget for Drifted, replaced by what its pods need.
  bool replace_drifted(Duration now);
  void validate();
  void execute(disruption::Command command);
  void start_drains();
  void abandon(const std::string& why);
  void report_blocked(const std::map<std::string, std::string>& blocked);
  // Why each candidate of a pass that found no command stays (Karpenter's Unconsolidatable), said when it changes.
  void report_unconsolidatable(const std::map<std::string, std::string>& kept);
  // An Event `reason` on each node of `now` whose why is new since `said`, which becomes `now`.
  void say_on_nodes(const std::string& reason, const std::map<std::string, std::string>& now,
                    std::map<std::string, std::string>& said);
  std::string describe(const disruption::Command& command, const std::vector<std::string>& nodes) const;

  TerminationController& termination_;
  ProvisioningController& provisioning_;
  std::chrono::sys_seconds wall_clock_at_start_;
  std::map<std::string, Duration> empty_since_;     // Ready NodePool nodes with nothing to move, since when
  std::map<std::string, Duration> last_nominated_;  // nodes whose nominations ended, when last seen with some
  std::deque<std::pair<Duration, std::string>> nominations_ended_;  // the same, in the order they ended
  std::set<std::string> nominated_;                 // nodes with pods nominated to them at the last look
  Duration last_look_{0};                           // when reconcile last looked
  state::NodeChanges node_changes_{state_};         // the nodes changed since
  std::uint64_t node_nodepools_seen_ = ~std::uint64_t{0};  // the NodePools what is kept per node was worked out for
  std::set<std::pair<Duration, std::string>> expiries_;  // Ready nodes of NodePools with expireAfter, by expiry
  std::map<std::string, Duration> expiry_of_;            // the same, by node
  // Ready nodes of NodePools that consolidate when underutilized (WhenEmptyOrUnderutilized).
  std::set<std::string> underutilized_candidates_;
  // Ready NodePool nodes: their pod count at the last look, and when a pod last came or went (consolidateAfter).
  std::map<std::string, std::pair<std::int32_t, Duration>> pod_events_;
  std::set<std::string> budget_blocked_;            // NodePools whose budgets held an empty node back at the last pass
  Duration empty_held_until_{0};                    // then, when emptiness looks again
  std::map<std::string, std::string> node_blocked_;  // nodes said DisruptionBlocked, with why
  std::map<std::string, std::string> node_kept_;     // nodes said Unconsolidatable, with why
  std::optional<Command> command_;
  std::set<std::string> expiring_;  // nodes expiry is draining
  std::map<std::string, std::string> templates_;  // per NodePool: its template hash and requirements, last seen
  std::uint64_t nodepools_seen_ = ~std::uint64_t{0};
  bool drift_due_ = false;                        // a template changed since a pass last found no drifted node
  std::optional<Duration> last_drift_pass_;
  // The state's counters when a consolidation pass last found nothing to do: no pass until they move or a node
  // passes consolidateAfter.
  std::uint64_t fruitless_at_ = ~std::uint64_t{0};
  std::optional<Duration> next_due_;
  std::set<std::string> abandoned_;               // the nodes of the command abandoned last
  std::uint64_t abandoned_at_ = ~std::uint64_t{0};  // the state's counters then
  std::optional<Duration> last_consolidation_;  // when consolidation last looked for a command
  mutable std::unordered_map<std::string, NodePods> node_pods_;  // per Ready NodePool node, as last read
  disruption::ConsolidationMemo memo_;                          // the searches' verdicts, kept between passes
  std::optional<Duration> pass_at_;  // when the pass pending runs
  TimerId pass_timer_ = 0;
};

}  // namespace scalewright::controllers
