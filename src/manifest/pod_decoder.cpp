#include "manifest/pod_decoder.h"

#include <limits>

#include "manifest/meta_decoder.h"
#include "manifest/names.h"
#include "manifest/selectors.h"

namespace scalewright::manifest {
namespace {

void check_range(const Field& parent, std::string_view key, std::int64_t value, std::int64_t low, std::int64_t high) {
  if (value < low || value > high) {
    parent.fail_at(key, "must be between " + std::to_string(low) + " and " + std::to_string(high) + ", got " +
                            std::to_string(value));
  }
}

std::int32_t required_int32(const Field& parent, std::string_view key) {
  std::optional<std::int32_t> value = parent.maybe_int32(key);
  if (!value) parent.fail_at(key, "required");
  return *value;
}

// An enum-like string field whose values the model keeps as text (protocol, restartPolicy).
std::string string_choice(const Field& parent, std::string_view key, std::string_view noun,
                          std::initializer_list<std::pair<std::string_view, std::string_view>> table,
                          std::string_view fallback) {
  return std::string(parent.choice(key, noun, table, fallback));
}

ContainerPort decode_port(const Field& port) {
  port.known({"name"});
  ContainerPort decoded;
  decoded.container_port = required_int32(port, "containerPort");
  check_range(port, "containerPort", decoded.container_port, 1, 65535);
  decoded.host_port = port.optional_int32("hostPort", 0);
  check_range(port, "hostPort", decoded.host_port, 0, 65535);
  decoded.protocol = string_choice(port, "protocol", "protocol", {{"TCP", "TCP"}, {"UDP", "UDP"}, {"SCTP", "SCTP"}},
                                   "TCP");
  decoded.host_ip = port.optional_string("hostIP");
  return decoded;
}

// requests default, resource by resource, to limits; a request above its limit is rejected, as upstream.
void decode_resources(const Field& resources, Container& container) {
  resources.known({"claims"});
  Field requests = resources.child("requests");
  Field limits = resources.child("limits");
  container.requests = decode_resource_list(requests);
  container.limits = decode_resource_list(limits);
  limits.entries([&](const std::string& name, const Field& limit) {
    if (!limit.present()) return;
    Symbol resource(name);
    Field request = requests.child(name);
    if (!request.present()) {
      container.requests.set(resource, container.limits.get(resource));
    } else if (container.requests.get(resource) > container.limits.get(resource)) {
      request.fail("must be less than or equal to the " + name + " limit " + quote(limit.as_string()));
    }
  });
}

Container decode_init_container(const Field& container) {
  Container decoded = decode_container(container);
  std::optional<std::string_view> restart_policy =
      container.maybe_choice<std::string_view>("restartPolicy", "restart policy", {{"Always", "Always"}});
  if (restart_policy) decoded.restart_policy = std::string(*restart_policy);
  return decoded;
}

std::int32_t decode_term_weight(const Field& term) {
  std::int32_t weight = required_int32(term, "weight");
  check_range(term, "weight", weight, 1, 100);
  return weight;
}

NodeSelector decode_node_selector(const Field& selector) {
  NodeSelector decoded;
  selector.each("nodeSelectorTerms",
                [&](const Field& term) { decoded.terms.push_back(decode_node_selector_term(term)); });
  if (decoded.terms.empty()) selector.fail_at("nodeSelectorTerms", "must have at least one term");
  return decoded;
}

PreferredSchedulingTerm decode_preferred_node_term(const Field& term) {
  return {decode_term_weight(term), decode_node_selector_term(term.child("preference"))};
}

PodAffinityTerm decode_pod_affinity_term(const Field& term) {
  term.known({"matchLabelKeys", "mismatchLabelKeys"});  // 1.29+
  PodAffinityTerm decoded;
  decoded.label_selector = maybe_label_selector(term, "labelSelector");
  decoded.namespaces = term.strings("namespaces");
  decoded.namespace_selector = maybe_label_selector(term, "namespaceSelector");
  decoded.topology_key = Symbol(term.required_string("topologyKey"));
  check_label_key(term, "topologyKey", decoded.topology_key.str());
  return decoded;
}

WeightedPodAffinityTerm decode_weighted_pod_affinity_term(const Field& term) {
  std::int32_t weight = decode_term_weight(term);
  return {weight, decode_pod_affinity_term(term.required_child("podAffinityTerm"))};
}

// podAffinity or podAntiAffinity.
void decode_pod_affinity(const Field& affinity, std::vector<PodAffinityTerm>& required,
                         std::vector<WeightedPodAffinityTerm>& preferred) {
  affinity.each("requiredDuringSchedulingIgnoredDuringExecution",
                [&](const Field& term) { required.push_back(decode_pod_affinity_term(term)); });
  affinity.each("preferredDuringSchedulingIgnoredDuringExecution",
                [&](const Field& term) { preferred.push_back(decode_weighted_pod_affinity_term(term)); });
}

NodeInclusionPolicy decode_inclusion_policy(const Field& constraint, std::string_view key,
                                            NodeInclusionPolicy fallback) {
  return constraint.choice(key, "policy",
                           {{"Honor", NodeInclusionPolicy::Honor}, {"Ignore", NodeInclusionPolicy::Ignore}}, fallback);
}

Volume decode_volume(const Field& volume) {
  static const std::initializer_list<std::pair<std::string_view, Volume::Source>> kSources = {
      {"emptyDir", Volume::Source::EmptyDir},   {"hostPath", Volume::Source::HostPath},
      {"persistentVolumeClaim", Volume::Source::PersistentVolumeClaim},
      {"configMap", Volume::Source::ConfigMap}, {"secret", Volume::Source::Secret},
      {"projected", Volume::Source::Projected},
  };
  Volume decoded;
  decoded.name = volume.required_string("name");
  for (const auto& [key, source] : kSources) {
    if (volume.has(key)) decoded.source = source;
  }
  // Every source upstream has: only which one is set matters here, never what it holds.
  volume.known({"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "configMap", "csi",
                "downwardAPI", "emptyDir", "ephemeral", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo",
                "glusterfs", "hostPath", "image", "iscsi", "nfs", "persistentVolumeClaim", "photonPersistentDisk",
                "portworxVolume", "projected", "quobyte", "rbd", "scaleIO", "secret", "storageos", "vsphereVolume"});
  return decoded;
}

// The n-th item of a list field.
Field item(const Field& list, std::size_t n) {
  std::optional<Field> found;
  std::size_t i = 0;
  list.items([&](const Field& each) {
    if (i++ == n) found.emplace(each);
  });
  return *found;
}

// The API server bounds each quantity (so does decode_resource_list), not their sum: kube-scheduler adds them
// in int64, where two containers of 5Ei wrap around to a request that fits any node. A pod whose requests sum past
// int64 could run on no node (no allocatable is larger), so such a manifest is a mistake and is refused, naming the
// request (or the limit it defaults from, or the overhead) whose addition went past.
void check_requests_sum(const Field& spec, const PodSpec& decoded) {
  std::optional<RequestOverflow> overflow = requests_overflow(decoded);
  if (!overflow) return;
  const std::string name(overflow->resource.str());
  // Built, not assigned: assigning a Field would assign its YAML node, which writes through to the document.
  const Field at = [&] {
    if (overflow->term.part == RequestTerm::Part::Overhead) return spec.child("overhead").child(name);
    const bool app = overflow->term.part == RequestTerm::Part::Container;
    const Field resources =
        item(spec.child(app ? "containers" : "initContainers"), overflow->term.index).child("resources");
    const Field request = resources.child("requests").child(name);
    return request.present() ? request : resources.child("limits").child(name);
  }();
  const bool cpu = overflow->resource == resource_names::cpu();
  at.fail("the sum of the pod's " + name + " requests exceeds " +
          std::to_string(std::numeric_limits<std::int64_t>::max()) + (cpu ? "m" : ""));
}

PodCondition decode_pod_condition(const Field& condition) {
  return {condition.required_string("type"), condition.optional_string("status"), condition.optional_string("reason")};
}

}  // namespace

ResourceList decode_resource_list(const Field& list) {
  ResourceList decoded;
  list.entries([&](const std::string& name, const Field& value) {
    if (!value.present()) return;
    Quantity quantity = value.as_quantity();
    if (quantity.negative()) value.fail("must not be negative");
    Symbol resource(name);
    std::optional<std::int64_t> amount = exact_resource_amount(resource, quantity);
    if (!amount) value.fail(out_of_range(quantity, resource == resource_names::cpu()));
    decoded.set(resource, *amount);
  });
  return decoded;
}

Container decode_container(const Field& container) {
  // The fields of Container that do not bear on where a pod fits or how many it takes.
  container.known({"env", "envFrom", "imagePullPolicy", "lifecycle", "livenessProbe", "readinessProbe", "startupProbe",
                   "securityContext", "stdin", "stdinOnce", "tty", "terminationMessagePath", "terminationMessagePolicy",
                   "volumeDevices", "volumeMounts", "workingDir", "resizePolicy", "restartPolicyRules"});
  // restartPolicy is an init container's (a sidecar's) and is read there; upstream has it on every container.
  container.known({"restartPolicy"});
  Container decoded;
  decoded.name = container.required_string("name");
  if (std::optional<std::string> problem = dns1123_label_problem(decoded.name)) {  // the API server's rule
    container.fail_at("name", "invalid value " + quote(decoded.name) + ": " + *problem);
  }
  decoded.image = container.optional_string("image");
  container.each("command", [&](const Field& part) { decoded.command.push_back(part.as_string()); });
  container.each("args", [&](const Field& part) { decoded.args.push_back(part.as_string()); });
  decode_resources(container.child("resources"), decoded);
  container.each("ports", [&](const Field& port) { decoded.ports.push_back(decode_port(port)); });
  return decoded;
}

Affinity decode_affinity(const Field& affinity) {
  Affinity decoded;
  Field node = affinity.child("nodeAffinity");
  Field required = node.child("requiredDuringSchedulingIgnoredDuringExecution");
  if (required.present()) decoded.required_node_affinity = decode_node_selector(required);
  node.each("preferredDuringSchedulingIgnoredDuringExecution",
            [&](const Field& term) { decoded.preferred_node_affinity.push_back(decode_preferred_node_term(term)); });
  decode_pod_affinity(affinity.child("podAffinity"), decoded.required_pod_affinity, decoded.preferred_pod_affinity);
  decode_pod_affinity(affinity.child("podAntiAffinity"), decoded.required_pod_anti_affinity,
                      decoded.preferred_pod_anti_affinity);
  return decoded;
}

TopologySpreadConstraint decode_spread_constraint(const Field& constraint) {
  TopologySpreadConstraint decoded;
  decoded.max_skew = required_int32(constraint, "maxSkew");
  if (decoded.max_skew < 1) {
    constraint.fail_at("maxSkew", "must be at least 1, got " + std::to_string(decoded.max_skew));
  }
  decoded.topology_key = Symbol(constraint.required_string("topologyKey"));
  check_label_key(constraint, "topologyKey", decoded.topology_key.str());
  decoded.when_unsatisfiable =
      constraint.required_choice<UnsatisfiableConstraintAction>("whenUnsatisfiable", "value",
                                 {{"DoNotSchedule", UnsatisfiableConstraintAction::DoNotSchedule},
                                  {"ScheduleAnyway", UnsatisfiableConstraintAction::ScheduleAnyway}});
  decoded.label_selector = maybe_label_selector(constraint, "labelSelector");
  decoded.min_domains = constraint.maybe_int32("minDomains");
  if (decoded.min_domains && *decoded.min_domains < 1) {
    constraint.fail_at("minDomains", "must be at least 1, got " + std::to_string(*decoded.min_domains));
  }
  if (decoded.min_domains && decoded.when_unsatisfiable == UnsatisfiableConstraintAction::ScheduleAnyway) {
    constraint.fail_at("minDomains", "must not be set when whenUnsatisfiable is ScheduleAnyway");
  }
  decoded.node_affinity_policy = decode_inclusion_policy(constraint, "nodeAffinityPolicy", NodeInclusionPolicy::Honor);
  decoded.node_taints_policy = decode_inclusion_policy(constraint, "nodeTaintsPolicy", NodeInclusionPolicy::Ignore);
  decoded.match_label_keys = constraint.strings("matchLabelKeys");
  return decoded;
}

PodSpec decode_pod_spec(const Field& spec) {
  // The fields of PodSpec that do not bear on scheduling, capacity or disruption as Scalewright models them.
  spec.known({"activeDeadlineSeconds", "automountServiceAccountToken", "dnsConfig", "dnsPolicy", "enableServiceLinks",
              "ephemeralContainers", "hostAliases", "hostIPC", "hostNetwork", "hostPID", "hostUsers", "hostname",
              "hostnameOverride", "imagePullSecrets", "os", "preemptionPolicy", "readinessGates", "resourceClaims",
              "resources", "runtimeClassName", "schedulingGates", "securityContext", "serviceAccount",
              "serviceAccountName", "setHostnameAsFQDN", "shareProcessNamespace", "subdomain"});
  PodSpec decoded;
  spec.each("initContainers", [&](const Field& c) { decoded.init_containers.push_back(decode_init_container(c)); });
  spec.each("containers", [&](const Field& c) { decoded.containers.push_back(decode_container(c)); });
  if (decoded.containers.empty()) spec.fail_at("containers", "required");
  decoded.overhead = decode_resource_list(spec.child("overhead"));
  check_requests_sum(spec, decoded);
  decoded.node_name = spec.optional_string("nodeName");
  decoded.node_selector = decode_labels(spec, "nodeSelector");
  decoded.affinity = decode_affinity(spec.child("affinity"));
  spec.each("tolerations", [&](const Field& t) { decoded.tolerations.push_back(decode_toleration(t)); });
  spec.each("topologySpreadConstraints",
            [&](const Field& c) { decoded.topology_spread_constraints.push_back(decode_spread_constraint(c)); });
  decoded.priority = spec.maybe_int32("priority");
  decoded.priority_class_name = spec.optional_string("priorityClassName");
  const std::string scheduler_name = spec.optional_string("schedulerName", "");
  if (!scheduler_name.empty()) decoded.scheduler_name = Symbol(scheduler_name);
  decoded.restart_policy = string_choice(spec, "restartPolicy", "restart policy",
                                         {{"Always", "Always"}, {"OnFailure", "OnFailure"}, {"Never", "Never"}},
                                         "Always");
  decoded.termination_grace_period_seconds = spec.maybe_int64("terminationGracePeriodSeconds");
  spec.each("volumes", [&](const Field& v) { decoded.volumes.push_back(decode_volume(v)); });
  return decoded;
}

PodStatus decode_pod_status(const Field& status) {
  PodStatus decoded;
  decoded.phase = status.choice("phase", "phase",
                                {{"Pending", PodPhase::Pending},
                                 {"Running", PodPhase::Running},
                                 {"Succeeded", PodPhase::Succeeded},
                                 {"Failed", PodPhase::Failed},
                                 {"Unknown", PodPhase::Unknown}},
                                PodPhase::Pending);
  status.each("conditions", [&](const Field& c) { decoded.conditions.push_back(decode_pod_condition(c)); });
  decoded.nominated_node_name = status.optional_string("nominatedNodeName");
  return decoded;
}

Pod decode_pod(const Field& object) {
  Pod pod;
  pod.meta = decode_object_meta(object, Scope::Namespaced);
  pod.spec = decode_pod_spec(object.child("spec"));
  pod.status = decode_pod_status(object.child("status"));
  return pod;
}

Pod decode_pod_template(const Field& pod_template, const std::string& namespace_) {
  Pod pod;
  Field metadata = pod_template.child("metadata");
  // A template's metadata is ObjectMeta too (`creationTimestamp: null` is what kubectl writes); only labels and
  // annotations of it are a pod's.
  known_meta_fields(metadata);
  metadata.known({"name", "namespace", "uid", "ownerReferences", "deletionTimestamp"});
  pod.meta.namespace_ = namespace_;
  pod.meta.labels = decode_labels(metadata, "labels");
  pod.meta.annotations = decode_annotations(metadata);
  pod.spec = decode_pod_spec(pod_template.child("spec"));
  return pod;
}

}  // namespace scalewright::manifest
