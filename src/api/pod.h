#pragma once
// The Pod, with every field that decides where it may run.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "api/resources.h"
#include "api/symbol.h"

namespace scalewright {

struct ContainerPort {
  std::int32_t container_port = 0;
  std::int32_t host_port = 0;  // 0: no host port
  std::string protocol = "TCP";
  std::string host_ip;  // empty means 0.0.0.0
  friend bool operator==(const ContainerPort&, const ContainerPort&) = default;
};

struct Container {
  std::string name;
  std::string image;
  std::vector<std::string> command;  // the entrypoint, e.g. ["./cluster-autoscaler", "--v=4", ...]
  std::vector<std::string> args;
  ResourceList requests;
  ResourceList limits;
  std::vector<ContainerPort> ports;
  std::optional<std::string> restart_policy;  // init containers only: "Always" makes a sidecar
  bool is_sidecar() const { return restart_policy && *restart_policy == "Always"; }
  friend bool operator==(const Container&, const Container&) = default;
};

struct PreferredSchedulingTerm {
  std::int32_t weight = 0;
  NodeSelectorTerm preference;
};

struct PodAffinityTerm {
  std::optional<LabelSelector> label_selector;  // absent: matches no pod
  std::vector<std::string> namespaces;          // empty and no namespace selector: the pod's own namespace
  std::optional<LabelSelector> namespace_selector;  // present and empty: every namespace
  Symbol topology_key;
};

struct WeightedPodAffinityTerm {
  std::int32_t weight = 0;
  PodAffinityTerm term;
};

struct Affinity {
  std::optional<NodeSelector> required_node_affinity;
  std::vector<PreferredSchedulingTerm> preferred_node_affinity;
  std::vector<PodAffinityTerm> required_pod_affinity;
  std::vector<WeightedPodAffinityTerm> preferred_pod_affinity;
  std::vector<PodAffinityTerm> required_pod_anti_affinity;
  std::vector<WeightedPodAffinityTerm> preferred_pod_anti_affinity;
};

enum class UnsatisfiableConstraintAction { DoNotSchedule, ScheduleAnyway };
enum class NodeInclusionPolicy { Honor, Ignore };

struct TopologySpreadConstraint {
  std::int32_t max_skew = 1;
  Symbol topology_key;
  UnsatisfiableConstraintAction when_unsatisfiable = UnsatisfiableConstraintAction::DoNotSchedule;
  std::optional<LabelSelector> label_selector;  // absent: matches no pod
  std::optional<std::int32_t> min_domains;
  NodeInclusionPolicy node_affinity_policy = NodeInclusionPolicy::Honor;
  NodeInclusionPolicy node_taints_policy = NodeInclusionPolicy::Ignore;
  std::vector<std::string> match_label_keys;
};

struct Volume {
  std::string name;
  enum class Source { Other, EmptyDir, HostPath, PersistentVolumeClaim, ConfigMap, Secret, Projected } source =
      Source::Other;
  friend bool operator==(const Volume&, const Volume&) = default;
};

enum class PodPhase { Pending, Running, Succeeded, Failed, Unknown };

struct PodCondition {
  std::string type;
  std::string status;
  std::string reason;
  friend bool operator==(const PodCondition&, const PodCondition&) = default;
};

// spec.terminationGracePeriodSeconds where a pod leaves it out: the API server's default.
inline constexpr std::int64_t kDefaultTerminationGracePeriodSeconds = 30;

// What the pods of one template share (containers, tolerations, volumes) is held copy-on-write.
struct PodSpec {
  CopyOnWrite<std::vector<Container>> init_containers;
  CopyOnWrite<std::vector<Container>> containers;
  ResourceList overhead;
  std::string node_name;
  Labels node_selector;
  Affinity affinity;
  CopyOnWrite<std::vector<Toleration>> tolerations;
  std::vector<TopologySpreadConstraint> topology_spread_constraints;
  std::optional<std::int32_t> priority;
  std::string priority_class_name;
  Symbol scheduler_name = "default-scheduler";  // interned: a pod of a cluster's thousands would each copy it
  std::string restart_policy = "Always";
  std::optional<std::int64_t> termination_grace_period_seconds;  // nullopt: kDefaultTerminationGracePeriodSeconds
  CopyOnWrite<std::vector<Volume>> volumes;
};

// One term of the sum effective_requests() makes: a container, an init container (a sidecar, or one that runs
// after the sidecars before it), or the overhead (index 0).
struct RequestTerm {
  enum class Part { Container, InitContainer, Overhead } part = Part::Container;
  std::size_t index = 0;
};
// Where a pod's requests, summed as effective_requests() sums them, first pass int64's limit, and in which
// resource. The API server bounds each quantity, not their sum (see ResourceList), so a manifest can ask for
// more than any sum holds: its decoder refuses it, naming this term. effective_requests() saturates instead.
struct RequestOverflow {
  RequestTerm term;
  Symbol resource;
};
std::optional<RequestOverflow> requests_overflow(const PodSpec& spec);

struct PodStatus {
  PodPhase phase = PodPhase::Pending;
  CopyOnWrite<std::vector<PodCondition>> conditions;  // most pods of a template have the same ones
  std::string nominated_node_name;
};

struct Pod {
  ObjectMeta meta;
  PodSpec spec;
  PodStatus status;

  // What the scheduler reserves for the pod: max(sum of app containers + sidecars, for each init container in
  // order: the sidecars started before it + that init container), plus the pod overhead. The pods resource is 1.
  ResourceList effective_requests() const;
  // Host ports the pod asks for (ports with hostPort > 0), from app containers and sidecars.
  std::vector<ContainerPort> host_ports() const;
  std::int32_t priority() const { return spec.priority.value_or(0); }
  bool is_bound() const { return !spec.node_name.empty(); }
  bool is_terminal() const { return status.phase == PodPhase::Succeeded || status.phase == PodPhase::Failed; }
  bool is_daemonset_pod() const;
};

}  // namespace scalewright
