#pragma once
// What a scenario refers to by name must be there when it is needed, checked when the files load rather than
// discovered halfway through a run: the workloads of timeline scale and load steps, the NodePools of node-failure
// faults, and the scale targets of HorizontalPodAutoscalers and ScaledObjects. An object a timeline `apply` step
// creates counts from that step's time on, for steps at the same time too (they run in the same instant).
#include <optional>

#include "api/result.h"
#include "api/scenario.h"
#include "manifest/manifest.h"

namespace scalewright {

// The first dangling reference, as an error naming the file, document, object and field; `scenario` may be null
// (manifests without a Scenario). Deletions are not followed: a step naming an object deleted earlier is not
// caught here.
std::optional<Error> check_references(const ManifestSet& objects, const Scenario* scenario);

}  // namespace scalewright
