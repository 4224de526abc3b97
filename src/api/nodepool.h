#pragma once
// Karpenter's NodePool (karpenter.sh/v1) and NodeClaim: what group-less provisioning may launch, and what it did.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cron_schedule.h"
#include "api/duration.h"
#include "api/labels.h"
#include "api/meta.h"
#include "api/requirements.h"
#include "api/resources.h"
#include "api/workloads.h"

namespace scalewright {

namespace karpenter_labels {
inline constexpr std::string_view nodepool = "karpenter.sh/nodepool";
inline constexpr std::string_view capacity_type = "karpenter.sh/capacity-type";
inline constexpr std::string_view do_not_disrupt = "karpenter.sh/do-not-disrupt";
// The taint a node gets once disruption chose it (NoSchedule), so nothing new lands there.
inline constexpr std::string_view disrupted_taint = "karpenter.sh/disrupted";
}  // namespace karpenter_labels

// spec.limits.nodes: Karpenter counts every node of a NodePool as one of this resource (its resources.Node), so a
// limit on it caps the NodePool's nodes.
inline const Symbol& nodes_resource() { static const Symbol s("nodes"); return s; }

// What a node of `capacity` counts against its NodePool's spec.limits: its capacity, and one of `nodes`.
ResourceList limit_usage(const ResourceList& capacity);

// What Karpenter stamps on a NodeClaim from its NodePool's template, to tell later whether the template changed.
namespace karpenter_annotations {
inline constexpr std::string_view nodepool_hash = "karpenter.sh/nodepool-hash";
inline constexpr std::string_view nodepool_hash_version = "karpenter.sh/nodepool-hash-version";
}  // namespace karpenter_annotations

// One entry of spec.template.spec.requirements: a node selector requirement, optionally asking for at least
// minValues distinct values among the instance types a NodeClaim may take.
struct NodePoolRequirement {
  LabelRequirement requirement;
  std::optional<std::int32_t> min_values;
};

// Balanced (Karpenter 1.14): as WhenEmptyOrUnderutilized, but a consolidation goes ahead only where the share of
// cost it saves is at least half the share of disruption it causes.
enum class ConsolidationPolicy { WhenEmpty, WhenEmptyOrUnderutilized, Balanced };

// Why Karpenter disrupts a node voluntarily, the values a budget's `reasons` may name (the CRD's enum).
enum class DisruptionReason { Empty, Drifted, Underutilized };
std::string_view to_string(DisruptionReason reason);
std::optional<DisruptionReason> parse_disruption_reason(std::string_view text);

// A budget's schedule and duration: it is active for `duration` from each time `schedule` fires, in UTC.
struct BudgetWindow {
  // Parsed once when the manifest is decoded, so a bad cron is the decoder's error and never the engine's;
  // spec() keeps the text as written.
  CronSchedule schedule;
  Duration duration{0};
};

// spec.disruption.budgets[]: at most `nodes` ("10%" or "5") of the NodePool's nodes disrupted at once.
struct DisruptionBudget {
  IntOrPercent nodes{10, true};
  std::vector<std::string> reasons;  // Karpenter's spelling of DisruptionReason; empty: every reason
  std::optional<BudgetWindow> window = std::nullopt;  // schedule and duration are set together or not at all
};

// spec.template.spec.nodeClassRef: the provider's node class (EC2NodeClass, KWOKNodeClass, ...) a NodeClaim carries.
struct NodeClassReference {
  std::string group;
  std::string kind;
  std::string name;
  friend bool operator==(const NodeClassReference&, const NodeClassReference&) = default;
};

struct NodePool {
  ObjectMeta meta;
  // spec.template
  Labels template_labels;
  std::map<std::string, std::string> template_annotations;
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;  // expected to be removed by a daemon; ignored when simulating placement
  std::vector<NodePoolRequirement> requirements;
  NodeClassReference node_class;
  std::optional<Duration> expire_after = Duration(720LL * 3600 * 1000);  // nullopt: Never
  std::optional<Duration> termination_grace_period;
  // spec.disruption
  ConsolidationPolicy consolidation_policy = ConsolidationPolicy::WhenEmptyOrUnderutilized;
  std::optional<Duration> consolidate_after = Duration(0);  // nullopt: Never
  std::vector<DisruptionBudget> budgets{DisruptionBudget{}};
  // spec.limits: only the resources named are limited.
  ResourceList limits;
  std::vector<Symbol> limited_resources;
  std::int32_t weight = 0;
  // spec.replicas (Karpenter's StaticCapacity): a static NodePool of exactly this many nodes, launched whether or not
  // pods need them and never consolidated; only limits.nodes may limit it. nullopt: a dynamic NodePool.
  std::optional<std::int64_t> replicas;

  bool is_static() const { return replicas.has_value(); }

  // The template labels and the requirements as one set (labels become single-value In requirements).
  RequirementSet requirement_set() const;
  // The hash of what a NodeClaim takes from this NodePool's template (Karpenter's NodePool.Hash()), stamped on its
  // NodeClaims as karpenter.sh/nodepool-hash: 16 hex digits, the same on every run and machine (FNV-1a 64 over a
  // canonical text). Karpenter v1 hashes spec.template except its requirements: the labels and annotations, taints
  // and startupTaints as sets (order does not matter), nodeClassRef, expireAfter and terminationGracePeriod (its
  // drift tests change each of the last three and expect drift). Weight, limits and spec.disruption are behaviour,
  // not the node, and are left out.
  std::string hash() const;
};

// The karpenter.sh/nodepool-hash-version stamped beside NodePool::hash(). Not Karpenter's ("v3"): our hash is not
// hashstructure's, and a NodeClaim stamped by Karpenter itself must be skipped, not found drifted.
inline constexpr std::string_view kNodePoolHashVersion = "scalewright-v1";

}  // namespace scalewright
