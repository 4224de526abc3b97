#pragma once
// What the commands check once the manifests have loaded, past what each object's decoder can check alone. Both
// `check` and `simulate` refuse a ScaledObject whose PromQL the simulator cannot read, with the same line;
// `simulate` also checks what needs the cloud's catalog. The checks live here, where both commands reach them,
// because they need the simulator's PromQL subset and the provisioner's view of instance types, which
// src/manifest must not depend on.
#include <optional>

#include "api/result.h"
#include "cloud/catalog.h"
#include "manifest/manifest.h"
#include "sim/simulator.h"

namespace scalewright::cli {

// The first ScaledObject whose prometheus trigger's query is outside the PromQL the simulator answers. With
// `simulated`, also one KEDA would refuse as the simulator models its scalers (workloads::scaled_object_problems)
// and a query on a metric the simulator does not serve (only http_requests_total, from the load steps).
std::optional<Error> check_scaled_objects(const ManifestSet& objects, bool simulated);

// The first NodePool whose requirements leave no instance type of `catalog` with an offering they allow: it could
// never launch a node. Names the requirement after which nothing is left.
std::optional<Error> check_nodepools(const ManifestSet& objects, const cloud::Catalog& catalog);

// What the input asks for, counted before anything is made of it, against what a run holds at once
// (`limits`, the simulator's own: `check` holds as many pods as `simulate`). Refused, naming the file, object and
// field: a count that alone is over a limit (a Deployment's spec.replicas, a Job's spec.parallelism, an autoscaler's
// minimum, a scale step's replicas, an Auto Scaling group's desiredCapacity), and the count that brings the pods or
// nodes the input starts with over it. An autoscaler's maximum is a ceiling the load may never reach: a run that
// gets there stops at that instant instead.
std::optional<Error> check_run_size(const ManifestSet& objects, const sim::SimulationLimits& limits);

}  // namespace scalewright::cli
