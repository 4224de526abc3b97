#pragma once
// Karpenter's --feature-gates as its controller takes them ("NodeRepair=true,SpotToSpotConsolidation=false"):
// the gates Scalewright acts on set, upstream's others accepted and not acted on, any other name refused.
#include <string_view>

#include "api/result.h"
#include "api/scenario.h"

namespace scalewright::config {

// Errors name the item at fault: `"NodeRepiar=true": not a feature gate of Karpenter's (...)`.
Result<FeatureGates> parse_feature_gates(std::string_view text);

}  // namespace scalewright::config
