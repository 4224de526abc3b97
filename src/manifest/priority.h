#pragma once
// Pod priority from PriorityClass names, as the API server's Priority admission plugin sets it: a priority
// already in the spec wins; otherwise priorityClassName names a loaded or built-in class; with no name, the
// global default class applies (the highest-valued one if several claim it), else priority stays unset (0).
#include <optional>
#include <string>
#include <vector>

#include "api/result.h"
#include "manifest/manifest.h"

namespace scalewright::manifest {

// system-cluster-critical (2000000000) and system-node-critical (2000001000).
const std::vector<PriorityClass>& builtin_priority_classes();

// Resolves bare pods and workload templates. An unknown class name is an error naming the object and
// spec.priorityClassName; origins (one per pod and per workload, or empty) say where each came from.
std::optional<Error> resolve_pod_priorities(ManifestSet& set, const std::vector<ObjectOrigin>& pod_origins = {},
                                            const std::vector<ObjectOrigin>& workload_origins = {});

}  // namespace scalewright::manifest
