#pragma once
// The Pod and its parts, for the Pod kind and for every kind that carries a pod template.
#include <string>

#include "api/pod.h"
#include "api/resources.h"
#include "manifest/field.h"

namespace scalewright::manifest {

// A mapping of resource name to quantity (requests, limits, overhead, capacity): each amount is
// resource_amount(name, quantity); negative quantities are rejected.
ResourceList decode_resource_list(const Field& list);

Container decode_container(const Field& container);
Affinity decode_affinity(const Field& affinity);
TopologySpreadConstraint decode_spread_constraint(const Field& constraint);
PodSpec decode_pod_spec(const Field& spec);
PodStatus decode_pod_status(const Field& status);

// A whole Pod object (metadata, spec, status).
Pod decode_pod(const Field& object);
// spec.template of a workload: its metadata (labels, annotations) and spec, in the workload's namespace.
Pod decode_pod_template(const Field& pod_template, const std::string& namespace_);

}  // namespace scalewright::manifest
