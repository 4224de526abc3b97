// kubectl-style presentation of the HPA's status values (quantities, percentages, Go's selector form), out of
// hpa.cpp so that no file of the controller is over 600 lines.
#include "workloads/hpa_status_format.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace scalewright::workloads::detail {
namespace {

// Appends an integer without a temporary string.
void append_int(std::string& out, std::int64_t value) {
  char buffer[24];
  const auto [end, ec] = std::to_chars(std::begin(buffer), std::end(buffer), value);
  out.append(buffer, end);
}

}  // namespace

// A milli-value in apimachinery's canonical DecimalSI form, as kubectl prints a status quantity ("12500m", "3",
// "2k"): the largest SI suffix that keeps the mantissa whole.
std::string format_milli(std::int64_t milli) {
  if (milli == 0) return "0";
  static constexpr const char* kSuffixes[] = {"m", "", "k", "M", "G", "T", "P", "E"};
  const bool negative = milli < 0;
  std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(milli) : static_cast<std::uint64_t>(milli);
  std::size_t suffix = 0;
  while (suffix + 1 < std::size(kSuffixes) && magnitude % 1000 == 0) {
    magnitude /= 1000;
    ++suffix;
  }
  // Built by hand rather than with fmt: every sync formats a target and a current value per metric.
  char buffer[32];
  char* end = buffer;
  if (negative) *end++ = '-';
  end = std::to_chars(end, std::end(buffer), magnitude).ptr;
  std::string out(buffer, end);
  out += kSuffixes[suffix];
  return out;
}

// "<value>%", as kubectl shows a utilization.
std::string format_percent(std::int64_t value) {
  std::string out;
  append_int(out, value);
  out += '%';
  return out;
}

// Go's %+v of a *metav1.LabelSelector, which upstream puts into External metric names and errors: "nil", or the
// generated String() form. matchLabels are the one-value In requirements, as the model keeps them. Appended to
// `out` by hand, without fmt or a map: the name of every External metric proposal carries it, every sync.
void append_go_selector(std::string& out, const std::optional<LabelSelector>& selector) {
  if (!selector) {
    out += "nil";
    return;
  }
  // matchLabels: the first one-value In requirement of each key, printed in key order (a Go map's %v order).
  std::vector<std::pair<std::string_view, std::string_view>> match_labels;
  auto is_match_label = [&](const LabelRequirement& requirement) {
    if (requirement.op != SelectorOperator::In || requirement.values.size() != 1) return false;
    for (const auto& [key, value] : match_labels) {
      if (key == requirement.key.str()) return false;
    }
    return true;
  };
  std::string expressions;
  for (const LabelRequirement& requirement : selector->requirements) {
    if (is_match_label(requirement)) {
      match_labels.emplace_back(requirement.key.str(), requirement.values.front().str());
      continue;
    }
    expressions += "LabelSelectorRequirement{Key:";
    expressions += requirement.key.str();
    expressions += ",Operator:";
    expressions += to_string(requirement.op);
    expressions += ",Values:[";
    for (std::size_t i = 0; i < requirement.values.size(); ++i) {
      if (i > 0) expressions += ' ';
      expressions += requirement.values[i].str();
    }
    expressions += "],},";
  }
  std::sort(match_labels.begin(), match_labels.end());
  out += "&LabelSelector{MatchLabels:map[string]string{";
  for (const auto& [key, value] : match_labels) {
    out += key;
    out += ": ";
    out += value;
    out += ',';
  }
  out += "},MatchExpressions:[]LabelSelectorRequirement{";
  out += expressions;
  out += "},}";
}

std::string go_selector(const std::optional<LabelSelector>& selector) {
  std::string out;
  append_go_selector(out, selector);
  return out;
}

}  // namespace scalewright::workloads::detail
