#include "controllers/disruption/interruption.h"

#include <optional>
#include <vector>

#include <fmt/format.h>

#include "api/wording.h"

namespace scalewright::controllers {

InterruptionWords interruption_words(state::InterruptionKind kind) {
  switch (kind) {
    case state::InterruptionKind::SpotInterruption:
      break;
    case state::InterruptionKind::ScheduledChange:
      return {"InstanceUnhealthy", "scheduled change notice"};
    case state::InterruptionKind::Stopping:
      return {"InstanceStopping", "stopping notice"};
    case state::InterruptionKind::Terminating:
      return {"InstanceTerminating", "terminating notice"};
    case state::InterruptionKind::CapacityReservationInterruption:
      return {"CapacityReservationInstanceInterrupted", "capacity reservation interruption notice"};
  }
  return {"SpotInterrupted", "spot interruption notice"};
}

namespace {

// The Event's message: only a spot warning says when (two minutes ahead); the others are news of the moment.
std::string event_message(state::InterruptionKind kind, Duration notice) {
  switch (kind) {
    case state::InterruptionKind::SpotInterruption:
      break;
    case state::InterruptionKind::ScheduledChange:
      return "A scheduled change (maintenance or retirement) is due on the instance: its node is drained and replaced";
    case state::InterruptionKind::Stopping:
      return "The instance is stopping: its node is drained and replaced";
    case state::InterruptionKind::Terminating:
      return "The instance is shutting down: its node is drained and replaced";
    case state::InterruptionKind::CapacityReservationInterruption:
      return "The instance's capacity reservation takes it back: its node is drained and replaced";
  }
  return fmt::format("Spot interruption warning: the instance is reclaimed in {}", format_duration(notice));
}

}  // namespace

void Interruption::notice(const std::string& name, Duration notice) {
  const state::NodeRecord* node = state_.find_node(name);
  if (node == nullptr) return;
  const Instant now = clock_.now();
  const InterruptionWords words = interruption_words(node->interruption);
  std::string notice_line = fmt::format("{} for node {} ({} {})", words.notice, name, node->instance_type, node->zone);
  if (node->interruption == state::InterruptionKind::SpotInterruption) {
    notice_line += fmt::format(", reclaimed in {}", format_duration(notice));
  }
  writer_.object_event(
      {"Node", name, "Warning", std::string(words.reason), "Disrupt", event_message(node->interruption, notice)});
  // A command that counted on the node no longer holds; one that already drains it goes on.
  queue_.interrupted(name, words.notice);
  if (node->phase != state::NodePhase::Ready || termination_.draining(name)) {
    record("interruption", notice_line + (termination_.draining(name) ? "; its drain goes on" : ""));
    return;
  }
  // The capacity its pods need is launched now, beside the drain, not after it: two minutes are about what a
  // launch takes, and the pods evicted meanwhile are nominated to the replacements as they come.
  std::vector<std::string> replacements;
  std::size_t pods = 0;
  const NodePool* pool = node->nodepool.empty() ? nullptr : state_.find_nodepool(node->nodepool);
  if (pool != nullptr) {
    provisioning::ProvisioningPlan plan = rules_.plan_without(name, now, pods);
    for (provisioning::NewNodeClaim& claim : plan.new_claims) {
      std::optional<std::string> launched = provisioning_.launch_replacement(
          std::move(claim), fmt::format("the pods of interrupted node {}", name));
      if (launched) replacements.push_back(*launched);
    }
  }
  std::string where;  // for a node group's node, nothing: its pods are Cluster Autoscaler's to place
  if (pool != nullptr && replacements.empty()) {
    where = fmt::format(", {} move to the other nodes", plural(pods, "pod"));
  } else if (pool != nullptr) {
    where = fmt::format(", {} move; replacement launched at once: {}", plural(pods, "pod"), joined(replacements));
  }
  record("interruption", fmt::format("{}; draining{}", notice_line, where));
  // Karpenter deletes its node once drained; a node group's instance is the cloud's to take, and its group's to
  // replace (Cluster Autoscaler does nothing of interruptions: the AWS Node Termination Handler drains the node).
  DrainRules rules = karpenter_drain_rules(pool);
  rules.delete_when_drained = pool != nullptr;
  const std::string owner = pool != nullptr ? node->nodepool : node->node_group;
  termination_.drain(name, owner, now, rules, [](const std::string&, const std::string&, bool) {});
}

}  // namespace scalewright::controllers
