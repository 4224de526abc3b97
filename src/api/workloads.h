#pragma once
// Workloads that create pods from a template (Deployment, ReplicaSet, StatefulSet, Job, DaemonSet), and the
// cluster-policy objects the autoscalers respect (PodDisruptionBudget, PriorityClass, Namespace).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "api/pod.h"

namespace scalewright {

enum class WorkloadKind { Deployment, ReplicaSet, StatefulSet, Job, DaemonSet };
std::string_view to_string(WorkloadKind kind);

struct Workload {
  WorkloadKind kind = WorkloadKind::Deployment;
  ObjectMeta meta;
  std::int32_t replicas = 1;  // Deployment/ReplicaSet/StatefulSet replicas; Job parallelism; unused by DaemonSet
  LabelSelector selector;
  Pod pod_template;  // metadata (labels, annotations) and spec of spec.template

  // The pods this workload runs, named as its controller would name them (web-<hash>-<suffix>, db-0, ...) and
  // owned by it. DaemonSets place one pod per eligible node instead: see scheduling/daemonset.h.
  std::vector<Pod> expand_pods() const;
  // A pod of this workload, for scheduling questions that do not need a name.
  Pod make_pod(std::int32_t ordinal) const;
};

// minAvailable / maxUnavailable: an absolute number or a percentage of the selected pods.
struct IntOrPercent {
  std::int32_t value = 0;
  bool percent = false;
  friend bool operator==(const IntOrPercent&, const IntOrPercent&) = default;

  // The amount it stands for out of `total`, a percentage rounded up or down, as apimachinery's
  // GetScaledValueFromIntOrPercent.
  std::int32_t scaled(std::int32_t total, bool round_up) const;
};

struct PodDisruptionBudget {
  ObjectMeta meta;
  LabelSelector selector;
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
};

struct PriorityClass {
  ObjectMeta meta;
  std::int32_t value = 0;
  bool global_default = false;
  std::string preemption_policy = "PreemptLowerPriority";
};

struct Namespace {
  ObjectMeta meta;
};

// A ConfigMap's data, read where an autoscaler keeps its settings in one (Cluster Autoscaler's
// cluster-autoscaler-priority-expander).
struct ConfigMap {
  ObjectMeta meta;
  std::map<std::string, std::string> data;
};

}  // namespace scalewright
