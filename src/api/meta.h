#pragma once
// Metadata every object carries, and the taint/toleration pair that nodes and pods share.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/copy_on_write.h"
#include "api/labels.h"

namespace scalewright {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
  friend bool operator==(const OwnerReference&, const OwnerReference&) = default;
};

struct ObjectMeta {
  std::string name;
  std::string namespace_;  // empty for cluster-scoped objects
  std::string uid;
  Labels labels;
  // Copy-on-write: the pods of one template carry the same ones.
  CopyOnWrite<std::map<std::string, std::string>> annotations;
  CopyOnWrite<std::vector<OwnerReference>> owner_references;
  std::optional<std::int64_t> deletion_timestamp;  // seconds; set while the object is being deleted

  const OwnerReference* controller() const;
  // "namespace/name", or "name" for cluster-scoped objects.
  std::string key() const;
  // Whether the annotation `key` is set to "true" (how Karpenter's and Scalewright's switches are written).
  bool annotated_true(std::string_view key) const;
};

// "Deployment/default/web": an object's kind, namespace and name as one key, the one the manifests' origins, the
// reference checks, the state's and the simulator's workloads are kept by. A cluster-scoped object has the
// namespace its decoder leaves it ("" for a NodePool).
std::string object_key(std::string_view kind, std::string_view namespace_, std::string_view name);
std::string object_key(std::string_view kind, const ObjectMeta& meta);

enum class TaintEffect { NoSchedule, PreferNoSchedule, NoExecute };
std::optional<TaintEffect> parse_taint_effect(std::string_view text);
std::string_view to_string(TaintEffect effect);

struct Taint {
  std::string key;
  std::string value;
  TaintEffect effect = TaintEffect::NoSchedule;
  friend bool operator==(const Taint&, const Taint&) = default;
  // "{dedicated: databases}", as kube-scheduler prints it in its reasons.
  std::string describe() const;
};

enum class TolerationOperator { Equal, Exists };

struct Toleration {
  std::string key;  // empty with Exists: tolerates every key
  TolerationOperator op = TolerationOperator::Equal;
  std::string value;
  std::optional<TaintEffect> effect;  // absent: every effect
  std::optional<std::int64_t> toleration_seconds;

  bool tolerates(const Taint& taint) const;
  friend bool operator==(const Toleration&, const Toleration&) = default;
};

bool tolerates_all(const std::vector<Toleration>& tolerations, const Taint& taint);

// The characters of the random suffixes Kubernetes generates for names (apimachinery's rand.SafeEncodeString):
// no vowels and no look-alike characters, so generated names never spell words.
inline constexpr std::string_view kSafeNameAlphabet = "bcdfghjklmnpqrstvwxz2456789";

// Well-known labels and taints, in Kubernetes' own words.
namespace well_known {
inline constexpr std::string_view hostname = "kubernetes.io/hostname";
inline constexpr std::string_view zone = "topology.kubernetes.io/zone";
inline constexpr std::string_view region = "topology.kubernetes.io/region";
inline constexpr std::string_view instance_type = "node.kubernetes.io/instance-type";
inline constexpr std::string_view arch = "kubernetes.io/arch";
inline constexpr std::string_view os = "kubernetes.io/os";
inline constexpr std::string_view windows_build = "node.kubernetes.io/windows-build";
inline constexpr std::string_view taint_unschedulable = "node.kubernetes.io/unschedulable";
inline constexpr std::string_view taint_not_ready = "node.kubernetes.io/not-ready";
inline constexpr std::string_view taint_unreachable = "node.kubernetes.io/unreachable";
}  // namespace well_known

}  // namespace scalewright
