#include "controllers/disruption/queue.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "api/wording.h"
#include "controllers/disruption/types.h"

namespace scalewright::controllers {

std::string joined(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ", ")); }

bool CommandQueue::disrupting(const std::string& node) const {
  return command_ && std::find(command_->nodes.begin(), command_->nodes.end(), node) != command_->nodes.end();
}

DisruptionCommand& CommandQueue::add(DisruptionCommand command) {
  command_ = std::move(command);
  return *command_;
}

DisruptionCommand CommandQueue::take() {
  DisruptionCommand out = std::move(*command_);
  command_.reset();
  return out;
}

const std::set<std::string>& CommandQueue::abandoned_while(std::uint64_t fingerprint) const {
  static const std::set<std::string> kNone;
  return fingerprint == abandoned_at_ ? abandoned_ : kNone;
}

void CommandQueue::execute(disruption::Command command) {
  command_->command = std::move(command);
  const disruption::Command& c = command_->command;
  for (const std::string& node : command_->nodes) {
    writer_.set_taint(node, disrupted_taint(), true);
    writer_.object_event({"Node", node, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: {}/{}; {}", command_->reason,
                                      c.decision == disruption::Decision::Delete ? "Delete" : "Replace",
                                      describe(c, command_->nodes))});
  }
  record("consolidation", describe(c, command_->nodes));
  if (c.decision == disruption::Decision::Delete) {
    start_drains();
    return;
  }
  for (const provisioning::NewNodeClaim& claim : c.replacements) {
    std::optional<std::string> replacement =
        provisioning_.launch_replacement(claim, "the replacement of " + joined(command_->nodes));
    if (!replacement) {
      abandon("no offering of its replacement could be launched");  // those launched go empty, and are removed
      return;
    }
    command_->replacements.push_back(*replacement);
  }
  command_->stage = DisruptionCommand::Stage::Replacing;
}

void CommandQueue::progress() {
  if (!command_ || command_->stage != DisruptionCommand::Stage::Replacing) return;
  bool all_ready = true;
  std::string failed;
  for (const std::string& name : command_->replacements) {
    const state::NodeRecord* replacement = state_.find_node(name);
    if (replacement == nullptr || replacement->phase == state::NodePhase::Terminated) failed = name;
    all_ready = all_ready && replacement != nullptr && replacement->phase == state::NodePhase::Ready;
  }
  if (!failed.empty()) {
    abandon(fmt::format("its replacement {} did not come up", failed));
  } else if (all_ready) {
    start_drains();
  }
}

void CommandQueue::start_drains() {
  command_->stage = DisruptionCommand::Stage::Draining;
  command_->draining = {command_->nodes.begin(), command_->nodes.end()};
  const std::vector<std::string> nodes = command_->nodes;
  for (const std::string& node : nodes) {
    const state::NodeRecord* record = state_.find_node(node);
    if (record == nullptr || record->phase != state::NodePhase::Ready) {
      command_->draining.erase(node);
      continue;
    }
    termination_.drain(node, record->nodepool, command_->computed_at,
                       karpenter_drain_rules(state_.find_nodepool(record->nodepool)),
                       [this](const std::string& done, const std::string&, bool) {
                         if (!command_) return;
                         command_->draining.erase(done);
                         if (command_->draining.empty()) {
                           command_.reset();
                           request_pass_(clock_.now());
                         }
                       });
  }
  if (command_ && command_->draining.empty()) {
    command_.reset();
    request_pass_(clock_.now());
  }
}

void CommandQueue::abandon(const std::string& why) {
  // Commands abandoned one after another while the cluster stays as it was keep all their nodes out.
  if (cluster_fingerprint(state_) != abandoned_at_) abandoned_.clear();
  abandoned_.insert(command_->nodes.begin(), command_->nodes.end());
  for (const std::string& node : command_->nodes) {
    const state::NodeRecord* record = state_.find_node(node);
    if (record == nullptr) continue;
    const std::vector<Taint>& taints = record->node.taints;
    if (std::any_of(taints.begin(), taints.end(), [](const Taint& t) { return t.key == disrupted_taint().key; })) {
      writer_.set_taint(node, disrupted_taint(), false);
    }
  }
  record(command_->reason == "Drifted" ? "drift-abandoned" : "consolidation-abandoned",
         fmt::format("{} abandoned: {}", describe(command_->command, command_->nodes), why));
  abandoned_at_ = cluster_fingerprint(state_);
  command_.reset();
  request_pass_(clock_.now() + kDisruptionPollPeriod);
}

void CommandQueue::interrupted(const std::string& node, std::string_view notice) {
  if (command_ && command_->stage != DisruptionCommand::Stage::Draining && disrupting(node)) {
    abandon(fmt::format("node {} got a {}", node, notice));
  }
}

std::string describe(const disruption::Command& c, const std::vector<std::string>& nodes) {
  std::string what = fmt::format("{} {} {} ({})", disruption::to_string(c.method), disruption::to_string(c.decision),
                                 plural(nodes.size(), "node"), joined(nodes));
  if (c.replacements.size() == 1) {
    std::vector<std::string> types;
    for (const cloud::InstanceType* t : c.replacements.front().instance_types) {
      if (types.size() == 3) {
        types.push_back("...");
        break;
      }
      types.push_back(t->name);
    }
    what += fmt::format(" by one node ({}) from ${:.4f}/h", joined(types), c.price_after);
  } else if (!c.replacements.empty()) {
    std::map<std::string, std::size_t> cheapest;  // each new node by the type it is launched from, as counted
    for (const provisioning::NewNodeClaim& claim : c.replacements) {
      if (!claim.instance_types.empty()) ++cheapest[claim.instance_types.front()->name];
    }
    std::vector<std::string> types;
    for (const auto& [type, count] : cheapest) types.push_back(fmt::format("{} {}", count, type));
    what += fmt::format(" by {} nodes ({})", c.replacements.size(), joined(types));
  }
  return fmt::format("{}: ${:.4f}/h → ${:.4f}/h saves ${:.4f}/h, {} move", what, c.price_before, c.price_after,
                     c.savings(), plural(c.pods, "pod"));
}

}  // namespace scalewright::controllers
