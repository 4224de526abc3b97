#include "provisioning/colocation.h"

#include <unordered_map>

#include "provisioning/nodeclaim_builder.h"
#include "scheduling/pod_query.h"

namespace scalewright::provisioning {
namespace {

const Symbol& hostname_key() {
  static const Symbol s(well_known::hostname);
  return s;
}

// The matcher of the pod's first required hostname-affinity term that selects the pod itself.
std::optional<scheduling::PodMatcher> self_hostname_affinity(const Pod& pod,
                                                             const scheduling::NamespaceLabels& namespaces) {
  for (const PodAffinityTerm& term : pod.spec.affinity.required_pod_affinity) {
    if (term.topology_key != hostname_key()) continue;
    std::optional<scheduling::PodMatcher> matcher = scheduling::matcher_for_term(term, pod.meta.namespace_);
    if (matcher && matcher->matches(pod, namespaces)) return matcher;
  }
  return std::nullopt;
}

bool runs_anywhere(const scheduling::ClusterSnapshot& cluster, const scheduling::PodMatcher& matcher) {
  if (cluster.live_node_count() == 0) return false;
  const scheduling::QueryId query = cluster.query(matcher);
  const auto& nodes = cluster.nodes();
  for (scheduling::NodeId id = 0; id < nodes.size(); ++id) {
    if (!nodes[id].removed && cluster.count(query, id) > 0) return true;
  }
  return false;
}

}  // namespace

Colocation find_colocation(const PendingPods& pending, const std::vector<ResourceList>& requests,
                           const std::vector<std::size_t>& order, const scheduling::ClusterSnapshot& cluster) {
  Colocation out;
  out.group_of.assign(pending.size(), Colocation::kNone);
  const scheduling::NamespaceLabels& namespaces = cluster.namespace_labels();
  std::unordered_map<std::string, std::uint32_t> by_term;  // matcher key -> candidate group
  std::vector<char> peers_run;                              // per candidate group
  for (std::size_t i : order) {
    const Pod& pod = pending[i];
    if (pod.spec.affinity.required_pod_affinity.empty()) continue;  // most pods: nothing to build
    std::optional<scheduling::PodMatcher> matcher = self_hostname_affinity(pod, namespaces);
    if (!matcher) continue;
    auto [it, inserted] = by_term.try_emplace(matcher->key(), static_cast<std::uint32_t>(out.groups.size()));
    if (inserted) {
      out.groups.emplace_back();
      peers_run.push_back(runs_anywhere(cluster, *matcher) ? 1 : 0);
    }
    ColocationGroup& group = out.groups[it->second];
    group.members.push_back(i);
    group.requests += requests[i];
  }
  // Keep the groups that decide their own node and have someone to wait for; renumber them densely.
  std::vector<ColocationGroup> kept;
  for (std::size_t g = 0; g < out.groups.size(); ++g) {
    if (peers_run[g] || out.groups[g].members.size() < 2) continue;
    for (std::size_t pod : out.groups[g].members) out.group_of[pod] = static_cast<std::uint32_t>(kept.size());
    kept.push_back(std::move(out.groups[g]));
  }
  out.groups = std::move(kept);
  return out;
}

Colocation colocation_of(const std::vector<std::vector<std::size_t>>& nodes, const std::vector<ResourceList>& requests) {
  Colocation out;
  out.group_of.assign(requests.size(), Colocation::kNone);
  for (const std::vector<std::size_t>& node : nodes) {
    if (node.size() < 2) continue;
    ColocationGroup group;
    group.members = node;
    for (std::size_t pod : node) {
      group.requests += requests[pod];
      out.group_of[pod] = static_cast<std::uint32_t>(out.groups.size());
    }
    out.groups.push_back(std::move(group));
  }
  return out;
}

std::vector<std::size_t> colocated_order(const std::vector<std::size_t>& order, const Colocation& colocation) {
  std::vector<std::size_t> out;
  out.reserve(order.size());
  for (std::size_t pod : order) {
    const std::uint32_t g = colocation.group_of[pod];
    if (g == Colocation::kNone) {
      out.push_back(pod);
    } else if (colocation.groups[g].members[0] == pod) {
      const std::vector<std::size_t>& members = colocation.groups[g].members;
      out.insert(out.end(), members.begin(), members.end());
    }
  }
  return out;
}

bool node_has_room(const scheduling::NodeInfo& node, const ResourceList& requests) {
  return fits(node.requested, requests, ResourceList(), node.allocatable);
}

std::string colocation_reason(const ColocationGroup& group, const std::string& leader_reason) {
  return std::to_string(group.members.size()) + " pods that must share one node (required pod affinity on \"" +
         std::string(well_known::hostname) + "\") need " + describe_requests(group.requests) + " together: " +
         leader_reason;
}

}  // namespace scalewright::provisioning
