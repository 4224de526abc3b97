// `scalewright run --cloud-provider kwok` on a real control plane, driven as a user drives it: a NodePool and a
// Deployment applied with kubectl, kwok nodes appear and are kept Ready, the real kube-scheduler binds the pods,
// and once the Deployment is scaled to zero the nodes are drained and deleted.
#include <fcntl.h>

#include <algorithm>
#include <map>
#include <set>

#include "tests/cluster/control_plane.h"

namespace scalewright::cluster::testing {
namespace {

using nlohmann::json;

// NodePool `name`: m5.large and m5.xlarge on demand in us-east-1a, empty nodes removed 5 s after they empty.
std::string nodepool(const std::string& name) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: )" + name + R"(
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5s
)";
}

std::string deployment(const std::string& name, int replicas) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: default}\nspec:\n  replicas: " +
         std::to_string(replicas) + "\n  selector: {matchLabels: {app: " + name +
         "}}\n  template:\n    metadata: {labels: {app: " + name +
         "}}\n    spec:\n      terminationGracePeriodSeconds: 0\n      containers:\n      - name: pause\n        image: "
         "registry.k8s.io/pause:3.9\n        resources: {requests: {cpu: \"1\"}}\n";
}

bool condition_true(const json& object, const std::string& type) {
  for (const json& c : object.value("status", json::object()).value("conditions", json::array())) {
    if (c.value("type", "") == type) return c.value("status", "") == "True";
  }
  return false;
}

// The NodeClaims (or Nodes) of NodePool `pool`.
std::vector<json> of_pool(const kube::ApiClient& api, const std::string& collection, const std::string& pool) {
  return items(api, collection + "?labelSelector=karpenter.sh%2Fnodepool%3D" + pool);
}

// The pods, nodes and scheduling events as the API server holds them: what a failed expectation on capacity needs to
// be understood after the fact.
std::string cluster_dump(const kube::ApiClient& api) {
  std::string out = "\npods:\n";
  for (const json& pod : items(api, "/api/v1/namespaces/default/pods")) {
    out += "  " + pod["metadata"].value("name", "") + " on '" + pod["spec"].value("nodeName", "") + "' " +
           pod["status"].value("phase", "") + " created " + pod["metadata"].value("creationTimestamp", "") + "\n";
  }
  out += "nodes:\n";
  for (const json& node : items(api, "/api/v1/nodes")) {
    out += "  " + node["metadata"].value("name", "") + " created " + node["metadata"].value("creationTimestamp", "") +
           " Ready " + std::to_string(condition_true(node, "Ready")) + " taints " +
           node["spec"].value("taints", json::array()).dump() + "\n";
  }
  out += "events:\n";
  for (const json& event : items(api, "/apis/events.k8s.io/v1/namespaces/default/events")) {
    // kube-scheduler's events carry a deprecated timestamp and no eventTime; ours, an eventTime.
    out += "  " + event.value("eventTime", json()).dump() + " " + event.value("deprecatedFirstTimestamp", json()).dump() +
           " " + event.value("regarding", json::object()).value("name", "") + " " + event.value("reason", "") + ": " +
           event.value("note", "") + "\n";
  }
  return out;
}

class Run : public RealControlPlane {
 protected:
  // Scales `deployment` to 0 and waits for the NodeClaims and Nodes of `pool` to go.
  void scale_to_zero_and_wait(const kube::ApiClient& api, const std::string& deployment, const std::string& pool,
                              const Process& scalewright) {
    kubectl_ok("scale deployment " + deployment + " --replicas 0");
    const bool gone = eventually(
        [&] {
          return of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", pool).empty() &&
                 of_pool(api, "/api/v1/nodes", pool).empty();
        },
        std::chrono::seconds(90));
    EXPECT_TRUE(gone) << scalewright.log();
  }
};

TEST_F(Run, NodesComeForPendingPodsAndGoWhenTheDeploymentScalesToZero) {
  kube::ApiClient api = client();
  std::unique_ptr<Process> scalewright =
      start_scalewright("scale-up-down", {"--leader-elect=false", "--metrics-bind-address", "127.0.0.1:0"});
  ASSERT_TRUE(scalewright->started());
  ASSERT_TRUE(eventually([&] { return ops_port(*scalewright) != 0; }, std::chrono::seconds(30))) << scalewright->log();
  const int port = ops_port(*scalewright);
  int status = 0;
  EXPECT_EQ(http_get(port, "/healthz", &status), "ok");
  EXPECT_TRUE(eventually([&] { return http_get(port, "/readyz", &status) == "ok" && status == 200; },
                         std::chrono::seconds(30)));
  apply("nodepool.yaml", nodepool("e2e"));
  apply("inflate.yaml", deployment("inflate", 6));

  // Six 1-CPU pods: an m5.xlarge (3,920m allocatable) holds three for $0.192/h, an m5.large (1,930m) one for
  // $0.096/h, so the cheapest capacity is two m5.xlarge ($0.384/h against $0.576/h for six m5.large).
  const std::string pods_path = "/api/v1/namespaces/default/pods?labelSelector=app%3Dinflate";
  const bool running = eventually(
      [&] {
        std::vector<json> pods = items(api, pods_path);
        return pods.size() == 6 && std::all_of(pods.begin(), pods.end(), [](const json& p) {
                 return p["status"].value("phase", "") == "Running" && !p["spec"].value("nodeName", "").empty();
               });
      },
      std::chrono::seconds(120));
  ASSERT_TRUE(running) << scalewright->log();

  // Every NodeClaim with its launch's answer written (kwok's instant nodes can run pods before it is observed).
  std::vector<json> claims;
  ASSERT_TRUE(eventually(
      [&] {
        claims = items(api, "/apis/karpenter.sh/v1/nodeclaims");
        return std::all_of(claims.begin(), claims.end(), [](const json& claim) {
          return condition_true(claim, "Launched") && condition_true(claim, "Ready");
        });
      },
      std::chrono::seconds(30)))
      << scalewright->log();
  ASSERT_EQ(claims.size(), 2u) << scalewright->log();
  std::map<std::string, int> pods_per_node;
  for (const json& pod : items(api, pods_path)) ++pods_per_node[pod["spec"]["nodeName"].get<std::string>()];
  for (const json& claim : claims) {
    const std::string name = claim["metadata"]["name"];
    EXPECT_EQ(claim["metadata"]["labels"].value("node.kubernetes.io/instance-type", ""), "m5.xlarge") << name;
    EXPECT_EQ(claim["metadata"]["labels"].value("karpenter.sh/nodepool", ""), "e2e") << name;
    EXPECT_EQ(claim["metadata"].value("finalizers", json::array()), json::array({"karpenter.sh/termination"}));
    EXPECT_EQ(claim["spec"]["nodeClassRef"].value("kind", ""), "KWOKNodeClass");
    EXPECT_EQ(claim["status"].value("providerID", ""), "kwok://" + name);
    EXPECT_EQ(claim["status"].value("nodeName", ""), name);
    for (const char* type : {"Launched", "Registered", "Initialized", "Ready"}) {
      EXPECT_TRUE(condition_true(claim, type)) << name << " " << type << ": " << claim["status"].dump();
    }
    EXPECT_EQ(pods_per_node[name], 3) << name;

    kube::KubeResult<json> node = api.get("/api/v1/nodes/" + name);
    ASSERT_TRUE(node.ok()) << name;
    const json& labels = (*node)["metadata"]["labels"];
    EXPECT_EQ(labels.value("karpenter.sh/initialized", ""), "true");
    EXPECT_EQ(labels.value("karpenter.sh/registered", ""), "true");
    EXPECT_EQ(labels.value("karpenter.sh/nodepool", ""), "e2e");
    EXPECT_EQ(labels.value("node.kubernetes.io/instance-type", ""), "m5.xlarge");
    EXPECT_EQ(labels.value("topology.kubernetes.io/zone", ""), "us-east-1a");
    EXPECT_EQ((*node)["status"]["allocatable"].value("cpu", ""), "3920m");
    for (const json& taint : (*node)["spec"].value("taints", json::array())) {
      EXPECT_NE(taint.value("key", ""), "karpenter.sh/unregistered") << name;
    }
    EXPECT_TRUE(condition_true(*node, "Ready")) << name;
    // The node's Lease is kept renewed, as a kubelet's.
    EXPECT_TRUE(api.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + name).ok()) << name;
  }

  const std::string metrics = http_get(port, "/metrics");
  EXPECT_NE(metrics.find("\nkarpenter_nodeclaims_created_total 2\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nkarpenter_cluster_state_synced 1\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nkarpenter_nodes_created_total 2\n"), std::string::npos) << metrics;
  // Each pod once, when its NodeClaim was created.
  EXPECT_NE(metrics.find("\nscalewright_pod_to_nodeclaim_seconds_count 6\n"), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\nscalewright_pod_first_pending_to_nodeclaim_seconds_count 6\n"), std::string::npos);
  // Every request the controller made was answered, none refused (client-go's request counter).
  EXPECT_NE(metrics.find("rest_client_requests_total{code=\"201\",method=\"POST\"}"), std::string::npos);
  EXPECT_EQ(metrics.find("rest_client_requests_total{code=\"403\""), std::string::npos);

  scale_to_zero_and_wait(api, "inflate", "e2e", *scalewright);
  EXPECT_NE(http_get(port, "/metrics").find("\nkarpenter_nodes_terminated_total 2\n"), std::string::npos);
  EXPECT_EQ(scalewright->stop(SIGTERM), 0) << scalewright->log();
  kubectl_ok("delete deployment inflate");
  kubectl_ok("delete nodepool e2e");
}

// On a real cloud the kubelet registers a Node under its instance's hostname, not its NodeClaim's name: kwok does so
// with --kwok-node-names=hostname. The Node is the NodeClaim's by spec.providerID (Karpenter's registration): the
// NodeClaim's status.nodeName names it, its NodePool's template labels are synced onto it, kube-scheduler binds the
// pods there, and a restarted controller finds it again (kwok its instance, by the providerID). Scaled to zero, that
// Node (not one named after the NodeClaim) is the one taken down, and the logs and Events name it.
TEST_F(Run, NodeRegisteredUnderAHostnameIsItsNodeClaimsThroughItsLifecycle) {
  kube::ApiClient api = client();
  const std::vector<std::string> flags{"--leader-elect=false", "--metrics-bind-address", "0", "--kwok-node-names",
                                       "hostname"};
  std::unique_ptr<Process> first = start_scalewright("hostnames", flags);
  apply("hosts-nodepool.yaml", R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: hosts
spec:
  template:
    metadata:
      labels: {team: hosts}
    spec:
      nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
      requirements:
      - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5s
)");
  // Three 1-CPU pods: one m5.xlarge ($0.192/h) holds them, three m5.large would cost $0.288/h.
  apply("hosts.yaml", deployment("hosts", 3));
  ASSERT_TRUE(pods_running(api, "hosts", 3)) << first->log() << cluster_dump(api);
  std::vector<json> claims;
  ASSERT_TRUE(eventually(
      [&] {
        claims = of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "hosts");
        return claims.size() == 1 && condition_true(claims[0], "Registered") && condition_true(claims[0], "Ready");
      },
      std::chrono::seconds(30)))
      << first->log();
  const std::string claim = claims[0]["metadata"]["name"];
  const std::string node_name = claims[0]["status"].value("nodeName", "");
  // EC2's private DNS name in us-east-1 (the default --region): ip-10-<b>-<c>-<d>.ec2.internal.
  EXPECT_TRUE(node_name.starts_with("ip-10-") && node_name.ends_with(".ec2.internal")) << node_name;
  EXPECT_EQ(claims[0]["status"].value("providerID", ""), "kwok://" + claim);

  kube::KubeResult<json> node = api.get("/api/v1/nodes/" + node_name);
  ASSERT_TRUE(node.ok()) << node_name << cluster_dump(api);
  EXPECT_EQ((*node)["spec"].value("providerID", ""), "kwok://" + claim);
  const json& labels = (*node)["metadata"]["labels"];
  EXPECT_EQ(labels.value("team", ""), "hosts");
  EXPECT_EQ(labels.value("karpenter.sh/nodepool", ""), "hosts");
  EXPECT_EQ(labels.value("node.kubernetes.io/instance-type", ""), "m5.xlarge");
  EXPECT_EQ(labels.value("kubernetes.io/hostname", ""), node_name);
  EXPECT_EQ(labels.value("karpenter.sh/registered", ""), "true");
  EXPECT_EQ(labels.value("karpenter.sh/initialized", ""), "true");
  for (const json& taint : (*node)["spec"].value("taints", json::array())) {
    EXPECT_NE(taint.value("key", ""), "karpenter.sh/unregistered");
  }
  EXPECT_TRUE(api.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + node_name).ok());
  EXPECT_FALSE(api.get("/api/v1/nodes/" + claim).ok()) << "a Node named after the NodeClaim";
  for (const json& pod : items(api, "/api/v1/namespaces/default/pods?labelSelector=app%3Dhosts")) {
    EXPECT_EQ(pod["spec"].value("nodeName", ""), node_name);
  }
  EXPECT_EQ(first->stop(SIGTERM), 0) << first->log();

  // A restart: the NodeClaim's node is found again, nothing more launched.
  std::unique_ptr<Process> second = start_scalewright("hostnames-second", flags);
  ASSERT_TRUE(log_shows(*second, "controllers start", std::chrono::seconds(60))) << second->log();
  scale_to_zero_and_wait(api, "hosts", "hosts", *second);
  EXPECT_FALSE(api.get("/api/v1/nodes/" + node_name).ok());
  // kwok terminated the instance it found again: the Node's Lease went with it.
  EXPECT_TRUE(eventually(
      [&] { return !api.get("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + node_name).ok(); },
      std::chrono::seconds(10)));
  EXPECT_NE(second->log().find("node " + node_name + " empty, removed"), std::string::npos) << second->log();
  EXPECT_EQ(second->log().find("launch: NodeClaim"), std::string::npos) << second->log();
  // (Other tests' nodes have Events of their own on the same control plane.)
  std::set<std::string> terminating;
  for (const json& event : items(api, "/apis/events.k8s.io/v1/namespaces/default/events")) {
    if (event.value("reason", "") == "DisruptionTerminating" && event["regarding"].value("kind", "") == "Node") {
      terminating.insert(event["regarding"].value("name", ""));
    }
  }
  EXPECT_TRUE(terminating.contains(node_name)) << second->log();
  EXPECT_FALSE(terminating.contains(claim));
  EXPECT_EQ(second->stop(SIGTERM), 0);
  kubectl_ok("delete deployment hosts");
  kubectl_ok("delete nodepool hosts");
}

// Cluster Autoscaler's flags on `scalewright run`, no NodePool: --nodes=0:4:m5.large is a group of kwok m5.large
// nodes. Three 1-CPU pods need an m5.large each (1,930m allocatable): the group scales from 0 to 3 and the
// cluster-autoscaler-status ConfigMap says so. A second controller, started once the first has stopped, adopts the
// three nodes and launches none; with the Deployment at zero the nodes are empty and go after
// --scale-down-unneeded-time.
TEST_F(Run, NodeGroupScalesAsClusterAutoscalersFlagsSay) {
  kube::ApiClient api = client();
  const std::vector<std::string> flags{"--leader-elect=false", "--metrics-bind-address", "0",
                                       "--nodes=0:4:m5.large", "--scan-interval=2s", "--scale-down-unneeded-time=5s",
                                       "--scale-down-delay-after-add=0s"};
  const std::string group_nodes = "/api/v1/nodes?labelSelector=scalewright.dev%2Fnode-group%3Dm5.large";
  auto node_names = [&] {
    std::vector<std::string> names;
    for (const json& node : items(api, group_nodes)) names.push_back(node["metadata"]["name"]);
    std::sort(names.begin(), names.end());
    return names;
  };
  auto status = [&] {
    kube::KubeResult<json> map = api.get("/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-status");
    return map ? *map : json::object();
  };
  std::unique_ptr<Process> first = start_scalewright("node-group", flags);
  apply("grouped.yaml", deployment("grouped", 3));
  ASSERT_TRUE(pods_running(api, "grouped", 3)) << first->log();
  const std::vector<std::string> launched = node_names();
  ASSERT_EQ(launched.size(), 3u) << first->log() << cluster_dump(api);
  for (const json& node : items(api, group_nodes)) {
    const json& labels = node["metadata"]["labels"];
    EXPECT_EQ(labels.value("node.kubernetes.io/instance-type", ""), "m5.large");
    EXPECT_FALSE(labels.contains("karpenter.sh/nodepool"));
  }
  // Each pod was told, as Cluster Autoscaler tells it, which scale-up it triggered.
  auto triggered = [&] {
    std::set<std::string> pods;
    for (const json& event : items(api, "/apis/events.k8s.io/v1/namespaces/default/events")) {
      const std::string pod = event["regarding"].value("name", "");
      if (event.value("reason", "") == "TriggeredScaleUp" && event["regarding"].value("kind", "") == "Pod" &&
          pod.starts_with("grouped-") && event.value("note", "").starts_with("pod triggered scale-up: [{m5.large ")) {
        pods.insert(pod);
      }
    }
    return pods.size();
  };
  EXPECT_TRUE(eventually([&] { return triggered() == 3; }, std::chrono::seconds(30))) << first->log();
  ASSERT_TRUE(eventually([&] { return status().value("data", json::object()).value("status", "").find(
                                          "cloudProviderTarget: 3") != std::string::npos; },
                         std::chrono::seconds(30)))
      << status().dump() << first->log();
  const json reported = status();
  EXPECT_NE(reported["data"]["status"].get<std::string>().find("- name: m5.large"), std::string::npos);
  EXPECT_TRUE(reported["metadata"]["annotations"].contains("cluster-autoscaler.kubernetes.io/last-updated"));
  EXPECT_EQ(first->stop(SIGTERM), 0);

  std::unique_ptr<Process> second = start_scalewright("node-group-second", flags);
  ASSERT_TRUE(log_shows(*second, "controllers start", std::chrono::seconds(60))) << second->log();
  // Two scans later the group is still its three nodes: adopted, none launched, none removed while pods run.
  const std::string before = status()["metadata"]["annotations"].value("cluster-autoscaler.kubernetes.io/last-updated", "");
  ASSERT_TRUE(eventually([&] {
    return status()["metadata"]["annotations"].value("cluster-autoscaler.kubernetes.io/last-updated", "") != before;
  }, std::chrono::seconds(30))) << second->log();
  std::this_thread::sleep_for(std::chrono::seconds(4));
  EXPECT_EQ(node_names(), launched) << second->log();

  kubectl_ok("scale deployment grouped --replicas 0");
  EXPECT_TRUE(eventually([&] { return node_names().empty(); }, std::chrono::seconds(90))) << second->log();
  EXPECT_TRUE(eventually([&] { return status()["data"].value("status", "").find("cloudProviderTarget: 0") !=
                                      std::string::npos; },
                         std::chrono::seconds(30)))
      << status().dump();
  EXPECT_EQ(second->stop(SIGTERM), 0);
  kubectl_ok("delete deployment grouped");
}

TEST_F(Run, DrainWaitsForThePodDisruptionBudget) {
  kube::ApiClient api = client();
  std::unique_ptr<Process> scalewright = start_scalewright("pdb", {"--leader-elect=false", "--metrics-bind-address", "0"});
  apply("pdb-nodepool.yaml", nodepool("pdb"));
  // Three 1-CPU pods fit one m5.xlarge ($0.192/h; three m5.large would be $0.288/h).
  apply("guarded.yaml", deployment("guarded", 3));
  ASSERT_TRUE(pods_running(api, "guarded", 3)) << scalewright->log();
  std::vector<json> claims = of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "pdb");
  ASSERT_EQ(claims.size(), 1u);
  const std::string first = claims[0]["metadata"]["name"];
  // Why, as Events on the API server (what `scalewright explain` says of a simulated run): the NodeClaim's launch
  // with the pods it is for, its NodePool and what it launched (beside the Launched condition's own Event); each
  // pod's nomination to it (a pod still pending once the node registered is nominated to the node again, as
  // Karpenter nominates to an existing node).
  auto notes = [&](const std::string& kind, const std::string& reason) {
    std::vector<std::string> out;
    for (const json& event : items(api, "/apis/events.k8s.io/v1/namespaces/default/events")) {
      if (event["regarding"].value("kind", "") == kind && event.value("reason", "") == reason) {
        out.push_back(event["regarding"].value("name", "") + ": " + event.value("note", ""));
      }
    }
    return out;
  };
  EXPECT_TRUE(eventually(
      [&] {
        const std::vector<std::string> launched = notes("NodeClaim", "Launched");
        return std::count_if(launched.begin(), launched.end(), [&](const std::string& note) {
                 return note.starts_with(first + ": for 3 pods (default/guarded-") &&
                        note.find("; NodePool pdb; ") != std::string::npos &&
                        note.find("; launched m5.xlarge ") != std::string::npos;
               }) == 1;
      },
      std::chrono::seconds(30)))
      << ::testing::PrintToString(notes("NodeClaim", "Launched"));
  EXPECT_TRUE(eventually(
      [&] {
        const std::vector<std::string> nominated = notes("Pod", "Nominated");
        return std::count_if(nominated.begin(), nominated.end(), [&](const std::string& note) {
                 return note.starts_with("guarded-") && note.ends_with(": Pod should schedule on: nodeclaim/" + first);
               }) == 3;
      },
      std::chrono::seconds(30)))
      << ::testing::PrintToString(notes("Pod", "Nominated"));
  apply("guarded-pdb.yaml",
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: guarded, namespace: default}\n"
        "spec:\n  minAvailable: 3\n  selector: {matchLabels: {app: guarded}}\n");

  // The NodeClaim is deleted by hand: its node is tainted and drained through the eviction API, which the PDB
  // refuses while all three pods are needed. No pod goes, however long it waits.
  kubectl_ok("delete nodeclaim " + first + " --wait=false");
  ASSERT_TRUE(eventually(
      [&] {
        auto node = api.get("/api/v1/nodes/" + first);
        if (!node) return false;
        for (const json& t : (*node)["spec"].value("taints", json::array())) {
          if (t.value("key", "") == "karpenter.sh/disrupted") return true;
        }
        return false;
      },
      std::chrono::seconds(30)))
      << scalewright->log();
  std::this_thread::sleep_for(std::chrono::seconds(12));  // more than one round of evictions (every 10 s)
  std::vector<json> pods = items(api, "/api/v1/namespaces/default/pods?labelSelector=app%3Dguarded");
  ASSERT_EQ(pods.size(), 3u);
  for (const json& pod : pods) {
    EXPECT_EQ(pod["spec"].value("nodeName", ""), first);
    EXPECT_FALSE(pod["metadata"].contains("deletionTimestamp")) << pod["metadata"]["name"];
  }

  // One disruption allowed: the pods move one at a time to a new node, and the old node goes.
  kubectl_ok("patch pdb guarded --type merge -p '{\"spec\":{\"minAvailable\":2}}'");
  const bool moved = eventually(
      [&] {
        std::vector<json> now = items(api, "/api/v1/namespaces/default/pods?labelSelector=app%3Dguarded");
        return !api.get("/apis/karpenter.sh/v1/nodeclaims/" + first).ok() &&
               !api.get("/api/v1/nodes/" + first).ok() && now.size() == 3 &&
               std::all_of(now.begin(), now.end(), [&](const json& p) {
                 return p["status"].value("phase", "") == "Running" && p["spec"].value("nodeName", "") != first;
               });
      },
      std::chrono::seconds(150));
  EXPECT_TRUE(moved) << scalewright->log();
  kubectl_ok("delete pdb guarded");
  scale_to_zero_and_wait(api, "guarded", "pdb", *scalewright);
  EXPECT_EQ(scalewright->stop(SIGTERM), 0);
  kubectl_ok("delete deployment guarded");
  kubectl_ok("delete nodepool pdb");
}

TEST_F(Run, FollowerFinishesTheLaunchOfALeaderKilledMidLaunch) {
  kube::ApiClient api = client();
  // The nodes take 5 s to register: time enough to kill the leader between its launch and the registration.
  const std::vector<std::string> flags{"--leader-elect=true", "--leader-election-namespace", "default",
                                       "--metrics-bind-address", "0", "--kwok-launch-latency", "5s"};
  std::unique_ptr<Process> first = start_scalewright("leader-first", flags);
  ASSERT_TRUE(log_shows(*first, "leads", std::chrono::seconds(60))) << first->log();
  std::unique_ptr<Process> second = start_scalewright("leader-second", flags);
  ASSERT_TRUE(log_shows(*second, "cluster state synced", std::chrono::seconds(60))) << second->log();
  EXPECT_EQ(second->log().find("controllers start"), std::string::npos) << "two replicas act at once";

  apply("failover-nodepool.yaml", nodepool("failover"));
  apply("failover.yaml", deployment("failover", 3));
  ASSERT_TRUE(eventually(
      [&] {
        std::vector<json> claims = of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "failover");
        return claims.size() == 1 &&
               claims[0].value("status", json::object()).value("providerID", "").starts_with("kwok://");
      },
      std::chrono::seconds(60)))
      << first->log();
  EXPECT_TRUE(of_pool(api, "/api/v1/nodes", "failover").empty()) << "registered before the leader was killed";
  first->stop(SIGKILL);

  // The follower takes over once the lease runs out (15 s), boots the instance the leader launched, and the pods
  // run there: one node, no second launch for the same pods.
  ASSERT_TRUE(pods_running(api, "failover", 3)) << second->log();
  EXPECT_EQ(of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "failover").size(), 1u) << second->log();
  EXPECT_EQ(of_pool(api, "/api/v1/nodes", "failover").size(), 1u) << json(items(api, "/api/v1/nodes")).dump();
  EXPECT_NE(second->log().find("controllers start"), std::string::npos);
  scale_to_zero_and_wait(api, "failover", "failover", *second);
  EXPECT_EQ(second->stop(SIGTERM), 0);
  // Stopped, it released the Lease for the next replica.
  auto lease = api.get("/apis/coordination.k8s.io/v1/namespaces/default/leases/scalewright-leader");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)["spec"].value("holderIdentity", "x"), "");
  kubectl_ok("delete deployment failover");
  kubectl_ok("delete nodepool failover");
}

// A leader that died between a NodeClaim's creation and its launch's answer leaves a NodeClaim without a
// providerID. The next leader finds no instance for it in the cloud, and gives it up rather than launch it again
// (a launch already made would then be a second instance for the same claim).
TEST_F(Run, NodeClaimCreatedButNeverLaunchedByAnEarlierLeaderIsGivenUp) {
  kube::ApiClient api = client();
  apply("orphan-nodepool.yaml", nodepool("orphan"));
  apply("orphan-claim.yaml", R"(apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: orphan-x7k2p
  labels: {karpenter.sh/nodepool: orphan}
  finalizers: [karpenter.sh/termination]
spec:
  nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
  requirements:
  - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large, m5.xlarge]}
  - {key: karpenter.sh/nodepool, operator: In, values: [orphan]}
)");
  auto gone = [&](const std::string& path) {
    kube::KubeResult<json> got = api.get(path);
    return !got.ok() && got.error().is_not_found();
  };
  std::unique_ptr<Process> scalewright =
      start_scalewright("orphan", {"--leader-elect=false", "--metrics-bind-address", "0"});
  EXPECT_TRUE(eventually([&] { return gone("/apis/karpenter.sh/v1/nodeclaims/orphan-x7k2p"); },
                         std::chrono::seconds(60)))
      << scalewright->log();
  EXPECT_TRUE(log_shows(*scalewright, "NodeClaim orphan-x7k2p was created but not launched", std::chrono::seconds(5)));
  EXPECT_TRUE(gone("/api/v1/nodes/orphan-x7k2p")) << "launched after all";
  EXPECT_EQ(scalewright->stop(SIGTERM), 0);
  kubectl_ok("delete nodepool orphan");
}

TEST_F(Run, WatchesResumeAfterTheApiServerRestarts) {
  kube::ApiClient api = client();
  std::unique_ptr<Process> scalewright =
      start_scalewright("restart", {"--leader-elect=false", "--metrics-bind-address", "0"});
  ASSERT_TRUE(log_shows(*scalewright, "cluster state synced", std::chrono::seconds(60))) << scalewright->log();
  restart_apiserver();
  // Everything below is seen only through watches made after the restart.
  apply("restart-nodepool.yaml", nodepool("restart"));
  apply("restart.yaml", deployment("restart", 3));
  ASSERT_TRUE(pods_running(api, "restart", 3)) << scalewright->log();
  EXPECT_EQ(of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "restart").size(), 1u);
  scale_to_zero_and_wait(api, "restart", "restart", *scalewright);
  EXPECT_EQ(scalewright->stop(SIGTERM), 0);
  kubectl_ok("delete deployment restart");
  kubectl_ok("delete nodepool restart");
}

TEST_F(Run, DryRunDecidesButChangesNothing) {
  kube::ApiClient api = client();
  std::unique_ptr<Process> scalewright =
      start_scalewright("dry-run", {"--leader-elect=false", "--metrics-bind-address", "0", "--dry-run"});
  apply("dry-nodepool.yaml", nodepool("dry"));
  apply("dry.yaml", deployment("dry", 3));
  ASSERT_TRUE(log_shows(*scalewright, "dry-run: would launch m5.xlarge us-east-1a on-demand", std::chrono::seconds(60)))
      << scalewright->log();
  EXPECT_TRUE(of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "dry").empty());
  EXPECT_TRUE(of_pool(api, "/api/v1/nodes", "dry").empty());
  for (const json& pod : items(api, "/api/v1/namespaces/default/pods?labelSelector=app%3Ddry")) {
    EXPECT_EQ(pod["spec"].value("nodeName", ""), "");
  }
  EXPECT_EQ(scalewright->stop(SIGTERM), 0);
  kubectl_ok("delete deployment dry");
  kubectl_ok("delete nodepool dry");
}

// KEDA's CRD as far as the API server needs it to store ScaledObjects (users have KEDA's own installed).
constexpr const char* kScaledObjectCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: scaledobjects.keda.sh}
spec:
  group: keda.sh
  names: {kind: ScaledObject, listKind: ScaledObjectList, plural: scaledobjects, singular: scaledobject}
  scope: Namespaced
  versions:
  - name: v1alpha1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
)";

TEST_F(Run, ScaledObjectScalesItsDeploymentThroughTheScaleSubresource) {
  kube::ApiClient api = client();
  apply("keda-crd.yaml", kScaledObjectCrd);
  kubectl_ok("wait --for condition=established --timeout=60s crd/scaledobjects.keda.sh");
  apply("keda-nodepool.yaml", nodepool("keda"));
  apply("keda.yaml", deployment("keda", 0));
  std::unique_ptr<Process> scalewright = start_scalewright("keda", {"--leader-elect=false", "--metrics-bind-address", "0"});
  ASSERT_TRUE(log_shows(*scalewright, "cluster state synced", std::chrono::seconds(60))) << scalewright->log();
  // A cron trigger whose window is open all year but its last minute: 3 replicas from 0, then nodes for them.
  auto scaled_object = [](const std::string& desired) {
    return R"(apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: keda, namespace: default}
spec:
  scaleTargetRef: {name: keda}
  minReplicaCount: 0
  maxReplicaCount: 10
  pollingInterval: 5
  triggers:
  - type: cron
    metadata: {timezone: UTC, start: "0 0 1 1 *", end: "59 23 31 12 *", desiredReplicas: ")" + desired + "\"}\n";
  };
  apply("keda-scaledobject.yaml", scaled_object("3"));
  ASSERT_TRUE(pods_running(api, "keda", 3)) << scalewright->log();
  auto replicas = [&] {  // -1 when the scale cannot be read; the API server leaves a spec.replicas of 0 out
    auto scale = api.get("/apis/apps/v1/namespaces/default/deployments/keda/scale");
    return scale ? (*scale)["spec"].value("replicas", 0) : -1;
  };
  EXPECT_EQ(replicas(), 3);
  // KEDA's two steps, as upstream takes them: activation from 0 to 1, then the HPA's 3.
  EXPECT_NE(scalewright->log().find("activated from 0 to 1"), std::string::npos) << scalewright->log();
  // Both explained on the ScaledObject, as Events the API server took (keda.sh's kind, in its namespace).
  auto scaled_object_events = [&] {
    std::vector<std::string> out;
    for (const json& event : items(api, "/apis/events.k8s.io/v1/namespaces/default/events")) {
      const json& regarding = event["regarding"];
      if (regarding.value("kind", "") == "ScaledObject" && regarding.value("name", "") == "keda" &&
          regarding.value("apiVersion", "") == "keda.sh/v1alpha1") {
        out.push_back(event.value("reason", "") + ": " + event.value("note", ""));
      }
    }
    return out;
  };
  EXPECT_TRUE(eventually(
      [&] {
        const std::vector<std::string> said = scaled_object_events();
        auto has = [&](const std::string& start, const std::string& part) {
          return std::any_of(said.begin(), said.end(), [&](const std::string& note) {
            return note.starts_with(start) && note.find(part) != std::string::npos;
          });
        };
        return has("KEDAScaleTargetActivated: ", "0 -> 1: ") && has("SuccessfulRescale: New size: 3; ", "scaled 1 → 3");
      },
      std::chrono::seconds(30)))
      << ::testing::PrintToString(scaled_object_events());

  // Edited to 5 desired replicas, the running controller takes the new spec on: the HPA scales up to 5.
  apply("keda-scaledobject.yaml", scaled_object("5"));
  ASSERT_TRUE(pods_running(api, "keda", 5)) << scalewright->log();
  EXPECT_TRUE(log_shows(*scalewright, "ScaledObject default/keda changed", std::chrono::seconds(1)));

  // Deleted, it scales nothing any more: the Deployment scaled to zero by hand stays there (with the ScaledObject
  // it would be activated again within a 5 s poll), and its nodes go.
  kubectl_ok("delete scaledobject keda");
  ASSERT_TRUE(log_shows(*scalewright, "ScaledObject default/keda deleted", std::chrono::seconds(30)))
      << scalewright->log();
  scale_to_zero_and_wait(api, "keda", "keda", *scalewright);
  EXPECT_EQ(replicas(), 0);
  EXPECT_EQ(scalewright->stop(SIGTERM), 0);
  kubectl_ok("delete deployment keda");
  kubectl_ok("delete nodepool keda");
}

// A static NodePool (spec.replicas) on `scalewright run`: its two nodes come though no pod asks for them, and
// `kubectl scale nodepool` (the CRD's scale subresource) takes it down to one, then none.
TEST_F(Run, StaticNodePoolKeepsItsReplicasAndFollowsKubectlScale) {
  kube::ApiClient api = client();
  std::unique_ptr<Process> scalewright =
      start_scalewright("static", {"--leader-elect=false", "--metrics-bind-address", "0"});
  ASSERT_TRUE(log_shows(*scalewright, "cluster state synced", std::chrono::seconds(60))) << scalewright->log();
  apply("static.yaml", nodepool("static") + "  replicas: 2\n  limits: {nodes: 3}\n");
  auto ready_nodes = [&] {
    std::vector<json> nodes = of_pool(api, "/api/v1/nodes", "static");
    return static_cast<std::size_t>(
        std::count_if(nodes.begin(), nodes.end(), [](const json& n) { return condition_true(n, "Ready"); }));
  };
  auto claims = [&] { return of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "static").size(); };
  // A NodeClaim takes its instance's labels when the launch's answer is observed, which kwok's instant node can
  // beat.
  auto launched = [&] {
    std::vector<json> all = of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "static");
    return std::all_of(all.begin(), all.end(), [](const json& claim) {
      return claim["metadata"]["labels"].contains("node.kubernetes.io/instance-type");
    });
  };
  ASSERT_TRUE(eventually([&] { return ready_nodes() == 2 && claims() == 2 && launched(); }, std::chrono::seconds(90)))
      << scalewright->log();
  for (const json& claim : of_pool(api, "/apis/karpenter.sh/v1/nodeclaims", "static")) {
    // The cheapest the template allows: m5.large on demand.
    EXPECT_EQ(claim["metadata"]["labels"].value("node.kubernetes.io/instance-type", ""), "m5.large");
  }
  kubectl_ok("scale nodepool static --replicas 1");
  EXPECT_TRUE(eventually([&] { return ready_nodes() == 1 && claims() == 1; }, std::chrono::seconds(60)))
      << scalewright->log();
  kubectl_ok("scale nodepool static --replicas 0");
  EXPECT_TRUE(eventually([&] { return of_pool(api, "/api/v1/nodes", "static").empty() && claims() == 0; },
                         std::chrono::seconds(60)))
      << scalewright->log();
  EXPECT_EQ(scalewright->stop(SIGTERM), 0);
  kubectl_ok("delete nodepool static");
}

}  // namespace
}  // namespace scalewright::cluster::testing
