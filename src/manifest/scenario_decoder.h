#pragma once
// Scenario (scalewright.dev/v1alpha1), our own kind: see api/scenario.h.
#include <filesystem>

#include "api/scenario.h"
#include "manifest/field.h"

namespace scalewright::manifest {

// `directory`: the folder of the scenario's file, which a load's `csv:` file path is relative to.
Scenario decode_scenario(const Field& object, const std::filesystem::path& directory);

}  // namespace scalewright::manifest
