#pragma once
// Scenario (scalewright.dev/v1alpha1), our own kind: see api/scenario.h.
#include "api/scenario.h"
#include "manifest/field.h"

namespace scalewright::manifest {

Scenario decode_scenario(const Field& object);

}  // namespace scalewright::manifest
