#pragma once
// How the HPA's status shows quantities, utilizations and selectors, in kubectl's and upstream's exact words: kept
// apart from the metric computations so that what is computed and how it is printed can be read separately.
#include <cstdint>
#include <optional>
#include <string>

#include "api/labels.h"

namespace scalewright::workloads::detail {

std::string format_milli(std::int64_t milli);
std::string format_percent(std::int64_t value);
void append_go_selector(std::string& out, const std::optional<LabelSelector>& selector);
std::string go_selector(const std::optional<LabelSelector>& selector);

}  // namespace scalewright::workloads::detail
