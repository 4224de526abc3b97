#pragma once
// The commands in flight (Karpenter's orchestration queue, pkg/controllers/disruption/queue.go): one command at a
// time. A consolidation command waits in it for its validation; once it goes ahead its nodes are tainted
// karpenter.sh/disrupted:NoSchedule, its replacements launched, and when every one of them is Ready its nodes are
// drained through the eviction API's rules (TerminationController: PDBs respected, nothing forced). A replacement
// that does not come up abandons the command: the taints come off, and its nodes sit out while the cluster stays as
// it was.
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/instant.h"
#include "controllers/ports.h"
#include "controllers/provisioning.h"
#include "controllers/termination.h"
#include "disruption/consolidation.h"

namespace scalewright::controllers {

// A command as the queue carries it: what the method computed, the nodes it disrupts, and how far it got.
struct DisruptionCommand {
  disruption::Command command;
  std::vector<std::string> nodes;
  Instant computed_at{};
  enum class Stage { Validating, Replacing, Draining } stage = Stage::Validating;
  std::vector<std::string> replacements;  // the replacements' NodeClaims, once launched
  std::string reason = "Underutilized";   // Karpenter's disruption reason: Underutilized, Drifted
  std::set<std::string> draining;         // nodes whose drain has not ended yet
};

class CommandQueue : private Controller {
 public:
  // Asks the controller for a disruption pass at a time (when a command ends, the next may start).
  using PassRequest = std::function<void(Instant at)>;

  CommandQueue(const Ports& ports, TerminationController& termination, ProvisioningController& provisioning,
               PassRequest request_pass)
      : Controller(ports),
        termination_(termination),
        provisioning_(provisioning),
        request_pass_(std::move(request_pass)) {}

  bool busy() const { return command_.has_value(); }
  // Whether `node` is one of the nodes of the command in the queue.
  bool disrupting(const std::string& node) const;
  // The command in the queue; only while busy().
  DisruptionCommand& command() { return *command_; }
  const DisruptionCommand& command() const { return *command_; }

  // Takes `command` in, as its method computed it (and, for drift, started it).
  DisruptionCommand& add(DisruptionCommand command);
  // Hands the command back out (for validation, which asks as if it were not there); add() puts it back.
  DisruptionCommand take();

  // The validated command goes ahead: its nodes tainted, its replacements launched (or its drains started at once
  // for a delete).
  void execute(disruption::Command command);
  // After every change: once every replacement is Ready the drains start; one that did not come up abandons it.
  void progress();
  void start_drains();
  void abandon(const std::string& why);
  // The cloud will reclaim `node`, as `notice` said ("spot interruption notice"): a command that counted on it and
  // does not drain it yet no longer holds.
  void interrupted(const std::string& node, std::string_view notice);

  // The nodes of the commands abandoned last, while the cluster is as it was then (`fingerprint`); else none.
  const std::set<std::string>& abandoned_while(std::uint64_t fingerprint) const;

 private:
  TerminationController& termination_;
  ProvisioningController& provisioning_;
  PassRequest request_pass_;
  std::optional<DisruptionCommand> command_;
  std::set<std::string> abandoned_;                 // the nodes of the command abandoned last
  std::uint64_t abandoned_at_ = ~std::uint64_t{0};  // the state's counters then
};

// What a command does, for the timeline and Events: "single-node replace 1 node (n1) by one node (...): ...".
std::string describe(const disruption::Command& command, const std::vector<std::string>& nodes);
// Names as a list: "n1, n2".
std::string joined(const std::vector<std::string>& names);

}  // namespace scalewright::controllers
