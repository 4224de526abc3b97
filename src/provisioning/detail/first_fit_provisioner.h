// Internal to src/provisioning/: the first-fit-decreasing provisioner that plan_provisioning() runs (once priced,
// and again per packing order it compares), shared by the files that hold its parts: its set-up
// (first_fit_setup.cpp), its placement loop (first_fit.cpp) and plan_provisioning() (provisioner.cpp). Formerly in
// provisioner.cpp's anonymous namespace; nothing outside src/provisioning/ includes it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "provisioning/colocation.h"
#include "provisioning/daemon_overhead.h"
#include "provisioning/instance_types.h"
#include "provisioning/nodeclaim_builder.h"
#include "provisioning/provisioner.h"
#include "provisioning/topology.h"
#include "scheduling/first_fit_index.h"
#include "scheduling/scheduler.h"

namespace scalewright::provisioning::detail {

// Pods with the same scheduling constraints and requests; their relaxation levels are built on first need.
// Classes of one shape (the same constraints, different requests) share the level-0 constraints of the first.
struct PodClass {
  // A member, with only the labels some selector reads. Built up front for the first class of a shape, on first
  // need (relaxation, existing nodes) for the others: most never need it, and a copy per class adds up.
  std::unique_ptr<Pod> exemplar;
  std::size_t member = 0;  // index of that member among the pending pods
  std::size_t shape = 0;   // the first class with the same constraints (itself, or an earlier one)
  std::vector<Pod> sources;  // per level from 1: the pod with that many preferences relaxed (level 0: exemplar)
  std::vector<std::unique_ptr<PodVariant>> variants;
  bool fully_relaxed = false;
  ClassTopology topology;
  std::uint64_t failed_at = std::numeric_limits<std::uint64_t>::max();  // placements_ when it last failed
  std::string failure;
};

constexpr std::uint32_t kNoClaim = ~std::uint32_t{0};

// A NodeClaim of `np` with `requirements`, its instance types left to fill: the template's labels, taints and startup
// taints, and a label for every requirement narrowed to a single value.
// Shared by the placement loop (a claim's instance types at finish) and template_claim() in provisioner.cpp.
NewNodeClaim claim_of(const NodePool& np, const RequirementSet& requirements);

// Places in `types` (instance-type indexes) ordered by their cheapest offering in `zones` and `capacity_types`.
// Shared by the placement loop and template_claim() in provisioner.cpp, as claim_of() is.
std::vector<std::size_t> cheapest_first(InstanceTypeIndex& index, const std::vector<std::uint32_t>& types,
                                        std::uint64_t zones, CapacityTypeMask capacity_types);

// Pod indexes, largest requests first (cpu, then memory), ties in their order.
// Shared by the set-up (the batch's default order) and provisioner.cpp (the packing orders it compares).
std::vector<std::size_t> largest_first(const std::vector<ResourceList>& requests);

// The catalog each NodePool of `input` launches from.
// Shared by the set-up (each NodePool's types) and provisioner.cpp (the types a packing weighs).
const cloud::Catalog& catalog_of(const ProvisioningInput& input, const std::string& nodepool);

class Provisioner {
 public:
  // `order`: the pods in the order to place them; empty, largest first (Karpenter's).
  // How claims grow: by the price rule (NodeClaimBuilder), except in NodePools annotated to pack as Karpenter; or
  // as Karpenter grows them, in every NodePool.
  enum class Packing { Priced, AsKarpenter };
  // `nodes`: when given, pods (indexes into the batch, in `order`) that go on one node each, as co-location
  // groups do: the first reserves room for all of them and the rest follow it.
  explicit Provisioner(const ProvisioningInput& input, std::vector<std::size_t> order = {},
                       Packing packing = Packing::Priced, std::vector<std::vector<std::size_t>> nodes = {});
  ~Provisioner() { cluster_.revert(); }
  Provisioner(const Provisioner&) = delete;
  Provisioner& operator=(const Provisioner&) = delete;
  ProvisioningPlan run();
  // How many times the price rule kept a claim from growing (with none, the plan is Karpenter's too).
  std::size_t refusals() const { return builder_ ? builder_->refusals() : 0; }

 private:
  void prepare_cluster();
  void prepare_nodepools();
  void prepare_pods();
  PodVariant* variant(PodClass& cls, std::size_t level);
  const Pod& exemplar(PodClass& cls);
  void place_run(PodClass& cls, const std::vector<std::size_t>& run);
  std::size_t place(PodClass& cls, PodVariant& v, bool bulk, const std::vector<std::size_t>& run, std::size_t at);
  scheduling::NodeId find_existing(PodVariant& v, PodClass& cls);
  void bind_existing(std::size_t pod, scheduling::NodeId node, const PodClass& cls);
  void close_if_full(ClaimState& claim);
  // Tells the first-fit index claim `id`'s room (or that it is closed), after anything that may change it.
  void refresh(std::uint32_t id);
  ProvisioningPlan finish();

  const ProvisioningInput& input_;
  scheduling::ClusterSnapshot no_cluster_;  // stands in when the input has no snapshot
  scheduling::ClusterSnapshot& cluster_;    // the input's, forked for the plan and reverted after
  scheduling::Scheduler scheduler_;
  InstanceTypeIndex types_;
  std::vector<NodePoolInfo> pools_;
  std::string not_ready_;  // "nodepool \"x\": why; ..." for the NodePools that can launch nothing now
  std::unique_ptr<DaemonOverhead> daemons_;
  std::unique_ptr<Topology> topology_;
  std::unique_ptr<NodeClaimBuilder> builder_;

  std::vector<ResourceList> requests_;    // per pending pod
  std::vector<std::size_t> class_of_;     // per pending pod
  std::vector<std::unique_ptr<PodClass>> classes_;
  std::vector<Symbol> label_keys_;        // the label keys some selector reads, sorted
  std::vector<std::size_t> order_;        // pending pods, largest first (co-location groups together)
  Packing packing_ = Packing::Priced;
  std::vector<std::vector<std::size_t>> packed_nodes_;  // see the constructor
  ResourceList unplaced_;  // what the pods not placed yet request (the claims' growth rule reads it)
  Colocation colocation_;
  std::vector<std::uint32_t> group_claim_;  // per co-location group: the claim its leader opened or joined
  std::uint32_t next_alternative_ = 0;

  std::vector<ClaimState> claims_;
  scheduling::FirstFitIndex open_;  // the room each claim has left, by claim id (a closed claim has none)
  std::int64_t smallest_cpu_ = 0;
  std::int64_t smallest_memory_ = 0;

  std::uint64_t placements_ = 0;
  std::vector<Nomination> nominations_;
  std::vector<std::string> failures_;  // per pending pod; empty when placed
  std::vector<char> placed_;
};

}  // namespace scalewright::provisioning::detail
