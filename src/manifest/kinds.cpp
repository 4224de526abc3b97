#include "manifest/kinds.h"

#include <algorithm>
#include <limits>

#include "api/integer.h"

#include "manifest/meta_decoder.h"
#include "config/cluster_autoscaler_flags.h"
#include "manifest/pod_decoder.h"
#include "manifest/priority.h"
#include "manifest/selectors.h"

namespace scalewright::manifest {
namespace {

NodeCondition decode_node_condition(const Field& condition) {
  return {condition.required_string("type"), condition.optional_string("status"), condition.optional_string("reason"),
          read_timestamp(condition, "lastTransitionTime")};
}

// Deployment/ReplicaSet/StatefulSet: spec.replicas (default 1). Job: as many pods at once as parallelism allows
// (default 1), and no more than completions when set. DaemonSets place one pod per node instead.
std::int32_t decode_replicas(const Field& spec, WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::Job: {
      std::int32_t parallelism = spec.maybe_non_negative_int32("parallelism").value_or(1);
      std::optional<std::int32_t> completions = spec.maybe_non_negative_int32("completions");
      return completions ? std::min(parallelism, *completions) : parallelism;
    }
    case WorkloadKind::DaemonSet:
      return 1;
    default:
      return spec.maybe_non_negative_int32("replicas").value_or(1);
  }
}

// The fields of each workload's spec that do not bear on how many pods it runs or what they ask for: rollout and
// retry settings, a StatefulSet's volumes and service. (A DaemonSet has no replicas, nor a Job: theirs are unknown.)
void known_workload_fields(const Field& spec, WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::Deployment:
      spec.known({"minReadySeconds", "paused", "progressDeadlineSeconds", "revisionHistoryLimit", "strategy"});
      return;
    case WorkloadKind::ReplicaSet:
      spec.known({"minReadySeconds"});
      return;
    case WorkloadKind::StatefulSet:
      spec.known({"minReadySeconds", "ordinals", "persistentVolumeClaimRetentionPolicy", "podManagementPolicy",
                  "revisionHistoryLimit", "serviceName", "updateStrategy", "volumeClaimTemplates"});
      return;
    case WorkloadKind::DaemonSet:
      spec.known({"minReadySeconds", "revisionHistoryLimit", "updateStrategy"});
      return;
    case WorkloadKind::Job:
      spec.known({"activeDeadlineSeconds", "backoffLimit", "backoffLimitPerIndex", "completionMode", "managedBy",
                  "manualSelector", "maxFailedIndexes", "podFailurePolicy", "podReplacementPolicy", "successPolicy",
                  "suspend", "ttlSecondsAfterFinished"});
      return;
  }
}

// A Job without a selector gets one from the API server, with the matching labels added to its template.
LabelSelector generated_job_selector(const ObjectMeta& job, Pod& pod_template) {
  Symbol name(job.name);
  pod_template.meta.labels.set(Symbol("batch.kubernetes.io/job-name"), name);
  pod_template.meta.labels.set(Symbol("job-name"), name);
  return LabelSelector{{{Symbol("batch.kubernetes.io/job-name"), SelectorOperator::In, {name}}}};
}

LabelSelector decode_workload_selector(const Field& spec, Workload& workload) {
  if (workload.kind == WorkloadKind::Job && !spec.has("selector")) {
    return generated_job_selector(workload.meta, workload.pod_template);
  }
  Field selector = spec.required_child("selector");
  LabelSelector decoded = decode_label_selector(selector);
  if (decoded.empty()) selector.fail("must not be empty");
  if (!decoded.matches(workload.pod_template.meta.labels)) {
    spec.fail_at("template.metadata.labels", "selector does not match template labels");
  }
  return decoded;
}

// Jobs run to completion (OnFailure or Never); every other workload restarts its pods (Always).
void check_template_restart_policy(const Field& spec, const Workload& workload) {
  Field pod_spec = spec.child("template").child("spec");
  const std::string& policy = workload.pod_template.spec.restart_policy;
  if (workload.kind == WorkloadKind::Job) {
    if (!pod_spec.has("restartPolicy")) pod_spec.fail_at("restartPolicy", "required for a Job (OnFailure or Never)");
    if (policy == "Always") {
      pod_spec.fail_at("restartPolicy", "unsupported value \"Always\" (expected OnFailure, Never)");
    }
  } else if (policy != "Always") {
    pod_spec.fail_at("restartPolicy", "unsupported value " + quote(policy) + " (expected Always)");
  }
}

// The API server's ValidatePriorityClass: names starting "system-" are the built-in classes', each with its own value
// and not the global default; any other class has a value of at most 1,000,000,000 (HighestUserDefinablePriority),
// so that the system's classes stay above every user's.
void check_priority_class(const Field& object, const PriorityClass& priority_class) {
  constexpr std::int32_t kHighestUserDefinablePriority = 1'000'000'000;
  const std::string& name = priority_class.meta.name;
  if (!name.starts_with("system-")) {
    if (priority_class.value > kHighestUserDefinablePriority) {
      object.fail_at("value", "maximum allowed value of a user defined priority is " +
                                  std::to_string(kHighestUserDefinablePriority) + ", got " +
                                  std::to_string(priority_class.value));
    }
    return;
  }
  const std::string reserved = "priority class names with 'system-' prefix are reserved for system use only. error: ";
  const std::vector<PriorityClass>& builtin = builtin_priority_classes();
  auto known =
      std::find_if(builtin.begin(), builtin.end(), [&](const PriorityClass& c) { return c.meta.name == name; });
  if (known == builtin.end()) {
    object.child("metadata").fail_at("name", reserved + name + " is not a known system priority class");
  }
  if (priority_class.value != known->value) {
    object.child("metadata").fail_at("name", reserved + "value of " + name + " PriorityClass must be " +
                                                 std::to_string(known->value));
  }
  if (priority_class.global_default) {
    object.child("metadata").fail_at("name", reserved + "globalDefault of " + name + " PriorityClass must be false");
  }
}

// The whole of `text` as an int32, or nullopt.
std::optional<std::int32_t> parse_int32(std::string_view text) {
  std::optional<std::int64_t> value = parse_integer(text);
  if (!value || *value < std::numeric_limits<std::int32_t>::min() || *value > std::numeric_limits<std::int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<std::int32_t>(*value);
}

// An IntOrString as PDBs use it: a plain integer, or a string "<integer>%".
std::optional<IntOrPercent> read_int_or_percent(const Field& field) {
  if (!field.node().IsScalar()) return std::nullopt;
  std::string_view text = field.node().Scalar();
  if (!text.empty() && text.back() == '%') {
    std::optional<std::int32_t> percent = parse_int32(text.substr(0, text.size() - 1));
    return percent ? std::optional<IntOrPercent>({*percent, true}) : std::nullopt;
  }
  std::optional<std::int32_t> value = field.quoted() ? std::nullopt : parse_int32(text);
  return value ? std::optional<IntOrPercent>({*value, false}) : std::nullopt;
}

}  // namespace

std::optional<IntOrPercent> maybe_int_or_percent(const Field& parent, std::string_view key) {
  Field field = parent.child(key);
  if (!field.present()) return std::nullopt;
  std::optional<IntOrPercent> decoded = read_int_or_percent(field);
  if (!decoded) field.fail("expected an integer or a percentage, got " + field.describe());
  if (decoded->value < 0) field.fail("must not be negative");
  if (decoded->percent && decoded->value > 100) field.fail("must not be more than 100%");
  return decoded;
}

Node decode_node(const Field& object) {
  Node node;
  node.meta = decode_object_meta(object, Scope::Cluster);
  Field spec = object.child("spec");
  spec.known({"configSource", "externalID", "podCIDR", "podCIDRs"});
  node.unschedulable = spec.optional_bool("unschedulable", false);
  spec.each("taints", [&](const Field& taint) { node.taints.push_back(decode_taint(taint)); });
  node.provider_id = spec.optional_string("providerID");
  Field status = object.child("status");
  node.capacity = decode_resource_list(status.child("capacity"));
  node.allocatable = status.has("allocatable") ? decode_resource_list(status.child("allocatable")) : node.capacity;
  status.each("conditions", [&](const Field& c) { node.conditions.push_back(decode_node_condition(c)); });
  return node;
}

Namespace decode_namespace(const Field& object) {
  object.known({"spec"});  // finalizers
  return Namespace{decode_object_meta(object, Scope::Cluster, NameRule::Label)};
}

ConfigMap decode_config_map(const Field& object) {
  ConfigMap config_map;
  config_map.meta = decode_object_meta(object, Scope::Namespaced);
  object.known({"binaryData", "immutable"});
  for (auto& [key, value] : object.string_map("data")) config_map.data[key] = std::move(value);
  return config_map;
}

Workload decode_workload(const Field& object, WorkloadKind kind) {
  Workload workload;
  workload.kind = kind;
  workload.meta = decode_object_meta(object, Scope::Namespaced);
  Field spec = object.child("spec");
  known_workload_fields(spec, kind);
  workload.replicas = decode_replicas(spec, kind);
  if (kind == WorkloadKind::StatefulSet) {
    workload.pod_management_policy = spec.choice(
        "podManagementPolicy", "pod management policy",
        {{"OrderedReady", PodManagementPolicy::OrderedReady}, {"Parallel", PodManagementPolicy::Parallel}},
        PodManagementPolicy::OrderedReady);
  }
  workload.pod_template = decode_pod_template(spec.required_child("template"), workload.meta.namespace_);
  check_template_restart_policy(spec, workload);
  workload.selector = decode_workload_selector(spec, workload);
  return workload;
}

namespace {

// The image's name without registry, path, tag or digest: "registry.k8s.io/autoscaling/cluster-autoscaler:v1.26.2"
// -> "cluster-autoscaler".
std::string_view image_name(std::string_view image) {
  image = image.substr(0, image.find('@'));
  std::size_t slash = image.rfind('/');
  std::string_view last = slash == std::string_view::npos ? image : image.substr(slash + 1);
  return last.substr(0, last.find(':'));
}

}  // namespace

std::optional<ClusterAutoscalerDeployment> as_cluster_autoscaler(const Field& object, const Workload& deployment) {
  const std::vector<Container>& containers = deployment.pod_template.spec.containers;
  auto ca = std::find_if(containers.begin(), containers.end(),
                         [](const Container& c) { return image_name(c.image) == "cluster-autoscaler"; });
  if (ca == containers.end()) return std::nullopt;
  ClusterAutoscalerDeployment out{deployment.meta, ca->name, ca->command};
  out.flags.insert(out.flags.end(), ca->args.begin(), ca->args.end());
  // The command and args elements in the same order as `flags`, to point at the one at fault.
  const auto index = static_cast<std::size_t>(ca - containers.begin());
  std::vector<Field> elements;
  std::size_t i = 0;
  object.child("spec").child("template").child("spec").each("containers", [&](const Field& container) {
    if (i++ != index) return;
    container.each("command", [&](const Field& part) { elements.push_back(part); });
    container.each("args", [&](const Field& part) { elements.push_back(part); });
  });
  std::size_t at = elements.size();
  Result<nodegroups::AutoscalerOptions> parsed = config::parse_autoscaler_flags(out.flags, &at);
  if (!parsed) {
    if (at < elements.size()) elements[at].fail(parsed.error().message);
    object.fail(parsed.error().message);
  }
  return out;
}

PodDisruptionBudget decode_pod_disruption_budget(const Field& object) {
  PodDisruptionBudget budget;
  budget.meta = decode_object_meta(object, Scope::Namespaced);
  Field spec = object.child("spec");
  budget.selector = maybe_label_selector(spec, "selector");
  // policy/v1beta1 gave an empty selector the meaning of selecting nothing, as an absent one does in policy/v1.
  if (object.optional_string("apiVersion") == "policy/v1beta1" && budget.selector && budget.selector->empty()) {
    budget.selector.reset();
  }
  budget.min_available = maybe_int_or_percent(spec, "minAvailable");
  budget.max_unavailable = maybe_int_or_percent(spec, "maxUnavailable");
  if (budget.min_available && budget.max_unavailable) spec.fail("minAvailable and maxUnavailable cannot both be set");
  budget.unhealthy_pod_eviction_policy = spec.choice<UnhealthyPodEvictionPolicy>(
      "unhealthyPodEvictionPolicy", "unhealthy pod eviction policy",
      {{"IfHealthyBudget", UnhealthyPodEvictionPolicy::IfHealthyBudget},
       {"AlwaysAllow", UnhealthyPodEvictionPolicy::AlwaysAllow}},
      UnhealthyPodEvictionPolicy::IfHealthyBudget);
  return budget;
}

PriorityClass decode_priority_class(const Field& object) {
  PriorityClass priority_class;
  priority_class.meta = decode_object_meta(object, Scope::Cluster);
  object.known({"description"});
  priority_class.value = object.optional_int32("value", 0);
  priority_class.global_default = object.optional_bool("globalDefault", false);
  check_priority_class(object, priority_class);
  priority_class.preemption_policy = std::string(object.choice<std::string_view>(
      "preemptionPolicy", "preemption policy",
      {{"PreemptLowerPriority", "PreemptLowerPriority"}, {"Never", "Never"}}, "PreemptLowerPriority"));
  return priority_class;
}

}  // namespace scalewright::manifest
