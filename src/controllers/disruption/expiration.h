#pragma once
// Expiry: a node whose NodePool's expireAfter has passed since its launch is drained and deleted, whatever the
// budgets and whatever command is under way (Karpenter's expiration is not a disruption method: it lives in
// nodeclaim/expiration); the NodePool's terminationGracePeriod bounds how long its drain waits on
// PodDisruptionBudgets before the pods left are deleted and the node goes anyway.
#include <map>
#include <set>
#include <string>

#include "api/instant.h"
#include "controllers/disruption/types.h"
#include "controllers/ports.h"
#include "controllers/termination.h"

namespace scalewright::controllers {

class ExpirationMethod : public DisruptionMethod, private Controller {
 public:
  ExpirationMethod(const Ports& ports, TerminationController& termination)
      : Controller(ports), termination_(termination) {}

  std::string_view reason() const override { return "Expired"; }
  bool takes_turns() const override { return false; }
  void look(Instant now) override;
  void look_at_node(const std::string& name, Instant now) override;
  std::optional<Instant> next_pass(Instant now) const override;
  // Drains the NodePool nodes whose expireAfter has passed; never ends the turn.
  bool disrupt(Instant now) override;

 private:
  TerminationController& termination_;
  std::set<std::pair<Instant, std::string>> expiries_;   // Ready nodes of NodePools with expireAfter, by expiry
  std::map<std::string, Instant> expiry_of_;             // the same, by node
  std::set<std::string> expiring_;                       // nodes expiry is draining
  std::uint64_t nodepools_looked_ = ~std::uint64_t{0};   // the NodePools expiries_ was worked out for
};

}  // namespace scalewright::controllers
