#pragma once
// Group-less provisioning as Karpenter does it: a batch of pending pods is placed first on existing and
// in-flight capacity, then packed first-fit-decreasing onto new NodeClaims, each keeping the instance types that
// can still hold its pods plus the DaemonSet pods that would land on it. Pure: a snapshot in, a plan out.
//
// One batch, largest pods first (cpu, then memory; ties keep their order). Each pod goes to the first of:
//   1. an existing or in-flight node the scheduler's filters accept (in-flight nodes judged without their startup
//      and not-ready taints), whose domains also suit the pods this batch put on new NodeClaims;
//   2. a NodeClaim opened earlier in the batch (in the order opened) whose requirements, taints, instance types,
//      DaemonSet overhead, minValues and topology admit it;
//   3. a new NodeClaim of the first NodePool by weight (then name) whose taints, requirements and limits admit it.
// Preferences (preferred node and pod (anti-)affinity, ScheduleAnyway spread) count as requirements until a pod
// fits nowhere; then they are dropped one at a time. Pods that fit nowhere are retried while others get placed.
// Pods with the same constraints and requests are handled as one equivalence class, in bulk where nothing
// between them can change the answer. The units: instance_types (catalog index), daemon_overhead,
// pod_constraints (requirements and relaxation), topology (spread and affinity counts), nodeclaim_builder.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/duration.h"
#include "api/instant.h"
#include "api/nodepool.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "cloud/catalog.h"
#include "cloud/instance_type.h"
#include "provisioning/pending_pods.h"
#include "scheduling/snapshot.h"

namespace scalewright::provisioning {

// An offering that returned insufficient capacity, avoided until `until` (Karpenter's 3-minute ICE cache).
struct OfferingKey {
  std::string instance_type;
  std::string zone;
  cloud::CapacityType capacity_type = cloud::CapacityType::OnDemand;
  friend auto operator<=>(const OfferingKey&, const OfferingKey&) = default;
};

class UnavailableOfferings {
 public:
  // Avoids `key` until `until` (a later mark of the same offering extends it, an earlier one does not shorten it).
  void mark(const OfferingKey& key, Instant until);
  // True while now < until.
  bool unavailable(const OfferingKey& key, Instant now) const;
  // When `key` is tried again; nullopt: never marked.
  std::optional<Instant> until(const OfferingKey& key) const;
  bool empty() const { return until_.empty(); }
  // Moves at every mark: an answer that priced offerings holds while this stays and no mark has lapsed.
  std::uint64_t changes() const { return changes_; }
  // The earliest time after `now` at which a marked offering becomes available again; nullopt: none will.
  std::optional<Instant> next_lapse(Instant now) const;

 private:
  std::map<OfferingKey, Instant> until_;
  std::uint64_t changes_ = 0;
};

// The largest batch planned twice, by the price rule and as Karpenter packs, keeping the cheaper plan; larger
// batches are planned by the price rule alone (see plan_provisioning).
inline constexpr std::size_t kComparedBatch = 2000;

struct ProvisioningInput {
  // Ready nodes and in-flight ones (launched NodeClaims whose node is not Ready yet, whose startup and not-ready
  // taints the provisioner ignores), with bound pods and pods already nominated to them. The plan works on a fork
  // of it and reverts that before it returns, so the snapshot is left as it was; nothing is copied, and a plan
  // costs what it changes rather than the size of the cluster.
  scheduling::ClusterSnapshot* cluster = nullptr;
  std::vector<std::string> in_flight_nodes;
  PendingPods pending;  // the batch
  std::vector<NodePool> nodepools;
  const cloud::Catalog* catalog = nullptr;
  // The instance types of a NodePool whose node class shapes them (CloudProvider::instance_types), by NodePool name;
  // the others launch `catalog`'s. And the NodePools that can launch nothing now, with why: not tried, and said so.
  std::map<std::string, const cloud::Catalog*> nodepool_catalogs;
  std::map<std::string, std::string> nodepools_not_ready;
  std::vector<Workload> daemonsets;
  // Capacity already launched per NodePool (name → cpu, memory, ..., and `nodes`: limit_usage() of each node),
  // counted against spec.limits.
  std::map<std::string, ResourceList> nodepool_usage;
  const UnavailableOfferings* unavailable = nullptr;
  Instant now{};
  std::size_t compared_batch = kComparedBatch;
};

struct NewNodeClaim {
  std::string nodepool;
  RequirementSet requirements;  // NodePool ∩ every pod on it, narrowed by topology (e.g. to one zone)
  Labels labels;                // template labels plus every requirement narrowed to a single value
  std::vector<Taint> taints;
  std::vector<Taint> startup_taints;
  // Instance types that can hold pod_requests + daemon_requests and satisfy `requirements` with at least one
  // available offering, cheapest first.
  std::vector<const cloud::InstanceType*> instance_types;
  std::vector<std::size_t> pods;  // indexes into ProvisioningInput::pending
  ResourceList pod_requests;
  ResourceList daemon_requests;
  // The NodePools before `nodepool` by weight that could not hold the pod that opened the claim, and why
  // ("nodepool \"gpu\": did not tolerate taint ..."); empty: it was the first to be tried.
  std::string passed_over;
};

struct Nomination {
  std::size_t pod = 0;  // index into ProvisioningInput::pending
  std::string node;
};

struct Unschedulable {
  std::size_t pod = 0;
  // Why, NodePool by NodePool: `no nodepool can hold the pod: nodepool "default": incompatible requirements,
  // key "kubernetes.io/arch": In {arm64} conflicts with In {amd64}; nodepool "gpu": did not tolerate taint ...`.
  std::string reason;
};

struct ProvisioningPlan {
  std::vector<Nomination> existing;       // by pod index
  std::vector<NewNodeClaim> new_claims;   // in the order they were opened
  std::vector<Unschedulable> unschedulable;  // by pod index
  // What the new NodeClaims cost an hour, each at the offering choose_offering() picks for it at the input's time
  // (a claim with none counts nothing): what plans are compared by.
  double price_per_hour = 0;
};

ProvisioningPlan plan_provisioning(const ProvisioningInput& input);

// A NodeClaim from `np`'s template alone, for no pod, as Karpenter's static provisioning makes one for a static
// NodePool: every instance type the NodePool's requirements allow with an available offering, cheapest first (no
// DaemonSet overhead: no pod is placed). nullopt when no type is left.
std::optional<NewNodeClaim> template_claim(const NodePool& np, const cloud::Catalog& catalog,
                                           const UnavailableOfferings* unavailable, Instant now);

using LaunchChoice = cloud::LaunchOption;

// Why a NodeClaim with `requirements` may not launch from an offering at `now`, in the order it is checked.
enum class OfferingExclusion { None, NotOffered, CapacityType, Zone, ZoneId, InsufficientCapacity };
OfferingExclusion offering_exclusion(const cloud::InstanceType& type, const cloud::Offering& offering,
                                     const RequirementSet& requirements, const UnavailableOfferings& unavailable,
                                     Instant now);

// The offerings of `type` a NodeClaim with `requirements` may launch from at `now`: available, of an allowed
// capacity type and zone, and not marked unavailable.
std::vector<const cloud::Offering*> allowed_offerings(const cloud::InstanceType& type,
                                                      const RequirementSet& requirements,
                                                      const UnavailableOfferings& unavailable, Instant now);

// The cheapest offering among the claim's instance types that its requirements allow (zone, capacity type) and
// that is not marked unavailable: spot before on-demand where both are allowed. nullopt when none is left.
std::optional<LaunchChoice> choose_offering(const NewNodeClaim& claim, const UnavailableOfferings& unavailable,
                                            Instant now);
// Every offering choose_offering() could return, in the order it would return them as each before is marked
// unavailable: a launch walks it once, where asking choose_offering() again after each refusal would look at every
// offering each time. Over the claim's first `types` instance types (its cheapest), as a cloud may take no more.
std::vector<LaunchChoice> launch_order(const NewNodeClaim& claim, const UnavailableOfferings& unavailable, Instant now,
                                       std::size_t types = std::numeric_limits<std::size_t>::max());

}  // namespace scalewright::provisioning
