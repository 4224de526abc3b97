// The first-fit provisioner's placement loop: each class of pods, largest first, onto existing nodes or open
// NodeClaims at the least relaxation that places it, else a new NodeClaim; then the plan from the claims. The
// provisioner's hot path: these stay in one translation unit.
#include "provisioning/detail/first_fit_provisioner.h"

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

namespace scalewright::provisioning::detail {

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

}  // namespace scalewright::provisioning::detail
