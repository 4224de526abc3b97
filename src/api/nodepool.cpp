#include "api/nodepool.h"

#include <algorithm>
#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace scalewright {
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


std::string_view to_string(DisruptionReason reason) {
  switch (reason) {
    case DisruptionReason::Empty: return "Empty";
    case DisruptionReason::Drifted: return "Drifted";
    case DisruptionReason::Underutilized: return "Underutilized";
  }
  return "Empty";
}

std::optional<DisruptionReason> parse_disruption_reason(std::string_view text) {
  for (DisruptionReason r : {DisruptionReason::Empty, DisruptionReason::Drifted, DisruptionReason::Underutilized}) {
    if (text == to_string(r)) return r;
  }
  return std::nullopt;
}

ResourceList limit_usage(const ResourceList& capacity) {
  ResourceList usage = capacity;
  usage.add(nodes_resource(), 1);
  return usage;
}

RequirementSet NodePool::requirement_set() const {
  RequirementSet out = RequirementSet::from_labels(template_labels);
  for (const NodePoolRequirement& r : requirements) out.add(r.requirement);
  out.add(std::string(karpenter_labels::nodepool), ValueSet::of({meta.name}));
  return out;
}

std::string NodePool::hash() const {
  CanonicalHash h;
  // Labels are kept in interned-id order, which differs between runs: sort by text.
  std::vector<std::pair<std::string_view, std::string_view>> labels;
  for (const auto& [key, value] : template_labels) labels.emplace_back(key.str(), value.str());
  std::sort(labels.begin(), labels.end());
  h.text("labels");
  h.number(static_cast<std::int64_t>(labels.size()));
  for (const auto& [key, value] : labels) {
    h.text(key);
    h.text(value);
  }
  h.text("annotations");
  h.number(static_cast<std::int64_t>(template_annotations.size()));
  for (const auto& [key, value] : template_annotations) {  // a std::map: sorted already
    h.text(key);
    h.text(value);
  }
  taint_set(h, "taints", taints);
  taint_set(h, "startupTaints", startup_taints);
  h.text("nodeClassRef");
  h.text(node_class.group);
  h.text(node_class.kind);
  h.text(node_class.name);
  optional_duration(h, "expireAfter", expire_after);  // none: Never
  optional_duration(h, "terminationGracePeriod", termination_grace_period);
  return h.hex();
}

}  // namespace scalewright
