#pragma once
// Interruption (karpenter-provider-aws's interruption controller, not one of Karpenter's disruption methods: it
// acts on a notice the moment it comes, not in a pass): the node is tainted and drained at once (evictions, as any
// of Karpenter's drains), and the capacity its pods need besides the rest of the cluster is launched in parallel,
// not after the drain: a spot instance is reclaimed two minutes later whatever is left on it. A command in the
// queue that counted on the node no longer holds. The Event on the node names what the cloud said.
#include <string>
#include <string_view>

#include "controllers/disruption/candidates.h"
#include "controllers/disruption/queue.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/termination.h"

namespace scalewright::controllers {

// How an interruption is named: its Event's reason, as karpenter-provider-aws names each kind (SpotInterrupted,
// InstanceUnhealthy for a scheduled change, InstanceStopping, InstanceTerminating,
// CapacityReservationInstanceInterrupted), and what its notice is called in the timeline ("spot interruption notice").
struct InterruptionWords {
  std::string_view reason;
  std::string_view notice;
};
InterruptionWords interruption_words(state::InterruptionKind kind);

class Interruption : private Controller {
 public:
  Interruption(const Ports& ports, TerminationController& termination, ProvisioningController& provisioning,
               const CandidateRules& rules, CommandQueue& queue)
      : Controller(ports), termination_(termination), provisioning_(provisioning), rules_(rules), queue_(queue) {}

  // The cloud warned that `node`'s instance is taken back in `notice`, for the reason its record says.
  void notice(const std::string& node, Duration notice);

 private:
  TerminationController& termination_;
  ProvisioningController& provisioning_;
  const CandidateRules& rules_;
  CommandQueue& queue_;
};

}  // namespace scalewright::controllers
