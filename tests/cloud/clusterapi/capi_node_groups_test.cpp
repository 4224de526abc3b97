// The clusterapi provider's node groups (ClusterApiNodeGroups) on a real kube-apiserver v1.26.1 with Cluster API
// v1.14.0's CRDs (v1beta2): a group's instances are its Machines, as Cluster Autoscaler reports them; a chosen node
// goes by marking its Machine and then lowering the replicas, and the mark comes off again when the replicas cannot
// drop; an empty group's capacity comes from its infrastructure template. No Cluster API controller runs, so each
// Machine is exactly what the test wrote (the end-to-end tests play the controllers).
#include "cloud/clusterapi/capi_node_groups.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "capi_fixture.h"

namespace scalewright::cloud::clusterapi {
namespace {

using nlohmann::json;
using testing::bounds;
using testing::CapiOnRealApiServer;
using testing::create_scalable;
using testing::deployment;

constexpr const char* kVersion = "v1beta2";

// A Machine of MachineDeployment `md` (its labels as Cluster API's MachineSet writes them), with a providerID and a
// node when given.
void create_machine(const kube::ApiClient& api, const std::string& ns, const std::string& md, const std::string& name,
                    const std::string& provider_id = "", const std::string& node = "") {
  json spec = {{"clusterName", "purple"},
               {"bootstrap", {{"dataSecretName", ""}}},
               {"infrastructureRef",
                {{"apiGroup", "infrastructure.cluster.x-k8s.io"}, {"kind", "DockerMachine"}, {"name", name}}}};
  if (!provider_id.empty()) spec["providerID"] = provider_id;
  const std::string path = "/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns + "/machines";
  auto created = api.create(path, {{"apiVersion", "cluster.x-k8s.io/v1beta2"},
                                   {"kind", "Machine"},
                                   {"metadata",
                                    {{"name", name},
                                     {"namespace", ns},
                                     {"labels",
                                      {{"cluster.x-k8s.io/deployment-name", md},
                                       {"cluster.x-k8s.io/set-name", md + "-abcde"}}}}},
                                   {"spec", spec}});
  ASSERT_TRUE(created.ok()) << created.error().describe();
  if (node.empty()) return;
  auto status = api.merge_patch(path + "/" + name + "/status",
                                {{"status", {{"nodeRef", {{"name", node}}}, {"phase", "Running"}}}});
  ASSERT_TRUE(status.ok()) << status.error().describe();
}

bool marked(const kube::ApiClient& api, const std::string& ns, const std::string& machine) {
  auto got = api.get("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns + "/machines/" + machine);
  return got.ok() && (*got)["metadata"].value("annotations", json::object()).contains("cluster.x-k8s.io/delete-machine");
}

std::int32_t replicas_of(const kube::ApiClient& api, const std::string& ns, const std::string& md) {
  auto got = api.get("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns + "/machinedeployments/" + md);
  return got.ok() ? (*got)["spec"].value("replicas", -1) : -1;
}

std::unique_ptr<ClusterApiNodeGroups> groups_on(const kube::ApiClient& api, const std::string& ns) {
  Result<CapiApi> capi = discover_capi_api(api, {});
  if (!capi) throw std::runtime_error(capi.error().message);
  AutoDiscoverySpec only_this_test;
  only_this_test.namespace_ = ns;
  auto groups = std::make_unique<ClusterApiNodeGroups>(api, std::move(*capi),
                                                       std::vector<AutoDiscoverySpec>{only_this_test}, api);
  Result<NodeGroupListing> listed = groups->refresh();
  if (!listed) throw std::runtime_error(listed.error().message);
  return groups;
}

TEST(MachineView, ReadsEachStateAsClusterAutoscalerReportsIt) {
  const CapiKeys keys;
  auto machine = [](json status, json spec = json::object(), json metadata = json::object()) {
    metadata["name"] = "m-1";
    metadata["namespace"] = "ns";
    return json{{"metadata", metadata}, {"spec", spec}, {"status", status}};
  };
  // No providerID yet: pending, named after the Machine.
  MachineView pending = view_machine(machine(json::object()), keys);
  EXPECT_EQ(instance_id_of(pending), "pending-machine-ns_m-1");
  // A providerID: the instance goes by it; its node by status.nodeRef.
  MachineView running = view_machine(
      machine({{"nodeRef", {{"name", "node-1"}}}}, {{"providerID", "kwok://m-1"}, {"failureDomain", "az-2"}}), keys);
  EXPECT_EQ(instance_id_of(running), "kwok://m-1");
  EXPECT_EQ(running.node_name, "node-1");
  EXPECT_EQ(running.failure_domain, "az-2");
  // Failed: v1beta1 keeps the failure in status, v1beta2 under status.deprecated.v1beta1.
  MachineView failed_v1beta1 = view_machine(
      machine({{"phase", "Failed"}, {"failureReason", "CreateError"}, {"failureMessage", "quota exceeded"}}), keys);
  EXPECT_EQ(failed_v1beta1.failure, "CreateError: quota exceeded");
  EXPECT_EQ(instance_id_of(failed_v1beta1), "failed-machine-ns_m-1");
  MachineView failed_v1beta2 = view_machine(
      machine({{"phase", "Failed"},
               {"deprecated", {{"v1beta1", {{"failureReason", "CreateError"}, {"failureMessage", "no capacity"}}}}}}),
      keys);
  EXPECT_EQ(failed_v1beta2.failure, "CreateError: no capacity");
  // Being deleted, with no providerID: CA's deleting-machine id; marked by the delete-machine annotation.
  MachineView deleting = view_machine(
      machine(json::object(), json::object(),
              {{"deletionTimestamp", "2026-11-29T09:00:00Z"}, {"annotations", {{"cluster.x-k8s.io/delete-machine", ""}}}}),
      keys);
  EXPECT_TRUE(deleting.deleting);
  EXPECT_TRUE(deleting.marked);
  EXPECT_EQ(instance_id_of(deleting), "deleting-machine-ns_m-1");
}

TEST_F(CapiOnRealApiServer, MachinesAreTheGroupsInstancesAndAChosenOneIsMarkedBeforeTheReplicasDrop) {
  use_release("v1.14.0", kVersion);
  kube::ApiClient api = client(config_);
  const std::string ns = unique_name("capi-groups");
  create_namespace(api, ns);
  create_scalable(api, kVersion, ns, deployment("md-0", bounds("1", "5")).with_replicas(3));
  create_scalable(api, kVersion, ns, deployment("md-1", bounds("0", "5")).with_replicas(1));
  create_machine(api, ns, "md-0", "md-0-a", "kwok://md-0-a", "md-0-a");
  create_machine(api, ns, "md-0", "md-0-b", "kwok://md-0-b");
  create_machine(api, ns, "md-0", "md-0-c");
  create_machine(api, ns, "md-1", "md-1-a", "kwok://md-1-a", "md-1-a");
  std::unique_ptr<ClusterApiNodeGroups> groups = groups_on(api, ns);
  const std::string md0 = "MachineDeployment/" + ns + "/md-0";

  auto instances = groups->nodes(md0);
  ASSERT_TRUE(instances.ok()) << instances.error().message;
  ASSERT_EQ(instances->size(), 3u);  // md-1's Machine is not md-0's
  std::map<std::string, const GroupInstance*> by_id;
  for (const GroupInstance& item : *instances) by_id[item.instance.id] = &item;
  ASSERT_TRUE(by_id.contains("kwok://md-0-a") && by_id.contains("kwok://md-0-b") &&
              by_id.contains("pending-machine-" + ns + "_md-0-c"));
  EXPECT_EQ(by_id["kwok://md-0-a"]->state, InstanceState::Running);
  EXPECT_EQ(by_id["kwok://md-0-a"]->instance.node_name, "md-0-a");
  EXPECT_EQ(by_id["kwok://md-0-b"]->state, InstanceState::Creating);
  EXPECT_FALSE(by_id["kwok://md-0-b"]->placeholder);
  EXPECT_TRUE(by_id["pending-machine-" + ns + "_md-0-c"]->placeholder);

  // Only a Machine without a providerID may go by lowering the target alone: 3 - 2 would leave 1 for 2 such.
  EXPECT_FALSE(groups->decrease_target_size(md0, 2).ok());
  EXPECT_EQ(replicas_of(api, ns, "md-0"), 3);

  // md-0-a is chosen: it is marked, and the replicas drop from 3 to 2; md-0-b is left alone.
  ASSERT_TRUE(groups->delete_nodes(md0, {"kwok://md-0-a"}).ok());
  EXPECT_TRUE(marked(api, ns, "md-0-a"));
  EXPECT_FALSE(marked(api, ns, "md-0-b"));
  EXPECT_EQ(replicas_of(api, ns, "md-0"), 2);
  auto target = groups->target_size(md0);
  ASSERT_TRUE(target.ok());
  EXPECT_EQ(*target, 2);

  // At its min size (1 of 1 after this one), md-0 refuses a second deletion before any call.
  ASSERT_TRUE(groups->delete_nodes(md0, {"kwok://md-0-b"}).ok());
  EXPECT_EQ(replicas_of(api, ns, "md-0"), 1);
  auto refused = groups->delete_nodes(md0, {"pending-machine-" + ns + "_md-0-c"});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("below its min size 1"), std::string::npos) << refused.error().message;
  EXPECT_FALSE(marked(api, ns, "md-0-c"));
}

TEST_F(CapiOnRealApiServer, AMarkIsTakenOffAgainWhenTheReplicasCannotDrop) {
  use_release("v1.14.0", kVersion);
  kube::ApiClient api = client(config_);
  const std::string ns = unique_name("capi-undo");
  create_namespace(api, ns);
  // 4 replicas for a max of 2 (someone scaled it by hand): 3 is still above the max, and the Scale is refused.
  create_scalable(api, kVersion, ns, deployment("md-over", bounds("1", "2")).with_replicas(4));
  create_machine(api, ns, "md-over", "md-over-a", "kwok://md-over-a", "md-over-a");
  std::unique_ptr<ClusterApiNodeGroups> groups = groups_on(api, ns);
  auto deleted = groups->delete_nodes("MachineDeployment/" + ns + "/md-over", {"kwok://md-over-a"});
  ASSERT_FALSE(deleted.ok());
  EXPECT_NE(deleted.error().message.find("above its max size 2"), std::string::npos) << deleted.error().message;
  EXPECT_FALSE(marked(api, ns, "md-over-a"));
  EXPECT_EQ(replicas_of(api, ns, "md-over"), 4);
}

TEST_F(CapiOnRealApiServer, AnEmptyGroupTakesItsCapacityFromItsInfrastructureTemplateAndTheAnnotationsWin) {
  use_release("v1.14.0", kVersion);
  kube::ApiClient api = client(config_);
  // An infrastructure provider's template kind, publishing status.capacity and status.nodeInfo as Cluster API's
  // autoscaling-from-zero contract asks.
  const std::string crd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
  json schema = {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  auto made = api.create(
      crd, {{"apiVersion", "apiextensions.k8s.io/v1"},
            {"kind", "CustomResourceDefinition"},
            {"metadata", {{"name", "testmachinetemplates.infrastructure.scalewright.dev"}}},
            {"spec",
             {{"group", "infrastructure.scalewright.dev"},
              {"scope", "Namespaced"},
              {"names", {{"plural", "testmachinetemplates"}, {"singular", "testmachinetemplate"},
                         {"kind", "TestMachineTemplate"}, {"listKind", "TestMachineTemplateList"}}},
              {"versions", json::array({{{"name", "v1alpha1"}, {"served", true}, {"storage", true},
                                         {"subresources", {{"status", json::object()}}},
                                         {"schema", {{"openAPIV3Schema", schema}}}}})}}}});
  ASSERT_TRUE(made.ok() || made.error().code == 409) << made.error().describe();
  const std::string templates = "/apis/infrastructure.scalewright.dev/v1alpha1/namespaces/";
  const std::string ns = unique_name("capi-template");
  create_namespace(api, ns);
  for (int attempt = 0;; ++attempt) {  // served once the CRD is established
    auto created = api.create(templates + ns + "/testmachinetemplates",
                              {{"apiVersion", "infrastructure.scalewright.dev/v1alpha1"},
                               {"kind", "TestMachineTemplate"},
                               {"metadata", {{"name", "big"}, {"namespace", ns}}},
                               {"spec", json::object()}});
    if (created.ok()) break;
    ASSERT_LT(attempt, 200) << created.error().describe();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto status = api.merge_patch(templates + ns + "/testmachinetemplates/big/status",
                                {{"status",
                                  {{"capacity", {{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "1"}}},
                                   {"nodeInfo", {{"architecture", "arm64"}, {"operatingSystem", "linux"}}}}}});
  ASSERT_TRUE(status.ok()) << status.error().describe();
  // Two empty groups on that template: one as it is, one whose cpu annotation says 8.
  for (const auto& [name, annotations] :
       {std::pair{std::string("md-template"), bounds("0", "3")}, std::pair{std::string("md-eight"), [] {
          json a = bounds("0", "3");
          a["capacity.cluster-autoscaler.kubernetes.io/cpu"] = "8";
          return a;
        }()}}) {
    json object = testing::scalable_object(kVersion, ns, deployment(name, annotations).with_replicas(0));
    object["spec"]["template"]["spec"]["infrastructureRef"] = {
        {"apiGroup", "infrastructure.scalewright.dev"}, {"kind", "TestMachineTemplate"}, {"name", "big"}};
    object["spec"]["template"]["metadata"]["labels"]["node-role.kubernetes.io/worker"] = "";
    object["spec"]["template"]["metadata"]["labels"]["team"] = "not-managed";
    auto created = api.create("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns + "/machinedeployments", object);
    ASSERT_TRUE(created.ok()) << created.error().describe();
  }
  std::unique_ptr<ClusterApiNodeGroups> groups = groups_on(api, ns);
  std::vector<RefusedGroup> refused;
  std::vector<nodegroups::NodeGroup> built = groups->node_groups(refused);
  EXPECT_TRUE(refused.empty());
  ASSERT_EQ(built.size(), 2u);
  std::map<std::string, const nodegroups::NodeGroup*> by_name;
  for (const nodegroups::NodeGroup& group : built) by_name[group.id] = &group;
  const nodegroups::NodeGroup& plain = *by_name.at("MachineDeployment/" + ns + "/md-template");
  EXPECT_EQ(plain.template_node.allocatable.cpu_milli(), 4000);
  EXPECT_EQ(plain.template_node.allocatable.memory(), std::int64_t{16} << 30);
  EXPECT_EQ(plain.template_node.allocatable.get(Symbol("nvidia.com/gpu")), 1);
  EXPECT_EQ(plain.template_node.allocatable.pods(), 110);  // the kubelet's default: neither says it
  EXPECT_TRUE(plain.gpu);
  const Labels& labels = plain.template_node.meta.labels;
  EXPECT_EQ(labels.find(Symbol("kubernetes.io/arch"))->str(), "arm64");
  EXPECT_EQ(labels.find(Symbol("kubernetes.io/os"))->str(), "linux");
  EXPECT_NE(labels.find(Symbol("node-role.kubernetes.io/worker")), nullptr);  // managed: copied to the Node
  EXPECT_EQ(labels.find(Symbol("team")), nullptr);                            // not managed: stays on the Machine
  const nodegroups::NodeGroup& eight = *by_name.at("MachineDeployment/" + ns + "/md-eight");
  EXPECT_EQ(eight.template_node.allocatable.cpu_milli(), 8000);
  EXPECT_EQ(eight.template_node.allocatable.memory(), std::int64_t{16} << 30);
}

TEST_F(CapiOnRealApiServer, AGroupWithoutCapacityTakesTheShapeOfOneOfItsNodes) {
  use_release("v1.14.0", kVersion);
  kube::ApiClient api = client(config_);
  const std::string ns = unique_name("capi-from-node");
  create_namespace(api, ns);
  // No capacity annotation, no template publishing one: its running Node is the shape of a new one.
  create_scalable(api, kVersion, ns, deployment("md-node", bounds("1", "4")).with_replicas(1));
  const std::string node = ns + "-node";
  auto created = api.create("/api/v1/nodes",
                            {{"apiVersion", "v1"},
                             {"kind", "Node"},
                             {"metadata",
                              {{"name", node},
                               {"labels",
                                {{"kubernetes.io/hostname", node},
                                 {"topology.kubernetes.io/zone", "az-1"},
                                 {"node.kubernetes.io/instance-type", "m6a.xlarge"}}}}},
                             {"spec", {{"providerID", "kwok://" + node}}}});
  ASSERT_TRUE(created.ok()) << created.error().describe();
  auto status = api.merge_patch("/api/v1/nodes/" + node + "/status",
                                {{"status",
                                  {{"capacity", {{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "58"}}},
                                   {"allocatable", {{"cpu", "3920m"}, {"memory", "15Gi"}, {"pods", "58"}}}}}});
  ASSERT_TRUE(status.ok()) << status.error().describe();
  create_machine(api, ns, "md-node", "md-node-a", "kwok://" + node, node);
  std::unique_ptr<ClusterApiNodeGroups> groups = groups_on(api, ns);
  std::vector<RefusedGroup> refused;
  std::vector<nodegroups::NodeGroup> built = groups->node_groups(refused);
  EXPECT_TRUE(refused.empty());
  ASSERT_EQ(built.size(), 1u);
  const Node& shape = built.front().template_node;
  EXPECT_EQ(shape.capacity.cpu_milli(), 4000);
  EXPECT_EQ(shape.allocatable.cpu_milli(), 3920);
  EXPECT_EQ(shape.allocatable.memory(), std::int64_t{15} << 30);
  EXPECT_EQ(shape.allocatable.pods(), 58);
  EXPECT_EQ(built.front().instance_type, "m6a.xlarge");
  // What is the Node's own (its name, its zone) is not the group's.
  EXPECT_EQ(shape.meta.labels.find(Symbol("kubernetes.io/hostname"))->str(), "template-node-for-md-node");
  EXPECT_EQ(shape.meta.labels.find(Symbol("topology.kubernetes.io/zone")), nullptr);
  auto removed = api.remove("/api/v1/nodes/" + node);
  EXPECT_TRUE(removed.ok());
}

}  // namespace
}  // namespace scalewright::cloud::clusterapi
