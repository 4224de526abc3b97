// Files as users have them: multi-document YAML, JSON, List objects, kinds we skip, several files at once, and
// pod priority resolved across them.
#include "manifest/manifest.h"

#include <gtest/gtest.h>

#include <fstream>

#include "decode_helpers.h"
#include "manifest/kind_registry.h"
#include "manifest/priority.h"

namespace scalewright::testing {
namespace {

TEST(DecodeManifests, MultiDocumentYamlSkipsEmptyDocumentsAndWarnsOfUnknownKinds) {
  ManifestSet set = decode_ok(R"(# a leading comment
apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: shop}
spec: {selector: {app: web}}
---
# only a comment
---
apiVersion: example.com/v1
kind: Node
metadata: {name: not-a-kubernetes-node}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
)");
  EXPECT_EQ(set.namespaces.size(), 1u);
  ASSERT_EQ(set.nodes.size(), 1u);
  EXPECT_EQ(set.nodes[0].meta.name, "n1");
  EXPECT_EQ(set.warnings, (std::vector<std::string>{"test.yaml doc 3: skipped unknown kind Service (v1)",
                                                    "test.yaml doc 5: skipped unknown kind Node (example.com/v1)"}));
}

TEST(DecodeManifests, UnknownKindWarningNamesFileDocumentKindAndApiVersion) {
  Result<ManifestSet> set = decode_manifests(
      "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: "
      "b}\n---\napiVersion: v1\nkind: Service\nmetadata: {name: web}\n",
      "web.yaml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->warnings, (std::vector<std::string>{"web.yaml doc 3: skipped unknown kind Service (v1)"}));
}

TEST(DecodeManifests, EmptyInputIsAnEmptySet) {
  ManifestSet set = decode_ok("");
  EXPECT_TRUE(set.pods.empty());
  EXPECT_TRUE(set.warnings.empty());
  EXPECT_TRUE(decode_ok("# nothing but a comment\n---\n").nodes.empty());
}

TEST(DecodeManifests, ListItemsAreDecodedInOrder) {
  ManifestSet set = decode_ok(R"(
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: a, namespace: x}
  spec: {containers: [{name: c}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: b}
  spec: {containers: [{name: c}]}
- apiVersion: v1
  kind: Service
  metadata: {name: svc}
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cm, namespace: kube-system}
  data: {priorities: "10:\n- .*\n", count: 3}
)");
  ASSERT_EQ(set.pods.size(), 2u);
  EXPECT_EQ(set.pods[0].meta.key(), "x/a");
  EXPECT_EQ(set.pods[1].meta.key(), "default/b");
  EXPECT_EQ(set.warnings, (std::vector<std::string>{"test.yaml doc 1: skipped unknown kind Service (v1)"}));
  // ConfigMaps are read (Cluster Autoscaler's priority expander keeps its settings in one); data values are text.
  ASSERT_EQ(set.config_maps.size(), 1u);
  EXPECT_EQ(set.config_maps[0].meta.key(), "kube-system/cm");
  EXPECT_EQ(set.config_maps[0].data, (std::map<std::string, std::string>{{"count", "3"}, {"priorities", "10:\n- .*\n"}}));
}

TEST(DecodeManifests, NamespaceDefaultsForNamespacedKindsOnly) {
  ManifestSet set = decode_ok(pod_with("") + R"(---
apiVersion: v1
kind: Pod
metadata: {name: q, namespace: ""}
spec: {containers: [{name: c}]}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: pc, namespace: shop}
value: 1
)");
  ASSERT_EQ(set.pods.size(), 2u);
  EXPECT_EQ(set.pods[0].meta.namespace_, "default");
  EXPECT_EQ(set.pods[1].meta.namespace_, "default");
  ASSERT_EQ(set.priority_classes.size(), 1u);
  EXPECT_EQ(set.priority_classes[0].meta.namespace_, "");
}

TEST(DecodeManifests, UpstreamFieldsScalewrightDoesNotReadAreAccepted) {
  ManifestSet set = decode_ok(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, creationTimestamp: null, managedFields: [{manager: kubectl}]}
spec:
  dnsPolicy: ClusterFirst
  containers: [{name: c, livenessProbe: {httpGet: {path: /, port: 80}}}]
status: {hostIP: 10.0.0.1}
)");
  ASSERT_EQ(set.pods.size(), 1u);
}

TEST(DecodeManifests, InlineJson) {
  ManifestSet set = decode_ok(
      R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
          "spec": {"containers": [{"name": "c", "resources": {"limits": {"cpu": "2", "memory": "1Gi"}}}]}})");
  ASSERT_EQ(set.pods.size(), 1u);
  EXPECT_EQ(set.pods[0].spec.containers[0].requests.cpu_milli(), 2000);
  EXPECT_EQ(set.pods[0].spec.containers[0].requests.memory(), kGi);
}

TEST(LoadManifestFile, JsonListFile) {
  Result<ManifestSet> set = load_manifest_file(kTestData + "/cluster.json");
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(set->nodes.size(), 1u);
  EXPECT_EQ(set->nodes[0].allocatable.memory(), 4 * kGi);  // defaulted from capacity
  ASSERT_EQ(set->workloads.size(), 1u);
  EXPECT_EQ(set->workloads[0].replicas, 2);
  EXPECT_EQ(set->workloads[0].pod_template.spec.containers[0].requests.cpu_milli(), 250);
  EXPECT_FALSE(set->workloads[0].pod_template.spec.priority.has_value());  // only load_manifest_files resolves
  EXPECT_EQ(set->warnings,
            (std::vector<std::string>{kTestData + "/cluster.json doc 1: skipped unknown kind Service (v1)"}));
}

TEST(LoadManifestFile, MissingFileIsAnErrorNamingThePath) {
  Result<ManifestSet> set = load_manifest_file("/no/such/dir/cluster.yaml");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().message, "/no/such/dir/cluster.yaml: cannot read: No such file or directory");
}

TEST(LoadManifestFile, DirectoryIsAnErrorNamingThePath) {
  Result<ManifestSet> set = load_manifest_file(kTestData);
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().message, kTestData + ": cannot read: is a directory");
}

TEST(LoadManifestFiles, PriorityFromClassesBuiltInsAndTheGlobalDefault) {
  Result<ManifestSet> set =
      load_manifest_files({kTestData + "/priority-classes.yaml", kTestData + "/prioritized-pods.yaml",
                           kTestData + "/cluster.json"});
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(set->pods.size(), 4u);
  EXPECT_EQ(set->pods[0].spec.priority, 5000);        // batch-high, from the other file
  EXPECT_EQ(set->pods[1].spec.priority, 2000001000);  // system-node-critical, built in
  EXPECT_EQ(set->pods[2].spec.priority, 100);         // no name: the global default "everyday"
  EXPECT_EQ(set->pods[2].spec.priority_class_name, "everyday");
  EXPECT_EQ(set->pods[3].spec.priority, 7);  // a priority already in the spec wins
  ASSERT_EQ(set->workloads.size(), 2u);
  EXPECT_EQ(set->workloads[0].meta.name, "nightly");
  EXPECT_EQ(set->workloads[0].pod_template.spec.priority, 5000);
  EXPECT_EQ(set->workloads[1].meta.name, "web");
  EXPECT_EQ(set->workloads[1].pod_template.spec.priority, 2000000000);  // system-cluster-critical
  EXPECT_EQ(set->priority_classes.size(), 2u);
  EXPECT_EQ(set->warnings.size(), 1u);  // the Service in cluster.json
}

TEST(ResolvePodPriorities, WithoutAClassOrGlobalDefaultPriorityStaysUnset) {
  ManifestSet set = decode_ok(pod_with(""));
  ASSERT_FALSE(manifest::resolve_pod_priorities(set).has_value());
  EXPECT_FALSE(set.pods[0].spec.priority.has_value());
  EXPECT_EQ(set.pods[0].priority(), 0);
}

TEST(LoadManifestFiles, UnknownPriorityClassIsAnErrorNamingTheObject) {
  Result<ManifestSet> set =
      load_manifest_files({kTestData + "/priority-classes.yaml", kTestData + "/unknown-priority-class.yaml"});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().message, kTestData +
                                     "/unknown-priority-class.yaml doc 2 Deployment/api: "
                                     "spec.template.spec.priorityClassName: no PriorityClass named \"platinum\"");
}

TEST(LoadManifestFiles, FirstBadFileStopsWithItsMessage) {
  Result<ManifestSet> set = load_manifest_files({kTestData + "/cluster.json", "/no/such/file.yaml"});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().message, "/no/such/file.yaml: cannot read: No such file or directory");
}

TEST(ResolvePodPriorities, UnknownClassOfABarePodWithoutOrigins) {
  ManifestSet set = decode_ok(pod_with("  priorityClassName: gold\n"));
  std::optional<Error> error = manifest::resolve_pod_priorities(set);
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->message, "Pod/p: spec.priorityClassName: no PriorityClass named \"gold\"");
}

TEST(ResolvePodPriorities, HighestGlobalDefaultWinsAsInAdmission) {
  ManifestSet set = decode_ok(pod_with(""));
  PriorityClass low, high;
  low.meta.name = "low";
  low.value = 10;
  low.global_default = true;
  high.meta.name = "high";
  high.value = 20;
  high.global_default = true;
  set.priority_classes = {low, high};
  ASSERT_FALSE(manifest::resolve_pod_priorities(set).has_value());
  EXPECT_EQ(set.pods[0].spec.priority, 20);
}

// One rule for every kind, in one file or across files: the same kind, namespace and name twice is refused, naming
// where each one is (it used to be: the first Node kept by check with a warning, the last Deployment or NodePool by
// simulate, a second Scenario refused).
TEST(DecodeManifests, TheSameObjectTwiceIsRefusedNamingBothPlaces) {
  auto deployment = [](const std::string& metadata) {
    return "apiVersion: apps/v1\nkind: Deployment\nmetadata: " + metadata + "\nspec:\n"
           "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
           "    spec: {containers: [{name: c, image: nginx}]}\n";
  };
  const std::string web = deployment("{name: web}");
  const std::string node = "{apiVersion: v1, kind: Node, metadata: {name: n}}";
  const std::string nodepool = "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: default}\n"
                               "spec: {template: {spec: {requirements: []}}}\n";
  const std::string provisioner = "apiVersion: karpenter.sh/v1alpha5\nkind: Provisioner\nmetadata: {name: default}\n"
                                  "spec: {}\n";
  const std::string pdb = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b, namespace: shop}\n"
                          "spec: {minAvailable: 1}\n";
  const std::string twice = " is given twice, first at test.yaml doc 1 ";
  const std::pair<std::string, std::string> cases[] = {
      {web + "---\n" + web,
       "test.yaml doc 2 Deployment/web: metadata.name: Deployment default/web" + twice + "Deployment/web (an object "
       "may be given once)"},
      // In a List: the item's path is the place within the document.
      {"apiVersion: v1\nkind: List\nitems:\n- " + node + "\n- " + node + "\n",
       "test.yaml doc 1 Node/n: items[1].metadata.name: Node n" + twice + "Node/n: items[0] (an object may be given "
       "once)"},
      // A v1alpha5 Provisioner is the NodePool of its name.
      {nodepool + "---\n" + provisioner,
       "test.yaml doc 2 Provisioner/default: metadata.name: NodePool default" + twice + "NodePool/default (an object "
       "may be given once)"},
      {pdb + "---\n" + pdb,
       "test.yaml doc 2 PodDisruptionBudget/b: metadata.name: PodDisruptionBudget shop/b" + twice +
           "PodDisruptionBudget/b (an object may be given once)"},
  };
  for (const auto& [yaml, error] : cases) EXPECT_EQ(decode_error(yaml), error);
  // The same name in another namespace, or of another kind, is another object.
  ManifestSet other = decode_ok(web + "---\n" + deployment("{name: web, namespace: shop}") + "---\n" +
                                "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\n");
  EXPECT_EQ(other.workloads.size(), 2u);
}

TEST(LoadManifestFiles, TheSameObjectInTwoFilesIsRefusedNamingBoth) {
  const std::string dir = ::testing::TempDir();
  const std::string node = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n";
  std::ofstream(dir + "/a.yaml") << node;
  std::ofstream(dir + "/b.yaml") << "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n---\n" << node;
  Result<ManifestSet> set = load_manifest_files({dir + "/a.yaml", dir + "/b.yaml"});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.error().message, dir + "/b.yaml doc 2 Node/n: metadata.name: Node n is given twice, first at " + dir +
                                     "/a.yaml doc 1 Node/n (an object may be given once)");
}

TEST(ManifestSetAppend, MovesEverythingInOrder) {
  ManifestSet a = decode_ok(pod_with(""));
  ManifestSet b = decode_ok("apiVersion: v1\nkind: Service\nmetadata: {name: s}\n---\n" + pod_with(""));
  a.append(std::move(b));
  EXPECT_EQ(a.pods.size(), 2u);
  EXPECT_EQ(a.warnings.size(), 1u);
  EXPECT_TRUE(b.pods.empty());  // NOLINT(bugprone-use-after-move): append leaves the source empty
}

// A kind of one's own is one function and one registry entry.
TEST(KindRegistry, AddingAKind) {
  manifest::KindRegistry kinds = manifest::KindRegistry::builtin();
  kinds.add({"example.com", "Spike", {"v1alpha1"}, [](const manifest::Field& object, const manifest::DecodeContext&, ManifestSet& out) {
               out.warnings.push_back("scenario " + object.child("metadata").required_string("name") + " lasts " +
                                      std::to_string(object.child("spec").optional_int32("minutes", 10)) + "m");
             }});
  Result<ManifestSet> set = manifest::decode_manifests(
      "apiVersion: example.com/v1alpha1\nkind: Spike\nmetadata: {name: spike}\nspec: {minutes: 30}\n---\n" +
          pod_with(""),
      "s.yaml", kinds);
  ASSERT_TRUE(set.ok()) << set.error().message;
  EXPECT_EQ(set->warnings, (std::vector<std::string>{"s.yaml doc 1 Spike/spike: scenario spike lasts 30m"}));
  EXPECT_EQ(set->pods.size(), 1u);

  Result<ManifestSet> bad = manifest::decode_manifests(
      "apiVersion: example.com/v1alpha1\nkind: Spike\nmetadata: {name: spike}\nspec: {minutes: soon}\n",
      "s.yaml", kinds);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "s.yaml doc 1 Spike/spike: spec.minutes: expected an integer, got \"soon\"");
  // The built-in registry is untouched.
  EXPECT_EQ(manifest::KindRegistry::builtin().find("example.com", "Spike"), nullptr);
}

}  // namespace
}  // namespace scalewright::testing
