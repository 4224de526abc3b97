#pragma once
// Decoders for the built-in kinds, one per kind: the object's root field in, the model value out. The registry
// (kind_registry.h) maps each kind and API group to the function that adds it to a ManifestSet.
#include "api/node.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "manifest/field.h"
#include "manifest/manifest.h"

namespace scalewright::manifest {

Node decode_node(const Field& object);
Namespace decode_namespace(const Field& object);
ConfigMap decode_config_map(const Field& object);
// Deployment, ReplicaSet, StatefulSet, DaemonSet and Job: replicas (Job: min(parallelism, completions)),
// selector (which must match the template's labels), and the pod template in the workload's namespace.
Workload decode_workload(const Field& object, WorkloadKind kind);
// A Deployment whose pod runs Cluster Autoscaler (a container image named cluster-autoscaler): its flags, checked
// now so that a bad one fails the load at the command or args element that holds it. nullopt for any other.
std::optional<ClusterAutoscalerDeployment> as_cluster_autoscaler(const Field& object, const Workload& deployment);
// policy/v1 or v1beta1, read by its apiVersion: an empty selector selects every pod in v1 and none in v1beta1.
PodDisruptionBudget decode_pod_disruption_budget(const Field& object);
PriorityClass decode_priority_class(const Field& object);

// minAvailable/maxUnavailable: 3 or "50%"; nullopt when absent.
std::optional<IntOrPercent> maybe_int_or_percent(const Field& parent, std::string_view key);

}  // namespace scalewright::manifest
