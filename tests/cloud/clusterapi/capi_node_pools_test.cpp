// NodePools on Cluster API (ClusterApiNodePools): the catalog a ClusterAPINodeClass's MachineDeployments make, and
// launches and removals on a real kube-apiserver v1.26.1 with Cluster API v1.14.0's CRDs, whose MachineSet and Machine
// controllers the harness plays (capi_controllers.h), and deploy/'s ClusterAPINodeClass CRD.
#include "cloud/clusterapi/capi_node_pools.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/nodepool.h"
#include "capi_controllers.h"
#include "capi_fixture.h"

namespace scalewright::cloud::clusterapi {
namespace {

using nlohmann::json;

// A MachineDeployment as read: `type` in its labels ("" for none), 2 cpu and 4 GiB unless given.
ClusterApiNodeGroup md(const std::string& name, const std::string& type, const std::string& zone, double price,
                       int replicas = 0, int max = 0, std::int64_t cpu_milli = 2000) {
  ClusterApiNodeGroup out;
  out.namespace_ = "ns";
  out.name = name;
  out.replicas = replicas;
  out.max_size = max;
  out.price_per_hour = price;
  out.capacity.set(Symbol("cpu"), cpu_milli);
  out.capacity.set(Symbol("memory"), std::int64_t{4} << 30);
  out.capacity.set(Symbol("pods"), 110);
  if (!type.empty()) out.labels["node.kubernetes.io/instance-type"] = type;
  if (!zone.empty()) out.labels["topology.kubernetes.io/zone"] = zone;
  return out;
}

TEST(NodePoolCatalog, EachInstanceTypeIsOfferedInTheZonesOfItsMachineDeploymentsAtTheirPrices) {
  std::vector<std::string> refused;
  // small in two zones; the third MachineDeployment has no type label (its name is the type) and its zone is its
  // template's failure domain.
  ClusterApiNodeGroup no_label = md("gpu-md", "", "", 0.5);
  no_label.failure_domain = "fd-1";
  const std::vector<DeploymentOffering> offerings =
      deployment_offerings({md("a", "small", "z1", 0.1), md("b", "small", "z2", 0.2), no_label}, refused);
  EXPECT_TRUE(refused.empty());
  ASSERT_EQ(offerings.size(), 3u);
  EXPECT_EQ(offerings[2].instance_type, "gpu-md");
  EXPECT_EQ(offerings[2].zone, "fd-1");

  const Catalog catalog = catalog_of(offerings, "arm64");
  ASSERT_EQ(catalog.size(), 2u);
  const InstanceType* small = catalog.find("small");
  ASSERT_NE(small, nullptr);
  ASSERT_EQ(small->offerings.size(), 2u);
  EXPECT_EQ(small->offering("z1", CapacityType::OnDemand)->price_per_hour, 0.1);
  EXPECT_EQ(small->offering("z2", CapacityType::OnDemand)->price_per_hour, 0.2);
  EXPECT_EQ(small->offering("z1", CapacityType::Spot), nullptr);
  // The zone is the offering's: not among the type's labels. What nothing says is the default architecture, linux.
  EXPECT_FALSE(small->labels.has(Symbol("topology.kubernetes.io/zone")));
  EXPECT_EQ(small->labels.find(Symbol("node.kubernetes.io/instance-type"))->str(), "small");
  EXPECT_EQ(small->labels.find(Symbol("kubernetes.io/arch"))->str(), "arm64");
  EXPECT_EQ(small->labels.find(Symbol("kubernetes.io/os"))->str(), "linux");
  // Cluster API says nothing of reserved resources: a node has all its capacity.
  EXPECT_EQ(small->allocatable.cpu_milli(), 2000);
  EXPECT_EQ(small->allocatable.memory(), std::int64_t{4} << 30);
  EXPECT_EQ(small->hardware.vcpu, 2);
  EXPECT_EQ(small->hardware.memory_mib, 4096);
  const InstanceType* gpu = catalog.find("gpu-md");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->labels.find(Symbol("node.kubernetes.io/instance-type"))->str(), "gpu-md");
  ASSERT_EQ(gpu->offerings.size(), 1u);
  EXPECT_EQ(gpu->offerings[0].zone, "fd-1");
  EXPECT_EQ(gpu->offerings[0].price_per_hour, 0.5);
}

TEST(NodePoolCatalog, OneTypeInOneZoneCostsWhatItsCheapestMachineDeploymentWithRoomCosts) {
  std::vector<std::string> refused;
  // cheap is at its max of 2: dear, with room, is the price, and the offering is available.
  Catalog catalog = catalog_of(deployment_offerings({md("cheap", "t", "z", 0.1, 2, 2), md("dear", "t", "z", 0.3, 0, 5)},
                                                    refused),
                               "amd64");
  const Offering* offering = catalog.find("t")->offering("z", CapacityType::OnDemand);
  EXPECT_TRUE(offering->available);
  EXPECT_EQ(offering->price_per_hour, 0.3);
  // Both full: not available. No max-size annotation: no bound.
  catalog = catalog_of(deployment_offerings({md("cheap", "t", "z", 0.1, 2, 2), md("dear", "t", "z", 0.3, 5, 5)},
                                            refused),
                       "amd64");
  EXPECT_FALSE(catalog.find("t")->offering("z", CapacityType::OnDemand)->available);
  catalog = catalog_of(deployment_offerings({md("unbounded", "t", "z", 0.1, 400, 0)}, refused), "amd64");
  EXPECT_TRUE(catalog.find("t")->offering("z", CapacityType::OnDemand)->available);
  EXPECT_TRUE(refused.empty());
}

TEST(NodePoolCatalog, ATypeNamedTwiceWithAnotherCapacityIsRefusedWithWhy) {
  std::vector<std::string> refused;
  const std::vector<DeploymentOffering> offerings =
      deployment_offerings({md("a", "t", "z1", 0.1), md("b", "t", "z2", 0.1, 0, 0, 4000)}, refused);
  ASSERT_EQ(offerings.size(), 1u);
  EXPECT_EQ(offerings[0].deployment.name, "a");
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_NE(refused[0].find("MachineDeployment ns/b: instance type t has another capacity"), std::string::npos)
      << refused[0];
}

class NodePoolsOnRealApiServer : public testing::CapiOnRealApiServer {
 protected:
  void SetUp() override {
    use_release("v1.14.0", "v1beta2");
    if (HasFatalFailure()) return;
    api_.emplace(client(config_));
    install_node_class_crd();
    if (HasFatalFailure()) return;
    ns_ = unique_name("capi-pools");
    create_namespace(*api_, ns_);
    Result<CapiApi> capi = discover_capi_api(*api_, {});
    ASSERT_TRUE(capi) << capi.error().message;
    AutoDiscoverySpec only_this_test;
    only_this_test.namespace_ = ns_;
    client_.emplace(*api_, std::move(*capi), std::vector<AutoDiscoverySpec>{only_this_test});
    ClusterApiNodePoolsSettings settings;
    settings.poll = std::chrono::milliseconds(50);
    settings.machine_timeout = std::chrono::milliseconds(20'000);
    settings.provider_id_timeout = std::chrono::milliseconds(20'000);
    pools_ = std::make_unique<ClusterApiNodePools>(*client_, *api_, settings);
    testing::CapiControllersOptions options;
    options.namespace_ = ns_;
    options.poll_interval = std::chrono::milliseconds(100);
    harness_ = std::make_unique<testing::CapiControllers>(*api_, *api_, "v1beta2", options);
    harness_->start();
  }
  void TearDown() override {
    if (harness_) harness_->stop();
    if (pools_) pools_->stop();
  }

  void install_node_class_crd() {
    std::ifstream in(std::string(SCALEWRIGHT_SOURCE_DIR) +
                     "/deploy/crds/karpenter.cluster.x-k8s.io_clusterapinodeclasses.yaml");
    ASSERT_TRUE(in);
    std::stringstream text;
    text << in.rdbuf();
    kube::ApplyOptions options;
    options.force = true;
    const std::string crd = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
                            "clusterapinodeclasses.karpenter.cluster.x-k8s.io";
    auto applied = api_->apply(crd, text.str(), options);
    ASSERT_TRUE(applied.ok()) << applied.error().describe();
    for (int attempt = 0; !api_->list(std::string(kNodeClassesPath)).ok(); ++attempt) {
      ASSERT_LT(attempt, 240) << "ClusterAPINodeClass is not served";
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
  }

  // MachineDeployment `name` selected by label `team`: 2 cpu, 4 GiB, `type` in zone z1 at `price`.
  void create_deployment(const std::string& name, const std::string& team, const std::string& type,
                         const std::string& price, int replicas, const std::string& max = "") {
    json annotations = {{"capacity.cluster-autoscaler.kubernetes.io/cpu", "2"},
                        {"capacity.cluster-autoscaler.kubernetes.io/memory", "4Gi"},
                        {"capacity.cluster-autoscaler.kubernetes.io/labels",
                         "node.kubernetes.io/instance-type=" + type + ",topology.kubernetes.io/zone=z1"},
                        {"scalewright.dev/price-per-hour", price}};
    if (!max.empty()) annotations["cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size"] = max;
    testing::create_scalable(*api_, "v1beta2", ns_,
                             testing::deployment(name, annotations).with_replicas(replicas).labelled({{"team", team}}));
  }
  // A ClusterAPINodeClass selecting team `team`, unique to the test.
  std::string create_node_class(const std::string& team) {
    const std::string name = unique_name("class");
    auto created = api_->create(std::string(kNodeClassesPath),
                                {{"apiVersion", "karpenter.cluster.x-k8s.io/v1alpha1"},
                                 {"kind", "ClusterAPINodeClass"},
                                 {"metadata", {{"name", name}}},
                                 {"spec", {{"scalableResourceSelector", {{"matchLabels", {{"team", team}}}}}}}});
    EXPECT_TRUE(created.ok()) << created.error().describe();
    return name;
  }
  NodePool pool_on(const std::string& node_class) const {
    NodePool pool;
    pool.meta.name = "pool";
    pool.node_class = {"karpenter.cluster.x-k8s.io", "ClusterAPINodeClass", node_class};
    return pool;
  }
  // A launch of `claim` from every offering of `catalog`, in its order (cheapest first, as the engine gives them).
  CreateRequest request(const std::string& claim, const Catalog& catalog, const std::string& node_class,
                        const std::vector<std::string>& types) const {
    CreateRequest out;
    out.name = claim;
    out.node_class = {"karpenter.cluster.x-k8s.io", "ClusterAPINodeClass", node_class};
    for (const std::string& type : types) {
      const InstanceType* found = catalog.find(type);
      if (found != nullptr) out.offerings.push_back({found, &found->offerings.front()});
    }
    return out;
  }
  json machine(const std::string& name) const {
    auto got = api_->get("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns_ + "/machines/" + name);
    return got.ok() ? *got : json();
  }
  std::int32_t replicas_of(const std::string& md) const {
    auto got = api_->get("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns_ + "/machinedeployments/" + md);
    return got.ok() ? (*got)["spec"].value("replicas", 0) : -1;
  }

  std::optional<kube::ApiClient> api_;
  std::string ns_;
  std::optional<NodeGroupClient> client_;
  std::unique_ptr<ClusterApiNodePools> pools_;
  std::unique_ptr<testing::CapiControllers> harness_;
};

TEST_F(NodePoolsOnRealApiServer, ALaunchRaisesTheChosenMachineDeploymentAndTakesItsNewMachine) {
  const std::string team = unique_name("t");
  create_deployment("np-small", team, "capi-small", "0.10", 0);
  create_deployment("np-dear", team, "capi-dear", "0.30", 0);
  create_deployment("np-other", "someone-else", "capi-other", "0.01", 0);
  const std::string node_class = create_node_class(team);
  Result<NodePoolsRefresh> refreshed = pools_->refresh();
  ASSERT_TRUE(refreshed) << refreshed.error().message;
  EXPECT_NE(std::find(refreshed->changed.begin(), refreshed->changed.end(), node_class), refreshed->changed.end());
  EXPECT_EQ(refreshed->not_ready[node_class], "");
  CloudResult<const Catalog*> catalog = pools_->instance_types(pool_on(node_class));
  ASSERT_TRUE(catalog) << catalog.error().message;
  ASSERT_EQ((*catalog)->size(), 2u);  // np-other is another team's
  EXPECT_EQ((*catalog)->find("capi-small")->offerings.front().price_per_hour, 0.10);

  CloudResult<Created> created = pools_->create(request("claim-a", **catalog, node_class, {"capi-small", "capi-dear"}));
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created->launched.instance_type->name, "capi-small");
  EXPECT_EQ(replicas_of("np-small"), 1);
  EXPECT_EQ(replicas_of("np-dear"), 0);
  // The instance is the MachineDeployment's one Machine, known by its providerID; the Machine says whose it is.
  std::vector<std::string> machines;
  auto listed_machines = api_->list("/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns_ +
                                    "/machines?labelSelector=cluster.x-k8s.io%2Fdeployment-name%3Dnp-small");
  ASSERT_TRUE(listed_machines.ok()) << listed_machines.error().describe();
  for (const json& m : listed_machines->items) machines.push_back(m["metadata"].value("name", ""));
  ASSERT_EQ(machines.size(), 1u);
  EXPECT_EQ(created->instance.provider_id, "kwok://" + machines[0]);
  EXPECT_EQ(created->instance.id, created->instance.provider_id);
  const json taken = machine(machines[0]);
  EXPECT_EQ(taken["metadata"]["annotations"].value("scalewright.dev/nodeclaim", ""), "claim-a");
  EXPECT_EQ(taken["metadata"]["labels"].value("node.cluster.x-k8s.io/karpenter-member", ""), "true");

  // It is listed and found by its providerID.
  CloudResult<std::vector<Instance>> listed = pools_->list();
  ASSERT_TRUE(listed) << listed.error().message;
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].provider_id, "kwok://" + machines[0]);
  EXPECT_TRUE(pools_->get("kwok://" + machines[0]));
  EXPECT_EQ(pools_->get("kwok://nothing").error().error_class, ErrorClass::NotFound);
}

TEST_F(NodePoolsOnRealApiServer, AFreeMachineIsTakenWithoutRaisingTheReplicasAgain) {
  const std::string team = unique_name("t");
  // One replica already, whose Machine nobody claimed (a launch that gave up waiting left it): the next launch takes
  // it, and the MachineDeployment stays at one.
  create_deployment("np-spare", team, "capi-spare", "0.10", 1);
  ASSERT_TRUE(harness_->wait_for_passes(3, std::chrono::seconds(30)));
  ASSERT_EQ(harness_->machines("np-spare").size(), 1u);
  const std::string node_class = create_node_class(team);
  ASSERT_TRUE(pools_->refresh());
  CloudResult<const Catalog*> catalog = pools_->instance_types(pool_on(node_class));
  ASSERT_TRUE(catalog) << catalog.error().message;
  CloudResult<Created> created = pools_->create(request("claim-b", **catalog, node_class, {"capi-spare"}));
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(replicas_of("np-spare"), 1);
  EXPECT_EQ(created->instance.provider_id, "kwok://" + harness_->machines("np-spare").front());
}

TEST_F(NodePoolsOnRealApiServer, AMachineDeploymentAtItsMaxIsRefusedForCapacityAndTheNextOfferingLaunches) {
  const std::string team = unique_name("t");
  create_deployment("np-full", team, "capi-full", "0.05", 1, "1");
  create_deployment("np-room", team, "capi-room", "0.20", 0, "3");
  // np-full's one Machine is another NodeClaim's already.
  for (int attempt = 0; harness_->machines("np-full").size() != 1; ++attempt) {
    ASSERT_LT(attempt, 300) << "no Machine for np-full";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  auto claimed = api_->merge_patch(
      "/apis/cluster.x-k8s.io/v1beta2/namespaces/" + ns_ + "/machines/" + harness_->machines("np-full").front(),
      {{"metadata", {{"annotations", {{"scalewright.dev/nodeclaim", "claim-earlier"}}}}}});
  ASSERT_TRUE(claimed.ok()) << claimed.error().describe();
  const std::string node_class = create_node_class(team);
  ASSERT_TRUE(pools_->refresh());
  CloudResult<const Catalog*> catalog = pools_->instance_types(pool_on(node_class));
  ASSERT_TRUE(catalog) << catalog.error().message;
  // The catalog already says np-full has no room; a launch asked for it anyway (its list was older) is refused for
  // capacity there and lands on the next offering.
  EXPECT_FALSE((*catalog)->find("capi-full")->offerings.front().available);
  CloudResult<Created> created = pools_->create(request("claim-c", **catalog, node_class, {"capi-full", "capi-room"}));
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created->launched.instance_type->name, "capi-room");
  ASSERT_EQ(created->unavailable.size(), 1u);
  EXPECT_EQ(created->unavailable[0].instance_type->name, "capi-full");
  EXPECT_EQ(replicas_of("np-full"), 1);
  EXPECT_EQ(replicas_of("np-room"), 1);
  // Only the full one: InsufficientCapacity, nothing raised.
  CloudResult<Created> refused = pools_->create(request("claim-d", **catalog, node_class, {"capi-full"}));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().error_class, ErrorClass::InsufficientCapacity);
  EXPECT_EQ(replicas_of("np-full"), 1);
}

TEST_F(NodePoolsOnRealApiServer, ATerminatedInstancesMachineIsTheOneClusterApiDeletes) {
  const std::string team = unique_name("t");
  create_deployment("np-two", team, "capi-two", "0.10", 0);
  const std::string node_class = create_node_class(team);
  ASSERT_TRUE(pools_->refresh());
  CloudResult<const Catalog*> catalog = pools_->instance_types(pool_on(node_class));
  ASSERT_TRUE(catalog) << catalog.error().message;
  CloudResult<Created> first = pools_->create(request("claim-e", **catalog, node_class, {"capi-two"}));
  ASSERT_TRUE(first) << first.error().message;
  CloudResult<Created> second = pools_->create(request("claim-f", **catalog, node_class, {"capi-two"}));
  ASSERT_TRUE(second) << second.error().message;
  ASSERT_NE(first->instance.provider_id, second->instance.provider_id);
  EXPECT_EQ(replicas_of("np-two"), 2);

  // The first one goes, whichever Cluster API would have picked: its Machine is marked, then the replicas drop.
  const std::string doomed = first->instance.provider_id.substr(std::string("kwok://").size());
  ASSERT_TRUE(pools_->terminate(first->instance.provider_id));
  EXPECT_EQ(replicas_of("np-two"), 1);
  for (int attempt = 0; harness_->machines("np-two").size() != 1; ++attempt) {
    ASSERT_LT(attempt, 300) << "no Machine deleted";
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(harness_->deleted_machines(), std::vector<std::string>{doomed});
  EXPECT_EQ(pools_->terminate(first->instance.provider_id).error().error_class, ErrorClass::NotFound);
}

TEST_F(NodePoolsOnRealApiServer, AClassThatSelectsNothingUsableIsNotReadyAndSaysWhy) {
  const std::string team = unique_name("t");
  // No capacity annotations and no infrastructure template to read one from.
  testing::create_scalable(*api_, "v1beta2", ns_,
                           testing::deployment("np-shapeless").with_replicas(0).labelled({{"team", team}}));
  const std::string node_class = create_node_class(team);
  const std::string empty_class = create_node_class(unique_name("nobody"));
  Result<NodePoolsRefresh> refreshed = pools_->refresh();
  ASSERT_TRUE(refreshed) << refreshed.error().message;
  EXPECT_NE(refreshed->not_ready[node_class].find("MachineDeployment " + ns_ + "/np-shapeless: no cpu and memory"),
            std::string::npos)
      << refreshed->not_ready[node_class];
  EXPECT_NE(refreshed->not_ready[empty_class].find("selects no MachineDeployment"), std::string::npos);
  CloudResult<const Catalog*> catalog = pools_->instance_types(pool_on(node_class));
  ASSERT_FALSE(catalog);
  EXPECT_EQ(catalog.error().error_class, ErrorClass::NodeClassNotReady);
  EXPECT_NE(catalog.error().message.find("ClusterAPINodeClass " + node_class + " is not ready"), std::string::npos);
  // A NodePool naming another kind, or a class that is not there.
  NodePool other = pool_on("absent");
  EXPECT_EQ(pools_->instance_types(other).error().error_class, ErrorClass::NodeClassNotReady);
}

}  // namespace
}  // namespace scalewright::cloud::clusterapi
