#pragma once
// Validation (Karpenter's validation.go): a consolidation command is checked again 15 s after it was computed,
// against the cluster as it is then, before anything is done: its nodes must still be candidates, and the command
// for exactly them must still hold (disruption::revalidate, which asks where kube-scheduler would bind the pods).
// It goes ahead as it is found now, or is abandoned with why.
#include "api/instant.h"
#include "controllers/disruption/consolidation.h"
#include "controllers/disruption/queue.h"
#include "controllers/ports.h"

namespace scalewright::controllers {

class Validation : private Controller {
 public:
  // How long after it was computed a command is checked again.
  static constexpr Duration kDelay{15'000};

  Validation(const Ports& ports, const ConsolidationCandidates& candidates, CommandQueue& queue)
      : Controller(ports), candidates_(candidates), queue_(queue) {}

  // The command just put in the queue, computed at `computed_at`, is checked kDelay later.
  void check_later(Instant computed_at);

 private:
  void validate();

  const ConsolidationCandidates& candidates_;
  CommandQueue& queue_;
};

}  // namespace scalewright::controllers
