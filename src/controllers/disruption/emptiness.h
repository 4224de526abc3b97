#pragma once
// Emptiness (Karpenter's emptiness.go): a NodePool node with no pods but DaemonSet pods, and none planned onto it, is
// removed after the NodePool's consolidateAfter, at most as many at once as its budgets allow for reason Empty. A
// node that says karpenter.sh/do-not-disrupt is kept. While the budgets hold nodes back, the NodePool says so once
// (DisruptionBlocked) and emptiness looks again a poll period later.
#include <map>
#include <set>
#include <string>

#include "api/instant.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/types.h"
#include "controllers/ports.h"

namespace scalewright::controllers {

class EmptinessMethod : public DisruptionMethod, private Controller {
 public:
  EmptinessMethod(const Ports& ports, const CandidateRules& rules) : Controller(ports), rules_(rules) {}

  std::string_view reason() const override { return "Empty"; }
  void look_at_node(const std::string& name, Instant now) override;
  std::optional<Instant> next_pass(Instant now) const override;
  bool disrupt(Instant now) override;

 private:
  const CandidateRules& rules_;
  std::map<std::string, Instant> empty_since_;   // Ready NodePool nodes with nothing to move, since when
  std::set<std::string> budget_blocked_;         // NodePools whose budgets held an empty node back at the last pass
  Instant held_until_{};                         // then, when emptiness looks again
};

}  // namespace scalewright::controllers
