#pragma once
// Label selectors and node selector terms, validated as the API server validates them. Shared by every kind
// that selects pods or nodes (workloads, PDBs, affinity, spread constraints, and later NodePool requirements).
#include <optional>

#include "api/labels.h"
#include "manifest/field.h"

namespace scalewright::manifest {

// {key, operator, values}; any of the six operators, with the number of values each needs (In/NotIn at least
// one, Exists/DoesNotExist none, Gt/Lt exactly one integer).
LabelRequirement decode_node_requirement(const Field& requirement);

// matchLabels (as In requirements with one value) and matchExpressions (In, NotIn, Exists, DoesNotExist).
LabelSelector decode_label_selector(const Field& selector);
// nullopt when `key` is absent: an absent selector matches nothing where the model keeps the difference.
std::optional<LabelSelector> maybe_label_selector(const Field& parent, std::string_view key);

// matchExpressions (any operator) and matchFields (metadata.name only, In/NotIn with one value).
NodeSelectorTerm decode_node_selector_term(const Field& term);

}  // namespace scalewright::manifest
