#include "controllers/disruption/validation.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

namespace scalewright::controllers {

void Validation::check_later(Instant computed_at) {
  clock_.wake_at(computed_at + kDelay, [this] { validate(); });
}

void Validation::validate() {
  if (!queue_.busy() || queue_.command().stage != DisruptionCommand::Stage::Validating) return;
  const Instant now = clock_.now();
  // Asked as if the command were not there: its nodes are candidates again, and not yet disrupting.
  DisruptionCommand planned = queue_.take();
  ConsolidationCandidates::Found found = candidates_.find(now);
  std::vector<std::size_t> indexes;
  std::string why;
  for (const std::string& node : planned.nodes) {
    auto it = std::find_if(found.list.begin(), found.list.end(),
                           [&](const disruption::Candidate& c) { return c.node == node; });
    if (it == found.list.end()) {
      auto blocked = found.blocked.find(node);
      why = fmt::format("node {} is no longer a candidate{}", node,
                        blocked == found.blocked.end() ? "" : ": " + blocked->second);
      break;
    }
    indexes.push_back(static_cast<std::size_t>(it - found.list.begin()));
  }
  std::optional<disruption::Command> again;
  if (why.empty()) {
    state::ClusterState::WhatIf what_if(state_);
    disruption::ConsolidationInput input = candidates_.input(found, what_if.snapshot(), now);
    disruption::Revalidation revalidation =
        disruption::revalidate(input, indexes, planned.command.decision, planned.command.method);
    again = std::move(revalidation.command);
    why = std::move(revalidation.reason);
  }
  queue_.add(std::move(planned));
  if (!again) {
    queue_.abandon(why);
    return;
  }
  queue_.execute(std::move(*again));
}

}  // namespace scalewright::controllers
