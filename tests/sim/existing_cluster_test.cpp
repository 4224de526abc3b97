// A scenario that starts from a running cluster, as `kubectl get -o yaml` or `scalewright snapshot` writes it:
// workloads' pods already bound where they run, and nodes a NodePool launched. Catalog: tests/provisioning/fixtures.h
// (c.xlarge 4 cpu $0.20/h on-demand, $0.08/h spot; c.2xlarge 8 cpu $0.40/h, $0.16/h).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "run_scenario.h"

namespace scalewright::sim {
namespace {

using testing::deployment;
using testing::messages;
using testing::nodepool;
using testing::run;

const std::string kScenario = R"(
apiVersion: scalewright.dev/v1alpha1
kind: Scenario
metadata: {name: existing}
spec:
  duration: 10m
  cloud:
    launchLatency: {min: 60s, max: 60s}
)";

// An 8-cpu node, with `labels` added to its own.
std::string node(const std::string& name, const std::string& labels = "") {
  return "apiVersion: v1\nkind: Node\nmetadata:\n  name: " + name +
         "\n  labels: {node.kubernetes.io/instance-type: c.2xlarge, topology.kubernetes.io/zone: zone-a, "
         "kubernetes.io/arch: amd64" +
         labels + "}\nstatus:\n  capacity: {cpu: \"8\", memory: 16Gi, pods: \"110\"}\n---\n";
}

// A one-cpu pod bound to `node`, controlled by `owner_kind`/`owner`.
std::string running_pod(const std::string& name, const std::string& labels, const std::string& owner_kind,
                        const std::string& owner, const std::string& on) {
  return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n  namespace: default\n  labels: {" + labels +
         "}\n  ownerReferences: [{apiVersion: apps/v1, kind: " + owner_kind + ", name: " + owner +
         ", controller: true}]\nspec:\n  nodeName: " + on +
         "\n  containers: [{name: main, image: pause, resources: {requests: {cpu: \"1\", memory: 1Gi}}}]\n---\n";
}

std::map<std::string, std::string> where_pods_ran(const SimulationReport& r) {
  std::map<std::string, std::string> out;
  for (const PodOutcome& p : r.pods) out[p.pod] = p.node;
  return out;
}

TEST(ExistingCluster, PodsAWorkloadControlsCountTowardItsReplicasAndStayWhereTheyRun) {
  // Deployment web wants 3 and has 2 running on n1 through its ReplicaSet web-7d9f (pod-template-hash 7d9f);
  // StatefulSet db wants 2 and has db-0 on n1. Only web's third pod and db-1 are created, and they fit on n1
  // (3 + 2 of its 8 cpu): 5 pods in all, nothing launched, the 3 running pods still on n1. Without adoption the
  // Deployment would have made 3 pods of its own beside the 2: 7 in all (db-0's name is its StatefulSet's already).
  const std::string statefulset = R"(apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: main, image: pause, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
)";
  SimulationReport r =
      run(node("n1") + deployment("web", 3, "1") + statefulset +
          running_pod("web-7d9f-aaaaa", "app: web, pod-template-hash: 7d9f", "ReplicaSet", "web-7d9f", "n1") +
          running_pod("web-7d9f-bbbbb", "app: web, pod-template-hash: 7d9f", "ReplicaSet", "web-7d9f", "n1") +
          running_pod("db-0", "app: db", "StatefulSet", "db", "n1") + kScenario);
  const std::map<std::string, std::string> pods = where_pods_ran(r);
  EXPECT_EQ(pods.size(), 5u);
  EXPECT_EQ(pods.at("default/web-7d9f-aaaaa"), "n1");
  EXPECT_EQ(pods.at("default/web-7d9f-bbbbb"), "n1");
  EXPECT_EQ(pods.at("default/db-0"), "n1");
  EXPECT_EQ(pods.at("default/db-1"), "n1");
  EXPECT_EQ(r.summary.launches, 0);
  EXPECT_EQ(r.summary.pod_wait.pods_bound, 2u);  // the two created; the running ones waited for nothing
  EXPECT_EQ(r.summary.pod_wait.pods_pending_at_end, 0u);
}

TEST(ExistingCluster, APodOfAWorkloadNotInTheScenarioIsAPodOfItsOwn) {
  // Its ReplicaSet's Deployment (other) is not in the files: the pod stays on n1 and no workload counts it.
  SimulationReport r =
      run(node("n1") + deployment("web", 1, "1") +
          running_pod("other-5c5c-aaaaa", "app: web, pod-template-hash: 5c5c", "ReplicaSet", "other-5c5c", "n1") +
          kScenario);
  const std::map<std::string, std::string> pods = where_pods_ran(r);
  EXPECT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods.at("default/other-5c5c-aaaaa"), "n1");
}

TEST(ExistingCluster, ANodeLabelledWithANodePoolOfTheScenarioIsItsAndGoesWhenEmpty) {
  // pool-1 carries karpenter.sh/nodepool: default, spot: the NodePool's node, empty, removed after its
  // consolidateAfter of 30 s and billed 30 s at $0.16/h. static-1 names a NodePool the scenario does not have:
  // static, kept for the 10 minutes at $0.40/h on-demand.
  SimulationReport r =
      run(nodepool() + node("pool-1", ", karpenter.sh/nodepool: default, karpenter.sh/capacity-type: spot") +
          node("static-1", ", karpenter.sh/nodepool: gone") + kScenario);
  ASSERT_EQ(messages(r, "removed").size(), 1u);
  EXPECT_EQ(messages(r, "removed")[0], "t=30s node pool-1 empty, removed after 30s");
  ASSERT_EQ(r.summary.cost_lines.size(), 2u);
  EXPECT_EQ(r.summary.cost_lines[0].nodepool, "");
  EXPECT_EQ(r.summary.cost_lines[0].capacity_type, "on-demand");
  EXPECT_EQ(r.summary.cost_lines[1].nodepool, "default");
  EXPECT_EQ(r.summary.cost_lines[1].capacity_type, "spot");
  EXPECT_NEAR(r.summary.cost_lines[1].cost, 0.16 * 30 / 3600, 1e-9);
  EXPECT_NEAR(r.summary.total_cost, 0.40 * 10 / 60 + 0.16 * 30 / 3600, 1e-9);
  EXPECT_EQ(r.summary.nodes_at_end, 1);
}

}  // namespace
}  // namespace scalewright::sim
