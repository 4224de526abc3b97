#pragma once
// Cluster Autoscaler's binpacking estimator (estimator/binpacking_estimator.go): how many nodes of one group the
// pending pods need. Template nodes are added one at a time to a fork of the snapshot and pods are placed
// first-fit onto the new nodes, largest first, with every scheduling constraint checked by the Scheduler. The
// snapshot is left as it was given.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "api/node.h"
#include "api/pod.h"
#include "nodegroups/node_group.h"
#include "scheduling/scheduler.h"
#include "scheduling/snapshot.h"

namespace scalewright::nodegroups {

// Pending pods that are interchangeable for scheduling: the same controller and the same scheduling spec
// (upstream's PodEquivalenceGroup). Their members get the same answer from every template check, so each group
// is checked once.
struct PodGroup {
  std::vector<std::shared_ptr<const Pod>> pods;
};

// Groups pods by controller uid (kind/name when the uid is empty) plus scheduling::scheduling_key, in order of
// first appearance. Pods without a controller are grouped by spec alone.
std::vector<PodGroup> group_pending_pods(const std::vector<std::shared_ptr<const Pod>>& pods);

// A pod group the template can never hold, whatever the node count: kube-scheduler's reasons on an empty
// template node ("node(s) had untolerated taint {dedicated: gpu}", "Insufficient cpu").
struct TemplateRejection {
  std::size_t group = 0;  // index into the groups given
  std::vector<std::string> reasons;
};

struct Estimate {
  std::int32_t node_count = 0;                  // new nodes that received at least one pod
  std::vector<std::shared_ptr<const Pod>> pods;  // pods placed on the new nodes, in placement order
  std::vector<std::int32_t> placed_per_group;    // per input group: how many of its pods were placed
  std::vector<TemplateRejection> rejected;
  // True when a pod that fits an empty template node was left out because the node limit was reached.
  bool limit_reached = false;
};

// The name a simulated new node of `group` gets: "template-node-for-<id>-<n>" (upstream's naming).
std::string template_node_name(const NodeGroup& group, std::int32_t n);
// The group's template as node number `n`: named, with its own hostname label, so that per-node topology
// (hostname spread and anti-affinity) sees each new node as a domain of its own.
Node instantiate_template(const NodeGroup& group, std::int32_t n);

// Upstream's ordering score of a pod against a template: cpu request / allocatable cpu + memory request /
// allocatable memory. Pods are packed in decreasing score.
double pod_score(const Pod& pod, const Node& template_node);

// Estimates for `group`, adding at most `node_limit` nodes (the caller's min of max - target, the
// --max-nodes-total room and --max-nodes-per-scaleup). `snapshot` is forked and reverted.
Estimate estimate_nodes(const std::vector<PodGroup>& groups, const NodeGroup& group,
                        scheduling::ClusterSnapshot& snapshot, const scheduling::Scheduler& scheduler,
                        std::int32_t node_limit);

}  // namespace scalewright::nodegroups
