#pragma once
// The API server's rules for names, label keys and values and annotations (k8s.io/apimachinery's
// pkg/util/validation and pkg/api/validation), each giving why a text is refused in the API server's words, or
// nullopt. Names, label keys and values are what end up in every output, so a text the API server refuses (a
// control character, an escape sequence, a newline, 300 characters) never reaches one from an accepted object.
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace scalewright::manifest {

// Most object names (Deployment, Pod, Node, NodePool, ...): at most 253 characters of [a-z0-9.-], starting and
// ending alphanumeric, dots between labels.
std::optional<std::string> dns1123_subdomain_problem(std::string_view name);
// Namespaces, container names: at most 63 characters of [a-z0-9-], starting and ending alphanumeric.
std::optional<std::string> dns1123_label_problem(std::string_view name);
// Label and annotation keys: an optional DNS subdomain prefix (at most 253) and "/", then a name of at most 63
// characters of [A-Za-z0-9._-] starting and ending alphanumeric.
std::optional<std::string> qualified_name_problem(std::string_view key);
// Label values: empty, or at most 63 characters of [A-Za-z0-9._-] starting and ending alphanumeric.
std::optional<std::string> label_value_problem(std::string_view value);
// Annotations: keys as label keys (lower-cased first, as the API server does), at most 256 KiB of keys and values.
std::optional<std::string> annotations_problem(const std::map<std::string, std::string>& annotations);

}  // namespace scalewright::manifest
