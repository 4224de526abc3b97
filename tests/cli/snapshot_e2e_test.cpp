// `scalewright snapshot` against a real kube-apiserver v1.26.1 (RealApiServer: one for the suite, no scheduler or
// controllers, so every object is exactly what the test made), then `scalewright simulate` on what it wrote: both
// run as a user runs them, the binary with its flags. Skips only where ../shared/k8s is absent.
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <tuple>

#include "tests/kube/real_apiserver.h"

namespace scalewright::kube::testing {
namespace {

class SnapshotOnRealApiServer : public RealApiServer {
 protected:
  // Runs the scalewright binary with `args`; its exit status, and what it printed in `out` and `err`.
  static int scalewright(const std::string& args, std::string& out, std::string& err) {
    const std::string out_file = dir_ + "/scalewright.out", err_file = dir_ + "/scalewright.err";
    const int status =
        std::system((std::string(SCALEWRIGHT_BINARY) + " " + args + " > " + out_file + " 2> " + err_file).c_str());
    out = read(out_file);
    err = read(err_file);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
  }
  static std::string read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  static void create(const ApiClient& api, const std::string& path, const json& object) {
    auto created = create_when_namespace_exists(api, path, object);
    ASSERT_TRUE(created.ok()) << created.error().describe();
  }
  static std::string uid_of(const ApiClient& api, const std::string& path) {
    auto object = api.get(path);
    return object ? object->at("metadata").value("uid", "") : "";
  }
};

json node(const std::string& name, const json& labels) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", labels}}},
          {"spec", {{"providerID", "aws:///us-east-1a/" + name}}}};
}

// The kubelet's part, as the kwok provider plays it: capacity, allocatable and Ready through the status subresource.
json node_status(const std::string& cpu, const std::string& memory) {
  return {{"status",
           {{"capacity", {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}}},
            {"allocatable", {{"cpu", cpu}, {"memory", memory}, {"pods", "110"}}},
            {"conditions", json::array({{{"type", "Ready"},
                                         {"status", "True"},
                                         {"reason", "KubeletReady"},
                                         {"message", "ready"},
                                         {"lastHeartbeatTime", "2024-01-01T00:00:00Z"}}})}}}};
}

json container(const std::string& cpu) {
  return {{"name", "main"}, {"image", "registry.k8s.io/pause:3.9"}, {"resources", {{"requests", {{"cpu", cpu}}}}}};
}

json pod(const std::string& namespace_, const std::string& name, const json& labels, const std::string& node_name,
         const std::string& cpu, json owner = nullptr) {
  json pod = {{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata", {{"name", name}, {"namespace", namespace_}, {"labels", labels}}},
              {"spec", {{"nodeName", node_name}, {"containers", json::array({container(cpu)})}}}};
  if (!owner.is_null()) pod["metadata"]["ownerReferences"] = json::array({owner});
  return pod;
}

json owner(const std::string& api_version, const std::string& kind, const std::string& name, const std::string& uid) {
  return {{"apiVersion", api_version}, {"kind", kind}, {"name", name}, {"uid", uid}, {"controller", true}};
}

json hpa(const std::string& name, const std::string& target) {
  return {
      {"apiVersion", "autoscaling/v2"},
      {"kind", "HorizontalPodAutoscaler"},
      {"metadata", {{"name", name}, {"namespace", "shop"}}},
      {"spec",
       {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", target}}},
        {"minReplicas", 2},
        {"maxReplicas", 5},
        {"metrics",
         json::array({{{"type", "Resource"},
                       {"resource",
                        {{"name", "cpu"}, {"target", {{"type", "Utilization"}, {"averageUtilization", 50}}}}}}})}}}};
}

std::vector<std::string> kinds_and_names(const std::vector<YAML::Node>& documents) {
  std::vector<std::string> out;
  for (const YAML::Node& d : documents) {
    const std::string kind = d["kind"].as<std::string>();
    if (kind == "Namespace") continue;  // the API server's own four and shop: checked apart
    const YAML::Node ns = d["metadata"]["namespace"];
    out.push_back(kind + " " + (ns ? ns.as<std::string>() + "/" : "") + d["metadata"]["name"].as<std::string>());
  }
  return out;
}

const YAML::Node* find(const std::vector<YAML::Node>& documents, const std::string& kind, const std::string& name) {
  for (const YAML::Node& d : documents) {
    if (d["kind"].as<std::string>() == kind && d["metadata"]["name"].as<std::string>() == name) return &d;
  }
  return nullptr;
}

TEST_F(SnapshotOnRealApiServer, WritesTheClusterAsAScenarioThatSimulateRunsFromWhereEveryPodRuns) {
  // The cluster:
  //   Nodes static-1 (m5.xlarge, 4 cpu, launched by no NodePool) and pool-1 (m5.large of NodePool default, empty);
  //   shop/web, a Deployment of 2 pods running on static-1 through its ReplicaSet web-5d8f7c, with a PDB and an HPA,
  //   and an HPA ghost of a Deployment that does not exist; shop/tools, a bare pod on static-1; shop/done, a pod
  //   that finished; kube-system/node-exporter, a DaemonSet with its pod on static-1; PriorityClass high, which
  //   web's pods name. No controller runs, so each object is exactly what the test made.
  ApiClient api = client(config_);
  for (const char* crd : {"nodepools", "nodeclaims"}) {
    auto applied =
        api.apply(std::string("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/") + crd + ".karpenter.sh",
                  read(std::string(SCALEWRIGHT_SOURCE_DIR) + "/deploy/crds/karpenter.sh_" + crd + ".yaml"));
    ASSERT_TRUE(applied.ok()) << applied.error().describe();
  }
  for (int attempt = 0; !api.list("/apis/karpenter.sh/v1/nodepools").ok(); ++attempt) {  // until it is Established
    ASSERT_LT(attempt, 120) << "the NodePool CRD is not served";
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  create(api, "/api/v1/namespaces", {{"metadata", {{"name", "shop"}, {"labels", {{"team", "shop"}}}}}});
  // No controller-manager makes the default ServiceAccounts that admission asks of every pod.
  for (const char* ns : {"shop", "kube-system"}) {
    create(api, std::string("/api/v1/namespaces/") + ns + "/serviceaccounts", {{"metadata", {{"name", "default"}}}});
  }
  create(api, "/apis/scheduling.k8s.io/v1/priorityclasses", {{"metadata", {{"name", "high"}}}, {"value", 1000}});
  create(api, "/apis/karpenter.sh/v1/nodepools", json::parse(R"({"apiVersion": "karpenter.sh/v1", "kind": "NodePool",
    "metadata": {"name": "default"},
    "spec": {"template": {"spec": {
      "nodeClassRef": {"group": "karpenter.kwok.sh", "kind": "KWOKNodeClass", "name": "default"},
      "requirements": [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large", "m5.xlarge"]},
                       {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]}},
      "disruption": {"consolidationPolicy": "WhenEmpty", "consolidateAfter": "30s"}}})"));
  const json common = {
      {"topology.kubernetes.io/region", "us-east-1"}, {"kubernetes.io/arch", "amd64"}, {"kubernetes.io/os", "linux"}};
  json static_labels = common, pool_labels = common;
  static_labels.update({{"node.kubernetes.io/instance-type", "m5.xlarge"},
                        {"topology.kubernetes.io/zone", "us-east-1a"},
                        {"kubernetes.io/hostname", "static-1"}});
  pool_labels.update({{"node.kubernetes.io/instance-type", "m5.large"},
                      {"topology.kubernetes.io/zone", "us-east-1b"},
                      {"kubernetes.io/hostname", "pool-1"},
                      {"karpenter.sh/nodepool", "default"},
                      {"karpenter.sh/capacity-type", "on-demand"}});
  for (const auto& [name, labels, cpu, memory] :
       {std::tuple{"static-1", static_labels, "4", "16Gi"}, std::tuple{"pool-1", pool_labels, "2", "8Gi"}}) {
    create(api, "/api/v1/nodes", node(name, labels));
    auto patched = api.merge_patch(std::string("/api/v1/nodes/") + name + "/status", node_status(cpu, memory));
    ASSERT_TRUE(patched.ok()) << patched.error().describe();
    // The node lifecycle controller's part: a Ready node loses the not-ready taint the API server gave it.
    patched = api.merge_patch(std::string("/api/v1/nodes/") + name, {{"spec", {{"taints", nullptr}}}});
    ASSERT_TRUE(patched.ok()) << patched.error().describe();
  }
  const json web_labels = {{"app", "web"}, {"pod-template-hash", "5d8f7c"}};
  json web_template = {{"metadata", {{"labels", {{"app", "web"}}}}},
                       {"spec", {{"priorityClassName", "high"}, {"containers", json::array({container("500m")})}}}};
  create(api, "/apis/apps/v1/namespaces/shop/deployments",
         {{"metadata", {{"name", "web"}}},
          {"spec", {{"replicas", 2}, {"selector", {{"matchLabels", {{"app", "web"}}}}}, {"template", web_template}}}});
  json rs_template = web_template;
  rs_template["metadata"]["labels"] = web_labels;
  create(api, "/apis/apps/v1/namespaces/shop/replicasets",
         {{"metadata",
           {{"name", "web-5d8f7c"},
            {"labels", web_labels},
            {"ownerReferences", json::array({owner("apps/v1", "Deployment", "web",
                                                   uid_of(api, "/apis/apps/v1/namespaces/shop/deployments/web"))})}}},
          {"spec", {{"replicas", 2}, {"selector", {{"matchLabels", web_labels}}}, {"template", rs_template}}}});
  const json rs =
      owner("apps/v1", "ReplicaSet", "web-5d8f7c", uid_of(api, "/apis/apps/v1/namespaces/shop/replicasets/web-5d8f7c"));
  for (const char* name : {"web-5d8f7c-aaaaa", "web-5d8f7c-bbbbb"}) {
    json p = pod("shop", name, web_labels, "static-1", "500m", rs);
    p["spec"]["priorityClassName"] = "high";
    create(api, "/api/v1/namespaces/shop/pods", p);
  }
  create(api, "/api/v1/namespaces/shop/pods", pod("shop", "tools", {{"app", "tools"}}, "static-1", "250m"));
  create(api, "/api/v1/namespaces/shop/pods", pod("shop", "done", {{"app", "batch"}}, "static-1", "1"));
  ASSERT_TRUE(api.merge_patch("/api/v1/namespaces/shop/pods/done/status", {{"status", {{"phase", "Succeeded"}}}}));
  const json exporter_labels = {{"app", "node-exporter"}};
  create(api, "/apis/apps/v1/namespaces/kube-system/daemonsets",
         {{"metadata", {{"name", "node-exporter"}}},
          {"spec",
           {{"selector", {{"matchLabels", exporter_labels}}},
            {"template",
             {{"metadata", {{"labels", exporter_labels}}},
              {"spec", {{"containers", json::array({container("100m")})}}}}}}}});
  create(api, "/api/v1/namespaces/kube-system/pods",
         pod("kube-system", "node-exporter-x7k2p", exporter_labels, "static-1", "100m",
             owner("apps/v1", "DaemonSet", "node-exporter",
                   uid_of(api, "/apis/apps/v1/namespaces/kube-system/daemonsets/node-exporter"))));
  create(api, "/apis/policy/v1/namespaces/shop/poddisruptionbudgets",
         {{"metadata", {{"name", "web"}}},
          {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "web"}}}}}}}});
  create(api, "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers", hpa("web", "web"));
  create(api, "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers", hpa("ghost", "nothing"));

  // As a user runs it. KEDA is not installed: its ScaledObjects answer 404, which is none.
  const std::string file = dir_ + "/snapshot.yaml";
  std::string out, err;
  ASSERT_EQ(scalewright("snapshot --kubeconfig " + dir_ + "/kubeconfig -o " + file + " --duration 10m", out, err), 0)
      << err;
  EXPECT_NE(err.find("warning: HorizontalPodAutoscaler shop/ghost left out: spec.scaleTargetRef.name: no Deployment "
                     "shop/nothing in the input\n"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("wrote " + file + ": "), std::string::npos) << err;
  const std::string text = read(file);
  EXPECT_EQ(text.rfind("# Snapshot of the cluster at https://127.0.0.1:", 0), 0u) << text;
  for (const char* left_out :
       {"# Left out: DaemonSet pods (the simulator places one on every node it takes): 1.\n",
        "# Left out: pods that finished (Succeeded or Failed): 1.\n",
        "# Left out: ReplicaSets of Deployments (the simulator counts their pods as the Deployment's): 1.\n",
        "# Left out: built-in PriorityClasses (the simulator has them): 2.\n", "# Warnings when it was taken: 1 ("}) {
    EXPECT_NE(text.find(left_out), std::string::npos) << left_out << " in\n" << text;
  }
  const std::vector<YAML::Node> documents = YAML::LoadAll(text);
  EXPECT_EQ(kinds_and_names(documents),
            (std::vector<std::string>{"PriorityClass high", "NodePool default", "Node pool-1", "Node static-1",
                                      "Deployment shop/web", "DaemonSet kube-system/node-exporter", "Pod shop/tools",
                                      "Pod shop/web-5d8f7c-aaaaa", "Pod shop/web-5d8f7c-bbbbb",
                                      "PodDisruptionBudget shop/web", "HorizontalPodAutoscaler shop/web",
                                      "Scenario snapshot"}));
  const YAML::Node* shop = find(documents, "Namespace", "shop");
  ASSERT_NE(shop, nullptr);
  EXPECT_EQ((*shop)["metadata"]["labels"]["team"].as<std::string>(), "shop");
  EXPECT_FALSE((*shop)["spec"] || (*shop)["status"]);
  const YAML::Node* web_pod = find(documents, "Pod", "web-5d8f7c-aaaaa");
  ASSERT_NE(web_pod, nullptr);
  for (const char* gone : {"uid", "resourceVersion", "creationTimestamp", "managedFields"}) {
    EXPECT_FALSE((*web_pod)["metadata"][gone]) << gone;
  }
  EXPECT_FALSE((*web_pod)["status"]);
  EXPECT_EQ((*web_pod)["spec"]["nodeName"].as<std::string>(), "static-1");
  EXPECT_EQ((*web_pod)["spec"]["priority"].as<int>(), 1000);  // set by the API server's admission
  const YAML::Node web_owner = (*web_pod)["metadata"]["ownerReferences"][0];
  EXPECT_EQ(web_owner["kind"].as<std::string>() + " " + web_owner["name"].as<std::string>(), "ReplicaSet web-5d8f7c");
  EXPECT_TRUE(web_owner["controller"].as<bool>());
  EXPECT_FALSE(web_owner["uid"]);
  // The ServiceAccount admission's token volume is the server's: gone, with its mount.
  EXPECT_FALSE((*web_pod)["spec"]["volumes"]);
  EXPECT_FALSE((*web_pod)["spec"]["containers"][0]["volumeMounts"]);
  const YAML::Node* deployment = find(documents, "Deployment", "web");
  ASSERT_NE(deployment, nullptr);
  EXPECT_FALSE((*deployment)["status"]);
  EXPECT_FALSE((*deployment)["spec"]["template"]["metadata"]["creationTimestamp"]);
  EXPECT_EQ((*deployment)["spec"]["template"]["spec"]["priorityClassName"].as<std::string>(), "high");
  const YAML::Node* static_node = find(documents, "Node", "static-1");
  ASSERT_NE(static_node, nullptr);
  const YAML::Node status = (*static_node)["status"];
  EXPECT_EQ(status["capacity"]["cpu"].as<std::string>(), "4");
  EXPECT_EQ(status["allocatable"]["memory"].as<std::string>(), "16Gi");
  ASSERT_EQ(status["conditions"].size(), 1u);
  EXPECT_EQ(status["conditions"][0]["status"].as<std::string>(), "True");
  EXPECT_FALSE(status["conditions"][0]["lastHeartbeatTime"]);
  EXPECT_FALSE(status["daemonEndpoints"]);
  EXPECT_FALSE((*find(documents, "HorizontalPodAutoscaler", "web"))["status"]);
  const YAML::Node& scenario = documents.back();
  EXPECT_EQ(scenario["apiVersion"].as<std::string>(), "scalewright.dev/v1alpha1");
  EXPECT_EQ(scenario["spec"]["duration"].as<std::string>(), "10m");
  EXPECT_EQ(scenario["spec"]["cloud"]["region"].as<std::string>(), "us-east-1");

  // `simulate` runs it unchanged. The cluster starts as it was: web's 2 pods (adopted, not 2 more) and tools on
  // static-1 from t=0, waiting for nothing; node-exporter's DaemonSet places its own pods. pool-1 is NodePool
  // default's and empty: removed at 30 s, its consolidateAfter; static-1 stays the 10 minutes.
  const std::string report = dir_ + "/report.json";
  ASSERT_EQ(scalewright("simulate " + file + " --output " + report, out, err), 0) << err;
  const json r = json::parse(read(report));
  std::map<std::string, std::string> where;
  for (const json& p : r["pods"]) {
    where[p["pod"]] = p["node"].is_string() ? p["node"].get<std::string>() : "(none)";
    EXPECT_EQ(p["wait_seconds"], 0) << p.dump();
  }
  EXPECT_EQ(where, (std::map<std::string, std::string>{{"shop/tools", "static-1"},
                                                       {"shop/web-5d8f7c-aaaaa", "static-1"},
                                                       {"shop/web-5d8f7c-bbbbb", "static-1"}}));
  EXPECT_NE(out.find("t=30s        node pool-1 empty, removed after 30s\n"), std::string::npos) << out;
  EXPECT_NE(out.find("(static)         m5.xlarge            on-demand          1"), std::string::npos) << out;
  EXPECT_NE(out.find("default          m5.large             on-demand          1"), std::string::npos) << out;
  EXPECT_NE(out.find("nodes: peak 2   at end 1   launched 0"), std::string::npos) << out;
}

TEST_F(SnapshotOnRealApiServer, AServerThatDoesNotAnswerIsOneErrorLineAndNothingWritten) {
  std::ofstream(dir_ + "/nowhere.kubeconfig")
      << "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: \"https://127.0.0.1:1\"}}]\n"
         "users: [{name: u, user: {token: t}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
         "current-context: x\n";
  std::string out, err;
  EXPECT_EQ(scalewright("snapshot --kubeconfig " + dir_ + "/nowhere.kubeconfig -o " + dir_ + "/nowhere.yaml", out, err),
            1);
  EXPECT_EQ(err.rfind("error: the API server does not answer: GET https://127.0.0.1:1/version: ", 0), 0u) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/nowhere.yaml"));
}

}  // namespace
}  // namespace scalewright::kube::testing
