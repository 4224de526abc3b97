#include "api/labels.h"

#include <algorithm>

namespace scalewright {
namespace {

template <typename Entries>  // const or mutable
auto lower_bound_key(Entries& entries, Symbol key) {
  return std::lower_bound(entries.begin(), entries.end(), key,
                          [](const Labels::Entry& e, Symbol k) { return e.first < k; });
}

bool contains(const std::vector<Symbol>& values, Symbol value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

}  // namespace

Labels::Labels(std::initializer_list<std::pair<std::string_view, std::string_view>> entries) {
  for (const auto& [key, value] : entries) set(Symbol(key), Symbol(value));
}

void Labels::set(Symbol key, Symbol value) {
  auto it = lower_bound_key(entries_, key);
  if (it != entries_.end() && it->first == key) {
    it->second = value;
  } else {
    entries_.insert(it, {key, value});
  }
}

void Labels::erase(Symbol key) {
  auto it = lower_bound_key(entries_, key);
  if (it != entries_.end() && it->first == key) entries_.erase(it);
}

const Symbol* Labels::find(Symbol key) const {
  auto it = lower_bound_key(entries_, key);
  return it != entries_.end() && it->first == key ? &it->second : nullptr;
}

bool Labels::contains_all(const Labels& subset) const {
  // Both sides are sorted by key: one merge pass.
  auto it = entries_.begin();
  for (const Entry& wanted : subset.entries_) {
    while (it != entries_.end() && it->first < wanted.first) ++it;
    if (it == entries_.end() || it->first != wanted.first || it->second != wanted.second) return false;
  }
  return true;
}

std::optional<SelectorOperator> parse_selector_operator(std::string_view text) {
  if (text == "In") return SelectorOperator::In;
  if (text == "NotIn") return SelectorOperator::NotIn;
  if (text == "Exists") return SelectorOperator::Exists;
  if (text == "DoesNotExist") return SelectorOperator::DoesNotExist;
  if (text == "Gt") return SelectorOperator::Gt;
  if (text == "Lt") return SelectorOperator::Lt;
  return std::nullopt;
}

std::string_view to_string(SelectorOperator op) {
  switch (op) {
    case SelectorOperator::In: return "In";
    case SelectorOperator::NotIn: return "NotIn";
    case SelectorOperator::Exists: return "Exists";
    case SelectorOperator::DoesNotExist: return "DoesNotExist";
    case SelectorOperator::Gt: return "Gt";
    case SelectorOperator::Lt: return "Lt";
  }
  return "?";
}

bool LabelRequirement::matches(const Labels& labels) const { return matches_value(labels.find(key)); }

bool LabelRequirement::matches_value(const Symbol* value) const {
  switch (op) {
    case SelectorOperator::In: return value != nullptr && contains(values, *value);
    case SelectorOperator::NotIn: return value == nullptr || !contains(values, *value);
    case SelectorOperator::Exists: return value != nullptr;
    case SelectorOperator::DoesNotExist: return value == nullptr;
    case SelectorOperator::Gt:
    case SelectorOperator::Lt: {
      if (value == nullptr || values.size() != 1) return false;
      auto actual = parse_integer(value->str());
      auto bound = parse_integer(values.front().str());
      if (!actual || !bound) return false;
      return op == SelectorOperator::Gt ? *actual > *bound : *actual < *bound;
    }
  }
  return false;
}

bool LabelSelector::matches(const Labels& labels) const {
  return std::all_of(requirements.begin(), requirements.end(),
                     [&](const LabelRequirement& r) { return r.matches(labels); });
}

bool NodeSelectorTerm::matches(const Labels& node_labels, Symbol node_name) const {
  if (match_expressions.empty() && match_fields.empty()) return false;
  for (const LabelRequirement& r : match_expressions) {
    if (!r.matches(node_labels)) return false;
  }
  static const Symbol kMetadataName("metadata.name");
  for (const LabelRequirement& r : match_fields) {
    // Upstream supports one field selector key; any other never matches.
    if (r.key != kMetadataName || !r.matches_value(&node_name)) return false;
  }
  return true;
}

bool NodeSelector::matches(const Labels& node_labels, Symbol node_name) const {
  return std::any_of(terms.begin(), terms.end(),
                     [&](const NodeSelectorTerm& t) { return t.matches(node_labels, node_name); });
}

}  // namespace scalewright
