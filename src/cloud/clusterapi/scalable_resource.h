#pragma once
// One of Cluster API's scalable objects (MachineDeployment, MachineSet, MachinePool) read as Cluster Autoscaler's
// clusterapi provider reads it: its size bounds from the <group>/cluster-api-autoscaler-node-group-{min,max}-size
// annotations, its per-group options from <group>/autoscaling-options-*, and the shape of a new node for scaling up
// from zero from the capacity.cluster-autoscaler.kubernetes.io/* annotations. Pure decoding of the object's JSON.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "api/duration.h"
#include "api/meta.h"
#include "api/resources.h"
#include "api/result.h"
#include "cloud/clusterapi/capi_keys.h"
#include "nodegroups/group_options.h"

namespace scalewright::cloud::clusterapi {

// The capacity annotations CA reads, in its words.
namespace capacity_keys {
inline constexpr std::string_view cpu = "capacity.cluster-autoscaler.kubernetes.io/cpu";
inline constexpr std::string_view memory = "capacity.cluster-autoscaler.kubernetes.io/memory";
inline constexpr std::string_view ephemeral_disk = "capacity.cluster-autoscaler.kubernetes.io/ephemeral-disk";
inline constexpr std::string_view max_pods = "capacity.cluster-autoscaler.kubernetes.io/maxPods";
inline constexpr std::string_view gpu_type = "capacity.cluster-autoscaler.kubernetes.io/gpu-type";
inline constexpr std::string_view gpu_count = "capacity.cluster-autoscaler.kubernetes.io/gpu-count";
inline constexpr std::string_view labels = "capacity.cluster-autoscaler.kubernetes.io/labels";
inline constexpr std::string_view taints = "capacity.cluster-autoscaler.kubernetes.io/taints";
}  // namespace capacity_keys

// A node without a maxPods annotation holds 110 pods, the kubelet's default, as CA assumes.
inline constexpr std::int64_t kDefaultMaxPods = 110;

// Ours: what one node of the group costs an hour (a decimal number, "0.192"), for the price expander and the
// simulator's bill. Cluster API knows no prices; without it a node costs 0.
inline constexpr std::string_view kPriceAnnotation = "scalewright.dev/price-per-hour";

// The infrastructure template a group's Machines are made from (spec.template.spec.infrastructureRef): v1beta2
// names its API group, v1beta1 its apiVersion.
struct InfrastructureRef {
  std::string api_group;    // "infrastructure.cluster.x-k8s.io"
  std::string api_version;  // "infrastructure.cluster.x-k8s.io/v1beta1" (v1beta1 only)
  std::string kind;         // "DockerMachineTemplate"
  std::string name;
  bool empty() const { return kind.empty() || name.empty(); }
};

// What an infrastructure template says of the machines it makes (Cluster API's opt-in autoscaling from zero:
// status.capacity and status.nodeInfo). The capacity annotations win over it.
struct TemplateInfo {
  ResourceList capacity;
  std::string architecture;      // status.nodeInfo.architecture: "amd64", "arm64"
  std::string operating_system;  // status.nodeInfo.operatingSystem: "linux", "windows"
};

// CA's per-group overrides of its flags (<group>/autoscaling-options-<name>): the one type every provider fills
// (nodegroups/group_options.h); unset ones keep the flag's value.
using GroupAutoscalingOptions = nodegroups::GroupAutoscalingOptions;

struct ClusterApiNodeGroup {
  ScalableKind kind = ScalableKind::MachineDeployment;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string cluster_name;  // spec.clusterName, else the <group>/cluster-name label
  std::int32_t min_size = 0;
  std::int32_t max_size = 0;
  std::int32_t replicas = 0;  // spec.replicas as listed; absent reads 0, as in the Scale
  // A new node's capacity from the annotations: cpu, memory, ephemeral-storage, pods (110 unless maxPods says
  // otherwise) and the GPU resource gpu-type names with gpu-count. Empty of cpu and memory: no scale from zero.
  ResourceList capacity;
  // The new node's labels: the managed ones of the Machine template (node-role.kubernetes.io/*,
  // node-restriction.kubernetes.io/*, node.cluster.x-k8s.io/*, which Cluster API puts on the Node), then the
  // labels annotation (which wins), then the template's arch and os where it says them.
  std::map<std::string, std::string> labels;
  // The Machine template's taints (spec.template.spec.taints, Cluster API 1.12 on), then the taints annotation's
  // (the same key and effect: the annotation wins).
  std::vector<Taint> taints;
  GroupAutoscalingOptions options;
  InfrastructureRef infrastructure;
  std::string failure_domain;  // spec.template.spec.failureDomain: the zone its Machines land in, when one
  double price_per_hour = 0;   // kPriceAnnotation

  // "MachineDeployment/default/md-0", CA's node group id.
  std::string id() const;
  // CA scales a group up from zero only when the annotations give it both cpu and memory.
  bool can_scale_from_zero() const;
};

// Why an object is not a node group although nothing is wrong with it: CA passes over these without a word.
struct Skipped {
  std::string reason;  // "no max-size annotation", "paused", "owned by MachineDeployment md-0", ...
  // At zero replicas with no capacity to scale from zero: its infrastructure template may give one.
  bool for_want_of_capacity = false;
  // A MachineSet that a MachineDeployment owns: it scales with its owner, which is the group.
  bool owned = false;
};

// A node group, an object that is none, or an object whose annotations are wrong (the error names the object and
// the annotation: `MachineDeployment default/md-0: annotation "...max-size" is "2" but min-size is "3"`).
using Decoded = std::variant<ClusterApiNodeGroup, Skipped, Error>;

// Reads one listed object of `kind`. MachineSets that a MachineDeployment owns, paused objects (the paused
// annotation), objects without a max-size above zero and objects at zero replicas that cannot scale from zero are
// Skipped; bad annotations (a size that is not a non-negative integer, max < min, a capacity that is no quantity, a
// label or taint the API server would refuse, an option that does not parse) are an Error.
// `infrastructure`: what the object's infrastructure template says, when it was read (the annotations win).
Decoded decode_scalable_resource(ScalableKind kind, const nlohmann::json& object, const CapiKeys& keys,
                                 const TemplateInfo* infrastructure = nullptr);

// What Cluster Autoscaler reads of one object, whatever makes it a group or not (the decoding above without its
// rules: no max-size reads 0): a MachineDeployment a NodePool selects is read so too. The error names the object
// and the annotation.
Result<ClusterApiNodeGroup> read_scalable_resource(ScalableKind kind, const nlohmann::json& object,
                                                   const CapiKeys& keys, const TemplateInfo* infrastructure = nullptr);
// Whether the object carries the paused annotation (Cluster API's and Cluster Autoscaler's hands off).
bool paused(const nlohmann::json& object, const CapiKeys& keys);

// The string at `pointer` in `object`; "" when absent or not a string (objects from a server are read defensively).
std::string string_at(const nlohmann::json& object, const nlohmann::json::json_pointer& pointer);

// The object's spec.template.spec.infrastructureRef (empty when it has none: a MachinePool's is elsewhere).
InfrastructureRef infrastructure_ref_of(const nlohmann::json& object);

}  // namespace scalewright::cloud::clusterapi
