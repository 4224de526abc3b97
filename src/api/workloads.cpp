#include "api/workloads.h"

#include <algorithm>
#include <cstdint>

namespace scalewright {
namespace {

std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = 14695981039346656037ull) {
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string encode(std::uint64_t value, std::size_t length) {
  std::string out;
  for (std::size_t i = 0; i < length; ++i) {
    out += kSafeNameAlphabet[value % kSafeNameAlphabet.size()];
    value /= kSafeNameAlphabet.size();
  }
  return out;
}

// Stands in for the pod-template-hash a Deployment gives its ReplicaSet: stable for the same workload, so a
// scenario run twice names its pods the same.
std::string template_hash(const Workload& w) {
  return encode(fnv1a(w.meta.name, fnv1a(w.meta.namespace_)), 10);
}

// The random five-character suffix ReplicaSet, Job and DaemonSet controllers add, made deterministic.
std::string pod_suffix(std::string_view owner_name, std::int32_t ordinal) {
  return encode(fnv1a(std::to_string(ordinal), fnv1a(owner_name)), 5);
}

}  // namespace

std::string_view to_string(WorkloadKind kind) {
  switch (kind) {
    case WorkloadKind::Deployment: return "Deployment";
    case WorkloadKind::ReplicaSet: return "ReplicaSet";
    case WorkloadKind::StatefulSet: return "StatefulSet";
    case WorkloadKind::Job: return "Job";
    case WorkloadKind::DaemonSet: return "DaemonSet";
  }
  return "?";
}

std::int32_t IntOrPercent::scaled(std::int32_t total, bool round_up) const {
  if (!percent) return value;
  const std::int64_t product = static_cast<std::int64_t>(total) * value;
  return static_cast<std::int32_t>(round_up ? (product + 99) / 100 : product / 100);
}

bool PodDisruptionBudget::selects(const Pod& pod) const {
  return selector && pod.meta.namespace_ == meta.namespace_ && selector->matches(pod.meta.labels);
}

std::vector<Pod> Workload::expand_pods() const {
  std::vector<Pod> pods;
  if (kind == WorkloadKind::DaemonSet) return pods;
  pods.reserve(static_cast<std::size_t>(std::max(replicas, 0)));
  for (std::int32_t i = 0; i < replicas; ++i) pods.push_back(make_pod(i));
  return pods;
}

// Names, labels and the controller reference as the workload's controller sets them: Deployments own their pods
// through a ReplicaSet named <deployment>-<pod-template-hash>; StatefulSet pods are <name>-<ordinal>.
Pod Workload::make_pod(std::int32_t ordinal) const {
  Pod pod = pod_template;
  pod.meta.namespace_ = meta.namespace_;
  pod.meta.owner_references.clear();
  pod.meta.deletion_timestamp.reset();
  OwnerReference owner{"apps/v1", std::string(to_string(kind)), meta.name, meta.uid, true};
  switch (kind) {
    case WorkloadKind::Deployment: {
      const std::string hash = template_hash(*this);
      owner.kind = "ReplicaSet";
      owner.name = meta.name + "-" + hash;
      owner.uid.clear();
      pod.meta.name = owner.name + "-" + pod_suffix(owner.name, ordinal);
      pod.meta.labels.set(Symbol("pod-template-hash"), Symbol(hash));
      break;
    }
    case WorkloadKind::StatefulSet:
      pod.meta.name = meta.name + "-" + std::to_string(ordinal);
      pod.meta.labels.set(Symbol("statefulset.kubernetes.io/pod-name"), Symbol(pod.meta.name));
      pod.meta.labels.set(Symbol("apps.kubernetes.io/pod-index"), Symbol(std::to_string(ordinal)));
      break;
    case WorkloadKind::Job:
      owner.api_version = "batch/v1";
      pod.meta.name = meta.name + "-" + pod_suffix(meta.name, ordinal);
      pod.meta.labels.set(Symbol("job-name"), Symbol(meta.name));
      pod.meta.labels.set(Symbol("batch.kubernetes.io/job-name"), Symbol(meta.name));
      break;
    case WorkloadKind::ReplicaSet:
    case WorkloadKind::DaemonSet:
      pod.meta.name = meta.name + "-" + pod_suffix(meta.name, ordinal);
      break;
  }
  pod.meta.owner_references.push_back(std::move(owner));
  pod.meta.uid = pod.meta.namespace_ + "/" + pod.meta.name;
  pod.spec.node_name.clear();
  pod.status = PodStatus{};
  return pod;
}

}  // namespace scalewright
