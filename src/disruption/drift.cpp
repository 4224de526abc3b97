#include "disruption/drift.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "api/requirements.h"

namespace scalewright::disruption {
namespace {

// FNV-1a 64 over length-prefixed strings: no two different templates write the same text, and nothing depends on
// std::hash, pointer values or the order symbols were interned in.
class CanonicalHash {
 public:
  void text(std::string_view s) {
    bytes(std::to_string(s.size()));
    bytes(":");
    bytes(s);
  }
  void number(std::int64_t n) { text(std::to_string(n)); }
  std::string hex() const { return fmt::format("{:016x}", hash_); }

 private:
  void bytes(std::string_view s) {
    for (unsigned char c : s) {
      hash_ ^= c;
      hash_ *= 1099511628211ULL;
    }
  }
  std::uint64_t hash_ = 14695981039346656037ULL;
};

// Taints as a set: sorted by what a reader sees (not by interned ids), duplicates once.
void taint_set(CanonicalHash& h, std::string_view field, const std::vector<Taint>& taints) {
  std::vector<std::tuple<std::string, std::string, std::string_view>> sorted;
  for (const Taint& t : taints) sorted.emplace_back(t.key, t.value, to_string(t.effect));
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  h.text(field);
  h.number(static_cast<std::int64_t>(sorted.size()));
  for (const auto& [key, value, effect] : sorted) {
    h.text(key);
    h.text(value);
    h.text(effect);
  }
}

void optional_duration(CanonicalHash& h, std::string_view field, const std::optional<Duration>& d) {
  h.text(field);
  if (d) {
    h.number(d->count());
  } else {
    h.text("none");
  }
}

}  // namespace

std::string_view to_string(DriftReason reason) {
  switch (reason) {
    case DriftReason::NodePoolDrifted: return "NodePoolDrifted";
    case DriftReason::RequirementsDrifted: return "RequirementsDrifted";
  }
  return "NodePoolDrifted";
}

std::string nodepool_hash(const NodePool& pool) {
  CanonicalHash h;
  // Labels are kept in interned-id order, which differs between runs: sort by text.
  std::vector<std::pair<std::string_view, std::string_view>> labels;
  for (const auto& [key, value] : pool.template_labels) labels.emplace_back(key.str(), value.str());
  std::sort(labels.begin(), labels.end());
  h.text("labels");
  h.number(static_cast<std::int64_t>(labels.size()));
  for (const auto& [key, value] : labels) {
    h.text(key);
    h.text(value);
  }
  h.text("annotations");
  h.number(static_cast<std::int64_t>(pool.template_annotations.size()));
  for (const auto& [key, value] : pool.template_annotations) {  // a std::map: sorted already
    h.text(key);
    h.text(value);
  }
  taint_set(h, "taints", pool.taints);
  taint_set(h, "startupTaints", pool.startup_taints);
  h.text("nodeClassRef");
  h.text(pool.node_class.group);
  h.text(pool.node_class.kind);
  h.text(pool.node_class.name);
  optional_duration(h, "expireAfter", pool.expire_after);  // none: Never
  optional_duration(h, "terminationGracePeriod", pool.termination_grace_period);
  return h.hex();
}

std::optional<DriftReason> drifted(const NodePool& pool, std::string_view stamped_hash, const Labels& node_labels,
                                   std::string_view stamped_hash_version) {
  if (!stamped_hash.empty() && stamped_hash_version == kNodePoolHashVersion && stamped_hash != nodepool_hash(pool)) {
    return DriftReason::NodePoolDrifted;
  }
  // The requirements only, as Karpenter: the template labels are in the hash, and a NodeClaim without a stamped hash
  // is not found drifted by a label change.
  RequirementSet required;
  for (const NodePoolRequirement& r : pool.requirements) required.add(r.requirement);
  for (const auto& [key, values] : required.keys()) {
    const Symbol* value = node_labels.find(Symbol(key));
    if (value != nullptr ? !values.allows(value->string()) : !values.allows_absent()) {
      return DriftReason::RequirementsDrifted;
    }
  }
  return std::nullopt;
}

}  // namespace scalewright::disruption
