#pragma once
// What the commands check once the manifests have loaded, past what each object's decoder can check alone. Both
// `check` and `simulate` refuse a ScaledObject whose PromQL the simulator cannot read, with the same line;
// `simulate` also checks what needs the cloud's catalog. The checks live here, where both commands reach them,
// because they need the simulator's PromQL subset and the provisioner's view of instance types, which
// src/manifest must not depend on.
#include <optional>
#include <string>
#include <vector>

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
// never launch a node. Names the requirement after which nothing is left. A NodePool naming a node class of
// `objects` is checked against the catalog as that class shapes it (a Windows class: Windows types only); one
// naming an EC2NodeClass that is not there is not checked (it is not Ready, and the run says so).
std::optional<Error> check_nodepools(const ManifestSet& objects, const cloud::Catalog& catalog);

// KEDA's admission webhook for ScaledObjects (verifyHpas, verifyScaledObjects), in its words: a ScaledObject whose
// target (namespace, group/version.kind, name) an HPA or another ScaledObject already scales, or whose HPA name
// another ScaledObject's HPA has, is refused: they would undo each other's changes at every sync. As KEDA: an HPA
// that the ScaledObject owns (ownerReferences) or that says validations.keda.sh/hpa-ownership: "false" is no
// conflict, nor one the ScaledObject takes over (scaledobject.keda.sh/transfer-hpa-ownership: "true" with its name
// in spec.advanced.horizontalPodAutoscalerConfig.name). Two HPAs on one target are refused too:
// kube-controller-manager's HPA controller would scale neither (AmbiguousSelector). The objects of `scenario`'s
// apply steps count from their step on; an applied object of a loaded one's kind, namespace and name replaces it.
std::optional<Error> check_autoscaler_targets(const ManifestSet& objects, const Scenario* scenario);

// The HPAs of `objects` that a ScaledObject among them has made or takes over (above): KEDA's, so the simulator,
// which makes each ScaledObject's own, leaves them out. Their names, "HorizontalPodAutoscaler namespace/name".
std::vector<std::string> take_out_keda_hpas(ManifestSet& objects);

// What the input asks for, counted before anything is made of it, against what a run holds at once
// (`limits`, the simulator's own: `check` holds as many pods as `simulate`). Refused, naming the file, object and
// field: a count that alone is over a limit (a Deployment's spec.replicas, a Job's spec.parallelism, an autoscaler's
// minimum, a scale step's replicas, an Auto Scaling group's desiredCapacity), and the count that brings the pods or
// nodes the input starts with over it. An autoscaler's maximum is a ceiling the load may never reach: a run that
// gets there stops at that instant instead.
std::optional<Error> check_run_size(const ManifestSet& objects, const sim::SimulationLimits& limits);

}  // namespace scalewright::cli
