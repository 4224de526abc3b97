#pragma once
// NodeClaims as they are built during one batch: requirements narrowed by every pod that joined, the instance
// types (by index) that can still hold all of it with the DaemonSet pods that would land there, and the share
// of the NodePool's limits they hold. Joining is a what-if (try_add) followed by commit, so that a pod can ask
// many claims and change only the one it joins.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/resources.h"
#include "provisioning/daemon_overhead.h"
#include "provisioning/instance_types.h"
#include "provisioning/pod_constraints.h"
#include "provisioning/topology.h"
#include "scheduling/snapshot.h"

namespace scalewright::provisioning {

// One relaxation level of one equivalence class of pending pods, with what the batch learnt about it.
// Classes of one shape (the same constraints, different requests) share their level-0 constraints: only the
// requests, and the pod the scheduler judges existing nodes with, are the class's own.
struct PodVariant {
  std::shared_ptr<const PodConstraints> constraints;  // never null; its `requests` may be another class's
  ResourceList requests;                              // this class's
  const Pod* pod = nullptr;  // the pod the scheduler sees (constraints->pod, or own_pod); null until needed
  std::unique_ptr<Pod> own_pod;
  std::vector<GroupId> owned;          // topology groups of its own terms
  std::uint32_t first_alternative = 0;  // id of constraints.requirements[0]; the rest follow
  std::vector<signed char> tolerates;   // per NodePool: 1 yes, 0 no, -1 not judged yet
  std::string untolerated;              // the taint it did not tolerate, last judged; for reasons
  // Progress that stays true because capacity only fills up (monotone variants only).
  bool dead = false;                    // no existing node, claim or NodePool can take it any more
  bool existing_exhausted = false;
  scheduling::NodeId existing_cursor = 0;
  std::size_t claim_cursor = 0;  // claims before this one reject it for good
  std::string reason;            // why it could not be placed, the last time it was not
};

struct ClaimState {
  std::size_t nodepool = 0;
  RequirementSet requirements;
  std::uint64_t version = 0;  // bumped whenever `requirements` narrows
  std::uint64_t zones = 0;
  CapacityTypeMask capacity_types = 0;
  std::uint64_t daemon_mask = 0;
  std::vector<std::uint32_t> types;          // candidate instance types, by index
  std::vector<const ResourceList*> daemons;  // parallel to types: what the daemon pods request there
  ResourceList requests;                     // the pods'
  std::vector<std::size_t> pods;
  std::vector<ContainerPort> host_ports;
  ResourceList charge;  // held against the NodePool's limits: the largest capacity among `types`, and one node
  std::vector<std::pair<std::uint32_t, std::uint64_t>> absorbed;  // (alternative, version) already merged in
  std::int64_t free_cpu = 0;  // the most any candidate has left, for a quick "full" answer
  std::int64_t free_memory = 0;
  std::int64_t free_pods = 0;
  std::int64_t least_cpu = 0;  // the least any candidate has left: a pod within it fits every candidate
  std::int64_t least_memory = 0;
  std::int64_t least_pods = 0;
  ClaimTopology topology;
  bool closed = false;  // cannot hold even the smallest pod of the batch
  // The NodePools before this one by weight that could not hold the pod that opened it, and why; empty: none.
  std::string passed_over;
};

// What a claim becomes if a pod joins it.
struct ClaimChange {
  bool requirements_changed = false;
  bool types_unchanged = false;  // every candidate still fits: `types` and `daemons` are left empty
  RequirementSet requirements;
  std::uint64_t zones = 0;
  CapacityTypeMask capacity_types = 0;
  std::uint64_t daemon_mask = 0;
  std::vector<std::uint32_t> types;
  std::vector<const ResourceList*> daemons;
  std::uint32_t alternative = 0;
};

class NodeClaimBuilder {
 public:
  NodeClaimBuilder(std::vector<NodePoolInfo>& pools, InstanceTypeIndex& types, DaemonOverhead& daemons,
                   Topology& topology, std::vector<ResourceList> remaining_limits);

  // An empty claim of NodePool `pool`.
  ClaimState open(std::size_t pool);
  // Whether the pod can join; on success `change` says what the claim becomes, else `reason` (when given) says
  // why not.
  bool try_add(const ClaimState& claim, PodVariant& variant, ClassTopology& cls, ClaimChange& change,
               std::string* reason);
  void commit(ClaimState& claim, ClaimChange&& change, const PodVariant& variant, const ClassTopology& cls,
              std::size_t pod);
  // Adds up to `pods.size()` more pods of a simple variant that has just joined `claim` (its requirements are
  // merged in already). Returns how many joined; they are the first ones of `pods`.
  std::size_t fill(ClaimState& claim, const PodVariant& variant, const ClassTopology& cls,
                   const std::vector<std::size_t>& pods);

  // Whether `requests` could still fit on any candidate type (a quick, necessary check).
  static bool may_fit(const ClaimState& claim, const ResourceList& requests) {
    return requests.cpu_milli() <= claim.free_cpu && requests.memory() <= claim.free_memory &&
           requests.pods() <= claim.free_pods;
  }

 private:
  bool tolerates(PodVariant& variant, std::size_t pool);
  TypeSet requirement_mask(const NodePoolInfo& pool, const RequirementSet& requirements);
  bool min_values_met(const NodePoolInfo& pool, const std::vector<std::uint32_t>& types, std::uint64_t zones,
                      CapacityTypeMask capacity_types, std::string* reason) const;
  bool within_limits(std::size_t pool, std::uint32_t type) const;
  std::string limits_reason(std::size_t pool, const std::vector<std::uint32_t>& types) const;
  void settle(ClaimState& claim);
  // Adds `pods` pods of `cls` to the topology counts of `claim`, whose requirements have not changed.
  void apply_delta(const ClaimState& claim, const ClassTopology& cls, std::int32_t pods);

  std::vector<NodePoolInfo>& pools_;
  InstanceTypeIndex& types_;
  DaemonOverhead& daemons_;
  Topology& topology_;
  std::vector<ResourceList> remaining_;  // per NodePool: limits left (limited resources only)
  std::vector<RequirementSet> options_;  // scratch
  ClaimTopology delta_;                  // scratch for apply_delta
  std::vector<std::vector<const ResourceList*>> pool_daemons_;  // per NodePool: daemon requests on its types
};

// `np` as provisioning uses it: its requirements, the keys it labels itself, and the instance types (with an
// available offering in its zones and capacity types) it allows.
NodePoolInfo nodepool_info(const NodePool& np, InstanceTypeIndex& types);
// As above, among the types of `range` only (its catalog's, InstanceTypeIndex::range).
NodePoolInfo nodepool_info(const NodePool& np, InstanceTypeIndex& types,
                           std::pair<std::uint32_t, std::uint32_t> range);

// Whether `requests` on top of `used` and `daemons` fits in `allocatable`.
bool fits(const ResourceList& used, const ResourceList& requests, const ResourceList& daemons,
          const ResourceList& allocatable);
// "cpu=64 memory=1Gi": requests without the pod count, for reasons.
std::string describe_requests(const ResourceList& requests);

}  // namespace scalewright::provisioning
