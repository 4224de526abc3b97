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
#include "cloud/clusterapi/capi_api.h"

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

// CA's per-group overrides of its flags (<group>/autoscaling-options-<name>); unset ones keep the flag's value.
struct GroupAutoscalingOptions {
  std::optional<double> scale_down_utilization_threshold;      // scaledownutilizationthreshold
  std::optional<double> scale_down_gpu_utilization_threshold;  // scaledowngpuutilizationthreshold
  std::optional<Duration> scale_down_unneeded_time;            // scaledownunneededtime
  std::optional<Duration> scale_down_unready_time;             // scaledownunreadytime
  std::optional<Duration> max_node_provision_time;             // maxnodeprovisiontime
  std::optional<Duration> max_node_startup_time;               // maxnodestartuptime
  friend bool operator==(const GroupAutoscalingOptions&, const GroupAutoscalingOptions&) = default;
};

struct ClusterApiNodeGroup {
  ScalableKind kind = ScalableKind::MachineDeployment;
  std::string namespace_;
  std::string name;
  std::string cluster_name;  // spec.clusterName, else the <group>/cluster-name label
  std::int32_t min_size = 0;
  std::int32_t max_size = 0;
  std::int32_t replicas = 0;  // spec.replicas as listed; absent reads 0, as in the Scale
  // A new node's capacity from the annotations: cpu, memory, ephemeral-storage, pods (110 unless maxPods says
  // otherwise) and the GPU resource gpu-type names with gpu-count. Empty of cpu and memory: no scale from zero.
  ResourceList capacity;
  std::map<std::string, std::string> labels;  // from the labels annotation
  std::vector<Taint> taints;                  // from the taints annotation
  GroupAutoscalingOptions options;

  // "MachineDeployment/default/md-0", CA's node group id.
  std::string id() const;
  // CA scales a group up from zero only when the annotations give it both cpu and memory.
  bool can_scale_from_zero() const;
};

// Why an object is not a node group although nothing is wrong with it: CA passes over these without a word.
struct Skipped {
  std::string reason;  // "no max-size annotation", "paused", "owned by MachineDeployment md-0", ...
};

// A node group, an object that is none, or an object whose annotations are wrong (the error names the object and
// the annotation: `MachineDeployment default/md-0: annotation "...max-size" is "2" but min-size is "3"`).
using Decoded = std::variant<ClusterApiNodeGroup, Skipped, Error>;

// Reads one listed object of `kind`. MachineSets that a MachineDeployment owns, paused objects (the paused
// annotation), objects without a max-size above zero and objects at zero replicas that cannot scale from zero are
// Skipped; bad annotations (a size that is not a non-negative integer, max < min, a capacity that is no quantity, a
// label or taint the API server would refuse, an option that does not parse) are an Error.
Decoded decode_scalable_resource(ScalableKind kind, const nlohmann::json& object, const CapiKeys& keys);

}  // namespace scalewright::cloud::clusterapi
