#pragma once
// Pods that must share one node: each carries a required pod-affinity term on kubernetes.io/hostname whose
// selector matches the pods themselves, and no matching pod runs anywhere yet, so whichever is placed first
// decides the node for all. Packed one by one, largest first, that node fills with other pods before the
// group's smaller members come, and they fit nowhere for good; planned as a unit, the first member reserves
// room for the whole group and the others follow it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "api/pod.h"
#include "api/resources.h"
#include "provisioning/pending_pods.h"
#include "scheduling/snapshot.h"

namespace scalewright::provisioning {

struct ColocationGroup {
  std::vector<std::size_t> members;  // pending indexes, largest first: members[0] leads and reserves for all
  ResourceList requests;             // the members' requests summed (their pod count included)
};

struct Colocation {
  static constexpr std::uint32_t kNone = ~std::uint32_t{0};
  std::vector<ColocationGroup> groups;  // of two members or more
  std::vector<std::uint32_t> group_of;  // per pending pod: its group, or kNone

  bool leads(std::size_t pod) const { return group_of[pod] != kNone && groups[group_of[pod]].members[0] == pod; }
  bool follows(std::size_t pod) const { return group_of[pod] != kNone && groups[group_of[pod]].members[0] != pod; }
};

// The co-location groups of `pending`, given their requests and placement order (largest first). Pods whose
// peers already run somewhere in `cluster` are left out: the scheduler's affinity leads them to those peers.
Colocation find_colocation(const PendingPods& pending, const std::vector<ResourceList>& requests,
                           const std::vector<std::size_t>& order, const scheduling::ClusterSnapshot& cluster);

// Pods to be placed together as co-location groups are, one group per entry of `nodes` with two pods or more (a
// packing decided beforehand); `requests` per pending pod.
Colocation colocation_of(const std::vector<std::vector<std::size_t>>& nodes, const std::vector<ResourceList>& requests);

// `order` with each group's members moved up to follow its leader (its first member in `order`); every other
// pod keeps its place relative to the rest.
std::vector<std::size_t> colocated_order(const std::vector<std::size_t>& order, const Colocation& colocation);

// Whether `requests` fits on `node` on top of what its pods already request.
bool node_has_room(const scheduling::NodeInfo& node, const ResourceList& requests);

// Why a group's members are not placed: "3 pods that must share one node (required pod affinity on
// "kubernetes.io/hostname") need cpu=18 memory=3Gi together: " + why its leader could not be placed.
std::string colocation_reason(const ColocationGroup& group, const std::string& leader_reason);

}  // namespace scalewright::provisioning
