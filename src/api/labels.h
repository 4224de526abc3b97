#pragma once
// Label sets and the selectors that match them: label selectors for pods (matchLabels + matchExpressions) and
// node selector terms for nodes (expressions ANDed inside a term, terms ORed), with Kubernetes' operators.
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/integer.h"
#include "api/symbol.h"

namespace scalewright {

class Labels {
 public:
  using Entry = std::pair<Symbol, Symbol>;
  Labels() = default;
  Labels(std::initializer_list<std::pair<std::string_view, std::string_view>> entries);

  void set(Symbol key, Symbol value);
  void erase(Symbol key);
  // The value of `key`, or nullptr when the label is absent.
  const Symbol* find(Symbol key) const;
  bool has(Symbol key) const { return find(key) != nullptr; }
  // True when every label of `subset` is present here with the same value.
  bool contains_all(const Labels& subset) const;

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }
  friend bool operator==(const Labels&, const Labels&) = default;

 private:
  std::vector<Entry> entries_;  // sorted by key id
};

enum class SelectorOperator { In, NotIn, Exists, DoesNotExist, Gt, Lt };

// "In", "NotIn", ...; nullopt for anything else (the manifest decoder reports it with the field path).
std::optional<SelectorOperator> parse_selector_operator(std::string_view text);
std::string_view to_string(SelectorOperator op);

struct LabelRequirement {
  Symbol key;
  SelectorOperator op = SelectorOperator::Exists;
  std::vector<Symbol> values;  // In/NotIn: the set; Gt/Lt: exactly one integer

  // Upstream semantics: NotIn and DoesNotExist match when the label is absent; Gt/Lt compare the label value and
  // the single requirement value as integers and never match when either is not an integer.
  bool matches(const Labels& labels) const;
  bool matches_value(const Symbol* value) const;
  friend bool operator==(const LabelRequirement&, const LabelRequirement&) = default;
};

// A pod label selector. matchLabels decode into In requirements with one value. An empty selector matches every
// pod; where a selector may be absent (affinity terms, spread constraints) the model holds an optional, and an
// absent selector matches nothing.
struct LabelSelector {
  std::vector<LabelRequirement> requirements;

  bool matches(const Labels& labels) const;
  bool empty() const { return requirements.empty(); }
  friend bool operator==(const LabelSelector&, const LabelSelector&) = default;
};

// One nodeSelectorTerm: all expressions must match. matchFields supports metadata.name only, as upstream.
// A term with no expressions and no fields matches no node.
struct NodeSelectorTerm {
  std::vector<LabelRequirement> match_expressions;
  std::vector<LabelRequirement> match_fields;

  bool matches(const Labels& node_labels, Symbol node_name) const;
  friend bool operator==(const NodeSelectorTerm&, const NodeSelectorTerm&) = default;
};

// requiredDuringSchedulingIgnoredDuringExecution of node affinity: the terms are ORed.
struct NodeSelector {
  std::vector<NodeSelectorTerm> terms;

  bool matches(const Labels& node_labels, Symbol node_name) const;
  friend bool operator==(const NodeSelector&, const NodeSelector&) = default;
};

}  // namespace scalewright
