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
#include "provisioning/detail/first_fit_provisioner.h"

namespace scalewright::provisioning {

using detail::Provisioner;
using detail::catalog_of;
using detail::cheapest_first;
using detail::claim_of;
using detail::largest_first;

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
                                           const UnavailableOfferings* unavailable, Instant now) {
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
