#pragma once
// What a scenario refers to by name must be there when it is needed, checked when the files load rather than
// discovered halfway through a run: the workloads of timeline scale and load steps, the NodePools of node-failure
// faults, and the scale targets of HorizontalPodAutoscalers and ScaledObjects. An object a timeline `apply` step
// creates counts from that step on, and one a `delete` step removes is gone after it, as the simulator runs them:
// in time order, steps at one time in the order written, faults after the steps of their time.
#include <optional>

#include "api/result.h"
#include "api/scenario.h"
#include "manifest/manifest.h"

namespace scalewright {

// The first dangling reference, as an error naming the file, document, object and field; `scenario` may be null
// (manifests without a Scenario).
std::optional<Error> check_references(const ManifestSet& objects, const Scenario* scenario);

}  // namespace scalewright
