#include "manifest/names.h"

#include <algorithm>
#include <cctype>

#include "manifest/field.h"

namespace scalewright::manifest {
namespace {

constexpr std::size_t kSubdomainMax = 253;
constexpr std::size_t kLabelMax = 63;
constexpr std::size_t kAnnotationsMax = 256 * 1024;  // TotalAnnotationSizeLimitB

bool lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool alnum(char c) { return lower_alnum(c) || (c >= 'A' && c <= 'Z'); }

// [a-z0-9]([-a-z0-9]*[a-z0-9])?
bool is_dns_label(std::string_view text) {
  if (text.empty() || !lower_alnum(text.front()) || !lower_alnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return lower_alnum(c) || c == '-'; });
}

// ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]
bool is_qualified_part(std::string_view text) {
  if (text.empty() || !alnum(text.front()) || !alnum(text.back())) return false;
  return std::all_of(text.begin(), text.end(), [](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

std::string no_more_than(std::size_t max) { return "must be no more than " + std::to_string(max) + " characters"; }

const char* const kSubdomainRule =
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com')";
const char* const kQualifiedPart =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character "
    "(e.g. 'MyName', or 'my.name', or '123-abc')";

}  // namespace

std::optional<std::string> dns1123_subdomain_problem(std::string_view name) {
  if (name.size() > kSubdomainMax) return no_more_than(kSubdomainMax);
  std::size_t start = 0;
  for (;;) {
    const std::size_t dot = name.find('.', start);
    if (!is_dns_label(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start))) {
      return std::string(kSubdomainRule);
    }
    if (dot == std::string_view::npos) return std::nullopt;
    start = dot + 1;
  }
}

std::optional<std::string> dns1123_label_problem(std::string_view name) {
  if (name.size() > kLabelMax) return no_more_than(kLabelMax);
  if (!is_dns_label(name)) {
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and "
           "end with an alphanumeric character (e.g. 'my-name', or '123-abc')";
  }
  return std::nullopt;
}

std::optional<std::string> qualified_name_problem(std::string_view key) {
  std::string_view name = key;
  const std::size_t slash = key.find('/');
  if (slash != std::string_view::npos) {
    if (key.find('/', slash + 1) != std::string_view::npos) {
      return "a qualified name " + std::string(kQualifiedPart) +
             " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
    }
    const std::string_view prefix = key.substr(0, slash);
    if (prefix.empty()) return "prefix part must be non-empty";
    if (std::optional<std::string> problem = dns1123_subdomain_problem(prefix)) return "prefix part " + *problem;
    name = key.substr(slash + 1);
  }
  if (name.empty()) return "name part must be non-empty";
  if (name.size() > kLabelMax) return "name part " + no_more_than(kLabelMax);
  if (!is_qualified_part(name)) return "name part " + std::string(kQualifiedPart);
  return std::nullopt;
}

std::optional<std::string> label_value_problem(std::string_view value) {
  if (value.size() > kLabelMax) return no_more_than(kLabelMax);
  if (!value.empty() && !is_qualified_part(value)) {
    return "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
           "start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345')";
  }
  return std::nullopt;
}

std::optional<std::string> annotations_problem(const std::map<std::string, std::string>& annotations) {
  std::size_t total = 0;
  for (const auto& [key, value] : annotations) {
    std::string lower = key;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (std::optional<std::string> problem = qualified_name_problem(lower)) {
      return "invalid key " + quote(key) + ": " + *problem;
    }
    total += key.size() + value.size();
  }
  if (total > kAnnotationsMax) {
    return "too long: must have at most " + std::to_string(kAnnotationsMax) + " bytes, got " + std::to_string(total);
  }
  return std::nullopt;
}

}  // namespace scalewright::manifest
