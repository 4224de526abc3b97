#pragma once
// Cluster Autoscaler's expanders (expander/*): which node group grows when several could take the pending pods.
// `--expander=priority,least-waste` is a chain: each expander keeps its best options out of the previous one's,
// and the last tie is broken at random (seeded, so a simulation replays).
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "api/pod.h"
#include "api/result.h"
#include "nodegroups/node_group.h"

namespace scalewright::nodegroups {

// One way to scale up: `node_count` new nodes of `group` would take `pods`.
struct Option {
  const NodeGroup* group = nullptr;  // a view into the caller's groups, which outlive the option
  std::int32_t node_count = 0;
  std::vector<std::shared_ptr<const Pod>> pods;
  std::string debug;  // what the expanders that looked at it thought ("least-waste: 0.625")
};

enum class ExpanderKind { Random, MostPods, LeastWaste, LeastNodes, Price, Priority, LeastCost };
std::string_view to_string(ExpanderKind kind);

// The `priorities` entry of the cluster-autoscaler-priority-expander ConfigMap: priority -> regexes matched
// (unanchored, as Go's regexp.MatchString) against node group ids. Regexes use ECMAScript syntax, which agrees
// with Go's RE2 on the patterns these files hold (.*, character classes, alternation, anchors).
struct PriorityTier {
  std::int64_t priority = 0;
  std::vector<std::string> patterns;
  std::vector<std::regex> regexes;  // compiled from `patterns`
};
// The ConfigMap, in CA's namespace (kube-system), whose data.priorities configures the priority expander.
inline constexpr std::string_view kPriorityConfigMap = "cluster-autoscaler-priority-expander";

struct PriorityConfig {
  std::vector<PriorityTier> tiers;  // highest priority first
};

struct ExpanderConfig {
  std::vector<ExpanderKind> chain{ExpanderKind::LeastWaste};
  std::optional<PriorityConfig> priorities;  // required when the chain holds Priority
};

// From --expander names ("priority", "least-waste", ...) and, when the chain holds "priority", the ConfigMap's
// priorities (config/priority_expander.h reads them). Unknown names and missing priorities are errors. "random"
// keeps every option (it is the chain's final tie-break anyway), as upstream's random expander does when it is not
// last.
Result<ExpanderConfig> make_expander_config(const std::vector<std::string>& names,
                                            std::optional<PriorityConfig> priorities = std::nullopt);

// What the price expander knows beyond the options: the cluster's node count picks the preferred node size.
struct ExpanderContext {
  std::size_t cluster_node_count = 0;
};

// Each filter returns the indexes (into `options`) of its best options among `candidates`, ties kept.
std::vector<std::size_t> most_pods(const std::vector<Option>& options, const std::vector<std::size_t>& candidates);
std::vector<std::size_t> least_nodes(const std::vector<Option>& options, const std::vector<std::size_t>& candidates);
// Wasted = (capacity cpu - requested cpu) / capacity cpu + the same for memory, over the option's new nodes;
// capacity as upstream reads it (the template's status.capacity), requests summed over app containers.
double waste_score(const Option& option);
std::vector<std::size_t> least_waste(const std::vector<Option>& options, const std::vector<std::size_t>& candidates);
// Upstream's price score (lower is better), see expander.cpp for the model.
double price_score(const Option& option, const ExpanderContext& context);
std::vector<std::size_t> cheapest(const std::vector<Option>& options, const std::vector<std::size_t>& candidates,
                                  const ExpanderContext& context);
// Scalewright's `least-cost` (not upstream's): what the option's new nodes cost an hour per worth of the pods they
// take, a pod's worth being what it costs on a node of its own of the group that prices it best among the options
// (its largest share of the node's allocatable cpu, memory or pod slots, times the node's price): the rule the
// NodePools' packing follows (scheduling::pack_by_worth). Lower is better; +inf when the option takes no pod.
double cost_per_worth(const Option& option, const std::vector<Option>& options);
std::vector<std::size_t> least_cost(const std::vector<Option>& options, const std::vector<std::size_t>& candidates);
// The options whose group matches a regex of the highest priority any option matches; options matching no
// regex are dropped (upstream logs and ignores them).
std::vector<std::size_t> highest_priority(const std::vector<Option>& options,
                                          const std::vector<std::size_t>& candidates, const PriorityConfig& config);

// Runs the chain: stops as soon as one option is left; otherwise picks among the last expander's ties with
// `rng`. nullopt when no option survives (e.g. no group matches a priority).
std::optional<std::size_t> choose_option(const std::vector<Option>& options, const ExpanderConfig& config,
                                         const ExpanderContext& context, std::mt19937_64& rng);

}  // namespace scalewright::nodegroups
