// The first-fit provisioner's set-up: the snapshot forked for the plan, the NodePools' types and limits, the
// batch's pods grouped into classes and put in order.
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
namespace {

// Taints a node carries only until it is up; an in-flight node is judged as it will be once Ready.
bool ephemeral_taint(const Taint& taint) {
  return taint.key == well_known::taint_not_ready || taint.key == well_known::taint_unreachable ||
         taint.key == "node.cloudprovider.kubernetes.io/uninitialized" || taint.key == "karpenter.sh/unregistered";
}

const cloud::Catalog& catalog_or_empty(const cloud::Catalog* catalog) {
  static const cloud::Catalog empty;
  return catalog ? *catalog : empty;
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

}  // namespace

// The catalog each NodePool of `input` launches from.
const cloud::Catalog& catalog_of(const ProvisioningInput& input, const std::string& nodepool) {
  auto shaped = input.nodepool_catalogs.find(nodepool);
  return shaped != input.nodepool_catalogs.end() ? *shaped->second : catalog_or_empty(input.catalog);
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

}  // namespace scalewright::provisioning::detail
