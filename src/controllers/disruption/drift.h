#pragma once
// Drift (Karpenter's drift.go and staticdrift.go): a node whose NodePool's template changed since its launch (the
// template hash Karpenter stamps on its NodeClaim) or whose labels its NodePool's requirements no longer allow is
// replaced, oldest first, within the budgets for reason Drifted: what its pods need is launched first, and the node
// is drained once that is Ready (the queue carries the command from there). A static NodePool's drifted node is
// replaced by one node from the template, once the NodePool is down to its replicas. Drift is looked for when a
// NodePool's template or requirements changed, and until a pass finds no drifted node.
#include <map>
#include <optional>
#include <string>

#include "api/instant.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/queue.h"
#include "controllers/disruption/types.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/termination.h"

namespace scalewright::controllers {

class DriftMethod : public DisruptionMethod, private Controller {
 public:
  DriftMethod(const Ports& ports, TerminationController& termination, ProvisioningController& provisioning,
              const CandidateRules& rules, CommandQueue& queue)
      : Controller(ports), termination_(termination), provisioning_(provisioning), rules_(rules), queue_(queue) {}

  std::string_view reason() const override { return "Drifted"; }
  void look(Instant now) override;
  std::optional<Instant> next_pass(Instant now) const override;
  // The oldest drifted node within its NodePool's budget for Drifted, replaced by what its pods need.
  bool disrupt(Instant now) override;

 private:
  TerminationController& termination_;
  ProvisioningController& provisioning_;
  const CandidateRules& rules_;
  CommandQueue& queue_;
  std::map<std::string, std::string> templates_;  // per NodePool: its template hash and requirements, last seen
  std::uint64_t nodepools_seen_ = ~std::uint64_t{0};
  std::uint64_t node_classes_seen_ = 0;  // a node class applied: the provider may find instances drifted
  bool due_ = false;  // a template changed since a pass last found no drifted node
  std::optional<Instant> last_pass_;
};

}  // namespace scalewright::controllers
