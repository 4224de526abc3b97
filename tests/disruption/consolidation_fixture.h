#pragma once
// Consolidation's search, on the provisioning tests' catalog (tests/provisioning/fixtures.h):
//
//   type          arch   cpu  memory  on-demand  spot
//   c.large       amd64   2    4Gi      0.10     0.04
//   c.xlarge      amd64   4    8Gi      0.20     0.08
//   g.xlarge      arm64   4    8Gi      0.16     0.06
//   c.2xlarge     amd64   8   16Gi      0.40     0.16
//   r.2xlarge     amd64   8   64Gi      0.50     0.20
//   m.4xlarge     amd64  16   64Gi      0.80     0.32
// What the tests of consolidation's searches share: a cluster of candidates, and the layouts more than one search
// is tried on.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../provisioning/fixtures.h"
#include "disruption/consolidation.h"

namespace scalewright::disruption::consolidation_fixtures {

using namespace provisioning::fixtures;

// A cluster of NodePool nodes, each a candidate, built as the disruption controller would hand them over.
struct Cluster {
  cloud::Catalog catalog = make_catalog(1);
  scheduling::ClusterSnapshot snapshot;
  provisioning::UnavailableOfferings unavailable;
  ConsolidationInput input;

  explicit Cluster(std::vector<std::string> capacity_types = {"on-demand"}) {
    NodePool pool = make_nodepool("default");
    require(pool, karpenter_labels::capacity_type, SelectorOperator::In, capacity_types);
    require(pool, well_known::arch, SelectorOperator::In, {"amd64"});
    input.nodepools.push_back(pool);
  }

  // A node of `type` (from the catalog) running `pods` pods of `cpu` millicores and 1Gi each.
  void node(const std::string& name, const std::string& type_name, cloud::CapacityType capacity_type, int pods,
            std::int64_t cpu_milli) {
    const cloud::InstanceType* type = catalog.find(type_name);
    ASSERT_NE(type, nullptr) << type_name;
    Node node = make_node(name, type->capacity.cpu_milli() / kCpu, type->capacity.memory() / kGi);
    node.meta.labels.set(Symbol(karpenter_labels::nodepool), Symbol("default"));
    node.meta.labels.set(Symbol(karpenter_labels::capacity_type), Symbol(cloud::to_string(capacity_type)));
    for (const auto& [k, v] : type->labels) node.meta.labels.set(k, v);
    Candidate c;
    c.id = snapshot.add_node(node);
    c.node = name;
    c.nodepool = "default";
    c.instance_type = type_name;
    c.capacity_type = capacity_type;
    c.capacity = type->capacity;
    for (const cloud::Offering& o : type->offerings) {
      if (o.capacity_type == capacity_type) c.price_per_hour = o.price_per_hour;
    }
    for (int i = 0; i < pods; ++i) {
      auto pod = std::make_shared<Pod>(make_pod(name + "-pod-" + std::to_string(i), cpu_milli, 1 * kGi));
      pod->spec.node_name = name;
      snapshot.add_pod(std::shared_ptr<const Pod>(pod), c.id);
      c.add_pod(pod);
      c.disruption_cost += eviction_cost(*pod);
    }
    input.candidates.push_back(std::move(c));
  }

  ConsolidationInput& ready() {
    input.cluster = &snapshot;
    input.catalog = &catalog;
    input.unavailable = &unavailable;
    return input;
  }
};

// x (c.xlarge, 1000m used) and y (c.large, empty), not candidates; candidates a (c.xlarge, two 1500m pods) and b
// (c.large, one 2000m pod). Moved off in turn on the first node with room, a's pods go to x and b's to y; placed
// all at once, largest first, one 1500m pod finds no room.
inline void holes_for_a_sweep(Cluster& cluster) {
  cluster.node("x", "c.xlarge", cloud::CapacityType::OnDemand, 1, 1000);
  cluster.node("y", "c.large", cloud::CapacityType::OnDemand, 0, 0);
  cluster.node("a", "c.xlarge", cloud::CapacityType::OnDemand, 2, 1500);
  cluster.node("b", "c.large", cloud::CapacityType::OnDemand, 1, 2000);
  cluster.input.candidates.erase(cluster.input.candidates.begin(), cluster.input.candidates.begin() + 2);
}

// Nine c.xlarge ($0.20, 4 cpu) running three 1100m pods each: 900m free on every node, less than a pod.
inline void nine_packed_nodes(Cluster& cluster) {
  for (int i = 0; i < 9; ++i) cluster.node("n" + std::to_string(i), "c.xlarge", cloud::CapacityType::OnDemand, 3, 1100);
}

inline std::vector<std::string> names(const ConsolidationInput& input, const Command& command) {
  std::vector<std::string> out;
  for (std::size_t i : command.candidates) out.push_back(input.candidates[i].node);
  return out;
}

// Every pod of every candidate in one scheduling class, as the state groups the pods of one Deployment.
inline void one_class(Cluster& cluster) {
  for (Candidate& c : cluster.input.candidates) std::fill(c.classes.begin(), c.classes.end(), Symbol("default/web"));
}

}  // namespace scalewright::disruption::consolidation_fixtures
