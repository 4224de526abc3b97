#pragma once
// Consolidation (consolidationPolicy WhenEmptyOrUnderutilized or Balanced; Karpenter's consolidation.go,
// multinodeconsolidation.go and singlenodeconsolidation.go): multi-node, single-node and, beyond Karpenter, a repack
// onto fewer new nodes, as src/disruption/consolidation.h searches them, within the budgets for reason
// Underutilized; the command that saves most goes to the queue, to be validated 15 s later (validation.h).
// A candidate is Ready, past consolidateAfter since a pod last came or went, not nominated to within 20 s, and
// neither it nor one of its pods says karpenter.sh/do-not-disrupt, nor is one of its pods covered by a
// PodDisruptionBudget that allows no eviction now (said once per node as a DisruptionBlocked event).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/instant.h"
#include "controllers/disruption/candidates.h"
#include "controllers/disruption/queue.h"
#include "controllers/disruption/types.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/termination.h"
#include "disruption/consolidation.h"

namespace scalewright::controllers {

class Validation;

// The nodes consolidation may take now, and the input its searches (and the validation of their command) take.
class ConsolidationCandidates : private Controller {
 public:
  ConsolidationCandidates(const Ports& ports, TerminationController& termination,
                          ProvisioningController& provisioning, const CandidateRules& rules, const CommandQueue& queue)
      : Controller(ports), termination_(termination), provisioning_(provisioning), rules_(rules), queue_(queue) {}

  struct Found {
    std::vector<disruption::Candidate> list;
    std::map<std::string, std::string> blocked;  // node -> why it cannot be disrupted now
    std::map<std::string, double> pool_cost;
    std::map<std::string, double> pool_disruption_cost;
    std::optional<Instant> next_due;  // when the next node passes consolidateAfter
  };

  // A node changed: whether its NodePool consolidates it when underutilized, and when a pod last came or went.
  void look_at_node(const std::string& name, Instant now);
  // Whether any Ready node's NodePool consolidates underutilized nodes.
  bool any() const { return !underutilized_.empty(); }
  Found find(Instant now) const;
  disruption::ConsolidationInput input(Found& found, scheduling::ClusterSnapshot& cluster, Instant now) const;

 private:
  TerminationController& termination_;
  ProvisioningController& provisioning_;
  const CandidateRules& rules_;
  const CommandQueue& queue_;
  // Ready nodes of NodePools that consolidate when underutilized (WhenEmptyOrUnderutilized, Balanced).
  std::set<std::string> underutilized_;
  // Ready NodePool nodes: their pod count at the last look, and when a pod last came or went (consolidateAfter).
  std::map<std::string, std::pair<std::int32_t, Instant>> pod_events_;
};

class ConsolidationMethod : public DisruptionMethod, private Controller {
 public:
  ConsolidationMethod(const Ports& ports, ProvisioningController& provisioning, const CandidateRules& rules,
                      ConsolidationCandidates& candidates, CommandQueue& queue, Validation& validation)
      : Controller(ports),
        provisioning_(provisioning),
        rules_(rules),
        candidates_(candidates),
        queue_(queue),
        validation_(validation) {}

  std::string_view reason() const override { return "Underutilized"; }
  void look_at_node(const std::string& name, Instant now) override { candidates_.look_at_node(name, now); }
  // Once the cluster changed since a pass last found nothing, or a node passes consolidateAfter; at most one pass
  // per poll period, as Karpenter polls.
  std::optional<Instant> next_pass(Instant now) const override;
  bool disrupt(Instant now) override;

 private:
  // What a consolidation verdict depends on besides the candidates' own pods (see disruption::ConsolidationMemo).
  std::uint64_t verdict_context() const;
  // An Event `reason` on each node of `now` whose why is new since `said`, which becomes `now`.
  void say_on_nodes(const std::string& reason, const std::map<std::string, std::string>& now,
                    std::map<std::string, std::string>& said);

  ProvisioningController& provisioning_;
  const CandidateRules& rules_;
  ConsolidationCandidates& candidates_;
  CommandQueue& queue_;
  Validation& validation_;
  // The state's counters when a pass last found nothing to do: no pass until they move or a node passes
  // consolidateAfter.
  std::uint64_t fruitless_at_ = ~std::uint64_t{0};
  std::optional<Instant> next_due_;
  std::optional<Instant> last_pass_;                 // when consolidation last looked for a command
  std::map<std::string, std::string> node_blocked_;  // nodes said DisruptionBlocked, with why
  std::map<std::string, std::string> node_kept_;     // nodes said Unconsolidatable, with why
  disruption::ConsolidationMemo memo_;               // the searches' verdicts, kept between passes
};

}  // namespace scalewright::controllers
