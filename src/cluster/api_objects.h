#pragma once
// Objects between the API server's JSON and the model. What a list or watch delivers is read by the manifest
// decoders, so that a kind is read one way whether it comes from a user's file or from the cluster; and the
// objects Scalewright writes (NodeClaims, Events) are built here, in Kubernetes' own field names.
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "api/duration.h"
#include "api/instant.h"
#include "api/result.h"
#include "manifest/manifest.h"

namespace scalewright::cluster {

// A resource the controller lists and watches: where, and the apiVersion and kind of its items (a LIST's items
// carry neither).
struct Resource {
  std::string_view path;  // "/api/v1/pods"
  std::string_view api_version;
  std::string_view kind;
};

namespace resources {
inline constexpr Resource nodes{"/api/v1/nodes", "v1", "Node"};
inline constexpr Resource pods{"/api/v1/pods", "v1", "Pod"};
inline constexpr Resource namespaces{"/api/v1/namespaces", "v1", "Namespace"};
inline constexpr Resource nodepools{"/apis/karpenter.sh/v1/nodepools", "karpenter.sh/v1", "NodePool"};
inline constexpr Resource nodeclaims{"/apis/karpenter.sh/v1/nodeclaims", "karpenter.sh/v1", "NodeClaim"};
inline constexpr Resource deployments{"/apis/apps/v1/deployments", "apps/v1", "Deployment"};
inline constexpr Resource replicasets{"/apis/apps/v1/replicasets", "apps/v1", "ReplicaSet"};
inline constexpr Resource statefulsets{"/apis/apps/v1/statefulsets", "apps/v1", "StatefulSet"};
inline constexpr Resource daemonsets{"/apis/apps/v1/daemonsets", "apps/v1", "DaemonSet"};
inline constexpr Resource scaledobjects{"/apis/keda.sh/v1alpha1/scaledobjects", "keda.sh/v1alpha1", "ScaledObject"};
inline constexpr Resource pdbs{"/apis/policy/v1/poddisruptionbudgets", "policy/v1", "PodDisruptionBudget"};
}  // namespace resources

// Decodes one object of `resource` as the manifest decoder reads a file's object; errors name it as
// "Pod/default/web-1 from the API server: spec...". What nothing reads is left out first: managedFields, a pod's
// conditions but Ready and its container statuses, a node's images and nodeInfo.
Result<ManifestSet> decode_api_object(nlohmann::json object, const Resource& resource);

// "default/web-1", or "web-1" for a cluster-scoped object.
std::string object_key_of(const nlohmann::json& object);

// The status of condition `type` ("True", "False", "Unknown"), and its reason; empty when absent.
struct ConditionState {
  std::string status;
  std::string reason;
};
ConditionState condition_of(const nlohmann::json& object, std::string_view type);

// The labels a NodeClaim's node carries: its own, and each requirement that allows one value only (`In` with one
// value), as Karpenter's NodeClaim template puts them. What the state plans for a NodeClaim in flight and what
// registration syncs onto its Node.
Labels nodeclaim_labels(const nlohmann::json& claim);

// The controllers' instants are measured from the controller's start; the API's times are the wall clock. The one
// mapping between them, fixed at start.
class TimeBase {
 public:
  explicit TimeBase(std::chrono::system_clock::time_point start = std::chrono::system_clock::now())
      : start_(start) {}
  std::chrono::system_clock::time_point wall(Instant at) const { return start_ + since_start(at); }
  Instant at(std::chrono::system_clock::time_point wall) const {
    return Instant(std::chrono::duration_cast<Duration>(wall - start_));
  }
  Instant at_unix_seconds(std::int64_t unix_seconds) const {
    return at(std::chrono::system_clock::time_point(std::chrono::seconds(unix_seconds)));
  }

 private:
  std::chrono::system_clock::time_point start_;
};

}  // namespace scalewright::cluster
