#pragma once
// The part of PromQL the simulator answers for KEDA's prometheus triggers: one series selector, optionally
// inside rate/irate/increase over a range, optionally inside one aggregation:
//     sum(rate(http_requests_total{app="podinfo"}[2m]))      max(http_requests_total{namespace!="test"})
// Anything else is rejected when the scenario loads, with the reason, rather than answered wrongly.
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/result.h"

namespace scalewright::sim {

struct LabelMatcher {
  enum class Op { Equal, NotEqual, Regex, NotRegex };
  std::string name;
  Op op = Op::Equal;
  std::string value;
  // =~ and !~: `value` compiled once, when the query is parsed (Prometheus anchors it: the whole value must match).
  std::shared_ptr<const std::regex> pattern;
};

struct PromQuery {
  enum class Aggregation { None, Sum, Avg, Min, Max, Count };
  enum class Function { None, Rate, Irate, Increase };
  Aggregation aggregation = Aggregation::None;
  Function function = Function::None;
  std::string metric;
  std::vector<LabelMatcher> matchers;
  Duration range{0};  // rate/irate/increase only
};

Result<PromQuery> parse_promql(std::string_view text);

// One series: its labels and its samples (time, value), oldest first. Counters only grow.
struct Series {
  std::vector<std::pair<std::string, std::string>> labels;  // __name__ included
  const std::vector<std::pair<Instant, double>>* samples = nullptr;
};

// The instant vector the query gives at `now`: one value per series it selects (one in all when aggregated,
// none when nothing matched). A rate needs two samples inside its range, as Prometheus's does; unlike
// Prometheus it does not extrapolate to the range's edges.
Result<std::vector<double>> evaluate(const PromQuery& query, const std::vector<Series>& series, Instant now);

}  // namespace scalewright::sim
