// Cluster Autoscaler's clusterapi node groups read from and scaled on a real kube-apiserver v1.26.1 serving Cluster
// API's real CRDs, v1.10.10 (v1beta1) and v1.14.0 (v1beta2). Every expectation is what CA's provider makes of the
// same objects (research capi-azure.md §1.2-1.6, 1.9).
#include "cloud/clusterapi/node_group_client.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "capi_fixture.h"
#include "cloud/clusterapi/auto_discovery.h"
#include "cloud/clusterapi/capi_api.h"

namespace scalewright::cloud::clusterapi {
namespace {

using nlohmann::json;
using testing::bounds;
using testing::CapiOnRealApiServer;
using testing::create_scalable;
using testing::deployment;
using testing::machine_pool;
using testing::machine_set;
using testing::Scalable;

// The ids of the listed groups that live in `namespace_` (other tests' objects share the API server).
std::vector<std::string> ids_in(const NodeGroupListing& listing, const std::string& namespace_) {
  std::vector<std::string> ids;
  for (const ClusterApiNodeGroup& group : listing.groups) {
    if (group.namespace_ == namespace_) ids.push_back(group.id());
  }
  return ids;
}

std::vector<std::string> refused_in(const NodeGroupListing& listing, const std::string& namespace_) {
  std::vector<std::string> messages;
  for (const RefusedGroup& error : listing.refused) {
    if (error.message.find(" " + namespace_ + "/") != std::string::npos) messages.push_back(error.message);
  }
  return messages;
}

const ClusterApiNodeGroup& group_named(const NodeGroupListing& listing, const std::string& id) {
  auto found = std::find_if(listing.groups.begin(), listing.groups.end(),
                            [&](const ClusterApiNodeGroup& g) { return g.id() == id; });
  if (found == listing.groups.end()) throw std::runtime_error("no node group " + id);
  return *found;
}

CapiApi discover(const kube::ApiClient& api, const CapiSettings& settings = {}) {
  Result<CapiApi> capi = discover_capi_api(api, settings);
  if (!capi) throw std::runtime_error(capi.error().message);
  return *capi;
}

// --- v1.10.10: v1beta1 only -------------------------------------------------------------------------------------

TEST_F(CapiOnRealApiServer, V1beta1ServedAloneIsDiscoveredAndItsScalableObjectsBecomeNodeGroups) {
  use_release("v1.10.10", "v1beta1");
  kube::ApiClient api = client(config_);
  CapiApi capi = discover(api);
  EXPECT_EQ(capi.group, "cluster.x-k8s.io");
  EXPECT_EQ(capi.version, "v1beta1");
  EXPECT_TRUE(capi.machine_deployments && capi.machine_sets && capi.machine_pools);

  const std::string ns = unique_name("capi-v1beta1");
  create_namespace(api, ns);
  // md-0: a group. md-0-abcde: its MachineSet, which scales with it (not a group of its own). ms-bare: a MachineSet
  // without a MachineDeployment, a group. mp-0: a MachinePool, a group. md-paused: paused. md-plain: no annotations.
  json paused = bounds("1", "5");
  paused["cluster.x-k8s.io/paused"] = "";
  for (const Scalable& s :
       {deployment("md-0", bounds("1", "5")).with_replicas(2),
        machine_set("md-0-abcde", bounds("1", "5")).with_replicas(2).owned_by("md-0"),
        machine_set("ms-bare", bounds("0", "3")), machine_pool("mp-0", bounds("2", "4")).with_replicas(3),
        deployment("md-paused", paused), deployment("md-plain")}) {
    create_scalable(api, "v1beta1", ns, s);
  }
  NodeGroupClient groups(api, capi);
  Result<NodeGroupListing> listing = groups.list_node_groups();
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  // CA's order: MachineSets, MachineDeployments, MachinePools.
  EXPECT_EQ(ids_in(*listing, ns),
            (std::vector<std::string>{"MachineSet/" + ns + "/ms-bare", "MachineDeployment/" + ns + "/md-0",
                                      "MachinePool/" + ns + "/mp-0"}));
  EXPECT_EQ(refused_in(*listing, ns), std::vector<std::string>{});
  const ClusterApiNodeGroup& md = group_named(*listing, "MachineDeployment/" + ns + "/md-0");
  EXPECT_EQ(md.min_size, 1);
  EXPECT_EQ(md.max_size, 5);
  EXPECT_EQ(md.replicas, 2);
  EXPECT_EQ(md.cluster_name, "purple");
  const ClusterApiNodeGroup& mp = group_named(*listing, "MachinePool/" + ns + "/mp-0");
  EXPECT_EQ(mp.min_size, 2);
  EXPECT_EQ(mp.max_size, 4);
  EXPECT_EQ(mp.replicas, 3);

  // md-0 from 2 by 2 through its Scale: 4 in the MachineDeployment's spec.replicas.
  Result<std::int32_t> grown = groups.increase_size(md, 2);
  ASSERT_TRUE(grown.ok()) << grown.error().message;
  EXPECT_EQ(*grown, 4);
  auto object = api.get(capi.object_path(ScalableKind::MachineDeployment, ns, "md-0"));
  ASSERT_TRUE(object.ok()) << object.error().describe();
  EXPECT_EQ((*object)["spec"]["replicas"], 4);
  // The MachinePool's Scale (no label selector path in its CRD) takes a size as well: 3 to 4.
  Result<std::int32_t> pool = groups.set_target_size(mp, 4);
  ASSERT_TRUE(pool.ok()) << pool.error().message;
  object = api.get(capi.object_path(ScalableKind::MachinePool, ns, "mp-0"));
  ASSERT_TRUE(object.ok()) << object.error().describe();
  EXPECT_EQ((*object)["spec"]["replicas"], 4);
}

// --- v1.14.0: v1beta2 preferred, v1beta1 still served -----------------------------------------------------------

TEST_F(CapiOnRealApiServer, V1beta2IsPreferredAndCapiVersionPinsAnotherServedVersion) {
  use_release("v1.14.0", "v1beta2");
  kube::ApiClient api = client(config_);
  EXPECT_EQ(discover(api).version, "v1beta2");
  EXPECT_EQ(discover(api, CapiSettings{"", "v1beta1"}).version, "v1beta1");

  // The process's environment, as CA reads it.
  ::setenv("CAPI_VERSION", "v1beta1", 1);
  CapiSettings settings = capi_settings_from_environment();
  ::unsetenv("CAPI_VERSION");
  EXPECT_EQ(settings.version, "v1beta1");
  EXPECT_EQ(discover(api, settings).version, "v1beta1");

  Result<CapiApi> unserved = discover_capi_api(api, CapiSettings{"", "v1alpha4"});
  ASSERT_FALSE(unserved.ok());
  EXPECT_EQ(unserved.error().message,
            "CAPI_VERSION=v1alpha4: API group cluster.x-k8s.io does not serve it (it serves v1beta2, v1beta1)");
  Result<CapiApi> other_group = discover_capi_api(api, CapiSettings{"cluster.example.com", ""});
  ASSERT_FALSE(other_group.ok());
  EXPECT_EQ(other_group.error().message,
            "API group cluster.example.com is not served (are Cluster API's CRDs installed? CAPI_GROUP names "
            "another group)");
}

TEST_F(CapiOnRealApiServer, CapiGroupRenamesTheSizeAnnotations) {
  // CA builds its keys from CAPI_GROUP; the served group here stays cluster.x-k8s.io, so only the keys are checked.
  CapiKeys keys("cluster.example.com");
  EXPECT_EQ(keys.min_size, "cluster.example.com/cluster-api-autoscaler-node-group-min-size");
  EXPECT_EQ(keys.max_size, "cluster.example.com/cluster-api-autoscaler-node-group-max-size");
  EXPECT_EQ(keys.options_prefix, "cluster.example.com/autoscaling-options-");
  EXPECT_EQ(keys.cluster_name, "cluster.example.com/cluster-name");
  use_release("v1.14.0", "v1beta2");
  kube::ApiClient api = client(config_);
  const std::string ns = unique_name("capi-group");
  create_namespace(api, ns);
  create_scalable(api, "v1beta2", ns,
                  deployment("md-renamed", {{"cluster.example.com/cluster-api-autoscaler-node-group-min-size", "1"},
                                            {"cluster.example.com/cluster-api-autoscaler-node-group-max-size", "7"}}));
  CapiApi capi = discover(api);
  Result<NodeGroupListing> plain = NodeGroupClient(api, capi).list_node_groups();
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(ids_in(*plain, ns), std::vector<std::string>{});  // the default keys are absent: no group
  capi.keys = keys;
  Result<NodeGroupListing> renamed = NodeGroupClient(api, capi).list_node_groups();
  ASSERT_TRUE(renamed.ok()) << renamed.error().message;
  ASSERT_EQ(ids_in(*renamed, ns), std::vector<std::string>{"MachineDeployment/" + ns + "/md-renamed"});
  EXPECT_EQ(group_named(*renamed, "MachineDeployment/" + ns + "/md-renamed").max_size, 7);
}

TEST_F(CapiOnRealApiServer, ScaleFromZeroCapacityLabelsTaintsAndOptionsComeFromTheAnnotations) {
  use_release("v1.14.0", "v1beta2");
  kube::ApiClient api = client(config_);
  const std::string ns = unique_name("capi-capacity");
  create_namespace(api, ns);
  json gpu = bounds("0", "10");
  gpu.update({{"capacity.cluster-autoscaler.kubernetes.io/cpu", "16000m"},
              {"capacity.cluster-autoscaler.kubernetes.io/memory", "128G"},
              {"capacity.cluster-autoscaler.kubernetes.io/ephemeral-disk", "100Gi"},
              {"capacity.cluster-autoscaler.kubernetes.io/maxPods", "58"},
              {"capacity.cluster-autoscaler.kubernetes.io/gpu-type", "nvidia.com/gpu"},
              {"capacity.cluster-autoscaler.kubernetes.io/gpu-count", "2"},
              {"capacity.cluster-autoscaler.kubernetes.io/labels", "accelerator=a100,tier=batch"},
              {"capacity.cluster-autoscaler.kubernetes.io/taints", "dedicated=gpu:NoSchedule,spot:PreferNoSchedule"},
              {"cluster.x-k8s.io/autoscaling-options-scaledownutilizationthreshold", "0.3"},
              {"cluster.x-k8s.io/autoscaling-options-scaledownunneededtime", "5M"},
              {"cluster.x-k8s.io/autoscaling-options-maxnodeprovisiontime", "20m"}});
  json small = bounds("0", "3");
  small.update({{"capacity.cluster-autoscaler.kubernetes.io/cpu", "2"},
                {"capacity.cluster-autoscaler.kubernetes.io/memory", "8Gi"}});
  json cpu_only = bounds("0", "3");
  cpu_only["capacity.cluster-autoscaler.kubernetes.io/cpu"] = "2";
  create_scalable(api, "v1beta2", ns, deployment("md-gpu", gpu).with_replicas(0));
  // No spec.replicas at all: kube-apiserver refuses its Scale (500), so the object itself says 0.
  create_scalable(api, "v1beta2", ns, deployment("md-small", small).with_replicas(std::nullopt));
  // At zero without memory capacity it could never grow: CA leaves it out; at one replica it is a group.
  create_scalable(api, "v1beta2", ns, deployment("md-cpu-only", cpu_only).with_replicas(0));
  create_scalable(api, "v1beta2", ns, deployment("md-cpu-only-running", cpu_only));

  NodeGroupClient groups(api, discover(api));
  Result<NodeGroupListing> listing = groups.list_node_groups();
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  EXPECT_EQ(ids_in(*listing, ns),
            (std::vector<std::string>{"MachineDeployment/" + ns + "/md-cpu-only-running",
                                      "MachineDeployment/" + ns + "/md-gpu", "MachineDeployment/" + ns + "/md-small"}));
  const ClusterApiNodeGroup& g = group_named(*listing, "MachineDeployment/" + ns + "/md-gpu");
  EXPECT_TRUE(g.can_scale_from_zero());
  EXPECT_EQ(g.replicas, 0);
  EXPECT_EQ(g.capacity.cpu_milli(), 16'000);
  EXPECT_EQ(g.capacity.memory(), 128'000'000'000);
  EXPECT_EQ(g.capacity.ephemeral_storage(), 100LL << 30);
  EXPECT_EQ(g.capacity.pods(), 58);
  EXPECT_EQ(g.capacity.get(Symbol("nvidia.com/gpu")), 2);
  EXPECT_EQ(g.labels, (std::map<std::string, std::string>{{"accelerator", "a100"}, {"tier", "batch"}}));
  EXPECT_EQ(g.taints, (std::vector<Taint>{{"dedicated", "gpu", TaintEffect::NoSchedule},
                                          {"spot", "", TaintEffect::PreferNoSchedule}}));
  EXPECT_EQ(g.options.scale_down_utilization_threshold, 0.3);
  EXPECT_EQ(g.options.scale_down_unneeded_time, Duration(5 * 60'000));  // "5M" lowercased, as CA does
  EXPECT_EQ(g.options.max_node_provision_time, Duration(20 * 60'000));
  EXPECT_EQ(g.options.scale_down_gpu_utilization_threshold, std::nullopt);

  const ClusterApiNodeGroup& s = group_named(*listing, "MachineDeployment/" + ns + "/md-small");
  EXPECT_EQ(s.replicas, 0);
  EXPECT_EQ(s.capacity.cpu_milli(), 2'000);
  EXPECT_EQ(s.capacity.memory(), 8LL << 30);
  EXPECT_EQ(s.capacity.pods(), 110);  // no maxPods: the kubelet's default
  EXPECT_EQ(s.options, GroupAutoscalingOptions{});

  // md-small has no spec.replicas: 0. Scaling it to 3 writes spec.replicas on the MachineDeployment.
  Result<std::int32_t> size = groups.target_size(s);
  ASSERT_TRUE(size.ok()) << size.error().message;
  EXPECT_EQ(*size, 0);
  Result<std::int32_t> scaled = groups.set_target_size(s, 3);
  ASSERT_TRUE(scaled.ok()) << scaled.error().message;
  EXPECT_EQ(*scaled, 3);
  auto object = api.get(groups.capi().object_path(ScalableKind::MachineDeployment, ns, "md-small"));
  ASSERT_TRUE(object.ok()) << object.error().describe();
  EXPECT_EQ((*object)["spec"]["replicas"], 3);
  size = groups.target_size(s);
  ASSERT_TRUE(size.ok()) << size.error().message;
  EXPECT_EQ(*size, 3);
}

TEST_F(CapiOnRealApiServer, SizesOutsideMinAndMaxAreRefusedWithoutARequest) {
  use_release("v1.14.0", "v1beta2");
  kube::ApiClient api = client(config_);
  const std::string ns = unique_name("capi-bounds");
  create_namespace(api, ns);
  create_scalable(api, "v1beta2", ns, machine_set("ms-0", bounds("1", "3")).with_replicas(2));
  NodeGroupClient groups(api, discover(api));
  Result<NodeGroupListing> listing = groups.list_node_groups();
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  const ClusterApiNodeGroup& ms = group_named(*listing, "MachineSet/" + ns + "/ms-0");
  const std::string id = "MachineSet/" + ns + "/ms-0";
  Result<std::int32_t> too_many = groups.increase_size(ms, 2);
  ASSERT_FALSE(too_many.ok());
  EXPECT_EQ(too_many.error().message, "node group " + id + ": size increase too large: 2 + 2 is above its max size 3");
  Result<std::int32_t> too_few = groups.set_target_size(ms, 0);
  ASSERT_FALSE(too_few.ok());
  EXPECT_EQ(too_few.error().message, "node group " + id + ": size 0 is below its min size 1");
  Result<std::int32_t> grown = groups.increase_size(ms, 1);
  ASSERT_TRUE(grown.ok()) << grown.error().message;
  EXPECT_EQ(*grown, 3);
  auto object = api.get(groups.capi().object_path(ScalableKind::MachineSet, ns, "ms-0"));
  ASSERT_TRUE(object.ok()) << object.error().describe();
  EXPECT_EQ((*object)["spec"]["replicas"], 3);
}

TEST_F(CapiOnRealApiServer, BadAnnotationsRefuseTheirGroupByNameAndTheOthersStay) {
  use_release("v1.14.0", "v1beta2");
  kube::ApiClient api = client(config_);
  const std::string ns = unique_name("capi-bad");
  create_namespace(api, ns);
  auto with = [](json annotations, const std::string& key, const std::string& value) {
    annotations[key] = value;
    return annotations;
  };
  const std::string min_key = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size";
  const std::string max_key = "cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size";
  for (const Scalable& s :
       {deployment("a-negative-min", bounds("-1", "3")), deployment("b-word-max", bounds("0", "two")),
        deployment("c-max-below-min", bounds("3", "2")),
        deployment("d-cpu", with(bounds("0", "3"), "capacity.cluster-autoscaler.kubernetes.io/cpu", "lots")),
        deployment("e-labels", with(bounds("0", "3"), "capacity.cluster-autoscaler.kubernetes.io/labels", "zone")),
        deployment("f-taint",
                   with(bounds("0", "3"), "capacity.cluster-autoscaler.kubernetes.io/taints", "gpu=yes:Sometimes")),
        deployment("g-option",
                   with(bounds("0", "3"), "cluster.x-k8s.io/autoscaling-options-scaledownunneededtime", "soon")),
        deployment("h-min-without-max", {{min_key, "1"}}), deployment("i-good", bounds("0", "3"))}) {
    create_scalable(api, "v1beta2", ns, s);
  }
  Result<NodeGroupListing> listing = NodeGroupClient(api, discover(api)).list_node_groups();
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  EXPECT_EQ(ids_in(*listing, ns), std::vector<std::string>{"MachineDeployment/" + ns + "/i-good"});
  const std::string md = "MachineDeployment " + ns + "/";
  EXPECT_EQ(
      refused_in(*listing, ns),
      (std::vector<std::string>{
          md + "a-negative-min: annotation " + min_key + "=\"-1\": negative",
          md + "b-word-max: annotation " + max_key + "=\"two\": not an integer",
          md + "c-max-below-min: annotation " + max_key + "=\"2\": below " + min_key + "=3",
          md + "d-cpu: annotation capacity.cluster-autoscaler.kubernetes.io/cpu=\"lots\": not a quantity",
          md + "e-labels: annotation capacity.cluster-autoscaler.kubernetes.io/labels=\"zone\": \"zone\" is not "
               "key=value",
          md + "f-taint: annotation capacity.cluster-autoscaler.kubernetes.io/taints=\"gpu=yes:Sometimes\": taint "
               "effect \"Sometimes\" is not NoSchedule, PreferNoSchedule or NoExecute",
          md + "g-option: annotation cluster.x-k8s.io/autoscaling-options-scaledownunneededtime=\"soon\": not a "
               "duration (\"10m\", \"1h30m\")",
          md + "h-min-without-max: annotation " + max_key + " is missing while " + min_key + "=1"}));
}

TEST_F(CapiOnRealApiServer, AutoDiscoveryFiltersByNamespaceClusterNameAndLabels) {
  use_release("v1.14.0", "v1beta2");
  kube::ApiClient api = client(config_);
  const std::string staging = unique_name("capi-staging");
  const std::string prod = unique_name("capi-prod");
  create_namespace(api, staging);
  create_namespace(api, prod);
  create_scalable(api, "v1beta2", staging,
                  deployment("purple-jim", bounds("0", "2")).in_cluster("purple").labelled({{"owner", "jim"}}));
  create_scalable(api, "v1beta2", staging,
                  deployment("purple-ann", bounds("0", "2")).in_cluster("purple").labelled({{"owner", "ann"}}));
  create_scalable(api, "v1beta2", staging,
                  deployment("green-jim", bounds("0", "2")).in_cluster("green").labelled({{"owner", "jim"}}));
  create_scalable(api, "v1beta2", prod,
                  deployment("purple-jim", bounds("0", "2")).in_cluster("purple").labelled({{"owner", "jim"}}));
  CapiApi capi = discover(api);
  auto listed = [&](const std::vector<std::string>& flags) {
    Result<std::vector<AutoDiscoverySpec>> specs = parse_auto_discovery(flags);
    if (!specs) throw std::runtime_error(specs.error().message);
    Result<NodeGroupListing> listing = NodeGroupClient(api, capi, *specs).list_node_groups();
    if (!listing) throw std::runtime_error(listing.error().message);
    std::vector<std::string> ids = ids_in(*listing, staging), in_prod = ids_in(*listing, prod);
    ids.insert(ids.end(), in_prod.begin(), in_prod.end());
    return ids;
  };
  const std::string s = "MachineDeployment/" + staging + "/", p = "MachineDeployment/" + prod + "/";
  EXPECT_EQ(listed({}),
            (std::vector<std::string>{s + "green-jim", s + "purple-ann", s + "purple-jim", p + "purple-jim"}));
  EXPECT_EQ(listed({"clusterapi:namespace=" + staging}),
            (std::vector<std::string>{s + "green-jim", s + "purple-ann", s + "purple-jim"}));
  EXPECT_EQ(listed({"clusterapi:clusterName=purple"}),
            (std::vector<std::string>{s + "purple-ann", s + "purple-jim", p + "purple-jim"}));
  EXPECT_EQ(listed({"clusterapi:namespace=" + staging + ",clusterName=purple,owner=jim"}),
            (std::vector<std::string>{s + "purple-jim"}));
  EXPECT_EQ(listed({"clusterapi:owner=jim"}),
            (std::vector<std::string>{s + "green-jim", s + "purple-jim", p + "purple-jim"}));
  // Specs are ORed, each object once.
  EXPECT_EQ(listed({"clusterapi:clusterName=green", "clusterapi:owner=ann", "clusterapi:clusterName=green"}),
            (std::vector<std::string>{s + "green-jim", s + "purple-ann"}));
}

// --- the flag, without a server ---------------------------------------------------------------------------------

TEST(ClusterApiAutoDiscovery, ParsesNamespaceClusterNameAndLabels) {
  Result<AutoDiscoverySpec> spec =
      parse_auto_discovery_spec("clusterapi:namespace=staging,clusterName=purple,owner=jim");
  ASSERT_TRUE(spec.ok()) << spec.error().message;
  EXPECT_EQ(spec->namespace_, "staging");
  EXPECT_EQ(spec->cluster_name, "purple");
  EXPECT_EQ(spec->labels, (std::vector<std::pair<std::string, std::string>>{{"owner", "jim"}}));
  Result<AutoDiscoverySpec> everything = parse_auto_discovery_spec("clusterapi:");
  ASSERT_TRUE(everything.ok()) << everything.error().message;
  EXPECT_TRUE(everything->namespace_.empty() && everything->cluster_name.empty() && everything->labels.empty());
}

TEST(ClusterApiAutoDiscovery, BadSpecsNameTheFlagAndTheBadPart) {
  auto error = [](const std::string& spec) {
    Result<AutoDiscoverySpec> parsed = parse_auto_discovery_spec(spec);
    return parsed.ok() ? std::string("accepted") : parsed.error().message;
  };
  EXPECT_EQ(
      error("asg:tag=k8s.io/cluster-autoscaler/enabled"),
      "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled: discoverer \"asg\" is not clusterapi");
  EXPECT_EQ(error("clusterapi"),
            "--node-group-auto-discovery=clusterapi: want clusterapi:key=value,key=value "
            "(exactly one ':')");
  EXPECT_EQ(error("clusterapi:namespace=a:b"),
            "--node-group-auto-discovery=clusterapi:namespace=a:b: want "
            "clusterapi:key=value,key=value (exactly one ':')");
  EXPECT_EQ(error("clusterapi:namespace=staging,owner"),
            "--node-group-auto-discovery=clusterapi:namespace=staging,owner: \"owner\" is not key=value");
  EXPECT_EQ(error("clusterapi:owner=a=b"),
            "--node-group-auto-discovery=clusterapi:owner=a=b: \"owner=a=b\" is not "
            "key=value");
  const std::string bad_key = error("clusterapi:bad key=x");
  EXPECT_TRUE(bad_key.starts_with("--node-group-auto-discovery=clusterapi:bad key=x: label key \"bad key\": "))
      << bad_key;
  Result<std::vector<AutoDiscoverySpec>> many = parse_auto_discovery({"clusterapi:namespace=a", "clusterapi:x"});
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error().message, "--node-group-auto-discovery=clusterapi:x: \"x\" is not key=value");
}

}  // namespace
}  // namespace scalewright::cloud::clusterapi
