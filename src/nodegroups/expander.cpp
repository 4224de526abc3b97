#include "nodegroups/expander.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

namespace scalewright::nodegroups {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

// The price expander's pricing model. Node groups carry their own price per hour; pods are valued by what they
// request at GCE's per-resource list prices (upstream's gce PricingModel: $0.033174 per core-hour, $0.004446 per
// GiB-hour), the one resource-based model upstream ships. A group without a price is valued the same way.
constexpr double kCpuPricePerCoreHour = 0.033174;
constexpr double kMemoryPricePerGiBHour = 0.004446;
// Upstream's priceStabilizationPod (500m, 500Mi): keeps node price / pod price steady when pods request little.
constexpr double kStabilizationCores = 0.5;
constexpr double kStabilizationGiB = 500.0 * kMiB / kGiB;
// A group with a GPU is kept for pods that need one: its unfitness is pinned this high (gpuUnfitnessOverride).
constexpr double kGpuUnfitness = 1000.0;

double resource_price(double cores, double gib) {
  return cores * kCpuPricePerCoreHour + gib * kMemoryPricePerGiBHour;
}

// What a node of the group costs an hour: its stated price, else its resources at the model's prices.
double price_of_node(const NodeGroup& group) {
  if (group.price_per_hour > 0) return group.price_per_hour;
  const Node& node = group.template_node;
  return resource_price(static_cast<double>(node_cpu_milli(node)) / 1000.0,
                        static_cast<double>(node_memory_bytes(node)) / kGiB);
}

// Requests as upstream's expanders sum them: app containers only.
ResourceList container_requests(const Pod& pod) {
  ResourceList sum;
  for (const Container& c : pod.spec.containers) sum += c.requests;
  return sum;
}

// Upstream's SimplePreferredNodeProvider, cpu only (unfitness compares cpu): the preferred node doubles in size
// each time the cluster roughly triples: up to 2 nodes 1 core, 6: 2, 20: 4, 60: 8, 200: 16, beyond: 32.
double preferred_cores(std::size_t cluster_nodes) {
  if (cluster_nodes <= 2) return 1;
  if (cluster_nodes <= 6) return 2;
  if (cluster_nodes <= 20) return 4;
  if (cluster_nodes <= 60) return 8;
  if (cluster_nodes <= 200) return 16;
  return 32;
}


// The candidates whose score equals the best (lowest when `lower`), in their given order.
template <typename Score>
std::vector<std::size_t> best_by(const std::vector<std::size_t>& candidates, Score score, bool lower) {
  std::vector<std::size_t> best;
  double best_score = 0;
  for (std::size_t i : candidates) {
    const double s = score(i);
    if (std::isnan(s)) continue;
    if (best.empty() || (lower ? s < best_score : s > best_score)) {
      best = {i};
      best_score = s;
    } else if (s == best_score) {
      best.push_back(i);
    }
  }
  return best;
}

std::optional<ExpanderKind> parse_kind(std::string_view name) {
  if (name == "random") return ExpanderKind::Random;
  if (name == "most-pods") return ExpanderKind::MostPods;
  if (name == "least-waste") return ExpanderKind::LeastWaste;
  if (name == "least-nodes") return ExpanderKind::LeastNodes;
  if (name == "price") return ExpanderKind::Price;
  if (name == "priority") return ExpanderKind::Priority;
  if (name == "least-cost") return ExpanderKind::LeastCost;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(ExpanderKind kind) {
  switch (kind) {
    case ExpanderKind::Random: return "random";
    case ExpanderKind::MostPods: return "most-pods";
    case ExpanderKind::LeastWaste: return "least-waste";
    case ExpanderKind::LeastNodes: return "least-nodes";
    case ExpanderKind::Price: return "price";
    case ExpanderKind::Priority: return "priority";
    case ExpanderKind::LeastCost: return "least-cost";
  }
  return "unknown";
}

Result<ExpanderConfig> make_expander_config(const std::vector<std::string>& names,
                                            std::optional<PriorityConfig> priorities) {
  ExpanderConfig config;
  config.chain.clear();
  for (const std::string& name : names) {
    std::optional<ExpanderKind> kind = parse_kind(name);
    if (!kind) return Error{"--expander: unknown expander \"" + name + "\""};
    config.chain.push_back(*kind);
  }
  if (config.chain.empty()) config.chain.push_back(ExpanderKind::LeastWaste);
  if (std::find(config.chain.begin(), config.chain.end(), ExpanderKind::Priority) != config.chain.end()) {
    if (!priorities) {
      return Error{"--expander=priority needs the cluster-autoscaler-priority-expander ConfigMap's priorities"};
    }
    config.priorities = std::move(priorities);
  }
  return config;
}

std::vector<std::size_t> most_pods(const std::vector<Option>& options, const std::vector<std::size_t>& candidates) {
  return best_by(candidates, [&](std::size_t i) { return static_cast<double>(options[i].pods.size()); }, false);
}

std::vector<std::size_t> least_nodes(const std::vector<Option>& options, const std::vector<std::size_t>& candidates) {
  return best_by(candidates, [&](std::size_t i) { return static_cast<double>(options[i].node_count); }, true);
}

double waste_score(const Option& option) {
  ResourceList requested;
  for (const auto& pod : option.pods) requested += container_requests(*pod);
  const Node& node = option.group->template_node;
  const double cpu = static_cast<double>(node_cpu_milli(node)) * option.node_count;
  const double memory = static_cast<double>(node_memory_bytes(node)) * option.node_count;
  if (cpu <= 0 || memory <= 0) return std::numeric_limits<double>::quiet_NaN();
  return (cpu - static_cast<double>(requested.cpu_milli())) / cpu +
         (memory - static_cast<double>(requested.memory())) / memory;
}

std::vector<std::size_t> least_waste(const std::vector<Option>& options, const std::vector<std::size_t>& candidates) {
  return best_by(candidates, [&](std::size_t i) { return waste_score(options[i]); }, true);
}

// Upstream's price expander (expander/price, proposals/pricing.md):
//   price ratio = (node price x node count + stabilization) / (sum of pod prices + stabilization)
//   unfitness   = max(preferred cpu / node cpu, node cpu / preferred cpu), suppressed as more nodes are added:
//                 (unfitness - 1) x (1 - tanh((node count - 1) / 15)) + 1; pinned at 1000 for GPU groups
//   score       = suppressed unfitness x price ratio, lowest wins.
// Simplified: the preferred node is the cpu size of upstream's SimplePreferredNodeProvider for the cluster's node
// count (no memory), prices are per hour as the group states them, and groups that do not exist yet (node
// auto-provisioning) are not modelled, so upstream's x2 penalty for them never applies.
double price_score(const Option& option, const ExpanderContext& context) {
  const NodeGroup& group = *option.group;
  const double node_cores = static_cast<double>(node_cpu_milli(group.template_node)) / 1000.0;
  const double node_price = price_of_node(group);
  double pods_price = 0;
  for (const auto& pod : option.pods) {
    const ResourceList r = container_requests(*pod);
    pods_price += resource_price(static_cast<double>(r.cpu_milli()) / 1000.0, static_cast<double>(r.memory()) / kGiB);
  }
  const double stabilization = resource_price(kStabilizationCores, kStabilizationGiB);
  const double ratio = (node_price * option.node_count + stabilization) / (pods_price + stabilization);
  if (node_cores <= 0) return std::numeric_limits<double>::quiet_NaN();
  const double preferred = preferred_cores(context.cluster_node_count);
  const double unfitness = std::max(preferred / node_cores, node_cores / preferred);
  double suppressed = (unfitness - 1.0) * (1.0 - std::tanh((option.node_count - 1) / 15.0)) + 1.0;
  if (group.gpu) suppressed = kGpuUnfitness;
  return suppressed * ratio;
}

std::vector<std::size_t> cheapest(const std::vector<Option>& options, const std::vector<std::size_t>& candidates,
                                  const ExpanderContext& context) {
  return best_by(candidates, [&](std::size_t i) { return price_score(options[i], context); }, true);
}

double cost_per_worth(const Option& option, const std::vector<Option>& options) {
  double worth = 0;
  for (const auto& pod : option.pods) {
    const ResourceList r = container_requests(*pod);
    double best = std::numeric_limits<double>::infinity();
    for (const Option& other : options) {
      const ResourceList& room = other.group->template_node.allocatable;
      auto share = [](std::int64_t asked, std::int64_t has) {
        return has > 0 ? static_cast<double>(asked) / static_cast<double>(has) : std::numeric_limits<double>::infinity();
      };
      const double largest = std::max({share(r.cpu_milli(), room.cpu_milli()), share(r.memory(), room.memory()),
                                       share(1, room.pods())});
      if (largest <= 1) best = std::min(best, price_of_node(*other.group) * largest);
    }
    if (std::isfinite(best)) worth += best;
  }
  if (worth <= 0) return std::numeric_limits<double>::infinity();
  return price_of_node(*option.group) * option.node_count / worth;
}

std::vector<std::size_t> least_cost(const std::vector<Option>& options, const std::vector<std::size_t>& candidates) {
  return best_by(candidates, [&](std::size_t i) { return cost_per_worth(options[i], options); }, true);
}

std::vector<std::size_t> highest_priority(const std::vector<Option>& options,
                                          const std::vector<std::size_t>& candidates, const PriorityConfig& config) {
  // Tiers are sorted highest first: the first tier that matches any candidate decides.
  for (const PriorityTier& tier : config.tiers) {
    std::vector<std::size_t> matched;
    for (std::size_t i : candidates) {
      const std::string& id = options[i].group->id;
      if (std::any_of(tier.regexes.begin(), tier.regexes.end(),
                      [&](const std::regex& re) { return std::regex_search(id, re); })) {
        matched.push_back(i);
      }
    }
    if (!matched.empty()) return matched;
  }
  return {};
}

std::optional<std::size_t> choose_option(const std::vector<Option>& options, const ExpanderConfig& config,
                                         const ExpanderContext& context, std::mt19937_64& rng) {
  std::vector<std::size_t> candidates(options.size());
  for (std::size_t i = 0; i < options.size(); ++i) candidates[i] = i;
  // As upstream's chain: filters run in turn until at most one option is left; the first always runs, so a
  // leading priority expander drops even a lone option that no regex names.
  for (ExpanderKind kind : config.chain) {
    switch (kind) {
      case ExpanderKind::Random: break;  // the final tie-break below
      case ExpanderKind::MostPods: candidates = most_pods(options, candidates); break;
      case ExpanderKind::LeastWaste: candidates = least_waste(options, candidates); break;
      case ExpanderKind::LeastNodes: candidates = least_nodes(options, candidates); break;
      case ExpanderKind::Price: candidates = cheapest(options, candidates, context); break;
      case ExpanderKind::LeastCost: candidates = least_cost(options, candidates); break;
      case ExpanderKind::Priority:
        candidates = config.priorities ? highest_priority(options, candidates, *config.priorities)
                                       : std::vector<std::size_t>{};
        break;
    }
    if (candidates.size() <= 1) break;
  }
  if (candidates.empty()) return std::nullopt;
  if (candidates.size() == 1) return candidates.front();
  std::uniform_int_distribution<std::size_t> pick(0, candidates.size() - 1);
  return candidates[pick(rng)];
}

}  // namespace scalewright::nodegroups
