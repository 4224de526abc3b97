#include "controllers/disruption/controller.h"

#include <algorithm>

#include <fmt/format.h>

namespace scalewright::controllers {
namespace {

bool carries_disrupted_taint(const state::NodeRecord& node) {
  return std::any_of(node.node.taints.begin(), node.node.taints.end(),
                     [](const Taint& t) { return t.key == disrupted_taint().key; });
}

}  // namespace

DisruptionController::DisruptionController(const Ports& ports, TerminationController& termination,
                                           ProvisioningController& provisioning,
                                           std::chrono::sys_seconds wall_clock_at_start)
    : Controller(ports),
      termination_(termination),
      queue_(ports, termination, provisioning, [this](Instant at) { schedule_pass(at); }),
      rules_(ports, termination, provisioning, queue_, wall_clock_at_start),
      consolidation_candidates_(ports, termination, provisioning, rules_, queue_),
      validation_(ports, consolidation_candidates_, queue_),
      expiration_(ports, termination),
      emptiness_(ports, rules_),
      drift_(ports, termination, provisioning, rules_, queue_),
      consolidation_(ports, provisioning, rules_, consolidation_candidates_, queue_, validation_),
      interruption_(ports, termination, provisioning, rules_, queue_),
      methods_{&expiration_, &emptiness_, &drift_, &consolidation_} {}

void DisruptionController::reconcile() {
  const Instant now = clock_.now();
  act_on_interruption_notices(now);
  for (DisruptionMethod* method : methods_) method->look(now);
  // What is kept per node moves only for the nodes that changed; a NodePool applied or deleted changes what its
  // nodes are due for, and all are looked at again.
  for (const std::string& name : node_changes_.take()) look_at_node(name, now);
  if (state_.nodepool_changes() != nodepools_seen_) {
    nodepools_seen_ = state_.nodepool_changes();
    for (const auto& [name, node] : state_.nodes()) look_at_node(name, now);
  }
  rules_.looked(now);
  queue_.progress();

  std::optional<Instant> earliest;
  const auto due = [&](std::optional<Instant> at) {
    if (at && (!earliest || *at < *earliest)) earliest = at;
  };
  if (!stale_disrupted_taints().empty()) {
    due(last_stale_taints_pass_ ? std::max(now, *last_stale_taints_pass_ + kDisruptionPollPeriod) : now);
  }
  // While a command is under way, the methods that take turns are due when it ends (a pass then would do nothing,
  // and be due again at once).
  for (const DisruptionMethod* method : methods_) {
    if (!method->takes_turns() || !queue_.busy()) due(method->next_pass(now));
  }
  if (earliest) schedule_pass(std::max(*earliest, now));
}

void DisruptionController::act_on_interruption_notices(Instant now) {
  if (state_.interruption_notices() == notices_seen_) return;
  notices_seen_ = state_.interruption_notices();
  std::erase_if(noticed_, [&](const std::string& name) { return state_.find_node(name) == nullptr; });
  for (const auto& [name, node] : state_.nodes()) {
    if (!node.reclaimed_at || noticed_.contains(name)) continue;
    noticed_.insert(name);
    interruption_.notice(name, std::max(*node.reclaimed_at - now, Duration(0)));
  }
}

void DisruptionController::look_at_node(const std::string& name, Instant now) {
  rules_.look_at_node(name);
  for (DisruptionMethod* method : methods_) method->look_at_node(name, now);
  const state::NodeRecord* node = state_.find_node(name);
  if (node != nullptr && node->phase == state::NodePhase::Ready && !node->nodepool.empty() &&
      carries_disrupted_taint(*node)) {
    tainted_.insert(name);
  } else {
    tainted_.erase(name);
  }
}

std::vector<std::string> DisruptionController::stale_disrupted_taints() const {
  std::vector<std::string> stale;
  for (const std::string& name : tainted_) {
    // As the node is now: a pass can come before the look at what changed in the same instant (a drain that ended).
    const state::NodeRecord* node = state_.find_node(name);
    if (node == nullptr || node->phase != state::NodePhase::Ready || !carries_disrupted_taint(*node)) continue;
    if (!queue_.disrupting(name) && !termination_.draining(name)) stale.push_back(name);
  }
  return stale;
}

void DisruptionController::schedule_pass(Instant at) {
  // One pass pending at a time, the earliest asked for (an expiry weeks away must not hold back a pass due now).
  if (pass_at_) {
    if (*pass_at_ <= at) return;
    clock_.cancel(pass_timer_);
  }
  pass_at_ = at;
  pass_timer_ = clock_.wake_at(at, [this] {
    pass_at_.reset();
    on_pass();
  });
}

void DisruptionController::on_pass() {
  const Instant now = clock_.now();
  // A leader that stopped mid-command left its taints: no command here will finish what it started.
  if (const std::vector<std::string> stale = stale_disrupted_taints(); !stale.empty()) {
    last_stale_taints_pass_ = now;
    for (const std::string& node : stale) {
      record("disrupted-taint-removed",
             fmt::format("node {} carried karpenter.sh/disrupted with no command disrupting it; taint removed", node));
      writer_.set_taint(node, disrupted_taint(), false);
    }
  }
  bool disrupted = false;  // by a method that takes turns: the others wait for the next pass
  for (DisruptionMethod* method : methods_) {
    if (!method->takes_turns()) {
      method->disrupt(now);
    } else if (!disrupted && !queue_.busy()) {
      disrupted = method->disrupt(now);
    }
  }
  reconcile();  // the next pass: whatever else is due (an empty node, an expiry) keeps its time
}

}  // namespace scalewright::controllers
