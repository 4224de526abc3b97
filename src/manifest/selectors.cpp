#include "manifest/selectors.h"

#include <cstdint>
#include <string>
#include <vector>

#include "api/integer.h"
#include "manifest/meta_decoder.h"

namespace scalewright::manifest {
namespace {

constexpr std::string_view kAllOperators = "In, NotIn, Exists, DoesNotExist, Gt, Lt";
constexpr std::string_view kLabelSelectorOperators = "In, NotIn, Exists, DoesNotExist";

SelectorOperator read_operator(const Field& requirement) {
  std::string text = requirement.required_string("operator");
  std::optional<SelectorOperator> op = parse_selector_operator(text);
  if (!op) {
    requirement.fail_at("operator",
                        "unknown operator " + quote(text) + " (expected " + std::string(kAllOperators) + ")");
  }
  return *op;
}

std::vector<Symbol> read_values(const Field& requirement) {
  std::vector<Symbol> values;
  for (const std::string& value : requirement.strings("values")) values.emplace_back(value);
  return values;
}

// Read as LabelRequirement::matches will read it when comparing, so a value accepted here can match.
bool is_integer(std::string_view text) { return parse_integer(text).has_value(); }

// The number of values each operator takes, and Gt/Lt's value being an integer.
void check_values(const Field& requirement, const LabelRequirement& decoded) {
  std::string op(to_string(decoded.op));
  std::string count = std::to_string(decoded.values.size());
  switch (decoded.op) {
    case SelectorOperator::In:
    case SelectorOperator::NotIn:
      if (decoded.values.empty()) requirement.fail_at("values", op + " needs at least one value");
      return;
    case SelectorOperator::Exists:
    case SelectorOperator::DoesNotExist:
      if (!decoded.values.empty()) requirement.fail_at("values", op + " takes no values, got " + count);
      return;
    case SelectorOperator::Gt:
    case SelectorOperator::Lt:
      if (decoded.values.size() != 1) requirement.fail_at("values", op + " needs exactly one value, got " + count);
      if (!is_integer(decoded.values[0].str())) {
        requirement.fail_at("values[0]", op + " needs an integer value, got " + quote(decoded.values[0].str()));
      }
      return;
  }
}

}  // namespace

LabelRequirement decode_node_requirement(const Field& requirement) {
  LabelRequirement decoded;
  decoded.key = Symbol(requirement.required_string("key"));
  check_label_key(requirement, "key", decoded.key.str());
  decoded.op = read_operator(requirement);
  decoded.values = read_values(requirement);
  check_values(requirement, decoded);
  return decoded;
}

LabelSelector decode_label_selector(const Field& selector) {
  LabelSelector decoded;
  decode_labels(selector, "matchLabels");  // the keys and values, by the label rules
  for (const auto& [key, value] : selector.string_map("matchLabels")) {  // as written
    decoded.requirements.push_back({Symbol(key), SelectorOperator::In, {Symbol(value)}});
  }
  selector.each("matchExpressions", [&](const Field& expression) {
    LabelRequirement requirement = decode_node_requirement(expression);
    if (requirement.op == SelectorOperator::Gt || requirement.op == SelectorOperator::Lt) {
      expression.fail_at("operator", "unsupported operator " + quote(to_string(requirement.op)) +
                                         " in a label selector (expected " +
                                         std::string(kLabelSelectorOperators) + ")");
    }
    decoded.requirements.push_back(std::move(requirement));
  });
  return decoded;
}

std::optional<LabelSelector> maybe_label_selector(const Field& parent, std::string_view key) {
  Field selector = parent.child(key);
  if (!selector.present()) return std::nullopt;
  return decode_label_selector(selector);
}

NodeSelectorTerm decode_node_selector_term(const Field& term) {
  NodeSelectorTerm decoded;
  term.each("matchExpressions",
            [&](const Field& expression) { decoded.match_expressions.push_back(decode_node_requirement(expression)); });
  term.each("matchFields", [&](const Field& field) {
    LabelRequirement requirement = decode_node_requirement(field);
    if (requirement.key.str() != "metadata.name") {
      field.fail_at("key", "unsupported field " + quote(requirement.key.str()) + " (expected metadata.name)");
    }
    bool in_or_not_in = requirement.op == SelectorOperator::In || requirement.op == SelectorOperator::NotIn;
    if (!in_or_not_in) {
      field.fail_at("operator", "unsupported operator " + quote(to_string(requirement.op)) +
                                    " in matchFields (expected In, NotIn)");
    }
    if (requirement.values.size() != 1) {
      field.fail_at("values", "matchFields needs exactly one value, got " + std::to_string(requirement.values.size()));
    }
    decoded.match_fields.push_back(std::move(requirement));
  });
  return decoded;
}

}  // namespace scalewright::manifest
