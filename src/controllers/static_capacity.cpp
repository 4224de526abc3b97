#include "controllers/static_capacity.h"

#include <algorithm>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "api/wording.h"
#include "disruption/consolidation.h"

namespace scalewright::controllers {
namespace {

bool tainted_disrupted(const state::NodeRecord& node) {
  return std::any_of(node.node.taints.begin(), node.node.taints.end(),
                     [](const Taint& t) { return t.key == karpenter_labels::disrupted_taint; });
}

}  // namespace

StaticNodeCount count_static_nodes(const state::ClusterState& state, const TerminationController& termination,
                                   const std::string& nodepool) {
  StaticNodeCount count;
  for (const auto& [name, node] : state.nodes()) {
    if (node.nodepool != nodepool || node.phase == state::NodePhase::Terminated) continue;
    ++count.present;
    if (node.phase == state::NodePhase::Draining || termination.draining(name)) continue;
    if (tainted_disrupted(node)) {
      ++count.pending_disruption;
    } else {
      ++count.running;
    }
  }
  return count;
}

void StaticCapacityController::reconcile() {
  bool any = false;
  for (const auto& [name, pool] : state_.nodepools()) any = any || pool.is_static();
  if (!any) return;
  const std::uint64_t seen = state_.scheduling_changes() ^ (state_.capacity_changes() << 20) ^
                             (state_.node_departures() << 40) ^ (state_.nodepool_changes() << 50) ^
                             (static_cast<std::uint64_t>(state_.live_nodes()) << 30) ^ termination_.drains();
  if (seen == seen_ && !retry_due_) return;
  seen_ = seen;
  retry_due_ = false;
  for (const auto& [name, pool] : state_.nodepools()) {
    if (!pool.is_static()) continue;
    const StaticNodeCount count = count_static_nodes(state_, termination_, name);
    if (count.running > *pool.replicas) {
      scale_down(pool, count.running - *pool.replicas);
    } else if (count.running + count.pending_disruption < *pool.replicas) {
      scale_up(pool, count);
    }
  }
}

void StaticCapacityController::scale_up(const NodePool& pool, const StaticNodeCount& count) {
  const std::string& name = pool.meta.name;
  // A NodePool that is not Ready (its node class is not there) launches nothing, static or not.
  const cloud::CloudResult<const cloud::Catalog*> types = cloud_.instance_types(pool);
  if (!types) return;
  const std::int64_t wanted = *pool.replicas - count.running - count.pending_disruption;
  const std::int64_t limit = std::find(pool.limited_resources.begin(), pool.limited_resources.end(),
                                       nodes_resource()) != pool.limited_resources.end()
                                 ? pool.limits.get(nodes_resource())
                                 : std::numeric_limits<std::int64_t>::max();
  const std::int64_t granted = std::clamp<std::int64_t>(limit - count.present, 0, wanted);
  if (granted < wanted) {
    const std::string why = fmt::format("its limits.nodes of {} keeps it below its {} replicas", limit, *pool.replicas);
    if (said_[name] != why) {
      said_[name] = why;
      record("static-limit", fmt::format("static NodePool {}: {}", name, why));
      writer_.object_event({"NodePool", name, "Warning", "NodeLimitReached", "Provision",
                            fmt::format("NodePool node limit reached: {}", why)});
    }
  } else {
    said_.erase(name);
  }
  const Instant now = clock_.now();
  for (std::int64_t i = 0; i < granted; ++i) {
    std::optional<provisioning::NewNodeClaim> claim =
        provisioning::template_claim(pool, **types, &provisioning_.unavailable(), now);
    std::optional<std::string> launched;
    if (claim) {
      launched = provisioning_.launch_replacement(
          std::move(*claim), fmt::format("static NodePool {} ({} of {} replicas)", name,
                                         count.running + count.pending_disruption + i + 1, *pool.replicas));
    }
    if (!launched) {
      // Offerings that ran out of capacity come back after Karpenter's unavailable-offerings TTL.
      clock_.wake_at(now + ProvisioningController::kUnavailableOfferingTtl, [this] { retry_due_ = true; });
      return;
    }
  }
}

void StaticCapacityController::scale_down(const NodePool& pool, std::int64_t extra) {
  const std::string& name = pool.meta.name;
  struct Victim {
    const state::NodeRecord* node;
    double cost;
  };
  std::vector<Victim> victims;
  for (const auto& [node_name, node] : state_.nodes()) {
    if (node.nodepool != name || node.phase == state::NodePhase::Terminated) continue;
    if (node.phase == state::NodePhase::Draining || termination_.draining(node_name) || tainted_disrupted(node)) {
      continue;
    }
    double cost = 0;
    if (const scheduling::NodeId id = state_.snapshot().find_node(node_name); id != scheduling::kNoNode) {
      for (const scheduling::PlacedPod& placed : state_.snapshot().node(id).pods) {
        const Pod& pod = *placed.pod;
        if (!disruption::needs_another_node(pod)) continue;
        // A pod that says do-not-disrupt makes its node the last to go.
        cost += disruption::says_do_not_disrupt(pod.meta) ? 1e9 : 1 + disruption::eviction_cost(pod);
      }
    }
    victims.push_back({&node, cost});
  }
  // Not launched yet first, then empty, then the cheapest to disrupt; by name among equals.
  std::stable_sort(victims.begin(), victims.end(), [](const Victim& a, const Victim& b) {
    const bool a_launching = a.node->phase == state::NodePhase::Launching;
    const bool b_launching = b.node->phase == state::NodePhase::Launching;
    if (a_launching != b_launching) return a_launching;
    if ((a.node->busy == 0) != (b.node->busy == 0)) return a.node->busy == 0;
    return a.cost < b.cost;
  });
  if (victims.size() > static_cast<std::size_t>(extra)) victims.resize(static_cast<std::size_t>(extra));
  const Instant now = clock_.now();
  for (const Victim& v : victims) {
    const std::string node = v.node->name();
    record("static-scale-down",
           fmt::format("static NodePool {} down to {}: node {} {}", name,
                       plural(static_cast<std::size_t>(*pool.replicas), "replica"), node,
                       v.node->phase == state::NodePhase::Launching ? "deleted before it registered"
                       : v.node->busy == 0                          ? "deleted, empty"
                                                                    : "drained and deleted"));
    writer_.object_event({"Node", node, "Normal", "DisruptionTerminating", "Disrupt",
                          fmt::format("Disrupting Node: static NodePool {} scaled to {} replicas", name,
                                      *pool.replicas)});
    if (v.node->phase == state::NodePhase::Launching || v.node->busy == 0) {
      delete_node_and_instance(node);
      continue;
    }
    termination_.drain(node, name, now, karpenter_drain_rules(&pool),
                       [](const std::string&, const std::string&, bool) {});
  }
}

}  // namespace scalewright::controllers
