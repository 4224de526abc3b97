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

// A StatefulSet's spec.podManagementPolicy. OrderedReady (the default): the StatefulSet controller makes pods one
// at a time in ordinal order, each once every pod before it is Running and Ready, and removes them from the highest
// ordinal down, each once the one above it is gone. Parallel: it makes and removes them all at once.
enum class PodManagementPolicy { OrderedReady, Parallel };

struct Workload {
  WorkloadKind kind = WorkloadKind::Deployment;
  ObjectMeta meta;
  std::int32_t replicas = 1;  // Deployment/ReplicaSet/StatefulSet replicas; Job parallelism; unused by DaemonSet
  PodManagementPolicy pod_management_policy = PodManagementPolicy::OrderedReady;  // StatefulSet only
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

// spec.unhealthyPodEvictionPolicy: when a Running pod that is not Ready may be evicted.
enum class UnhealthyPodEvictionPolicy {
  IfHealthyBudget,  // only while the budget has its desired healthy pods (the default)
  AlwaysAllow,      // always, whatever the budget allows
};

struct PodDisruptionBudget {
  ObjectMeta meta;
  // As policy/v1 reads it: absent selects no pod, an empty selector every pod of the namespace. (A policy/v1beta1
  // empty selector selected none: the decoder reads it as absent.)
  std::optional<LabelSelector> selector;
  std::optional<IntOrPercent> min_available;
  std::optional<IntOrPercent> max_unavailable;
  UnhealthyPodEvictionPolicy unhealthy_pod_eviction_policy = UnhealthyPodEvictionPolicy::IfHealthyBudget;

  // Whether the budget covers `pod`: the one matching rule of the disruption controller, the eviction subresource
  // and the drain planners.
  bool selects(const Pod& pod) const;
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
