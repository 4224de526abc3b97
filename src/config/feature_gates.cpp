#include "config/feature_gates.h"

#include <algorithm>
#include <array>
#include <string>

namespace scalewright::config {
namespace {

// Karpenter's gates (pkg/operator/options) that Scalewright accepts without acting on them.
constexpr std::array<std::string_view, 5> kAcceptedGates{"ReservedCapacity", "SpotToSpotConsolidation", "NodeOverlay",
                                                         "StaticCapacity", "CapacityBuffer"};

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

}  // namespace

Result<FeatureGates> parse_feature_gates(std::string_view text) {
  FeatureGates gates;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    const std::size_t eq = item.find('=');
    const std::string_view name = item.substr(0, eq);
    const std::string_view value = eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    if (value != "true" && value != "false") return Error{quoted(item) + ": expected NAME=true or NAME=false"};
    if (name == "NodeRepair") {
      gates.node_repair = value == "true";
    } else if (std::find(kAcceptedGates.begin(), kAcceptedGates.end(), name) == kAcceptedGates.end()) {
      return Error{quoted(item) + ": not a feature gate of Karpenter's (NodeRepair, ReservedCapacity, "
                                  "SpotToSpotConsolidation, NodeOverlay, StaticCapacity, CapacityBuffer)"};
    }
  }
  return gates;
}

}  // namespace scalewright::config
