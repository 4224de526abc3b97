#pragma once
// Karpenter's disruption controller, as far as it goes today: emptiness and interruption. A NodePool node with no
// pods but DaemonSet pods, and none planned onto it, is empty; after the NodePool's consolidateAfter it is removed,
// at most as many of a NodePool's nodes at once as its budgets allow for reason Empty, less those being disrupted
// already (disruption::allowed_disruptions; a pass every 10 s while budgets hold some back). A spot interruption
// notice cordons and drains its node at once, so its pods are provisioned elsewhere before the cloud reclaims it.
// Consolidation comes in a later issue, here.
#include <chrono>
#include <map>
#include <set>
#include <string>

#include "cloud/cloud_provider.h"
#include "controllers/ports.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

class DisruptionController : private Controller {
 public:
  // How often disruption looks again when budgets held it back.
  static constexpr Duration kPollPeriod{10'000};
  // A node pods were nominated to this recently is no candidate (Karpenter's rule): in a real cluster its
  // nominations end when it is Ready, a moment before kube-scheduler binds them, and with consolidateAfter 0s it
  // would be removed in between.
  static constexpr Duration kNominationGrace{20'000};

  // Budget schedules read the wall clock (UTC): `wall_clock_at_start` at time 0.
  DisruptionController(const Ports& ports, std::chrono::sys_seconds wall_clock_at_start)
      : Controller(ports), wall_clock_at_start_(wall_clock_at_start) {}

  // After every change: which nodes are empty since when, and a disruption pass when the first is due.
  void reconcile();
  // The cloud warned that `node`'s spot instance is reclaimed in `notice`.
  void interruption_notice(const std::string& node, Duration notice);

 private:
  void on_pass();
  void schedule_pass(Duration at);
  // When the node's last nomination stops keeping it from being a candidate (0 when it had none lately).
  Duration nomination_grace_ends(const std::string& node) const;

  std::chrono::sys_seconds wall_clock_at_start_;
  std::map<std::string, Duration> empty_since_;     // Ready NodePool nodes with nothing to move, since when
  std::map<std::string, Duration> last_nominated_;  // nodes seen with nominated pods, when last
  std::set<std::string> budget_blocked_;            // NodePools whose budgets held an empty node back at the last pass
  bool pass_pending_ = false;
};

}  // namespace scalewright::controllers
