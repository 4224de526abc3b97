#include "provisioning/provisioner.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <span>
#include <unordered_map>

#include "api/saturating.h"
#include "provisioning/colocation.h"
#include "provisioning/daemon_overhead.h"
#include "provisioning/instance_types.h"
#include "provisioning/nodeclaim_builder.h"
#include "provisioning/pod_constraints.h"
#include "provisioning/topology.h"
#include "scheduling/first_fit_index.h"
#include "scheduling/scheduler.h"
#include "scheduling/shape_packing.h"

namespace scalewright::provisioning {
namespace {

// Taints a node carries only until it is up; an in-flight node is judged as it will be once Ready.
bool ephemeral_taint(const Taint& taint) {
  return taint.key == well_known::taint_not_ready || taint.key == well_known::taint_unreachable ||
         taint.key == "node.cloudprovider.kubernetes.io/uninitialized" || taint.key == "karpenter.sh/unregistered";
}

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
NewNodeClaim claim_of(const NodePool& np, const RequirementSet& requirements) {
  NewNodeClaim out;
  out.nodepool = np.meta.name;
  out.labels = np.template_labels;
  for (const auto& [key, values] : requirements.keys()) {
    if (!values.is_complement() && values.values().size() == 1) {
      out.labels.set(Symbol(key), Symbol(*values.values().begin()));
    }
  }
  out.taints = np.taints;
  out.startup_taints = np.startup_taints;
  return out;
}

// Places in `types` (instance-type indexes) ordered by their cheapest offering in `zones` and `capacity_types`.
std::vector<std::size_t> cheapest_first(InstanceTypeIndex& index, const std::vector<std::uint32_t>& types,
                                        std::uint64_t zones, CapacityTypeMask capacity_types) {
  const std::vector<std::uint32_t>& rank = index.price_rank(zones, capacity_types);
  // Each place keyed by its type's rank (ranks are distinct: the order is the same however it is reached).
  std::vector<std::uint64_t> keys(types.size());
  for (std::size_t i = 0; i < types.size(); ++i) keys[i] = (std::uint64_t{rank[types[i]]} << 32) | i;
  // Most claims keep their NodePool's types in the NodePool's price order already (a sealed one's launch types are
  // the NodePool's in its order too); two such runs are merged.
  const auto first_run_end = std::is_sorted_until(keys.begin(), keys.end());
  std::vector<std::size_t> order(types.size());
  if (std::is_sorted(first_run_end, keys.end())) {
    std::inplace_merge(keys.begin(), first_run_end, keys.end());
    for (std::size_t i = 0; i < keys.size(); ++i) order[i] = keys[i] & 0xffffffffU;
    return order;
  }
  // Else by rank, a permutation of the index's types: each place in the slot of its rank, read back in order.
  constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> by_rank(rank.size(), kEmpty);
  for (std::size_t i = 0; i < types.size(); ++i) by_rank[rank[types[i]]] = static_cast<std::uint32_t>(i);
  std::size_t next = 0;
  for (std::uint32_t i : by_rank) {
    if (i != kEmpty) order[next++] = i;
  }
  return order;
}

// Pod indexes, largest requests first (cpu, then memory), ties in their order.
std::vector<std::size_t> largest_first(const std::vector<ResourceList>& requests) {
  std::vector<std::size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (requests[a].cpu_milli() != requests[b].cpu_milli()) return requests[a].cpu_milli() > requests[b].cpu_milli();
    return requests[a].memory() > requests[b].memory();
  });
  return order;
}

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

const cloud::Catalog& catalog_or_empty(const cloud::Catalog* catalog) {
  static const cloud::Catalog empty;
  return catalog ? *catalog : empty;
}

// The catalog each NodePool of `input` launches from.
const cloud::Catalog& catalog_of(const ProvisioningInput& input, const std::string& nodepool) {
  auto shaped = input.nodepool_catalogs.find(nodepool);
  return shaped != input.nodepool_catalogs.end() ? *shaped->second : catalog_or_empty(input.catalog);
}

// The catalogs the plan indexes, each once: the input's own where a NodePool launches from it (or no NodePool
// says), then those node classes shape.
std::vector<const cloud::Catalog*> indexed_catalogs(const ProvisioningInput& input) {
  std::vector<const cloud::Catalog*> out;
  const bool own = std::any_of(input.nodepools.begin(), input.nodepools.end(), [&](const NodePool& np) {
    return !input.nodepool_catalogs.contains(np.meta.name) && !input.nodepools_not_ready.contains(np.meta.name);
  });
  if (own || input.nodepool_catalogs.empty()) out.push_back(&catalog_or_empty(input.catalog));
  for (const auto& [name, catalog] : input.nodepool_catalogs) {
    if (std::find(out.begin(), out.end(), catalog) == out.end()) out.push_back(catalog);
  }
  return out;
}

Provisioner::Provisioner(const ProvisioningInput& input, std::vector<std::size_t> order, Packing packing,
                         std::vector<std::vector<std::size_t>> nodes)
    : input_(input),
      cluster_(input.cluster ? *input.cluster : no_cluster_),
      types_(indexed_catalogs(input), input.unavailable, input.now),
      order_(std::move(order)),
      packing_(packing),
      packed_nodes_(std::move(nodes)) {
  cluster_.fork();
}

void Provisioner::prepare_cluster() {
  // The batch is being placed now: where any of it sits in the snapshot already, it must not count twice.
  if (cluster_.pod_count() > 0) {
    for (const Pod& pod : input_.pending) cluster_.remove_pod(pod.meta.key());
  }

  for (const std::string& name : input_.in_flight_nodes) {
    const scheduling::NodeId id = cluster_.find_node(name);
    if (id == scheduling::kNoNode) continue;
    const scheduling::NodeInfo& info = cluster_.node(id);
    Node node = *info.node;
    std::vector<Taint> startup;
    if (const Symbol* pool = node.meta.labels.find(Symbol(karpenter_labels::nodepool))) {
      for (const NodePool& np : input_.nodepools) {
        if (np.meta.name == pool->str()) startup = np.startup_taints;
      }
    }
    const std::size_t before = node.taints.size();
    std::erase_if(node.taints, [&](const Taint& taint) {
      return ephemeral_taint(taint) || std::find(startup.begin(), startup.end(), taint) != startup.end();
    });
    if (node.taints.size() == before) continue;
    std::vector<std::shared_ptr<const Pod>> pods;
    for (const scheduling::PlacedPod& placed : info.pods) pods.push_back(placed.pod);
    cluster_.remove_node(id);
    const scheduling::NodeId replaced = cluster_.add_node(std::move(node));
    for (auto& pod : pods) cluster_.add_pod(std::move(pod), replaced);
  }
}

void Provisioner::prepare_nodepools() {
  // A static NodePool launches for no pod: its nodes are there, or in flight, already (Karpenter's provisioner
  // leaves static NodePools out).
  std::vector<const NodePool*> sorted;
  for (const NodePool& np : input_.nodepools) {
    if (np.is_static()) continue;
    // A NodePool that is not Ready (its node class is not there) is not tried, as Karpenter leaves it out; a pod
    // that fits no other says why.
    if (auto why = input_.nodepools_not_ready.find(np.meta.name); why != input_.nodepools_not_ready.end()) {
      not_ready_ += (not_ready_.empty() ? "" : "; ") + ("nodepool \"" + np.meta.name + "\": " + why->second);
      continue;
    }
    sorted.push_back(&np);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const NodePool* a, const NodePool* b) {
    if (a->weight != b->weight) return a->weight > b->weight;
    return a->meta.name < b->meta.name;
  });
  std::vector<ResourceList> remaining;
  for (const NodePool* np : sorted) {
    NodePoolInfo info = nodepool_info(*np, types_, types_.range(&catalog_of(input_, np->meta.name)));
    if (packing_ == Packing::AsKarpenter) info.pack_as_karpenter = true;
    ResourceList left;
    auto usage = input_.nodepool_usage.find(np->meta.name);
    for (Symbol r : np->limited_resources) {
      const std::int64_t used = usage == input_.nodepool_usage.end() ? 0 : usage->second.get(r);
      left.set(r, saturating_sub(np->limits.get(r), used));
    }
    remaining.push_back(std::move(left));
    pools_.push_back(std::move(info));
  }
  daemons_ = std::make_unique<DaemonOverhead>(input_.daemonsets, types_);
  topology_ = std::make_unique<Topology>(pools_, types_, cluster_);
  builder_ = std::make_unique<NodeClaimBuilder>(pools_, types_, *daemons_, *topology_, std::move(remaining));
}

void Provisioner::prepare_pods() {
  const std::size_t n = input_.pending.size();
  requests_.reserve(n);
  for (const Pod& pod : input_.pending) requests_.push_back(pod.effective_requests());
  // Largest first, as Karpenter's byCPUAndMemoryDescending; ties keep their order. Unless an order was given.
  if (order_.empty()) order_ = largest_first(requests_);
  // A co-location group is placed as its leader carrying the whole group's requests, its followers right after
  // with none: wherever the leader fits, the rest do, and no pod in between takes their room.
  colocation_ = packed_nodes_.empty() ? find_colocation(input_.pending, requests_, order_, cluster_)
                                      : colocation_of(packed_nodes_, requests_);
  group_claim_.assign(colocation_.groups.size(), kNoClaim);
  if (!colocation_.groups.empty()) {
    order_ = colocated_order(order_, colocation_);
    for (const ColocationGroup& group : colocation_.groups) {
      requests_[group.members[0]] = group.requests;
      for (std::size_t k = 1; k < group.members.size(); ++k) requests_[group.members[k]] = ResourceList();
    }
  }
  // Followers need no room, and never open a claim: a claim is full when no other pod can fit.
  smallest_cpu_ = smallest_memory_ = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < n; ++i) {
    if (colocation_.follows(i)) continue;
    smallest_cpu_ = std::min(smallest_cpu_, requests_[i].cpu_milli());
    smallest_memory_ = std::min(smallest_memory_, requests_[i].memory());
  }

  // Equivalence classes. Only labels some selector reads tell pods apart (a StatefulSet's pods differ in their
  // pod-name label, and nothing else).
  std::vector<const LabelSelector*> existing_selectors;
  for (const scheduling::ExistingTermGroup& group : cluster_.existing_terms()) {
    if (group.matcher) existing_selectors.push_back(&group.matcher->selector);
  }
  label_keys_ = selector_label_keys(input_.pending, existing_selectors);
  const std::vector<Symbol>& label_keys = label_keys_;
  class_of_.assign(n, 0);
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> shapes_by_hash;  // shape classes by label hash
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_requests;     // classes by (shape, requests)
  // Per class: the first class with the same constraints (itself when none was seen among the recent ones).
  // Pods of a workload usually differ only in requests; their classes share groups and classification.
  std::vector<std::size_t> shape_of;
  // Most pods share their class with one of the last few classes seen (workloads interleave in the input);
  // those are recognised by comparison, the rest by their canonical key.
  constexpr std::size_t kRecent = 8;
  std::array<std::size_t, kRecent> recent{};
  std::size_t recent_count = 0;
  for (std::size_t i : order_) {
    const Pod& pod = input_.pending[i];
    std::size_t found = classes_.size();
    std::size_t sibling = classes_.size();  // a class with the same constraints but other requests
    for (std::size_t r = 0; r < recent_count && found == classes_.size(); ++r) {
      const PodClass& candidate = *classes_[recent[r]];
      const bool same_requests = requests_[i] == requests_[candidate.member];
      if ((same_requests || sibling == classes_.size()) &&
          same_scheduling_constraints(pod, input_.pending[candidate.member], &label_keys)) {
        if (same_requests) {
          found = recent[r];
        } else {
          sibling = recent[r];
        }
      }
    }
    if (found == classes_.size()) {
      // The class of the same constraints (its shape) by a hash of what tells workloads apart, confirmed by
      // comparison; then the class of those requests within the shape. Cheaper than a canonical key per pod.
      std::uint64_t h = std::hash<std::string>{}(pod.meta.namespace_);
      auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL; };
      for (const auto& [key, value] : pod.meta.labels) {
        if (!std::binary_search(label_keys.begin(), label_keys.end(), key)) continue;
        mix(key.id());
        mix(value.id());
      }
      std::vector<std::size_t>& candidates = shapes_by_hash[h];
      std::size_t shape = classes_.size();
      if (sibling != classes_.size()) {
        shape = shape_of[sibling];
      } else {
        for (std::size_t rep : candidates) {
          if (same_scheduling_constraints(pod, input_.pending[classes_[rep]->member], &label_keys)) {
            shape = rep;
            break;
          }
        }
      }
      const ResourceList& req = requests_[i];
      std::uint64_t rh = shape;
      auto mix_r = [&rh](std::uint64_t v) { rh = (rh ^ v) * 0x100000001b3ULL + 0x9e3779b97f4a7c15ULL; };
      mix_r(static_cast<std::uint64_t>(req.cpu_milli()));
      mix_r(static_cast<std::uint64_t>(req.memory()));
      mix_r(static_cast<std::uint64_t>(req.pods()));
      std::vector<std::size_t>& same = by_requests[rh];
      if (shape != classes_.size()) {
        for (std::size_t c : same) {
          if (shape_of[c] == shape && requests_[classes_[c]->member] == req) {
            found = c;
            break;
          }
        }
      }
      if (found == classes_.size()) {
        auto cls = std::make_unique<PodClass>();
        cls->member = i;
        found = classes_.size();
        if (shape == classes_.size()) {
          cls->exemplar = std::make_unique<Pod>(pod);
          cls->exemplar->meta.labels = only_keys(pod.meta.labels, label_keys);
          shape = found;
          candidates.push_back(found);
          // The hash of a new shape's requests was taken with no shape yet; file it under its own index.
          rh = shape;
          mix_r(static_cast<std::uint64_t>(req.cpu_milli()));
          mix_r(static_cast<std::uint64_t>(req.memory()));
          mix_r(static_cast<std::uint64_t>(req.pods()));
          by_requests[rh].push_back(found);
        } else {
          same.push_back(found);
        }
        shape_of.push_back(shape);
        cls->shape = shape;
        classes_.push_back(std::move(cls));
      }
    }
    class_of_[i] = found;
    // Most recently used first.
    auto at = std::find(recent.begin(), recent.begin() + static_cast<std::ptrdiff_t>(recent_count), found);
    if (at == recent.begin() + static_cast<std::ptrdiff_t>(recent_count)) {
      if (recent_count < kRecent) ++recent_count;
      at = recent.begin() + static_cast<std::ptrdiff_t>(recent_count) - 1;
    }
    std::rotate(recent.begin(), at, at + 1);
    recent[0] = found;
  }
  // Every group any level of any class can own is registered before a pod is placed, so that each counts the
  // cluster's pods once and every placement after.
  // A class with the same constraints as an earlier one registers the same groups (their identities are equal)
  // and is classified alike.
  for (std::size_t c = 0; c < classes_.size(); ++c) {
    PodClass& cls = *classes_[c];
    PodVariant* first = variant(cls, 0);
    if (shape_of[c] != c) continue;
    topology_->register_groups(*first->constraints);
    topology_->register_inverse(*cls.exemplar);
  }
  for (std::size_t c = 0; c < classes_.size(); ++c) {
    PodClass& cls = *classes_[c];
    if (shape_of[c] == c) {
      cls.topology = topology_->classify(*cls.exemplar);
      cls.variants[0]->owned = topology_->groups_of(*cls.variants[0]->constraints);
    } else {
      const PodClass& shape = *classes_[shape_of[c]];
      // The shape's exemplar: selectors read labels (equal on the keys they read) and the namespace alone.
      cls.topology.exemplar = shape.exemplar.get();
      cls.topology.counted = shape.topology.counted;
      cls.topology.blocked = shape.topology.blocked;
      cls.variants[0]->owned = shape.variants[0]->owned;
    }
  }
}

PodVariant* Provisioner::variant(PodClass& cls, std::size_t level) {
  while (cls.variants.size() <= level) {
    if (cls.fully_relaxed) return nullptr;
    auto v = std::make_unique<PodVariant>();
    if (cls.variants.empty()) {
      // Level 0 reads the exemplar itself; a class shares the constraints of its shape's first class, which
      // differ from its own in the requests alone (kept in the variant).
      if (classes_[cls.shape].get() != &cls) {
        v->constraints = variant(*classes_[cls.shape], 0)->constraints;
      } else {
        v->constraints = std::make_shared<const PodConstraints>(constraints_of(exemplar(cls)));
        v->pod = &v->constraints->pod;
      }
    } else {
      // relax reads affinity and spread constraints only, which the pending pod has as its exemplar does.
      if (!relaxable(cls.sources.empty() ? input_.pending[cls.member] : cls.sources.back())) {
        cls.fully_relaxed = true;
        return nullptr;
      }
      std::optional<Pod> relaxed = relax(cls.sources.empty() ? exemplar(cls) : cls.sources.back());
      cls.sources.push_back(std::move(*relaxed));
      v->constraints = std::make_shared<const PodConstraints>(constraints_of(cls.sources.back()));
      v->pod = &v->constraints->pod;
    }
    v->requests = requests_[cls.member];
    v->first_alternative = next_alternative_;
    next_alternative_ += static_cast<std::uint32_t>(v->constraints->requirements.size());
    if (topology_ && !cls.variants.empty()) v->owned = topology_->groups_of(*v->constraints);
    cls.variants.push_back(std::move(v));
  }
  return cls.variants[level].get();
}

const Pod& Provisioner::exemplar(PodClass& cls) {
  if (!cls.exemplar) {
    const Pod& pod = input_.pending[cls.member];
    cls.exemplar = std::make_unique<Pod>(pod);
    cls.exemplar->meta.labels = only_keys(pod.meta.labels, label_keys_);
  }
  return *cls.exemplar;
}

scheduling::NodeId Provisioner::find_existing(PodVariant& v, PodClass& cls) {
  const std::size_t slots = cluster_.nodes().size();
  if (cluster_.live_node_count() == 0) return scheduling::kNoNode;
  if (v.pod == nullptr) {  // shared constraints: the scheduler reads the requests from the pod, this class's
    v.own_pod = std::make_unique<Pod>(scheduler_pod(exemplar(cls)));
    v.pod = v.own_pod.get();
  }
  const scheduling::NodeId start = v.constraints->monotone ? v.existing_cursor : 0;
  std::size_t last = 0;  // positions visited, counted from `start`
  scheduling::NodeId from = start;
  while (true) {
    const scheduling::NodeId id = scheduler_.find_fit(cluster_, *v.pod, from);
    if (id == scheduling::kNoNode) return id;
    const std::size_t position = (id + slots - start) % slots;
    if (position < last) return scheduling::kNoNode;  // wrapped around: every node was judged
    // A co-location leader is judged with its own requests by the scheduler; its group needs room for all.
    if (topology_->allows_node(v.owned, cls.topology, cluster_.node(id)) &&
        (!colocation_.leads(cls.member) ||
         node_has_room(cluster_.node(id), colocation_.groups[colocation_.group_of[cls.member]].requests))) {
      if (v.constraints->monotone) v.existing_cursor = id;
      return id;
    }
    last = position + 1;
    if (last >= slots) return scheduling::kNoNode;
    from = static_cast<scheduling::NodeId>((id + 1) % slots);
  }
}

void Provisioner::bind_existing(std::size_t pod, scheduling::NodeId node, const PodClass& cls) {
  std::shared_ptr<const Pod> bound = input_.pending.shared(pod);
  if (cluster_.node_of_pod(bound->meta.key())) {  // a duplicate name: placed under a name of its own
    auto renamed = std::make_shared<Pod>(*bound);
    renamed->meta.name += "#" + std::to_string(pod);
    bound = std::move(renamed);
  }
  cluster_.add_pod(std::move(bound), node);
  topology_->record_node(cls.topology, cluster_.node(node));
  nominations_.push_back({pod, cluster_.node(node).name()});
}

void Provisioner::close_if_full(ClaimState& claim) {
  if (claim.closed) return;
  if (claim.free_cpu >= smallest_cpu_ && claim.free_memory >= smallest_memory_ && claim.free_pods >= 1) return;
  claim.closed = true;
}

void Provisioner::refresh(std::uint32_t id) {
  const ClaimState& claim = claims_[id];
  open_.set(id, claim.closed ? scheduling::FirstFitIndex::Room{}
                             : scheduling::FirstFitIndex::Room{claim.free_cpu, claim.free_memory, claim.free_pods});
}

// Places pod run[at] (and, in bulk, more of the run after it) with one relaxation level. Returns how many pods
// were placed; 0 when this level cannot place the pod anywhere.
std::size_t Provisioner::place(PodClass& cls, PodVariant& v, bool bulk, const std::vector<std::size_t>& run,
                               std::size_t at) {
  const std::size_t pod = run[at];
  // A follower whose leader is on a new claim goes there: the leader reserved its room, and it may be closed to
  // everyone else. (Followers of a leader on an existing node are led there by the scheduler's affinity filter.)
  const std::uint32_t group = colocation_.group_of[pod];
  if (colocation_.follows(pod) && group_claim_[group] != kNoClaim) {
    ClaimState& claim = claims_[group_claim_[group]];
    ClaimChange change;
    std::string reason;
    const bool joined = builder_->try_add(claim, v, cls.topology, change, &reason);
    if (joined) builder_->commit(claim, std::move(change), v, cls.topology, pod);
    refresh(group_claim_[group]);
    if (!joined) {
      v.reason = "cannot join the node of its co-located pods: " + reason;
      return 0;
    }
    ++placements_;
    return 1;
  }
  // (a) existing and in-flight nodes
  if (!v.existing_exhausted) {
    const scheduling::NodeId node = find_existing(v, cls);
    if (node != scheduling::kNoNode) {
      bind_existing(pod, node, cls);
      ++placements_;
      return 1;
    }
    if (v.constraints->monotone) v.existing_exhausted = true;
  }
  const bool simple = bulk && v.existing_exhausted && v.constraints->host_ports.empty() &&
                      !topology_->constrains(v.owned, cls.topology);
  auto fill = [&](std::uint32_t id) {
    ClaimState& claim = claims_[id];
    std::size_t placed = 1;
    // The rest of the run as it stands (a copy per claim made a run of a million pods quadratic).
    if (simple && at + 1 < run.size()) placed += builder_->fill(claim, v, cls.topology, std::span(run).subspan(at + 1));
    placements_ += placed;
    close_if_full(claim);
    refresh(id);
    return placed;
  };

  // (b) NodeClaims opened in this batch, first fit in the order they were opened (the index passes over those
  // without room for the pod, which would turn it away at once)
  ClaimChange change;
  std::string reason;
  // Without the price rule a claim that turned the pod away may take it: claims are asked again from the first.
  const bool monotone_claims = v.constraints->monotone && builder_->price_rule();
  // A node of a packing decided beforehand is a claim of its own.
  const std::size_t cursor = !packed_nodes_.empty() && colocation_.leads(pod) ? claims_.size()
                             : monotone_claims                               ? v.claim_cursor
                                                                             : 0;
  for (std::size_t at_claim = open_.next(cursor, v.requests); at_claim < open_.size();
       at_claim = open_.next(at_claim + 1, v.requests)) {
    const auto id = static_cast<std::uint32_t>(at_claim);
    ClaimState& claim = claims_[id];
    if (builder_->try_add(claim, v, cls.topology, change, nullptr)) {
      builder_->commit(claim, std::move(change), v, cls.topology, pod);
      if (colocation_.leads(pod)) group_claim_[group] = id;
      // A monotone pod kind rejected once is rejected for good: the claim only fills up and narrows.
      if (monotone_claims) v.claim_cursor = id;
      return fill(id);
    }
    refresh(id);  // the price rule may have sealed it
  }
  if (monotone_claims) v.claim_cursor = claims_.size();

  // (c) a new NodeClaim from the first NodePool, by weight, that can hold the pod
  std::string reasons;
  for (std::size_t p = 0; p < pools_.size(); ++p) {
    ClaimState claim = builder_->open(p);
    if (builder_->try_add(claim, v, cls.topology, change, &reason)) {
      claim.topology.hostname = Symbol("nodeclaim-placeholder-" + std::to_string(claims_.size()));
      claim.passed_over = reasons;
      builder_->commit(claim, std::move(change), v, cls.topology, pod);
      const auto id = static_cast<std::uint32_t>(claims_.size());
      claims_.push_back(std::move(claim));
      if (colocation_.leads(pod)) group_claim_[group] = id;
      return fill(id);
    }
    reasons += (reasons.empty() ? "" : "; ") + ("nodepool \"" + pools_[p].pool->meta.name + "\": " + reason);
  }
  if (!not_ready_.empty()) reasons += (reasons.empty() ? "" : "; ") + not_ready_;
  v.reason = "no nodepool can hold the pod: " + (reasons.empty() ? std::string("no nodepools") : reasons);
  if (monotone_claims) v.dead = true;
  return 0;
}

void Provisioner::place_run(PodClass& cls, const std::vector<std::size_t>& run) {
  std::size_t at = 0;
  while (at < run.size()) {
    // A follower waits for its leader: placed alone, it would start a node of its own.
    if (colocation_.follows(run[at])) {
      const std::size_t leader = colocation_.groups[colocation_.group_of[run[at]]].members[0];
      if (!placed_[leader]) {
        failures_[run[at]] = failures_[leader];
        ++at;
        continue;
      }
    }
    if (cls.failed_at == placements_) {  // nothing changed since this kind of pod last failed
      failures_[run[at]] = cls.failure;
      ++at;
      continue;
    }
    std::size_t placed = 0;
    bool lower_levels_dead = true;
    std::string last_failure;
    for (std::size_t level = 0;; ++level) {
      PodVariant* v = variant(cls, level);
      if (v == nullptr) break;
      if (v->dead && builder_->price_rule()) {
        last_failure = v->reason;
        continue;
      }
      placed = place(cls, *v, lower_levels_dead, run, at);
      if (placed > 0) break;
      last_failure = v->reason;
      if (!v->dead) lower_levels_dead = false;
    }
    if (placed == 0) {
      // A leader's class holds the leader alone (no other pod has its constraints and the group's requests).
      if (colocation_.leads(run[at])) {
        last_failure = colocation_reason(colocation_.groups[colocation_.group_of[run[at]]], last_failure);
      }
      cls.failure = last_failure;
      cls.failed_at = placements_;
      failures_[run[at]] = cls.failure;
      ++at;
      continue;
    }
    for (std::size_t k = at; k < at + placed; ++k) {
      placed_[run[k]] = 1;
      failures_[run[k]].clear();
      unplaced_.take_away(requests_[run[k]]);
    }
    at += placed;
  }
}

ProvisioningPlan Provisioner::run() {
  prepare_cluster();
  prepare_nodepools();
  prepare_pods();
  failures_.assign(input_.pending.size(), std::string());
  placed_.assign(input_.pending.size(), 0);
  for (const ResourceList& requests : requests_) unplaced_ += requests;
  builder_->set_unplaced(&unplaced_);

  // Karpenter's queue: pods that fail are retried while others keep being placed (a pod may need one placed
  // after it, such as the target of its affinity).
  std::vector<std::size_t> pending = order_;
  constexpr int kMaxPasses = 100;
  for (int pass = 0; pass < kMaxPasses && !pending.empty(); ++pass) {
    const std::uint64_t before = placements_;
    std::vector<std::size_t> run;
    for (std::size_t i = 0; i < pending.size();) {
      const std::size_t c = class_of_[pending[i]];
      run.clear();
      while (i < pending.size() && class_of_[pending[i]] == c) run.push_back(pending[i++]);
      place_run(*classes_[c], run);
    }
    std::erase_if(pending, [&](std::size_t pod) { return placed_[pod] != 0; });
    if (placements_ == before) {
      // The price rule chooses where a pod goes, never whether it goes: pods it left with nowhere to go (the
      // claim they must share with their affinity's target, a NodePool's limit held by claims it kept small) are
      // placed as Karpenter places them, every claim growing while any of its types can hold it.
      if (pending.empty() || !builder_->price_rule() || builder_->refusals() == 0) break;
      builder_->set_price_rule(false);
      for (const auto& cls : classes_) cls->failed_at = std::numeric_limits<std::uint64_t>::max();
      for (std::uint32_t id = 0; id < claims_.size(); ++id) {
        if (!claims_[id].sealed) continue;
        builder_->unseal(claims_[id]);
        claims_[id].closed = false;
        close_if_full(claims_[id]);
        refresh(id);
      }
    }
  }
  return finish();
}

ProvisioningPlan Provisioner::finish() {
  ProvisioningPlan plan;
  plan.existing = std::move(nominations_);
  std::sort(plan.existing.begin(), plan.existing.end(),
            [](const Nomination& a, const Nomination& b) { return a.pod < b.pod; });
  for (ClaimState& claim : claims_) {
    const NodePool& np = *pools_[claim.nodepool].pool;
    NewNodeClaim out = claim_of(np, claim.requirements);
    const std::vector<std::pair<std::uint32_t, const ResourceList*>> launch = builder_->launch_types(claim);
    std::vector<std::uint32_t> types;
    types.reserve(launch.size());
    for (const auto& [t, daemon] : launch) types.push_back(t);
    const std::vector<std::size_t> by_price = cheapest_first(types_, types, claim.zones, claim.capacity_types);
    out.instance_types.reserve(by_price.size());
    for (std::size_t i : by_price) out.instance_types.push_back(&types_.type(types[i]));
    if (!by_price.empty()) out.daemon_requests = *launch[by_price.front()].second;
    // What choose_offering() picks for it: its cheapest spot offering when it may run on spot and has one, else
    // its cheapest on-demand one (the index's prices are the offerings it would look at, per type).
    double cheapest = std::numeric_limits<double>::infinity();
    for (const CapacityTypeMask bit : {kSpotBit, kOnDemandBit}) {
      if (std::isfinite(cheapest) || !(claim.capacity_types & bit)) continue;
      const std::vector<double>& prices = types_.prices(claim.zones, bit);
      double least = cheapest;
      for (std::uint32_t t : types) least = prices[t] < least ? prices[t] : least;
      cheapest = least;
    }
    if (std::isfinite(cheapest)) plan.price_per_hour += cheapest;
    out.requirements = std::move(claim.requirements);
    out.pods = std::move(claim.pods);
    out.pod_requests = claim.requests;
    out.passed_over = std::move(claim.passed_over);
    plan.new_claims.push_back(std::move(out));
    // Its lists are not read again: freed now, as a large batch's claims are turned into the plan's.
    std::vector<std::uint32_t>().swap(claim.types);
    std::vector<const ResourceList*>().swap(claim.daemons);
  }
  for (std::size_t pod = 0; pod < input_.pending.size(); ++pod) {
    if (!placed_[pod]) plan.unschedulable.push_back({pod, failures_[pod]});
  }
  return plan;
}

}  // namespace

namespace {

// The types the plan launched (each claim's cheapest), most launched first, with a claim of each: the node
// shapes a packing may aim at.
std::vector<const NewNodeClaim*> launched_types(const ProvisioningPlan& plan) {
  std::map<const cloud::InstanceType*, std::pair<std::size_t, const NewNodeClaim*>> launched;
  for (const NewNodeClaim& claim : plan.new_claims) {
    if (claim.instance_types.empty()) continue;
    auto& [count, example] = launched[claim.instance_types.front()];
    if (count++ == 0) example = &claim;
  }
  std::vector<std::pair<std::size_t, const NewNodeClaim*>> by_count;
  for (const auto& [type, seen] : launched) by_count.push_back(seen);
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.second->instance_types.front()->name < b.second->instance_types.front()->name;
  });
  std::vector<const NewNodeClaim*> out;
  for (const auto& [count, claim] : by_count) out.push_back(claim);
  return out;
}

// The batch grouped by pod shape (equal requests), for packing node by node: the shapes largest first (ties in the
// packing go to the larger), each with its pods in that order.
struct BatchShapes {
  std::vector<scheduling::ShapeCount> shapes;     // largest first
  std::vector<std::vector<std::size_t>> members;  // parallel to shapes: indexes into the batch
};

// nullopt when the batch does not qualify: a pod whose fit depends on more than its requests, or too many shapes.
std::optional<BatchShapes> group_by_shape(const ProvisioningInput& input) {
  std::vector<ResourceList> requests;
  std::map<std::vector<std::pair<Symbol, std::int64_t>>, std::size_t> shape_of;
  std::vector<scheduling::ShapeCount> shapes;
  std::vector<std::size_t> pod_shape;
  for (const Pod& pod : input.pending) {
    if (!scheduling::fits_by_resources_alone(pod)) return std::nullopt;
    requests.push_back(pod.effective_requests());
    auto [it, added] = shape_of.try_emplace(requests.back().entries(), shapes.size());
    if (added) {
      if (shapes.size() == scheduling::kMostShapes) return std::nullopt;
      shapes.push_back({requests.back(), 0});
    }
    ++shapes[it->second].count;
    pod_shape.push_back(it->second);
  }
  const std::vector<std::size_t> by_size = largest_first(requests);
  std::vector<std::vector<std::size_t>> members(shapes.size());
  for (std::size_t pod : by_size) members[pod_shape[pod]].push_back(pod);
  BatchShapes out;
  std::vector<bool> taken(shapes.size(), false);
  for (std::size_t pod : by_size) {  // each shape in the place of its first pod
    const std::size_t s = pod_shape[pod];
    if (taken[s]) continue;
    taken[s] = true;
    out.shapes.push_back(shapes[s]);
    out.members.push_back(std::move(members[s]));
  }
  return out;
}

// The batch in the order a node-by-node packing puts it (scheduling::pack_shapes) on nodes like `aim` (its
// cheapest type, less its DaemonSets): each node's worth of pods one after the other, so that first fit opens a
// NodeClaim per packed node. Pods larger than that node come first, as largest first would place them.
std::vector<std::size_t> packed_order(const BatchShapes& batch, const NewNodeClaim& aim) {
  const ResourceList room = aim.instance_types.front()->allocatable - aim.daemon_requests;
  const scheduling::ShapePacking packing =
      scheduling::pack_shapes(batch.shapes, room, std::numeric_limits<std::size_t>::max());
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < batch.shapes.size(); ++k) {  // too large for the node: first
    for (std::size_t i = packing.placed[k]; i < batch.members[k].size(); ++i) order.push_back(batch.members[k][i]);
  }
  std::vector<std::size_t> next(batch.shapes.size(), 0);
  for (const scheduling::PackedNode& node : packing.nodes) {
    for (const auto& [k, count] : node.shapes) {
      for (std::size_t i = 0; i < count; ++i) order.push_back(batch.members[k][next[k]++]);
    }
  }
  return order;
}

// The NodePool's types as pack_by_worth() weighs them: each at the offering choose_offering() would pick for a
// node of it alone, with its room beside `daemons` (the DaemonSet pods of the plan's first claim).
std::vector<scheduling::PricedRoom> priced_rooms(const ProvisioningInput& input, const NodePool& np,
                                                 const ResourceList& daemons) {
  const UnavailableOfferings none;
  const UnavailableOfferings& unavailable = input.unavailable != nullptr ? *input.unavailable : none;
  std::vector<scheduling::PricedRoom> out;
  std::optional<NewNodeClaim> all = template_claim(np, catalog_of(input, np.meta.name), &unavailable, input.now);
  if (!all) return out;
  NewNodeClaim one;
  one.requirements = all->requirements;
  for (const cloud::InstanceType* type : all->instance_types) {
    one.instance_types = {type};
    if (const std::optional<LaunchChoice> choice = choose_offering(one, unavailable, input.now)) {
      out.push_back({choice->offering->price_per_hour, type->allocatable - daemons});
    }
  }
  return out;
}

// Whether a pod asks nothing of a node beyond room (besides what fits_by_resources_alone rules out): no node
// selector, node affinity or preferred pod (anti-)affinity, so any type of its NodePool suits it as well as another.
bool any_type_will_do(const Pod& pod) {
  const Affinity& affinity = pod.spec.affinity;
  return pod.spec.node_selector.empty() && !affinity.required_node_affinity &&
         affinity.preferred_node_affinity.empty() && affinity.preferred_pod_affinity.empty() &&
         affinity.preferred_pod_anti_affinity.empty();
}

// The batch's pods on the nodes of pack_by_worth() over `rooms` (a pod it could not place on a node of its own).
std::vector<std::vector<std::size_t>> worth_packed_nodes(const BatchShapes& batch,
                                                         const std::vector<scheduling::PricedRoom>& rooms) {
  const scheduling::ShapePacking packing = scheduling::pack_by_worth(batch.shapes, rooms);
  std::vector<std::vector<std::size_t>> nodes;
  std::vector<std::size_t> next(batch.shapes.size(), 0);
  for (const scheduling::PackedNode& packed : packing.nodes) {
    std::vector<std::size_t>& node = nodes.emplace_back();
    for (const auto& [k, count] : packed.shapes) {
      for (std::size_t i = 0; i < count; ++i) node.push_back(batch.members[k][next[k]++]);
    }
  }
  for (std::size_t k = 0; k < batch.shapes.size(); ++k) {
    while (next[k] < batch.members[k].size()) nodes.push_back({batch.members[k][next[k]++]});
  }
  return nodes;
}

}  // namespace

std::optional<NewNodeClaim> template_claim(const NodePool& np, const cloud::Catalog& catalog,
                                           const UnavailableOfferings* unavailable, Duration now) {
  InstanceTypeIndex types(catalog, unavailable, now);
  NodePoolInfo info = nodepool_info(np, types);
  if (info.types.empty()) return std::nullopt;
  NewNodeClaim out = claim_of(np, info.requirements);
  for (std::size_t i : cheapest_first(types, info.types, info.zones, info.capacity_types)) {
    out.instance_types.push_back(&types.type(info.types[i]));
  }
  out.requirements = std::move(info.requirements);
  return out;
}

ProvisioningPlan plan_provisioning(const ProvisioningInput& input) {
  if (input.pending.empty()) return {};
  ProvisioningPlan plan;
  std::size_t refusals = 0;
  {
    // Each plan works on a fork of the snapshot, undone when it ends: one plan at a time.
    Provisioner priced(input);
    plan = priced.run();
    refusals = priced.refusals();
  }
  // Karpenter's way of growing claims is a plan too: the priced one goes ahead unless it costs more. A greedy rule
  // can miss where a few pods round up to whole nodes (five pods that one larger node holds for less than five
  // small ones); over a large batch its choices are many and its margin wide (17 to 84 % below Karpenter's packing
  // in every benchmark from 10,000 pods), and a second plan would double the decision time. So the second plan is
  // made for batches up to ProvisioningInput::compared_batch pods.
  if (refusals > 0 && input.pending.size() <= input.compared_batch) {
    ProvisioningPlan karpenters = Provisioner(input, {}, Provisioner::Packing::AsKarpenter).run();
    if (karpenters.unschedulable.size() < plan.unschedulable.size() ||
        (karpenters.unschedulable.size() == plan.unschedulable.size() &&
         karpenters.price_per_hour < plan.price_per_hour - cloud::kSamePrice)) {
      plan = std::move(karpenters);
    }
  }
  // Largest first leaves memory-heavy small pods to nodes of their own; the same batch packed node by node often
  // needs fewer or cheaper nodes. The cheapest plan goes ahead; on a tie, the one above.
  if (plan.new_claims.size() < 2) return plan;
  const std::optional<BatchShapes> batch = group_by_shape(input);
  if (!batch) return plan;
  std::optional<ProvisioningPlan> best;
  auto consider = [&](ProvisioningPlan packed) {
    const double best_price = best ? best->price_per_hour : plan.price_per_hour;
    if (packed.unschedulable.size() <= plan.unschedulable.size() &&
        packed.price_per_hour < best_price - cloud::kSamePrice) {
      best = std::move(packed);
    }
  };
  bool any_type = true;  // and the same tolerations: then pods of one shape are alike
  bool same_tolerations = true;
  for (const Pod& pod : input.pending) {
    any_type = any_type && any_type_will_do(pod);
    same_tolerations = same_tolerations && *pod.spec.tolerations == *input.pending[0].spec.tolerations;
  }
  // Packed for each of the (at most three) types the plan launched most: the cheapest cpu with memory-heavy pods
  // left to larger nodes is often cheaper than nodes of the most common shape. (Pods that are alike are packed by
  // first fit as the plan above packed them, in whatever order they come.)
  constexpr std::size_t kShapesTried = 3;
  std::vector<const NewNodeClaim*> aims = launched_types(plan);
  if (aims.size() > kShapesTried) aims.resize(kShapesTried);
  if (batch->shapes.size() == 1 && any_type && same_tolerations) aims.clear();
  for (const NewNodeClaim* aim : aims) consider(Provisioner(input, packed_order(*batch, *aim)).run());
  // Over every type of the NodePool the plan launched from (when it launched from one, for pods any of its types
  // suits, unless it packs as Karpenter), each node of the packing a claim of its own: nodes whose mix of pods suits
  // their type's prices, which first fit in largest-first order does not look for.
  const std::string& nodepool = plan.new_claims.front().nodepool;
  const bool one_nodepool = std::all_of(plan.new_claims.begin(), plan.new_claims.end(),
                                        [&](const NewNodeClaim& claim) { return claim.nodepool == nodepool; });
  for (const NodePool& np : input.nodepools) {
    if (!one_nodepool || !any_type || np.meta.name != nodepool || np.meta.annotated_true(kPackAsKarpenterAnnotation)) {
      continue;
    }
    std::vector<std::vector<std::size_t>> nodes =
        worth_packed_nodes(*batch, priced_rooms(input, np, plan.new_claims.front().daemon_requests));
    std::vector<std::size_t> order;
    for (const std::vector<std::size_t>& node : nodes) order.insert(order.end(), node.begin(), node.end());
    consider(Provisioner(input, std::move(order), Provisioner::Packing::Priced, std::move(nodes)).run());
  }
  return best ? std::move(*best) : plan;
}

}  // namespace scalewright::provisioning
