#pragma once
// Scenario (scalewright.dev/v1alpha1), our own kind: see api/scenario.h.
#include <filesystem>

#include <string>
#include <vector>

#include "api/result.h"
#include "api/scenario.h"
#include "manifest/field.h"
#include "manifest/kind_registry.h"

namespace scalewright::manifest {

// `context`: the folder of the scenario's file, which a load's `csv:` file path is relative to, and the limits a
// csv: file is read under. The warnings of its apply steps' objects go to `warnings`.
Scenario decode_scenario(const Field& object, const DecodeContext& context, std::vector<std::string>& warnings);

// A list of Auto Scaling groups as a Scenario's spec.cloud.autoScalingGroups writes them; names are unique.
std::vector<CloudNodeGroup> decode_auto_scaling_groups(const Field& list);

// A file whose `autoScalingGroups:` lists groups in that format (`scalewright run --auto-scaling-groups`, the
// groups kwok plays for Cluster Autoscaler's flags). Errors name the file and the field.
Result<std::vector<CloudNodeGroup>> load_auto_scaling_groups(const std::filesystem::path& file);

}  // namespace scalewright::manifest
