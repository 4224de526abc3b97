// What `scalewright snapshot` keeps of the objects a cluster lists, and that what it writes reads back as the API
// server sent it. The cluster end to end: snapshot_e2e_test.cpp.
#include "cli/snapshot_writer.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "manifest/manifest.h"

namespace scalewright::cli {
namespace {

using nlohmann::json;

TEST(SnapshotYaml, StringsThatWouldReadAsSomethingElseAreQuotedAndEveryValueReadsBack) {
  const json value = {{"cpu", "8"},
                      {"flag", "true"},
                      {"no", "no"},
                      {"empty", ""},
                      {"duration", "1h"},
                      {"negative", "-1"},
                      {"point", ".5"},
                      {"colon", "a: b"},
                      {"hash", "x #y"},
                      {"lines", "a\nb\n"},
                      {"null", "null"},
                      {"plain", "web-1"},
                      {"int", 3},
                      {"float", 0.25},
                      {"bool", false},
                      {"nothing", nullptr},
                      {"list", json::array()},
                      {"map", json::object()},
                      {"8", "key that looks like a number"}};
  const std::string text = to_yaml(value);
  EXPECT_NE(text.find("cpu: \"8\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("plain: web-1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("int: 3\n"), std::string::npos) << text;
  EXPECT_NE(text.find("nothing: null\n"), std::string::npos) << text;
  for (const char* quoted : {"flag: \"true\"", "\"no\": \"no\"", "empty: \"\"", "duration: \"1h\"",
                             "\"null\": \"null\"", "negative: \"-1\"", "point: \".5\"", "\"8\": key"}) {
    EXPECT_NE(text.find(quoted), std::string::npos) << quoted << " in\n" << text;
  }
  const YAML::Node read = YAML::Load(text);
  for (const auto& [key, expected] : value.items()) {
    const YAML::Node node = read[key];
    ASSERT_TRUE(node.IsDefined()) << key;
    switch (expected.type()) {
      case json::value_t::string: {
        EXPECT_EQ(node.Scalar(), expected.get<std::string>()) << key;
        if (node.Tag() != "?") break;  // quoted: a string whatever it holds
        bool as_bool = false;
        double as_number = 0;
        EXPECT_FALSE(YAML::convert<bool>::decode(node, as_bool)) << key << " reads back as a bool";
        EXPECT_FALSE(YAML::convert<double>::decode(node, as_number)) << key << " reads back as a number";
        EXPECT_FALSE(node.IsNull()) << key;
        break;
      }
      case json::value_t::number_integer:
        EXPECT_EQ(node.as<int>(), expected.get<int>());
        break;
      case json::value_t::number_float:
        EXPECT_EQ(node.as<double>(), expected.get<double>());
        break;
      case json::value_t::boolean:
        EXPECT_EQ(node.as<bool>(), expected.get<bool>());
        break;
      case json::value_t::null:
        EXPECT_TRUE(node.IsNull());
        break;
      case json::value_t::array:
        EXPECT_TRUE(node.IsSequence() && node.size() == 0);
        break;
      default:
        EXPECT_TRUE(node.IsMap() && node.size() == 0);
        break;
    }
  }
}

// A pod as the API server lists it (no apiVersion and kind), with what the server sets.
json listed_pod(const std::string& name, const std::string& extra_metadata = "", const std::string& extra_spec = "",
                const std::string& phase = "Running") {
  return json::parse(R"({"metadata": {"name": ")" + name + R"(", "namespace": "default", "uid": "u-1",
      "resourceVersion": "42", "creationTimestamp": "2024-01-01T00:00:00Z", "labels": {"app": "web"},
      "managedFields": [{"manager": "kubectl"}],
      "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"})" +
                     extra_metadata + R"(},
    "spec": {"nodeName": "n1", "priority": 0,
      "containers": [{"name": "c", "image": "pause", "resources": {"requests": {"cpu": "250m"}}}])" +
                     extra_spec + R"(},
    "status": {"phase": ")" +
                     phase + R"(", "podIP": "10.0.0.5"}})");
}

json listed_node() {
  return json::parse(R"({"metadata": {"name": "n1", "uid": "u-2", "resourceVersion": "7",
      "labels": {"node.kubernetes.io/instance-type": "m5.large", "topology.kubernetes.io/region": "us-east-1"}},
    "spec": {"providerID": "aws:///us-east-1a/i-1",
             "taints": [{"key": "dedicated", "value": "db", "effect": "NoSchedule"}]},
    "status": {"capacity": {"cpu": "2", "memory": "8Gi", "pods": "110"},
               "allocatable": {"cpu": "1930m", "memory": "7Gi", "pods": "110"},
      "conditions": [{"type": "MemoryPressure", "status": "False"},
                     {"type": "Ready", "status": "True", "reason": "KubeletReady",
                      "lastHeartbeatTime": "2024-01-01T00:00:00Z"}],
      "nodeInfo": {"kubeletVersion": "v1.26.1"}, "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}]}})");
}

json deployment(const std::string& name, const std::string& template_labels = R"({"app": "web"})",
                const std::string& extra_spec = "") {
  return json::parse(R"({"metadata": {"name": ")" + name + R"(", "namespace": "default", "generation": 3},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
      "template": {"metadata": {"labels": )" +
                     template_labels + R"(}, "spec": {)" + extra_spec +
                     R"("containers": [{"name": "c", "image": "pause"}]}}},
    "status": {"replicas": 2}})");
}

json hpa(const std::string& name, const std::string& target, const std::string& extra_metadata = "") {
  return json::parse(R"({"metadata": {"name": ")" + name + R"(", "namespace": "default")" + extra_metadata + R"(},
    "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": ")" +
                     target + R"("},
      "minReplicas": 1, "maxReplicas": 5,
      "metrics": [{"type": "Resource",
                   "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}})");
}

std::vector<YAML::Node> documents(const std::string& text) { return YAML::LoadAll(text); }

TEST(SnapshotWriter, KeepsWhatTheUserWroteAndANodesCapacityAllocatableAndReadyConditionOnly) {
  SnapshotWriter writer(nullptr);
  writer.add("v1", "Node", listed_node());
  json tools = listed_pod("tools", R"(, "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": "n1",
                                      "uid": "u-3", "controller": true, "blockOwnerDeletion": true}])");
  // The ServiceAccount admission's token volume and its mount, beside the user's own.
  tools["spec"]["volumes"] = json::parse(R"([{"name": "kube-api-access-x7k2p", "projected": {"sources": []}},
                                             {"name": "data", "emptyDir": {}}])");
  tools["spec"]["containers"][0]["volumeMounts"] =
      json::parse(R"([{"name": "kube-api-access-x7k2p", "mountPath": "/var/run"},
                                                                   {"name": "data", "mountPath": "/data"}])");
  writer.add("v1", "Pod", tools);
  EXPECT_EQ(writer.warnings(), std::vector<std::string>{});
  const std::vector<YAML::Node> docs = documents(writer.finish({}, {}));
  ASSERT_EQ(docs.size(), 3u);
  const YAML::Node node = docs[0];
  EXPECT_EQ(node["apiVersion"].as<std::string>(), "v1");
  EXPECT_EQ(node["kind"].as<std::string>(), "Node");
  EXPECT_FALSE(node["metadata"]["uid"].IsDefined());
  EXPECT_FALSE(node["metadata"]["resourceVersion"].IsDefined());
  EXPECT_EQ(node["metadata"]["labels"]["node.kubernetes.io/instance-type"].as<std::string>(), "m5.large");
  EXPECT_EQ(node["spec"]["providerID"].as<std::string>(), "aws:///us-east-1a/i-1");
  EXPECT_EQ(node["spec"]["taints"][0]["effect"].as<std::string>(), "NoSchedule");
  EXPECT_EQ(node["status"]["capacity"]["cpu"].as<std::string>(), "2");
  EXPECT_EQ(node["status"]["allocatable"]["cpu"].as<std::string>(), "1930m");
  ASSERT_EQ(node["status"]["conditions"].size(), 1u);
  const YAML::Node ready = node["status"]["conditions"][0];
  EXPECT_EQ(ready.size(), 3u);  // no lastHeartbeatTime
  EXPECT_EQ(ready["type"].as<std::string>(), "Ready");
  EXPECT_EQ(ready["status"].as<std::string>(), "True");
  EXPECT_EQ(ready["reason"].as<std::string>(), "KubeletReady");
  EXPECT_FALSE(node["status"]["nodeInfo"].IsDefined());
  EXPECT_FALSE(node["status"]["addresses"].IsDefined());

  const YAML::Node pod = docs[1];
  EXPECT_EQ(pod["kind"].as<std::string>(), "Pod");
  for (const char* gone : {"uid", "resourceVersion", "creationTimestamp", "managedFields", "annotations"}) {
    EXPECT_FALSE(pod["metadata"][gone].IsDefined()) << gone;
  }
  const YAML::Node owner = pod["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner.size(), 4u);  // no uid, no blockOwnerDeletion
  EXPECT_EQ(owner["kind"].as<std::string>(), "Node");
  EXPECT_EQ(owner["name"].as<std::string>(), "n1");
  EXPECT_TRUE(owner["controller"].as<bool>());
  EXPECT_EQ(pod["spec"]["nodeName"].as<std::string>(), "n1");
  ASSERT_EQ(pod["spec"]["volumes"].size(), 1u);
  EXPECT_EQ(pod["spec"]["volumes"][0]["name"].as<std::string>(), "data");
  ASSERT_EQ(pod["spec"]["containers"][0]["volumeMounts"].size(), 1u);
  EXPECT_EQ(pod["spec"]["containers"][0]["volumeMounts"][0]["name"].as<std::string>(), "data");
  EXPECT_FALSE(pod["status"].IsDefined());
  EXPECT_EQ(docs[2]["kind"].as<std::string>(), "Scenario");
}

TEST(SnapshotWriter, LeavesOutAndCountsWhatTheSimulatorMakesItself) {
  SnapshotWriter writer(nullptr);
  writer.add("v1", "Pod",
             listed_pod("ds-x", R"(, "ownerReferences": [{"kind": "DaemonSet", "name": "ds", "controller": true}])"));
  writer.add("v1", "Pod", listed_pod("done", "", "", "Succeeded"));
  writer.add("v1", "Pod", listed_pod("failed", "", "", "Failed"));
  writer.add("v1", "Pod", listed_pod("going", R"(, "deletionTimestamp": "2024-01-01T00:00:00Z")"));
  json replicaset = deployment("web-5d8f");
  replicaset["metadata"]["ownerReferences"] =
      json::parse(R"([{"kind": "Deployment", "name": "web", "controller": true}])");
  writer.add("apps/v1", "ReplicaSet", replicaset);
  json job = json::parse(R"({"metadata": {"name": "once", "namespace": "default"},
    "spec": {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "pause"}]}}},
    "status": {"conditions": [{"type": "Complete", "status": "True"}]}})");
  writer.add("batch/v1", "Job", job);
  writer.add("autoscaling/v2", "HorizontalPodAutoscaler",
             hpa("keda-hpa-web", "web",
                 R"(, "ownerReferences": [{"kind": "ScaledObject", "name": "web", "controller": true}])"));
  writer.add("scheduling.k8s.io/v1", "PriorityClass",
             json::parse(R"({"metadata": {"name": "system-node-critical"}, "value": 2000001000})"));
  EXPECT_TRUE(writer.written().empty());
  EXPECT_EQ(writer.warnings(), std::vector<std::string>{});
  const std::map<std::string, std::size_t, std::less<>> expected = {
      {"DaemonSet pods (the simulator places one on every node it takes)", 1},
      {"pods that finished (Succeeded or Failed)", 2},
      {"pods being deleted", 1},
      {"ReplicaSets of Deployments (the simulator counts their pods as the Deployment's)", 1},
      {"Jobs that finished", 1},
      {"HorizontalPodAutoscalers KEDA made (the simulator makes its own for each ScaledObject)", 1},
      {"built-in PriorityClasses (the simulator has them)", 1}};
  EXPECT_EQ(writer.omitted(), expected);
}

TEST(SnapshotWriter, LeavesOutWithAWarningWhatDoesNotDecodeOrNamesWhatIsNotThere) {
  SnapshotWriter writer(nullptr);
  writer.add("apps/v1", "Deployment", deployment("bad", R"({"app": "other"})"));
  writer.add("apps/v1", "Deployment", deployment("gold", R"({"app": "web"})", R"("priorityClassName": "gold", )"));
  writer.add("scheduling.k8s.io/v1", "PriorityClass", json::parse(R"({"metadata": {"name": "gold"}, "value": 1000})"));
  writer.add("apps/v1", "Deployment", deployment("web", R"({"app": "web"})", R"("priorityClassName": "gold", )"));
  writer.add("autoscaling/v2", "HorizontalPodAutoscaler", hpa("bad", "bad"));
  writer.add("autoscaling/v2", "HorizontalPodAutoscaler", hpa("web", "web"));
  json ca = deployment("cluster-autoscaler");
  ca["spec"]["template"]["spec"]["containers"][0]["image"] = "registry.k8s.io/autoscaling/cluster-autoscaler:v1.26.2";
  writer.add("apps/v1", "Deployment", ca);
  const std::vector<std::string> expected = {
      "Deployment default/bad left out: spec.template.metadata.labels: selector does not match template labels",
      "Deployment default/gold left out: spec.template.spec.priorityClassName: no PriorityClass named \"gold\"",
      "HorizontalPodAutoscaler default/bad left out: spec.scaleTargetRef.name: no Deployment default/bad in the input",
      "Deployment default/cluster-autoscaler left out: it runs Cluster Autoscaler, whose Auto Scaling groups the "
      "Kubernetes API does not show (add this Deployment and the Scenario's spec.cloud.autoScalingGroups to simulate "
      "it)"};
  EXPECT_EQ(writer.warnings(), expected);
  const std::map<std::string, std::size_t, std::less<>> written = {
      {"Deployment", 1}, {"HorizontalPodAutoscaler", 1}, {"PriorityClass", 1}};
  EXPECT_EQ(writer.written(), written);
}

TEST(SnapshotWriter, WritesTheHeaderThenEveryObjectByKindThenTheScenarioAndItLoads) {
  SnapshotWriter writer(nullptr);
  writer.add("autoscaling/v2", "HorizontalPodAutoscaler", hpa("web", "web"));  // its target comes later: left out
  writer.add("apps/v1", "Deployment", deployment("web"));
  writer.add("v1", "Pod", listed_pod("tools"));
  writer.add("v1", "Node", listed_node());
  const std::string text = writer.finish({"Snapshot of a test.", "", "Second line."}, {"shop", "10m", "us-west-2"});
  EXPECT_EQ(text.rfind("# Snapshot of a test.\n#\n# Second line.\napiVersion: v1\nkind: Node\n", 0), 0u) << text;
  Result<ManifestSet> loaded = decode_manifests(text, "snapshot.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->scenarios.size(), 1u);
  EXPECT_EQ(loaded->scenarios[0].meta.name, "shop");
  EXPECT_EQ(loaded->scenarios[0].duration, Duration(600'000));
  EXPECT_EQ(loaded->scenarios[0].cloud.region, "us-west-2");
  std::vector<std::string> kinds;
  for (const YAML::Node& doc : documents(text)) kinds.push_back(doc["kind"].as<std::string>());
  EXPECT_EQ(kinds, (std::vector<std::string>{"Node", "Deployment", "Pod", "Scenario"}));
}

// The API server omits a null selector and keeps an empty one: the snapshot writes them the same, and they read
// back as selecting no pod and every pod of the namespace.
TEST(SnapshotWriter, KeepsAPdbWithoutSelectorApartFromOneWithAnEmptySelector) {
  SnapshotWriter writer(nullptr);
  writer.add("policy/v1", "PodDisruptionBudget", json::parse(R"({"metadata": {"name": "none", "namespace": "shop"},
    "spec": {"minAvailable": 1}, "status": {"disruptionsAllowed": 0}})"));
  writer.add("policy/v1", "PodDisruptionBudget", json::parse(R"({"metadata": {"name": "all", "namespace": "shop"},
    "spec": {"minAvailable": 1, "selector": {}}, "status": {"disruptionsAllowed": 2}})"));
  const std::string text = writer.finish({}, {});
  EXPECT_NE(text.find("spec:\n  minAvailable: 1\n---"), std::string::npos) << text;
  EXPECT_NE(text.find("  selector: {}\n"), std::string::npos) << text;
  Result<ManifestSet> loaded = decode_manifests(text, "snapshot.yaml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->pod_disruption_budgets.size(), 2u);
  EXPECT_EQ(loaded->pod_disruption_budgets[0].meta.name, "none");
  EXPECT_FALSE(loaded->pod_disruption_budgets[0].selector.has_value());
  EXPECT_EQ(loaded->pod_disruption_budgets[1].selector, LabelSelector{});
}

}  // namespace
}  // namespace scalewright::cli
