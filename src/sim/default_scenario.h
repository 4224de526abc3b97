#pragma once
#include <string_view>

namespace scalewright::sim {

// examples/inflate/inflate.yaml, built into the binary so that `scalewright simulate` runs with no argument.
std::string_view default_scenario_text();
inline constexpr std::string_view kDefaultScenarioName = "examples/inflate/inflate.yaml (built in)";

}  // namespace scalewright::sim
