#include "disruption/consolidation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "api/quantity.h"
#include "eviction/eviction.h"

namespace scalewright::disruption {
namespace {

constexpr std::string_view kPodDeletionCost = "controller.kubernetes.io/pod-deletion-cost";

}  // namespace

void ConsolidationMemo::begin(std::uint64_t context, Instant now, std::optional<Instant> valid_until) {
  if (context_ != context || (valid_until_ && now >= *valid_until_)) {
    verdicts_.clear();
    shapes_.clear();
    failed_sets_.clear();
    context_ = context;
  }
  valid_until_ = valid_until;
}

const ConsolidationMemo::Verdict* ConsolidationMemo::find(const Candidate& c) const {
  auto it = verdicts_.find(c.node);
  return it == verdicts_.end() || it->second.first != c.pods_version ? nullptr : &it->second.second;
}

void ConsolidationMemo::remember(const Candidate& c, Verdict verdict) {
  verdicts_.insert_or_assign(c.node, std::make_pair(c.pods_version, std::move(verdict)));
}

const ConsolidationMemo::Verdict* ConsolidationMemo::find_shape(const std::string& shape) const {
  auto it = shapes_.find(shape);
  return it == shapes_.end() ? nullptr : &it->second;
}

void ConsolidationMemo::remember_shape(const std::string& shape, Verdict verdict) {
  shapes_.insert_or_assign(shape, std::move(verdict));
}

bool ConsolidationMemo::failed(const std::string& key) const { return failed_sets_.contains(key); }

void ConsolidationMemo::remember_failed(const std::string& key) {
  // A context can last for days while pods come and go on some nodes, each change a new signature: the sets tried
  // are few per pass, and starting over now and then costs one pass its shortcuts.
  constexpr std::size_t kMostSets = 10'000;
  if (failed_sets_.size() >= kMostSets) failed_sets_.clear();
  failed_sets_.insert(key);
}

void Candidate::add_pod(std::shared_ptr<const Pod> pod, Symbol scheduling_class) {
  requests += pod->effective_requests();
  pods.push_back(std::move(pod));
  classes.push_back(scheduling_class);
}

bool needs_another_node(const Pod& pod) {
  return !pod.is_daemonset_pod() && !eviction::is_mirror_pod(pod) && !pod.is_terminal();
}

bool says_do_not_disrupt(const ObjectMeta& meta) { return meta.annotated_true(karpenter_labels::do_not_disrupt); }

double eviction_cost(const Pod& pod) {
  double cost = 1.0;
  auto annotation = pod.meta.annotations->find(std::string(kPodDeletionCost));
  if (annotation != pod.meta.annotations->end()) {
    if (std::optional<std::int64_t> value = parse_integer(annotation->second)) {
      cost += static_cast<double>(*value) / std::pow(2.0, 27);
    }
  }
  cost += static_cast<double>(pod.priority()) / std::pow(2.0, 25);
  return std::clamp(cost, -10.0, 10.0);
}

double lifetime_remaining(Duration age, const std::optional<Duration>& expire_after) {
  if (!expire_after || expire_after->count() <= 0) return 1.0;
  const double remaining = 1.0 - static_cast<double>(age.count()) / static_cast<double>(expire_after->count());
  return std::clamp(remaining, 0.0, 1.0);
}

void order_candidates(std::vector<Candidate>& candidates) {
  auto per_dollar = [](const Candidate& c) {
    return c.price_per_hour > 0 ? c.disruption_cost / c.price_per_hour : std::numeric_limits<double>::max();
  };
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    const double pa = per_dollar(a), pb = per_dollar(b);
    if (pa != pb) return pa < pb;
    if (a.price_per_hour != b.price_per_hour) return a.price_per_hour > b.price_per_hour;
    return a.node < b.node;
  });
}

std::string_view to_string(Decision decision) {
  return decision == Decision::Delete ? "delete" : "replace";
}

std::string_view to_string(Method method) {
  switch (method) {
    case Method::MultiNode: return "multi-node";
    case Method::SingleNode: return "single-node";
    case Method::Repack: return "repack";
    case Method::Drift: return "drift";
  }
  return "single-node";
}

bool better(const Command& a, const Command& b) {
  if (a.savings() > b.savings() + cloud::kSamePrice) return true;
  return a.savings() > b.savings() - cloud::kSamePrice && a.pods < b.pods;
}

bool balanced_enough(const Command& command, const ConsolidationInput& input) {
  std::set<std::string> pools;
  bool balanced = false;
  for (std::size_t i : command.candidates) {
    const std::string& pool = input.candidates[i].nodepool;
    pools.insert(pool);
    for (const NodePool& np : input.nodepools) {
      if (np.meta.name == pool && np.consolidation_policy == ConsolidationPolicy::Balanced) balanced = true;
    }
  }
  if (!balanced || command.disruption_cost <= 0) return true;
  double cost = 0, disruption = 0;
  for (const std::string& pool : pools) {
    if (auto it = input.pool_cost.find(pool); it != input.pool_cost.end()) cost += it->second;
    if (auto it = input.pool_disruption_cost.find(pool); it != input.pool_disruption_cost.end()) {
      disruption += it->second;
    }
  }
  if (cost <= 0 || disruption <= 0) return true;
  const double saved_share = command.savings() / cost;
  const double disrupted_share = command.disruption_cost / disruption;
  return saved_share >= 0.5 * disrupted_share;
}

}  // namespace scalewright::disruption
