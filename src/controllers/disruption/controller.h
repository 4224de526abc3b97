#pragma once
// Karpenter's disruption controller (pkg/controllers/disruption/controller.go): it only composes. After every change
// it tells each disruption method what changed and runs a pass when one of them is due; a pass runs the methods in
// Karpenter's order, each in its own room:
//  - expiration (expiration.h), whatever else goes on;
//  - then, while no command is in the queue, the first of emptiness (emptiness.h), drift (drift.h) and
//    consolidation (consolidation.h) that disrupts a node: one method acts per pass.
// The commands in flight are the queue's (queue.h: replacements launched, waited for, then the drains), and a
// consolidation command is validated 15 s after it was computed (validation.h). An interruption notice (a spot
// interruption, a scheduled change, an instance stopping...), an observation in the state (the simulator's fault, or
// a poller of the cloud's queue), is acted on at the next reconcile, before anything else (interruption.h). Every
// pass first takes off the karpenter.sh/disrupted taint of a node no command is disrupting and no drain is emptying
// (one a leader that stopped mid-command left), as Karpenter's controller does.
#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/instant.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/consolidation.h"
#include "controllers/disruption/drift.h"
#include "controllers/disruption/emptiness.h"
#include "controllers/disruption/expiration.h"
#include "controllers/disruption/interruption.h"
#include "controllers/disruption/queue.h"
#include "controllers/disruption/types.h"
#include "controllers/disruption/validation.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/termination.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

class DisruptionController : private Controller {
 public:
  // Budget schedules read the wall clock (UTC): `wall_clock_at_start` at time 0.
  DisruptionController(const Ports& ports, TerminationController& termination, ProvisioningController& provisioning,
                       std::chrono::sys_seconds wall_clock_at_start);

  // After every change: what each method keeps, the progress of the command under way, and a pass when one is due.
  void reconcile();
 private:
  // The interruption notices observed since the last look, each acted on once.
  void act_on_interruption_notices(Instant now);
  void look_at_node(const std::string& name, Instant now);
  void schedule_pass(Instant at);
  void on_pass();
  // The nodes that carry karpenter.sh/disrupted while no command disrupts them and no drain empties them.
  std::vector<std::string> stale_disrupted_taints() const;

  TerminationController& termination_;
  CommandQueue queue_;
  CandidateRules rules_;
  ConsolidationCandidates consolidation_candidates_;
  Validation validation_;
  ExpirationMethod expiration_;
  EmptinessMethod emptiness_;
  DriftMethod drift_;
  ConsolidationMethod consolidation_;
  Interruption interruption_;
  const std::vector<DisruptionMethod*> methods_;  // in the order a pass runs them

  state::NodeChanges node_changes_{state_};  // the nodes changed since the last look
  std::uint64_t nodepools_seen_ = ~std::uint64_t{0};  // the NodePools what is kept per node was worked out for
  std::set<std::string> tainted_;  // Ready NodePool nodes carrying karpenter.sh/disrupted, as last looked at
  std::optional<Instant> last_stale_taints_pass_;  // when a pass last found stale taints to take off
  std::optional<Instant> pass_at_;                 // when the pass pending runs
  std::uint64_t notices_seen_ = 0;   // the state's interruption_notices() at the last look
  std::set<std::string> noticed_;    // nodes whose notice was acted on
  TimerId pass_timer_ = 0;
};

}  // namespace scalewright::controllers
