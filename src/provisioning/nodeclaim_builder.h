#pragma once
// NodeClaims as they are built during one batch: requirements narrowed by every pod that joined, the instance
// types (by index) that can still hold all of it with the DaemonSet pods that would land there, and the share
// of the NodePool's limits they hold. Joining is a what-if (try_add) followed by commit, so that a pod can ask
// many claims and change only the one it joins.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <span>
#include <tuple>
#include <vector>

#include "api/resources.h"
#include "api/saturating.h"
#include "provisioning/daemon_overhead.h"
#include "provisioning/instance_types.h"
#include "provisioning/pod_constraints.h"
#include "provisioning/topology.h"
#include "scheduling/snapshot.h"

namespace scalewright::provisioning {

// On a NodePool, "true": its NodeClaims are packed as Karpenter packs them, a pod joining while any instance type
// of the NodePool can still hold the claim, for comparing the two on one workload (see NodeClaimBuilder).
inline constexpr std::string_view kPackAsKarpenterAnnotation = "scalewright.dev/pack-as-karpenter";
// How much dearer than the NodePool's best type for its mix of pods a claim's cheapest type may price that mix
// before the claim stops growing onto it.
inline constexpr double kMixPriceSlack = 0.10;

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
  double price = 0;  // of its cheapest type's cheapest offering in its zones and capacity types (+inf: none)
  // The price rule turned a pod away: from then on the claim takes only pods that leave its price as it is. Its
  // types dearer than `price` leave `types` (unless its NodePool has limits, which count the largest type a claim
  // may launch as), so that its free_* are the room of its cheapest types and the batch's pods pass it by at a
  // glance (it closes when that room is gone) rather than weighing its growth again over every type. Its launch
  // may still fall back on the dropped types that hold it (launch_types).
  bool sealed = false;
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
  // `types` was not worked out: commit keeps the claim's types that hold the pod (keep_fitting), in place.
  bool filter_on_commit = false;
};

// Karpenter lets a NodeClaim take pods while any of its instance types can still hold them all; over a catalog
// without bounds that grows claims onto the largest, most specialised types, priced for what the pods do not use
// (a u7i-12tb.224xlarge for pods of 2 cpu and 2Gi), and a batch's last claim onto a type far larger than its pods.
// Here a pod that would make a claim's cheapest type a dearer one joins only when that costs no more than a node of
// its own would (the cheapest type that holds it alone), or when the dearer type both prices the claim's mix of pods
// (cpu, memory, pod slots, beside the DaemonSet pods) within kMixPriceSlack of the NodePool's best type for that
// mix, and can be filled by the claim and the batch's pods not placed yet; else the pod goes to another claim or a
// new one. So claims grow within families of proportional prices while pods remain to fill them, and stop short of
// types priced for other resources or too large for what is left. A NodePool annotated kPackAsKarpenterAnnotation
// keeps Karpenter's rule.
class NodeClaimBuilder {
 public:
  NodeClaimBuilder(std::vector<NodePoolInfo>& pools, InstanceTypeIndex& types, DaemonOverhead& daemons,
                   Topology& topology, std::vector<ResourceList> remaining_limits);

  // What the batch's pods not placed yet request, kept up to date by the provisioner: how much a claim that grows
  // onto a larger type may still be filled with (see the rule above). Unset: as if no pod were left.
  void set_unplaced(const ResourceList* unplaced) { unplaced_ = unplaced; }
  // How many times the rule above kept a claim from growing.
  std::size_t refusals() const { return refusals_; }
  // Off: every NodePool's claims grow as Karpenter grows them, and a sealed claim gets back the types sealing
  // dropped when a pod asks it next (for pods the rule left with nowhere to go; see Provisioner::run).
  bool price_rule() const { return price_rule_; }
  void set_price_rule(bool on) { price_rule_ = on; }

  // An empty claim of NodePool `pool`.
  ClaimState open(std::size_t pool);
  // Whether the pod can join; on success `change` says what the claim becomes, else `reason` (when given) says
  // why not. A claim the price rule turns a pod away from is sealed (see ClaimState::sealed).
  bool try_add(ClaimState& claim, PodVariant& variant, ClassTopology& cls, ClaimChange& change,
               std::string* reason);
  void commit(ClaimState& claim, ClaimChange&& change, const PodVariant& variant, const ClassTopology& cls,
              std::size_t pod);
  // Undoes seal(): the types it dropped that still hold the claim's pods are candidates again, in price order.
  void unseal(ClaimState& claim);
  // The types a claim may launch as (its types, and those sealing dropped that still hold its pods and meet its
  // requirements), each with the DaemonSet pods it would run.
  std::vector<std::pair<std::uint32_t, const ResourceList*>> launch_types(const ClaimState& claim);
  // Adds up to `pods.size()` more pods of a simple variant that has just joined `claim` (its requirements are
  // merged in already). Returns how many joined; they are the first ones of `pods`.
  std::size_t fill(ClaimState& claim, const PodVariant& variant, const ClassTopology& cls,
                   std::span<const std::size_t> pods);

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
  // What a claim about to grow is, for the rule above: its pool, requirements (and the NodePool's types they
  // allow), DaemonSet pods, zones and capacity types as they would be, its pods with the one joining, and the price
  // of its cheapest type until now.
  struct Growth {
    const NodePoolInfo& pool;
    const RequirementSet& requirements;
    std::uint64_t daemon_mask;
    std::uint64_t zones;
    CapacityTypeMask capacity_types;
    ResourceList pods;  // the claim's requests with the joining pods'
    double price;       // its cheapest type's, before
  };
  // A NodePool's types as the rule prices them for one set of DaemonSet pods, zones and capacity types: each at its
  // cheapest offering there (none: left out) with the room its DaemonSet pods leave, cheapest first; and the types
  // no other beats on price per cpu, per byte and per pod slot all at once, the only ones that can price a mix of
  // pods best (mix_price below). Built once per such context: the rule asks for it pod after pod.
  struct PricedType {
    std::uint32_t type = 0;
    double price = 0;
    const ResourceList* daemon = nullptr;
    const ResourceList* allocatable = nullptr;
    std::int64_t cpu_milli = 0, memory = 0, pods = 0;  // left beside the DaemonSet pods
  };
  PricedType priced_type(std::uint32_t t, double price, const ResourceList& daemon) const;
  struct PriceTable {
    std::vector<PricedType> by_price;
    std::vector<std::uint32_t> frontier;  // indexes into by_price
  };
  const PriceTable& price_table(const Growth& growth);
  // Why the claim may not grow onto `type` (its new cheapest, with `daemon` on it) for a joining pod requesting
  // `pod`, or empty. The first overload seals a claim it turns a pod away from, and turns every pod away from a
  // sealed one.
  std::string growth_refused(ClaimState& claim, const Growth& growth, std::uint32_t type, const ResourceList& daemon,
                             const ResourceList& pod);
  std::string growth_refused(const Growth& growth, std::uint32_t type, const ResourceList& daemon,
                             const ResourceList& pod);
  // Seals the claim (see ClaimState::sealed) and settles it.
  void seal(ClaimState& claim);
  // Whether claims of `pool` grow by the rule above.
  bool priced(const NodePoolInfo& pool) const { return price_rule_ && !pool.pack_as_karpenter; }
  // The cheapest price of a type of `table` that `mask` allows and that holds `requests` alone (+inf: none).
  static double alone_price(const PriceTable& table, const TypeSet& mask, const ResourceList& requests);
  // What pods requesting `mix` cost on a type filled with that mix: its price times the largest share of its room
  // (cpu, memory, pod slots) the mix takes (+inf: no room).
  static double mix_price(const PricedType& type, const ResourceList& mix);
  // The least mix_price() of a type `mask` allows (+inf: none).
  static double best_mix_price(const PriceTable& table, const TypeSet& mask, const ResourceList& mix);
  // Of the copies of `requests` each of the claim's types has `room` for, the most a fill may add under the rule
  // above, its cheapest type growing one step at a time.
  std::int64_t well_priced_copies(const ClaimState& claim, const NodePoolInfo& pool, const ResourceList& requests,
                                  const std::vector<std::int64_t>& room);
  // The cheapest of `types` in `zones` and `capacity_types`: its index into `types` and price (+inf: none).
  std::pair<std::size_t, double> cheapest_of(const std::vector<std::uint32_t>& types, std::uint64_t zones,
                                             CapacityTypeMask capacity_types);
  std::string limits_reason(std::size_t pool, const std::vector<std::uint32_t>& types) const;
  void settle(ClaimState& claim);
  // Keeps the claim's types that hold `requests` on top of its own, and settles it as settle() would with them
  // (no limits to charge: only for NodePools without).
  void keep_fitting(ClaimState& claim, const ResourceList& requests);
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
  const ResourceList* unplaced_ = nullptr;
  std::size_t refusals_ = 0;
  bool price_rule_ = true;
  std::map<std::tuple<const NodePoolInfo*, std::uint64_t, std::uint64_t, CapacityTypeMask>, PriceTable> price_tables_;
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
// fits(used, requests, daemons, allocatable) for one `used` and `requests` over many types: their sum is taken
// once, and a type is four comparisons unless extended resources are asked for or requested by its daemons.
class Fit {
 public:
  Fit(const ResourceList& used, const ResourceList& requests)
      : used_(&used),
        requests_(&requests),
        cpu_milli_(saturating_add(used.cpu_milli(), requests.cpu_milli())),
        memory_(saturating_add(used.memory(), requests.memory())),
        pods_(saturating_add(used.pods(), requests.pods())),
        ephemeral_storage_(saturating_add(used.ephemeral_storage(), requests.ephemeral_storage())),
        extended_(!requests.extended().empty()) {}
  // What the claim would request with the pod (saturating).
  std::int64_t cpu_milli() const { return cpu_milli_; }
  std::int64_t memory() const { return memory_; }
  std::int64_t pods() const { return pods_; }
  bool operator()(const ResourceList& daemons, const ResourceList& allocatable) const {
    if (extended_ || !daemons.extended().empty()) return fits(*used_, *requests_, daemons, allocatable);
    return saturating_add(cpu_milli_, daemons.cpu_milli()) <= allocatable.cpu_milli() &&
           saturating_add(memory_, daemons.memory()) <= allocatable.memory() &&
           saturating_add(pods_, daemons.pods()) <= allocatable.pods() &&
           saturating_add(ephemeral_storage_, daemons.ephemeral_storage()) <= allocatable.ephemeral_storage();
  }

 private:
  const ResourceList* used_;
  const ResourceList* requests_;
  std::int64_t cpu_milli_, memory_, pods_, ephemeral_storage_;
  bool extended_;
};

// "cpu=64 memory=1Gi": requests without the pod count, for reasons.
std::string describe_requests(const ResourceList& requests);

}  // namespace scalewright::provisioning
