// The check before acting: a command computed earlier, asked again of the cluster as it is now (consolidation.h).
#include <fmt/format.h>

#include "disruption/consolidation.h"
#include "disruption/search.h"

namespace scalewright::disruption {

using consolidation_search::Search;

Revalidation revalidate(const ConsolidationInput& input, const std::vector<std::size_t>& candidates,
                        Decision decision, Method method) {
  Search search(input, Search::Placement::AsKubeScheduler);
  if (method == Method::Repack) {
    Search::Attempt again = search.attempt_repack(candidates);
    return {std::move(again.command), std::move(again.reason)};
  }
  const Method karpenters = candidates.size() > 1 ? Method::MultiNode : Method::SingleNode;
  Search::Attempt a = search.attempt(candidates, karpenters, decision == Decision::Replace);
  if (!a.command) return {std::nullopt, std::move(a.reason)};
  if (a.command->decision != decision) {
    return {std::nullopt, fmt::format("it would now {} rather than {}", to_string(a.command->decision),
                                      to_string(decision))};
  }
  return {std::move(a.command), ""};
}

}  // namespace scalewright::disruption
