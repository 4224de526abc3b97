// `scalewright run --cloud-provider clusterapi` on a real control plane with Cluster API v1.14.0's CRDs, driven as a
// Cluster Autoscaler user drives it: MachineDeployments annotated with their bounds and capacity, a Deployment
// applied with kubectl. No Cluster API controller is built here, so the test plays them
// (tests/cloud/clusterapi/capi_controllers.h): a MachineSet per MachineDeployment, Machines created and deleted in
// Cluster API's order (the delete-machine annotation first), a providerID and a Ready Node for each; the real
// kube-scheduler binds the pods. The controller runs under deploy/'s RBAC rules.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "tests/cloud/clusterapi/capi_controllers.h"
#include "tests/cluster/control_plane.h"

namespace scalewright::cluster::testing {
namespace {

using cloud::clusterapi::testing::CapiControllers;
using cloud::clusterapi::testing::CapiControllersOptions;
using nlohmann::json;

constexpr const char* kCrds = SCALEWRIGHT_SOURCE_DIR "/../shared/crds/cluster-api/v1.14.0";

// MachineDeployment `name` of cluster "purple" in `ns`: a node has 2 cpu and 4 GiB (the capacity annotations, so
// that it scales from zero), at `price` an hour; `extra` annotations on top.
std::string machine_deployment(const std::string& ns, const std::string& name, int min, int max, int replicas,
                               const std::string& price, const std::string& extra = "") {
  return "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n  name: " + name +
         "\n  namespace: " + ns +
         "\n  annotations:\n    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: \"" +
         std::to_string(min) + "\"\n    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: \"" +
         std::to_string(max) +
         "\"\n    capacity.cluster-autoscaler.kubernetes.io/cpu: \"2\"\n"
         "    capacity.cluster-autoscaler.kubernetes.io/memory: 4Gi\n    scalewright.dev/price-per-hour: \"" +
         price + "\"\n" + extra + "spec:\n  clusterName: purple\n  replicas: " + std::to_string(replicas) +
         "\n  selector: {matchLabels: {pool: " + name + "}}\n  template:\n    metadata: {labels: {pool: " + name +
         "}}\n    spec:\n      clusterName: purple\n      bootstrap: {dataSecretName: \"\"}\n"
         "      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachineTemplate, name: " +
         name + "}\n";
}

// Deployment `name` in default: `replicas` pods of 1 cpu each, on nodes labelled `node_selector` when given.
std::string deployment(const std::string& name, int replicas, const std::string& node_selector = "") {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: default}\nspec:\n  replicas: " +
         std::to_string(replicas) + "\n  selector: {matchLabels: {app: " + name +
         "}}\n  template:\n    metadata: {labels: {app: " + name + "}}\n    spec:\n" +
         (node_selector.empty() ? "" : "      nodeSelector: {" + node_selector + "}\n") +
         "      terminationGracePeriodSeconds: 0\n      containers:\n      - name: pause\n        image: "
         "registry.k8s.io/pause:3.9\n        resources: {requests: {cpu: \"1\"}}\n";
}

class ClusterApiRun : public RealControlPlane {
 protected:
  static void SetUpTestSuite() {
    RealControlPlane::SetUpTestSuite();
    if (!setup_error_.empty() || dir_.empty()) return;
    std::string out;
    if (!plane_.kubectl(std::string("create -f ") + kCrds, out) ||
        !plane_.kubectl("wait --for condition=established --timeout=60s crd/machinedeployments.cluster.x-k8s.io "
                        "crd/machinesets.cluster.x-k8s.io crd/machines.cluster.x-k8s.io",
                        out)) {
      setup_error_ = "installing Cluster API's CRDs: " + out;
    }
  }

  static std::int32_t replicas_of(const kube::ApiClient& api, const std::string& ns, const std::string& md) {
    auto got = api.get("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns + "/machinedeployments/" + md);
    return got.ok() ? (*got)["spec"].value("replicas", 0) : -1;
  }

  std::unique_ptr<Process> start_clusterapi(const std::string& name, const std::string& ns,
                                            const std::vector<std::string>& more = {}) {
    std::vector<std::string> flags = {"--leader-elect=false", "--metrics-bind-address", "0", "--cloud-provider",
                                      "clusterapi", "--node-group-auto-discovery=clusterapi:namespace=" + ns,
                                      "--scan-interval=2s"};
    flags.insert(flags.end(), more.begin(), more.end());
    return start_scalewright(name, flags);
  }
};

TEST_F(ClusterApiRun, ScalesFromZeroToTheCheaperGroupWithinItsBoundsAndRemovesTheChosenNodesMachine) {
  kube::ApiClient api = client();
  const std::string ns = "capi-grow";
  kubectl_ok("create namespace " + ns);
  // md-cheap and md-dear make the same nodes at $0.10 and $0.30 an hour; md-paused would be the cheapest, but Cluster
  // API pauses it and so does the autoscaler; md-broken says max 1 below min 2, and is refused with an Event.
  apply("groups.yaml",
        machine_deployment(ns, "md-cheap", 1, 3, 0, "0.10") + "---\n" + machine_deployment(ns, "md-dear", 0, 3, 0, "0.30") +
            "---\n" + machine_deployment(ns, "md-paused", 0, 3, 0, "0.01", "    cluster.x-k8s.io/paused: \"\"\n") +
            "---\n" + machine_deployment(ns, "md-broken", 2, 1, 0, "0.01"));
  CapiControllersOptions options;
  options.namespace_ = ns;
  CapiControllers capi(api, api, "v1beta2", options);
  capi.start();
  std::unique_ptr<Process> scalewright =
      start_clusterapi("capi-grow", ns,
                       {"--expander=price", "--scale-down-unneeded-time=5s", "--scale-down-delay-after-add=0s",
                        "--scale-down-utilization-threshold=0.6"});
  ASSERT_TRUE(log_shows(*scalewright, "controllers start", std::chrono::seconds(60))) << scalewright->log();
  EXPECT_NE(scalewright->log().find("MachineDeployment " + ns + "/md-broken: annotation "
                                    "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size=\\\"1\\\": below "),
            std::string::npos)
      << scalewright->log();
  EXPECT_TRUE(eventually(
      [&] {
        for (const json& event : items(api, "/apis/events.k8s.io/v1/namespaces/" + ns + "/events")) {
          if (event.value("reason", "") == "NodeGroupRefused" && event["regarding"].value("name", "") == "md-broken") {
            return true;
          }
        }
        return false;
      },
      std::chrono::seconds(30)));

  // Three 1-cpu pods need two 2-cpu nodes: md-cheap is raised from zero to 2 through its Scale.
  apply("capi-web.yaml", deployment("capi-web", 3));
  ASSERT_TRUE(pods_running(api, "capi-web", 3)) << scalewright->log();
  EXPECT_EQ(replicas_of(api, ns, "md-cheap"), 2);
  EXPECT_EQ(replicas_of(api, ns, "md-dear"), 0);
  EXPECT_EQ(replicas_of(api, ns, "md-paused"), 0);
  EXPECT_EQ(capi.machines("md-cheap").size(), 2u);

  // Two pods fit one node: one of the two goes (empty, or its pod moved), by its own Machine.
  kubectl_ok("scale deployment capi-web --replicas 2");
  ASSERT_TRUE(eventually([&] { return replicas_of(api, ns, "md-cheap") == 1 && capi.machines("md-cheap").size() == 1; },
                         std::chrono::seconds(120)))
      << scalewright->log();
  ASSERT_TRUE(pods_running(api, "capi-web", 2)) << scalewright->log();
  const std::string kept = capi.machines("md-cheap").front();
  for (const json& pod : items(api, "/api/v1/namespaces/default/pods?labelSelector=app%3Dcapi-web")) {
    EXPECT_EQ(pod["spec"].value("nodeName", ""), capi.node_of(kept));
  }

  // Eight need four: md-cheap stops at its max of 3, md-dear takes the fourth.
  kubectl_ok("scale deployment capi-web --replicas 8");
  ASSERT_TRUE(pods_running(api, "capi-web", 8)) << scalewright->log();
  EXPECT_EQ(replicas_of(api, ns, "md-cheap"), 3);
  EXPECT_EQ(replicas_of(api, ns, "md-dear"), 1);

  // None: the empty nodes go, md-dear to its min of 0, md-cheap to its min of 1.
  kubectl_ok("scale deployment capi-web --replicas 0");
  ASSERT_TRUE(eventually(
      [&] {
        return replicas_of(api, ns, "md-dear") == 0 && replicas_of(api, ns, "md-cheap") == 1 &&
               capi.machines("md-cheap").size() == 1 && capi.machines("md-dear").empty();
      },
      std::chrono::seconds(120)))
      << scalewright->log();
  // Every Machine deleted (one, then three) is one whose node the controller chose: its log names the Machine and its
  // node when it marks it, before the replicas drop.
  const std::string log = scalewright->log();
  const std::vector<std::string> deleted = capi.deleted_machines();
  EXPECT_EQ(deleted.size(), 4u);
  for (const std::string& machine : deleted) {
    EXPECT_NE(log.find("Machine " + ns + "/" + machine + " (node " + machine + ") marked for deletion"),
              std::string::npos)
        << machine << " was deleted but not chosen\n"
        << log;
  }
  // At its min, md-cheap keeps its empty node: some scans and more than the unneeded time later, it is still there.
  ASSERT_TRUE(capi.wait_for_passes(20, std::chrono::seconds(30)));
  std::this_thread::sleep_for(std::chrono::seconds(10));
  EXPECT_EQ(replicas_of(api, ns, "md-cheap"), 1);
  EXPECT_EQ(scalewright->stop(SIGTERM), 0) << scalewright->log();
  capi.stop();
  kubectl_ok("delete deployment capi-web");
  // Nobody renews the kept node's Lease any more: it goes, or another test's pods could land on it.
  kubectl_ok("delete node " + capi.node_of(capi.machines("md-cheap").front()));
}

TEST_F(ClusterApiRun, MachinesLiveInTheManagementClusterAndNodesInTheWorkloadCluster) {
  // A second API server holds Cluster API's objects (--cloud-config); the suite's control plane runs the pods.
  ControlPlane management;
  // Brought down however the test ends: its processes would outlive the test binary.
  struct Down {
    ControlPlane& plane;
    ~Down() {
      if (plane.down()) plane.remove();
    }
  } down{management};
  ASSERT_EQ(management.up("scalewright-capi-management"), "");
  std::string out;
  ASSERT_TRUE(management.kubectl(std::string("create -f ") + kCrds, out)) << out;
  ASSERT_TRUE(management.kubectl("wait --for condition=established --timeout=60s "
                                 "crd/machinedeployments.cluster.x-k8s.io crd/machines.cluster.x-k8s.io",
                                 out))
      << out;
  const std::string ns = "capi-two";
  ASSERT_TRUE(management.kubectl("create namespace " + ns, out)) << out;
  const std::string file = management.dir() + "/md-remote.yaml";
  std::ofstream(file) << machine_deployment(ns, "md-remote", 0, 2, 0, "0.10",
                                            "    capacity.cluster-autoscaler.kubernetes.io/labels: pool=md-remote\n");
  ASSERT_TRUE(management.kubectl("apply -f " + file, out)) << out;
  Result<kube::ApiClient> remote = management.client();
  ASSERT_TRUE(remote.ok()) << remote.error().message;
  kube::ApiClient api = client();
  CapiControllersOptions options;
  options.namespace_ = ns;
  CapiControllers capi(*remote, api, "v1beta2", options);
  capi.start();
  std::unique_ptr<Process> scalewright = start_clusterapi(
      "capi-two", ns,
      {"--cloud-config", management.kubeconfig(), "--scale-down-unneeded-time=5s", "--scale-down-delay-after-add=0s"});
  ASSERT_TRUE(log_shows(*scalewright, "controllers start", std::chrono::seconds(60))) << scalewright->log();
  EXPECT_NE(scalewright->log().find("served as cluster.x-k8s.io/v1beta2 on the management cluster"), std::string::npos);
  // The workload cluster has no such MachineDeployment: it was found, and is scaled, in the management cluster.
  EXPECT_FALSE(api.get("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns + "/machinedeployments/md-remote").ok());

  // Its pods go only to md-remote's nodes (the group's labels annotation, which the new node carries).
  apply("capi-two-web.yaml", deployment("capi-two-web", 1, "pool: md-remote"));
  ASSERT_TRUE(pods_running(api, "capi-two-web", 1)) << scalewright->log();
  auto replicas = [&] {
    auto got = remote->get("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns + "/machinedeployments/md-remote");
    return got.ok() ? (*got)["spec"].value("replicas", 0) : -1;
  };
  EXPECT_EQ(replicas(), 1);
  const std::vector<std::string> machines = capi.machines("md-remote");
  ASSERT_EQ(machines.size(), 1u);
  EXPECT_TRUE(api.get("/api/v1/nodes/" + capi.node_of(machines.front())).ok());

  kubectl_ok("delete deployment capi-two-web");
  EXPECT_TRUE(eventually([&] { return replicas() == 0 && capi.machines("md-remote").empty(); },
                         std::chrono::seconds(90)))
      << scalewright->log();
  EXPECT_FALSE(api.get("/api/v1/nodes/" + machines.front()).ok());
  EXPECT_EQ(scalewright->stop(SIGTERM), 0) << scalewright->log();
  capi.stop();
}

// MachineDeployment `name` in `ns` as a NodePool's node class selects it (label karpenter: "yes"), with no size
// annotation: each node has 2 cpu and 4 GiB, is node.kubernetes.io/instance-type `type`, and costs `price` an hour.
std::string pool_deployment(const std::string& ns, const std::string& name, const std::string& type,
                            const std::string& price) {
  return "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n  name: " + name +
         "\n  namespace: " + ns +
         "\n  labels: {karpenter: \"yes\"}\n  annotations:\n"
         "    capacity.cluster-autoscaler.kubernetes.io/cpu: \"2\"\n"
         "    capacity.cluster-autoscaler.kubernetes.io/memory: 4Gi\n"
         "    capacity.cluster-autoscaler.kubernetes.io/labels: node.kubernetes.io/instance-type=" + type +
         "\n    scalewright.dev/price-per-hour: \"" + price +
         "\"\nspec:\n  clusterName: purple\n  replicas: 0\n  selector: {matchLabels: {pool: " + name +
         "}}\n  template:\n    metadata: {labels: {pool: " + name +
         "}}\n    spec:\n      clusterName: purple\n      bootstrap: {dataSecretName: \"\"}\n"
         "      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachineTemplate, name: " +
         name + "}\n";
}

TEST_F(ClusterApiRun, ANodePoolLaunchesOnTheCheaperMachineDeploymentOfItsNodeClassAndRemovesItsEmptyNodes) {
  kube::ApiClient api = client();
  const std::string ns = "capi-pools";
  kubectl_ok("create namespace " + ns);
  // Two MachineDeployments of 2-cpu nodes, at $0.10 and $0.30 an hour, and a NodePool whose node class selects both,
  // as a karpenter-provider-cluster-api user writes them.
  apply("pool-deployments.yaml", pool_deployment(ns, "np-cheap", "capi-standard", "0.10") + "---\n" +
                                     pool_deployment(ns, "np-dear", "capi-premium", "0.30"));
  apply("capi-pool.yaml", R"(apiVersion: karpenter.cluster.x-k8s.io/v1alpha1
kind: ClusterAPINodeClass
metadata:
  name: capi-class
spec:
  scalableResourceSelector:
    matchLabels: {karpenter: "yes"}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: capi-pool
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.cluster.x-k8s.io, kind: ClusterAPINodeClass, name: capi-class}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5s
)");
  CapiControllersOptions options;
  options.namespace_ = ns;
  CapiControllers capi(api, api, "v1beta2", options);
  capi.start();
  std::unique_ptr<Process> scalewright = start_clusterapi("capi-pools", ns);
  ASSERT_TRUE(log_shows(*scalewright, "controllers start", std::chrono::seconds(60))) << scalewright->log();
  EXPECT_TRUE(eventually(
      [&] {
        auto got = api.get("/apis/karpenter.cluster.x-k8s.io/v1alpha1/clusterapinodeclasses/capi-class");
        return got.ok() && got->contains("status") && (*got)["status"]["conditions"][0].value("status", "") == "True";
      },
      std::chrono::seconds(30)))
      << scalewright->log();

  // Three 1-cpu pods need two 2-cpu nodes, both of the cheaper MachineDeployment: its replicas go from 0 to 2, and
  // each NodeClaim's instance is one of its Machines.
  apply("capi-pool-web.yaml", deployment("capi-pool-web", 3, "karpenter.sh/nodepool: capi-pool"));
  ASSERT_TRUE(pods_running(api, "capi-pool-web", 3)) << scalewright->log();
  EXPECT_EQ(replicas_of(api, ns, "np-cheap"), 2);
  EXPECT_EQ(replicas_of(api, ns, "np-dear"), 0);
  const std::vector<std::string> machines = capi.machines("np-cheap");
  ASSERT_EQ(machines.size(), 2u);
  std::set<std::string> provider_ids;
  for (const json& claim : items(api, "/apis/karpenter.sh/v1/nodeclaims")) {
    if (claim["metadata"]["labels"].value("karpenter.sh/nodepool", "") != "capi-pool") continue;
    provider_ids.insert(claim["status"].value("providerID", ""));
  }
  EXPECT_EQ(provider_ids, (std::set<std::string>{"kwok://" + machines[0], "kwok://" + machines[1]}));
  for (const std::string& machine : machines) {
    auto node = api.get("/api/v1/nodes/" + capi.node_of(machine));
    ASSERT_TRUE(node.ok()) << machine;
    EXPECT_EQ((*node)["metadata"]["labels"].value("node.kubernetes.io/instance-type", ""), "capi-standard");
  }

  // Without pods the nodes are empty: consolidation removes them, each by its own Machine.
  kubectl_ok("scale deployment capi-pool-web --replicas 0");
  ASSERT_TRUE(eventually([&] { return replicas_of(api, ns, "np-cheap") == 0 && capi.machines("np-cheap").empty(); },
                         std::chrono::seconds(120)))
      << scalewright->log();
  std::vector<std::string> deleted = capi.deleted_machines();
  std::sort(deleted.begin(), deleted.end());
  EXPECT_EQ(deleted, machines);
  EXPECT_EQ(scalewright->stop(SIGTERM), 0) << scalewright->log();
  capi.stop();
  kubectl_ok("delete deployment capi-pool-web");
}

}  // namespace
}  // namespace scalewright::cluster::testing
