// Single-node consolidation: the candidates in order, the first that can go on its own (consolidation.h).
#include <fmt/format.h>

#include "disruption/consolidation.h"
#include "disruption/search.h"

namespace scalewright::disruption {

using consolidation_search::money;
using consolidation_search::Search;

ConsolidationResult consolidate_single_node(const ConsolidationInput& input) {
  ConsolidationResult result;
  Search search(input);
  for (std::size_t i = 0; i < input.candidates.size(); ++i) {
    Search::Attempt a = search.attempt({i}, Method::SingleNode);
    if (a.command && !balanced_enough(*a.command, input)) {
      a.reason = fmt::format("saves {} of {}, less than half its share of the disruption (Balanced)",
                             money(a.command->savings()), money(a.command->price_before));
      a.command.reset();
    }
    if (a.command) {
      result.command = std::move(a.command);
      break;
    }
    result.kept.push_back({i, std::move(a.reason)});
  }
  result.tries = search.tries();
  result.plans = search.plans();
  return result;
}

}  // namespace scalewright::disruption
