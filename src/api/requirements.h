#pragma once
// A set of node requirements, one allowed-value set per label key, as Karpenter's scheduling.Requirements: what
// a NodePool, an instance type or a group of pods allows. Provisioning intersects them (pod ∩ NodePool ∩
// instance type) and asks whether the result can still be satisfied.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "api/labels.h"

namespace scalewright {

// The values one key may take: a finite set (In), everything but a set (NotIn / Exists), or nothing at all
// (DoesNotExist, or an empty intersection). Gt/Lt bounds narrow integer values further.
class ValueSet {
 public:
  static ValueSet any();                              // Exists
  static ValueSet none();                             // DoesNotExist
  static ValueSet of(std::set<std::string> values);   // In
  static ValueSet all_but(std::set<std::string> values);  // NotIn (the label may also be absent)
  static ValueSet greater_than(std::int64_t bound);   // Gt
  static ValueSet less_than(std::int64_t bound);      // Lt
  static ValueSet from(const LabelRequirement& requirement);

  ValueSet intersect(const ValueSet& other) const;
  bool allows(const std::string& value) const;
  // True when no value at all is allowed (the key must be absent).
  bool is_empty() const;
  // True for NotIn/DoesNotExist-like sets that an absent label also satisfies.
  bool allows_absent() const { return allows_absent_; }
  // The explicit values of a finite set (empty for complements).
  const std::set<std::string>& values() const { return values_; }
  bool is_complement() const { return complement_; }
  // "In {a, b}", "NotIn {a}", "Exists", "DoesNotExist", "Gt 4 and Lt 9".
  std::string to_string() const;
  friend bool operator==(const ValueSet&, const ValueSet&) = default;

 private:
  bool within_bounds(const std::string& value) const;

  bool complement_ = true;  // true: every value except values_; false: exactly values_
  std::set<std::string> values_;
  std::optional<std::int64_t> greater_than_;
  std::optional<std::int64_t> less_than_;
  bool allows_absent_ = false;
};

class RequirementSet {
 public:
  RequirementSet() = default;
  static RequirementSet from_labels(const Labels& labels);
  static RequirementSet from_term(const NodeSelectorTerm& term);

  // Narrows `key` to its intersection with `values`.
  void add(const std::string& key, const ValueSet& values);
  void add(const LabelRequirement& requirement);
  RequirementSet intersect(const RequirementSet& other) const;

  // nullopt when every key both sets name still allows some value; otherwise a reason such as
  // `key "topology.kubernetes.io/zone": In {zone-a} conflicts with In {zone-b, zone-c}`. Keys only one side
  // names are fine.
  std::optional<std::string> incompatibility(const RequirementSet& other) const;
  bool compatible(const RequirementSet& other) const { return !incompatibility(other).has_value(); }
  // True when some key allows nothing and cannot be absent either.
  bool unsatisfiable() const;

  const ValueSet* find(const std::string& key) const;
  bool has(const std::string& key) const { return find(key) != nullptr; }
  bool allows(const std::string& key, const std::string& value) const;
  const std::map<std::string, ValueSet>& keys() const { return by_key_; }
  std::string to_string() const;

 private:
  std::map<std::string, ValueSet> by_key_;
};

}  // namespace scalewright
