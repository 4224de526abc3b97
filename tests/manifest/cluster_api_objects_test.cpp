// Cluster API's MachineDeployments, MachineSets and MachinePools among a scenario's files, read with the rules
// `scalewright run --cloud-provider clusterapi` reads them from the API server (Cluster Autoscaler's annotations).
#include <gtest/gtest.h>

#include <variant>

#include "cloud/clusterapi/scalable_manifest.h"
#include "decode_helpers.h"

namespace scalewright::testing {
namespace {

using cloud::clusterapi::ClusterApiNodeGroup;
using cloud::clusterapi::ScalableKind;
using cloud::clusterapi::ScalableObject;
using cloud::clusterapi::Skipped;

const ScalableObject& only_object(const ManifestSet& set) {
  EXPECT_EQ(set.cluster_api_objects.size(), 1u);
  static const ScalableObject kNone;
  return set.cluster_api_objects.empty() ? kNone : *set.cluster_api_objects.front();
}

TEST(ClusterApiObjects, AMachineDeploymentIsReadAsCaReadsIt) {
  ManifestSet set = decode_ok(R"(apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata:
  name: md-workers
  labels: {team: web}
  annotations:
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "1"
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "5"
    capacity.cluster-autoscaler.kubernetes.io/cpu: "2"
    capacity.cluster-autoscaler.kubernetes.io/memory: 4Gi
    capacity.cluster-autoscaler.kubernetes.io/labels: "pool=workers"
    capacity.cluster-autoscaler.kubernetes.io/taints: "dedicated=web:NoSchedule"
    scalewright.dev/price-per-hour: "0.10"
spec:
  clusterName: purple
  replicas: 2
  selector: {matchLabels: {pool: workers}}
  template:
    metadata:
      labels: {node-role.kubernetes.io/worker: "", pool: workers}
    spec:
      bootstrap: {configRef: {apiGroup: bootstrap.cluster.x-k8s.io, kind: KubeadmConfigTemplate, name: workers}}
      infrastructureRef: {apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachineTemplate, name: workers}
      version: v1.33.0
)");
  const ScalableObject& object = only_object(set);
  EXPECT_EQ(object.kind, ScalableKind::MachineDeployment);
  EXPECT_EQ(object.namespace_, "default");  // as kubectl applies it
  EXPECT_EQ(object.name, "md-workers");
  EXPECT_EQ(object.discovered.cluster_name, "purple");
  EXPECT_EQ(object.discovered.labels.at("team"), "web");
  const auto* group = std::get_if<ClusterApiNodeGroup>(&object.decoded);
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->id(), "MachineDeployment/default/md-workers");
  EXPECT_EQ(group->min_size, 1);
  EXPECT_EQ(group->max_size, 5);
  EXPECT_EQ(group->replicas, 2);
  EXPECT_EQ(group->capacity.cpu_milli(), 2000);
  EXPECT_EQ(group->capacity.memory(), 4 * kGi);
  EXPECT_EQ(group->capacity.get(Symbol("pods")), 110);  // no maxPods annotation: the kubelet's default
  EXPECT_DOUBLE_EQ(group->price_per_hour, 0.10);
  // The template's managed label, and the annotation's; "pool" of the template is not managed, but the annotation
  // gives it.
  EXPECT_EQ(group->labels, (std::map<std::string, std::string>{{"node-role.kubernetes.io/worker", ""},
                                                               {"pool", "workers"}}));
  EXPECT_EQ(group->taints, (std::vector<Taint>{{"dedicated", "web", TaintEffect::NoSchedule}}));
  EXPECT_EQ(group->infrastructure.kind, "DockerMachineTemplate");
  EXPECT_EQ(set.origins.count("MachineDeployment/default/md-workers"), 1u);
}

TEST(ClusterApiObjects, V1beta1MachineSetsAndMachinePoolsToo) {
  ManifestSet set = decode_ok(R"(apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineSet
metadata:
  name: md-workers-7d9f
  namespace: capi
  ownerReferences: [{apiVersion: cluster.x-k8s.io/v1beta1, kind: MachineDeployment, name: md-workers, uid: u1}]
  annotations:
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "1"
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "5"
spec:
  replicas: 2
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: mp-0
  namespace: capi
  labels: {cluster.x-k8s.io/cluster-name: blue}
  annotations:
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "0"
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "3"
    capacity.cluster-autoscaler.kubernetes.io/cpu: 4000m
    capacity.cluster-autoscaler.kubernetes.io/memory: 8Gi
    capacity.cluster-autoscaler.kubernetes.io/maxPods: "30"
spec:
  replicas: 0
  template:
    spec:
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AWSMachinePool, name: mp-0}
)");
  ASSERT_EQ(set.cluster_api_objects.size(), 2u);
  // A MachineSet its MachineDeployment owns scales with it: not a group of its own.
  const ScalableObject& machine_set = *set.cluster_api_objects[0];
  EXPECT_EQ(machine_set.kind, ScalableKind::MachineSet);
  const auto* skipped = std::get_if<Skipped>(&machine_set.decoded);
  ASSERT_NE(skipped, nullptr);
  EXPECT_TRUE(skipped->owned);
  const ScalableObject& pool = *set.cluster_api_objects[1];
  EXPECT_EQ(pool.kind, ScalableKind::MachinePool);
  EXPECT_EQ(pool.discovered.cluster_name, "blue");  // from its label, without spec.clusterName
  const auto* group = std::get_if<ClusterApiNodeGroup>(&pool.decoded);
  ASSERT_NE(group, nullptr);
  EXPECT_EQ(group->replicas, 0);
  EXPECT_TRUE(group->can_scale_from_zero());
  EXPECT_EQ(group->capacity.cpu_milli(), 4000);
  EXPECT_EQ(group->capacity.get(Symbol("pods")), 30);
  EXPECT_EQ(group->infrastructure.api_group, "infrastructure.cluster.x-k8s.io");
}

TEST(ClusterApiObjects, PausedOnesAndOnesThatCannotScaleFromZeroAreNoGroups) {
  const std::string annotations = R"(
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "0"
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "3"
)";
  ManifestSet set = decode_ok("apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n"
                              "  name: paused\n  annotations:\n    cluster.x-k8s.io/paused: \"\"" +
                              annotations + "spec: {replicas: 1}\n---\n" +
                              "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n"
                              "  name: empty\n  annotations:" +
                              annotations + "spec: {replicas: 0}\n");
  ASSERT_EQ(set.cluster_api_objects.size(), 2u);
  const auto* paused = std::get_if<Skipped>(&set.cluster_api_objects[0]->decoded);
  ASSERT_NE(paused, nullptr);
  EXPECT_EQ(paused->reason, "paused (cluster.x-k8s.io/paused)");
  const auto* empty = std::get_if<Skipped>(&set.cluster_api_objects[1]->decoded);
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(empty->for_want_of_capacity);
}

TEST(ClusterApiObjects, ABadAnnotationFailsTheLoadNamingFileObjectAndAnnotation) {
  const std::string head = "apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata:\n"
                           "  name: md-0\n  namespace: capi\n  annotations:\n";
  EXPECT_EQ(decode_error(head + "    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: ten\n"),
            "test.yaml doc 1 MachineDeployment/md-0: annotation "
            "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size=\"ten\": not an integer");
  EXPECT_EQ(decode_error(head +
                         "    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: \"3\"\n"
                         "    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: \"2\"\n"),
            "test.yaml doc 1 MachineDeployment/md-0: annotation "
            "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size=\"2\": below "
            "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size=3");
  EXPECT_EQ(decode_error(head + "    capacity.cluster-autoscaler.kubernetes.io/memory: lots\n"),
            "test.yaml doc 1 MachineDeployment/md-0: annotation "
            "capacity.cluster-autoscaler.kubernetes.io/memory=\"lots\": not a quantity");
  EXPECT_EQ(decode_error(head + "    scalewright.dev/price-per-hour: cheap\n"),
            "test.yaml doc 1 MachineDeployment/md-0: annotation scalewright.dev/price-per-hour=\"cheap\": not a price "
            "per hour (a number such as 0.192)");
  // Inside a List, the item is named too.
  EXPECT_EQ(decode_error("apiVersion: v1\nkind: List\nitems:\n- apiVersion: cluster.x-k8s.io/v1beta1\n"
                         "  kind: MachinePool\n  metadata:\n    name: mp-0\n    annotations:\n"
                         "      capacity.cluster-autoscaler.kubernetes.io/taints: \"a=b:Sometimes\"\n"),
            "test.yaml doc 1 MachinePool/mp-0: items[0]: annotation capacity.cluster-autoscaler.kubernetes.io/"
            "taints=\"a=b:Sometimes\": taint effect \"Sometimes\" is not NoSchedule, PreferNoSchedule or NoExecute");
}

TEST(ClusterApiObjects, TheirSpecIsClusterApisButTheirEnvelopeIsChecked) {
  // Fields of Cluster API's schema that CA does not read load as they are.
  decode_ok(R"(apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata: {name: md-0}
spec:
  rollout: {strategy: {type: RollingUpdate}}
status: {replicas: 2, phase: Running}
)");
  EXPECT_EQ(decode_error("apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata: {name: md-0}\n"
                         "spek: {replicas: 2}\n"),
            "test.yaml doc 1 MachineDeployment/md-0: unknown field \"spek\"");
  EXPECT_EQ(decode_error("apiVersion: cluster.x-k8s.io/v1alpha4\nkind: MachineDeployment\nmetadata: {name: md-0}\n"),
            "test.yaml doc 1 MachineDeployment/md-0: apiVersion: unsupported version "
            "\"cluster.x-k8s.io/v1alpha4\" of MachineDeployment (expected cluster.x-k8s.io/v1beta2, "
            "cluster.x-k8s.io/v1beta1)");
  // Given twice: refused as any object is.
  const std::string twice =
      decode_error("apiVersion: cluster.x-k8s.io/v1beta2\nkind: MachineDeployment\nmetadata: {name: md-0}\n---\n"
                   "apiVersion: cluster.x-k8s.io/v1beta1\nkind: MachineDeployment\nmetadata: {name: md-0}\n");
  EXPECT_TRUE(twice.starts_with("test.yaml doc 2 MachineDeployment/md-0: metadata.name: ")) << twice;
}

}  // namespace
}  // namespace scalewright::testing
