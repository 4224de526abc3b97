// The observer turns what lists and watches deliver into the cluster state's observations: which pods enter the
// state when (kube-scheduler's verdict, their node Ready), how relists delete, and what the environment is told.
#include "cluster/observer.h"

#include <gtest/gtest.h>

#include <vector>

#include "cloud/aws/instance_types.h"

namespace scalewright::cluster {
namespace {

using nlohmann::json;

cloud::Catalog catalog() {
  std::vector<cloud::Zone> zones{{"us-east-1a", "use1-az1"}};
  cloud::InstanceHardware hw;
  hw.category = "m";
  hw.vcpu = 2;
  hw.memory_mib = 8192;
  hw.arch = "amd64";
  hw.max_pods = 29;
  cloud::InstanceType m5 = cloud::aws::make_instance_type("m5.large", hw, {}, "us-east-1");
  cloud::aws::add_offerings(m5, zones, 0.096, 0.035);
  return cloud::Catalog::from_instance_types("us-east-1", zones, {m5});
}

struct Told : ObserverListener {
  std::vector<std::string> lines;
  void node_registered(const std::string& node) override { lines.push_back("registered " + node); }
  void node_ready(const std::string& node) override { lines.push_back("ready " + node); }
  void pod_left(const std::string& node) override { lines.push_back("left " + node); }
  void object_unreadable(const std::string& message) override { lines.push_back("unreadable " + message); }
};

json node(const std::string& name, bool ready, std::vector<std::string> taints = {}) {
  json taint_list = json::array();
  for (const std::string& key : taints) taint_list.push_back({{"key", key}, {"effect", "NoSchedule"}});
  return {{"metadata",
           {{"name", name},
            {"labels",
             {{"karpenter.sh/nodepool", "default"},
              {"node.kubernetes.io/instance-type", "m5.large"},
              {"topology.kubernetes.io/zone", "us-east-1a"},
              {"karpenter.sh/capacity-type", "spot"}}}}},
          {"spec", {{"taints", taint_list}}},
          {"status",
           {{"capacity", {{"cpu", "2"}, {"memory", "8Gi"}, {"pods", "29"}}},
            {"allocatable", {{"cpu", "1930m"}, {"memory", "7Gi"}, {"pods", "29"}}},
            {"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
}

json pod(const std::string& name, const std::string& node_name = "", bool unschedulable = false,
         const std::string& owner_kind = "", const std::string& owner = "") {
  json metadata = {{"name", name}, {"namespace", "default"}};
  if (!owner.empty()) {
    metadata["ownerReferences"] = {{{"apiVersion", "apps/v1"}, {"kind", owner_kind}, {"name", owner},
                                    {"uid", "u"}, {"controller", true}}};
  }
  json spec = {{"containers", {{{"name", "app"}, {"image", "pause"},
                                {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}}}}}}}};
  if (!node_name.empty()) spec["nodeName"] = node_name;
  json status = {{"phase", "Pending"}};
  if (unschedulable) {
    status["conditions"] = {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}};
  }
  return {{"metadata", metadata}, {"spec", spec}, {"status", status}};
}

class Observer : public ::testing::Test {
 protected:
  state::ClusterState state;
  cloud::Catalog types = catalog();
  TimeBase time{std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000))};
  Told told;
  ClusterObserver observer{state, types, time, told};
  Instant now{Duration(5'000)};

  void see(const Resource& resource, Change change, const json& object) {
    observer.observe(resource, change, object, now);
  }
};

json scaled_object(std::int64_t generation, int max_replicas) {
  return {{"apiVersion", "keda.sh/v1alpha1"},
          {"kind", "ScaledObject"},
          {"metadata", {{"name", "web"}, {"namespace", "default"}, {"generation", generation}}},
          {"spec",
           {{"scaleTargetRef", {{"name", "web"}}},
            {"maxReplicaCount", max_replicas},
            {"triggers",
             {{{"type", "cron"},
               {"metadata",
                {{"timezone", "UTC"}, {"start", "0 8 * * *"}, {"end", "0 18 * * *"}, {"desiredReplicas", "3"}}}}}}}}};
}

// KEDA's ScaledObjects are Scalewright's to run: an edit of the spec (a new metadata.generation) is a new revision
// the workload autoscaler takes on; a delete, or a relist without it, takes it away.
TEST_F(Observer, ScaledObjectIsFollowedThroughEditsAndDeletes) {
  see(resources::scaledobjects, Change::Added, scaled_object(1, 10));
  ASSERT_EQ(state.scaled_objects().size(), 1u);
  EXPECT_EQ(state.scaled_objects()[0].max_replica_count, 10);
  const std::uint64_t first = state.scaled_object_revision("default/web");
  EXPECT_NE(first, 0u);
  // The same generation (a status or label change): nothing new.
  see(resources::scaledobjects, Change::Modified, scaled_object(1, 10));
  EXPECT_EQ(state.scaled_object_revision("default/web"), first);
  // maxReplicaCount edited to 20: generation 2 replaces it, in place.
  see(resources::scaledobjects, Change::Modified, scaled_object(2, 20));
  ASSERT_EQ(state.scaled_objects().size(), 1u);
  EXPECT_EQ(state.scaled_objects()[0].max_replica_count, 20);
  EXPECT_GT(state.scaled_object_revision("default/web"), first);
  see(resources::scaledobjects, Change::Deleted, scaled_object(2, 20));
  EXPECT_TRUE(state.scaled_objects().empty());
  EXPECT_EQ(state.scaled_object_revision("default/web"), 0u);

  // Deleted while the watch was down: the relist that no longer lists it takes it away.
  see(resources::scaledobjects, Change::Added, scaled_object(1, 10));
  observer.relist_started(resources::scaledobjects);
  observer.relist_done(resources::scaledobjects, now);
  EXPECT_TRUE(state.scaled_objects().empty());
}

// The pods of one ReplicaSet hold their containers and owner reference once between them; a pod of another
// template holds its own.
TEST_F(Observer, PodsOfOneTemplateShareTheirContainersAndOwnerReference) {
  see(resources::nodes, Change::Added, node("n1", true));
  see(resources::pods, Change::Added, pod("web-1", "n1", false, "ReplicaSet", "web-abc"));
  see(resources::pods, Change::Added, pod("web-2", "n1", false, "ReplicaSet", "web-abc"));
  json other = pod("api-1", "n1", false, "ReplicaSet", "api-def");
  other["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "250m";
  see(resources::pods, Change::Added, other);
  const Pod& web1 = *state.find_pod("default/web-1")->pod;
  const Pod& web2 = *state.find_pod("default/web-2")->pod;
  const Pod& api1 = *state.find_pod("default/api-1")->pod;
  EXPECT_TRUE(web1.spec.containers.shares_with(web2.spec.containers));
  EXPECT_TRUE(web1.meta.owner_references.shares_with(web2.meta.owner_references));
  EXPECT_FALSE(web1.spec.containers.shares_with(api1.spec.containers));
  EXPECT_FALSE(web1.meta.owner_references.shares_with(api1.meta.owner_references));
  EXPECT_EQ(api1.spec.containers[0].requests.cpu_milli(), 250);
  EXPECT_EQ(web2.spec.containers[0].requests.cpu_milli(), 500);
}

TEST_F(Observer, ReadyNodeJoinsTheSnapshotPricedFromTheCatalog) {
  see(resources::nodes, Change::Added, node("n1", true));
  const state::NodeRecord* record = state.find_node("n1");
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->phase, state::NodePhase::Ready);
  EXPECT_EQ(record->nodepool, "default");
  EXPECT_EQ(record->capacity_type, "spot");
  EXPECT_DOUBLE_EQ(record->price_per_hour, 0.035);
  EXPECT_EQ(state.snapshot().node(state.snapshot().find_node("n1")).allocatable.cpu_milli(), 1930);
  EXPECT_EQ(told.lines, (std::vector<std::string>{"registered n1", "ready n1"}));
}

// A node group's node, found on the cluster (launched by an earlier leader): its group is its label's.
// What node repair reads of a Ready node: each condition's status, since its kubelet-written lastTransitionTime on the
// engine's clock (a restarted controller keeps it), or since the change was seen when the kubelet wrote none.
TEST_F(Observer, NodeConditionsAreFollowedWithWhenTheyLastChanged) {
  see(resources::nodes, Change::Added, node("n1", true));
  EXPECT_EQ(state.find_node("n1")->condition_since.at("Ready"), now);
  json unknown = node("n1", true);
  // 1,800,000,020: 20 s after the TimeBase's start.
  unknown["status"]["conditions"] = {
      {{"type", "Ready"}, {"status", "Unknown"}, {"lastTransitionTime", "2027-01-15T08:00:20Z"}}};
  now = Instant(Duration(60'000));
  see(resources::nodes, Change::Modified, unknown);
  const state::NodeRecord& record = *state.find_node("n1");
  EXPECT_EQ(record.node.conditions.at(0).status, "Unknown");
  EXPECT_EQ(record.condition_since.at("Ready"), Instant(Duration(20'000)));
  json pressure = unknown;
  pressure["status"]["conditions"].push_back({{"type", "DiskPressure"}, {"status", "True"}});
  now = Instant(Duration(90'000));
  see(resources::nodes, Change::Modified, pressure);
  EXPECT_EQ(record.condition_since.at("Ready"), Instant(Duration(20'000)));  // unchanged
  EXPECT_EQ(record.condition_since.at("DiskPressure"), Instant(Duration(90'000)));
}

TEST_F(Observer, NodeGroupNodeIsKnownByItsLabel) {
  json group_node = node("m5-large-abc", true);
  group_node["metadata"]["labels"].erase("karpenter.sh/nodepool");
  group_node["metadata"]["labels"]["scalewright.dev/node-group"] = "m5.large";
  see(resources::nodes, Change::Added, group_node);
  see(resources::nodes, Change::Added, node("n1", true));
  const state::NodeRecord* found = state.find_node("m5-large-abc");
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->node_group, "m5.large");
  EXPECT_EQ(found->nodepool, "");
  EXPECT_EQ(found->phase, state::NodePhase::Ready);
  EXPECT_EQ(state.find_node("n1")->node_group, "");
}

TEST_F(Observer, NodeWaitsForItsStartupAndNotReadyTaintsToGo) {
  see(resources::nodes, Change::Added, node("n1", true, {"node.kubernetes.io/not-ready"}));
  EXPECT_EQ(state.find_node("n1")->phase, state::NodePhase::Launching);
  see(resources::nodes, Change::Modified, node("n1", true, {"karpenter.sh/unregistered"}));
  EXPECT_EQ(state.find_node("n1")->phase, state::NodePhase::Launching);
  see(resources::nodes, Change::Modified, node("n1", true));
  EXPECT_EQ(state.find_node("n1")->phase, state::NodePhase::Ready);
  EXPECT_EQ(told.lines, (std::vector<std::string>{"registered n1", "ready n1"}));
}

// A Node registered without a status yet. kube-apiserver gives it the not-ready taint; kube-controller-manager takes
// that taint off again while the node reports no Ready condition at all (it taints by the condition it sees). The
// node is not Ready until its kubelet says so: taken as Ready at that moment, it joined the snapshot with nothing
// allocatable, and a group scaled up for pods that fit on it (seen in the end-to-end test, one node too many).
TEST_F(Observer, ANodeThatHasReportedNoReadyConditionYetIsNotReady) {
  json registered = node("n1", true);
  registered.erase("status");
  see(resources::nodes, Change::Added, registered);
  EXPECT_EQ(state.find_node("n1")->phase, state::NodePhase::Launching);
  see(resources::nodes, Change::Modified, node("n1", true));
  EXPECT_EQ(state.find_node("n1")->phase, state::NodePhase::Ready);
  EXPECT_EQ(state.snapshot().node(state.snapshot().find_node("n1")).allocatable.cpu_milli(), 1930);
  EXPECT_EQ(told.lines, (std::vector<std::string>{"registered n1", "ready n1"}));
}

TEST_F(Observer, PendingPodEntersTheStateOnlyOnceTheSchedulerFoundItUnschedulable) {
  see(resources::pods, Change::Added, pod("web-1"));
  EXPECT_EQ(state.find_pod("default/web-1"), nullptr);
  EXPECT_EQ(observer.held_pods(), 1u);
  see(resources::pods, Change::Modified, pod("web-1", "", /*unschedulable=*/true));
  ASSERT_NE(state.find_pod("default/web-1"), nullptr);
  EXPECT_EQ(state.needing_capacity(), 1u);
  EXPECT_EQ(observer.held_pods(), 0u);
}

TEST_F(Observer, PodBoundToANodeNotReadyYetWaitsForIt) {
  see(resources::pods, Change::Added, pod("web-1", "n2"));
  EXPECT_EQ(state.find_pod("default/web-1"), nullptr);
  see(resources::nodes, Change::Added, node("n2", true));
  const state::PodRecord* record = state.find_pod("default/web-1");
  ASSERT_NE(record, nullptr);
  EXPECT_TRUE(record->bound_at.has_value());
  EXPECT_EQ(state.snapshot().node(state.snapshot().find_node("n2")).requested.cpu_milli(), 500);
  EXPECT_EQ(state.find_node("n2")->busy, 1);
}

TEST_F(Observer, UnschedulablePodThatGetsBoundMovesOntoItsNode) {
  see(resources::nodes, Change::Added, node("n1", true));
  see(resources::pods, Change::Added, pod("web-1", "", true));
  see(resources::pods, Change::Modified, pod("web-1", "n1"));
  EXPECT_TRUE(state.find_pod("default/web-1")->bound_at.has_value());
  EXPECT_EQ(state.unbound().size(), 0u);
  EXPECT_EQ(state.needing_capacity(), 0u);
}

// A PodDisruptionBudget counts healthy pods by their Ready condition, which the kubelet reports after the pod was
// first seen: the state, and the snapshot the disruption checks read, follow it.
TEST_F(Observer, ReadinessFollowsTheKubeletsReports) {
  see(resources::nodes, Change::Added, node("n1", true));
  json starting = pod("web-1", "n1");
  starting["status"]["phase"] = "Running";
  starting["status"]["conditions"] = {{{"type", "Ready"}, {"status", "False"}, {"reason", "ContainersNotReady"}}};
  see(resources::pods, Change::Added, starting);
  json ready = starting;
  ready["status"]["conditions"] = {{{"type", "Ready"}, {"status", "True"}}};
  see(resources::pods, Change::Modified, ready);

  const scheduling::NodeInfo& n1 = state.snapshot().node(state.snapshot().find_node("n1"));
  ASSERT_EQ(n1.pods.size(), 1u);
  const PodStatus& seen = n1.pods[0].pod->status;
  ASSERT_EQ(seen.conditions.size(), 1u);
  EXPECT_EQ(seen.conditions[0].status, "True");
  EXPECT_EQ(seen.phase, PodPhase::Running);

  see(resources::pods, Change::Modified, starting);  // a failing readiness probe
  EXPECT_EQ(n1.pods[0].pod->status.conditions[0].status, "False");
}

TEST_F(Observer, PodOfAReplicaSetBelongsToItsDeployment) {
  json rs = {{"metadata",
              {{"name", "web-5d8f"},
               {"namespace", "default"},
               {"ownerReferences",
                {{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", "web"}, {"uid", "d"},
                  {"controller", true}}}}}},
             {"spec",
              {{"replicas", 1},
               {"selector", {{"matchLabels", {{"app", "web"}}}}},
               {"template", {{"metadata", {{"labels", {{"app", "web"}}}}},
                             {"spec", {{"containers", {{{"name", "app"}, {"image", "pause"}}}}}}}}}}};
  see(resources::replicasets, Change::Added, rs);
  see(resources::pods, Change::Added, pod("web-5d8f-x", "", true, "ReplicaSet", "web-5d8f"));
  EXPECT_EQ(state.find_pod("default/web-5d8f-x")->workload.string(), "Deployment/default/web");
  EXPECT_TRUE(state.workloads().empty());  // the ReplicaSet is not a workload of its own
}

TEST_F(Observer, DeletionTimestampMarksThePodTerminating) {
  see(resources::nodes, Change::Added, node("n1", true));
  see(resources::pods, Change::Added, pod("web-1", "n1"));
  json deleting = pod("web-1", "n1");
  // 1,800,000,030: 30 s after the TimeBase's start.
  deleting["metadata"]["deletionTimestamp"] = "2027-01-15T08:00:30Z";
  see(resources::pods, Change::Modified, deleting);
  const state::PodRecord* record = state.find_pod("default/web-1");
  ASSERT_TRUE(record->terminating_until.has_value());
  EXPECT_EQ(*record->terminating_until, Instant(Duration(30'000)));
}

TEST_F(Observer, RelistDeletesWhatItNoLongerHolds) {
  see(resources::nodes, Change::Added, node("n1", true));
  see(resources::pods, Change::Added, pod("web-1", "n1"));
  see(resources::pods, Change::Added, pod("web-2", "n1"));
  observer.relist_started(resources::pods);
  see(resources::pods, Change::Listed, pod("web-2", "n1"));
  observer.relist_done(resources::pods, now);
  EXPECT_EQ(state.find_pod("default/web-1"), nullptr);
  EXPECT_NE(state.find_pod("default/web-2"), nullptr);
  EXPECT_EQ(told.lines.back(), "left n1");
  EXPECT_EQ(state.find_node("n1")->busy, 1);

  // A node listed no more is gone; a NodeClaim's node that never had a Node object stays in flight.
  observer.relist_started(resources::nodes);
  observer.relist_done(resources::nodes, now);
  EXPECT_EQ(state.find_node("n1")->phase, state::NodePhase::Terminated);
}

TEST_F(Observer, NodeClaimOfAnEarlierRunIsInFlightUntilItsNodeRegisters) {
  // Created by an earlier leader at 07:50:00, 10 min before this run's start (08:00:00, time 0 of the state).
  json claim = {{"metadata", {{"name", "default-abcde"}, {"labels", {{"karpenter.sh/nodepool", "default"}}},
                              {"annotations", {{"karpenter.sh/nodepool-hash", "0123456789abcdef"},
                                               {"karpenter.sh/nodepool-hash-version", "scalewright-v1"}}},
                              {"finalizers", {"karpenter.sh/termination"}},
                              {"creationTimestamp", "2027-01-15T07:50:00Z"}}},
                {"spec",
                 {{"requirements",
                   {{{"key", "node.kubernetes.io/instance-type"}, {"operator", "In"}, {"values", {"m5.large"}}},
                    {{"key", "topology.kubernetes.io/zone"}, {"operator", "In"}, {"values", {"us-east-1a"}}},
                    {{"key", "karpenter.sh/capacity-type"}, {"operator", "In"}, {"values", {"on-demand"}}}}}}},
                {"status", {{"providerID", "kwok://default-abcde"}}}};
  see(resources::nodeclaims, Change::Added, claim);
  const state::NodeRecord* record = state.find_node("default-abcde");
  ASSERT_NE(record, nullptr);
  EXPECT_TRUE(state.in_flight("default-abcde"));
  EXPECT_DOUBLE_EQ(record->price_per_hour, 0.096);
  EXPECT_EQ(record->node.capacity.cpu_milli(), 2000);
  EXPECT_TRUE(observer.nodeclaims().at("default-abcde").finalizer);
  EXPECT_FALSE(observer.nodeclaims().at("default-abcde").deleting);
  // Launched when it was created: its registration TTL has 5 min left, not 15.
  EXPECT_EQ(record->launched_at, Instant(Duration(-600'000)));
  // The template hash it was launched with, which drift compares with its NodePool's now.
  EXPECT_EQ(record->nodepool_hash, "0123456789abcdef");
  EXPECT_EQ(record->nodepool_hash_version, "scalewright-v1");
}

TEST_F(Observer, UnreadableObjectIsLeftOutAndNamed) {
  json bad = pod("web-1", "", true);
  bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots";
  see(resources::pods, Change::Added, bad);
  EXPECT_EQ(state.find_pod("default/web-1"), nullptr);
  ASSERT_EQ(told.lines.size(), 1u);
  EXPECT_NE(told.lines[0].find("Pod/default/web-1 from the API server"), std::string::npos) << told.lines[0];
  EXPECT_NE(told.lines[0].find("spec.containers[0].resources.requests.cpu"), std::string::npos) << told.lines[0];
}

TEST_F(Observer, CompletedPodLeavesItsNode) {
  see(resources::nodes, Change::Added, node("n1", true));
  see(resources::pods, Change::Added, pod("job-1", "n1"));
  json done = pod("job-1", "n1");
  done["status"]["phase"] = "Succeeded";
  see(resources::pods, Change::Modified, done);
  EXPECT_EQ(state.find_pod("default/job-1"), nullptr);
  EXPECT_EQ(state.find_node("n1")->busy, 0);
}

// managedFields, container statuses and conditions other than Ready are read by nothing: the state does not keep
// them (at 150,000 pods they were a tenth of its memory and half the decoding time), while kube-scheduler's
// verdict (PodScheduled) is still read from the object and Ready still tells a PodDisruptionBudget the pod's health.
TEST_F(Observer, PodKeepsOnlyWhatIsReadOfItsStatusAndNoManagedFields) {
  see(resources::nodes, Change::Added, node("n1", true));
  json running = pod("web-1", "n1");
  running["metadata"]["managedFields"] = {{{"manager", "kubelet"}, {"operation", "Update"},
                                           {"fieldsV1", {{"f:status", {{"f:phase", json::object()}}}}}}};
  running["status"]["phase"] = "Running";
  running["status"]["conditions"] = {{{"type", "Initialized"}, {"status", "True"}},
                                     {{"type", "Ready"}, {"status", "False"}, {"reason", "ContainersNotReady"}},
                                     {{"type", "PodScheduled"}, {"status", "True"}}};
  running["status"]["containerStatuses"] = {{{"name", "app"}, {"ready", false}, {"restartCount", 3}}};
  see(resources::pods, Change::Added, running);
  const state::PodRecord* record = state.find_pod("default/web-1");
  ASSERT_NE(record, nullptr);
  ASSERT_EQ(record->pod->status.conditions.size(), 1u);
  EXPECT_EQ(record->pod->status.conditions[0].type, "Ready");
  EXPECT_EQ(record->pod->status.conditions[0].status, "False");
  EXPECT_EQ(record->pod->status.phase, PodPhase::Running);

  json pending = pod("web-2", "", /*unschedulable=*/true);
  pending["metadata"]["managedFields"] = running["metadata"]["managedFields"];
  see(resources::pods, Change::Added, pending);
  ASSERT_NE(state.find_pod("default/web-2"), nullptr);
  EXPECT_EQ(state.needing_capacity(), 1u);
  EXPECT_TRUE(state.find_pod("default/web-2")->pod->status.conditions.empty());
}

// The API server omits a null selector and keeps an empty one: policy/v1 reads the first as selecting no pod and the
// second as selecting every pod of the namespace, and so does the state.
TEST_F(Observer, PdbWithoutSelectorSelectsNoPodAndOneWithAnEmptySelectorEveryPodOfItsNamespace) {
  see(resources::pdbs, Change::Added,
      {{"metadata", {{"name", "none"}, {"namespace", "default"}}},
       {"spec", {{"minAvailable", 1}, {"unhealthyPodEvictionPolicy", "AlwaysAllow"}}}});
  see(resources::pdbs, Change::Added,
      {{"metadata", {{"name", "all"}, {"namespace", "default"}}},
       {"spec", {{"maxUnavailable", 1}, {"selector", json::object()}}}});
  ASSERT_EQ(state.pdbs().size(), 2u);
  const PodDisruptionBudget& none = state.pdbs()[0];
  const PodDisruptionBudget& all = state.pdbs()[1];
  EXPECT_EQ(none.meta.name, "none");
  EXPECT_FALSE(none.selector.has_value());
  EXPECT_EQ(none.unhealthy_pod_eviction_policy, UnhealthyPodEvictionPolicy::AlwaysAllow);
  ASSERT_TRUE(all.selector.has_value());
  EXPECT_TRUE(all.selector->empty());
  EXPECT_EQ(all.unhealthy_pod_eviction_policy, UnhealthyPodEvictionPolicy::IfHealthyBudget);
  Pod web;
  web.meta.namespace_ = "default";
  web.meta.name = "web-1";
  EXPECT_FALSE(none.selects(web));
  EXPECT_TRUE(all.selects(web));
}

// --- a NodeClaim's Node registered under a name of its own (a cloud's hostname), linked by spec.providerID ---

constexpr const char* kHost = "ip-10-0-1-2.us-east-1.compute.internal";

json hostname_node(const std::string& name, const std::string& provider_id, bool registered) {
  json n = node(name, true, registered ? std::vector<std::string>{} : std::vector<std::string>{"karpenter.sh/unregistered"});
  n["spec"]["providerID"] = provider_id;
  n["metadata"]["labels"]["kubernetes.io/hostname"] = name;
  return n;
}

json nodeclaim(const std::string& name, const std::string& provider_id, const std::string& node_name = "") {
  json status = json::object();
  if (!provider_id.empty()) status["providerID"] = provider_id;
  if (!node_name.empty()) status["nodeName"] = node_name;
  return {{"metadata", {{"name", name}, {"labels", {{"karpenter.sh/nodepool", "default"}, {"team", "a"}}},
                        {"finalizers", {"karpenter.sh/termination"}}}},
          {"spec",
           {{"requirements",
             {{{"key", "node.kubernetes.io/instance-type"}, {"operator", "In"}, {"values", {"m5.large"}}},
              {{"key", "topology.kubernetes.io/zone"}, {"operator", "In"}, {"values", {"us-east-1a"}}}}}}},
          {"status", status}};
}

// Karpenter's registration: the Node whose spec.providerID is the NodeClaim's status.providerID is its node, whatever
// its name. The state keeps it under the NodeClaim's name, with the NodeClaim's labels (registration syncs them onto
// the Node) and the Node's hostname; a pod bound to the Node, even seen before it, is bound to that node.
TEST_F(Observer, ANodeRegisteredUnderAHostnameIsItsNodeClaimsByProviderId) {
  see(resources::nodeclaims, Change::Added, nodeclaim("default-abcde", "kwok://default-abcde"));
  see(resources::pods, Change::Added, pod("web-1", kHost));  // kube-scheduler bound it before the Node was seen
  EXPECT_EQ(observer.held_pods(), 1u);
  json registering = hostname_node(kHost, "kwok://default-abcde", /*registered=*/false);
  registering["metadata"]["labels"].erase("karpenter.sh/nodepool");  // synced by registration, not there yet
  see(resources::nodes, Change::Added, registering);
  EXPECT_EQ(state.find_node(kHost), nullptr);
  const state::NodeRecord* record = state.find_node("default-abcde");
  ASSERT_NE(record, nullptr);
  EXPECT_EQ(record->phase, state::NodePhase::Launching);
  EXPECT_EQ(observer.node_names().object_of("default-abcde"), kHost);
  EXPECT_EQ(observer.node_names().record_of(kHost), "default-abcde");
  EXPECT_EQ(told.lines, (std::vector<std::string>{"registered default-abcde"}));
  const Labels& labels = record->node.meta.labels;
  EXPECT_EQ(labels.find(Symbol("team"))->string(), "a");
  EXPECT_EQ(labels.find(Symbol("karpenter.sh/nodepool"))->string(), "default");
  EXPECT_EQ(labels.find(Symbol("kubernetes.io/hostname"))->string(), kHost);

  see(resources::nodes, Change::Modified, hostname_node(kHost, "kwok://default-abcde", /*registered=*/true));
  EXPECT_EQ(record->phase, state::NodePhase::Ready);
  EXPECT_EQ(record->name(), "default-abcde");
  EXPECT_EQ(observer.held_pods(), 0u);
  see(resources::pods, Change::Added, pod("web-2", kHost));
  const scheduling::NodeId id = state.snapshot().find_node("default-abcde");
  ASSERT_NE(id, scheduling::kNoNode);
  EXPECT_EQ(state.snapshot().node(id).requested.cpu_milli(), 1000);  // web-1 and web-2, 500m each
  EXPECT_EQ(record->busy, 2);
  EXPECT_EQ(observer.node_names().in_text("node default-abcde of default drained."),
            "node ip-10-0-1-2.us-east-1.compute.internal of default drained.");

  see(resources::pods, Change::Deleted, pod("web-2", kHost));
  EXPECT_EQ(told.lines.back(), "left default-abcde");
  see(resources::nodes, Change::Deleted, hostname_node(kHost, "kwok://default-abcde", true));
  EXPECT_EQ(record->phase, state::NodePhase::Terminated);
}

// A Node with Karpenter's startup taint is a NodeClaim's: seen before its NodeClaim's status names its providerID, it
// waits (taken for a node of its own, its capacity would count twice); a launch this controller made is known by
// its answer, before the NodeClaim's status is written.
TEST_F(Observer, ANodeThatRegistersBeforeItsNodeClaimIsKnownWaitsForIt) {
  see(resources::nodeclaims, Change::Added, nodeclaim("default-abcde", ""));  // created, not launched yet
  see(resources::nodes, Change::Added, hostname_node(kHost, "kwok://default-abcde", false));
  EXPECT_EQ(observer.waiting_nodes(), 1u);
  EXPECT_EQ(state.find_node(kHost), nullptr);
  EXPECT_TRUE(told.lines.empty());
  see(resources::nodeclaims, Change::Modified, nodeclaim("default-abcde", "kwok://default-abcde"));
  EXPECT_EQ(observer.waiting_nodes(), 0u);
  EXPECT_EQ(observer.node_names().object_of("default-abcde"), kHost);
  EXPECT_EQ(told.lines, (std::vector<std::string>{"registered default-abcde"}));

  // Launched here: the state holds the launch's providerID for the NodeClaim.
  state::NodeRecord launched;
  launched.node.meta.name = "default-fghij";
  launched.nodepool = "default";
  launched.node.provider_id = "kwok://default-fghij";
  state.node_added(std::move(launched));
  const std::string other = "ip-10-0-3-4.us-east-1.compute.internal";
  see(resources::nodes, Change::Added, hostname_node(other, "kwok://default-fghij", false));
  EXPECT_EQ(observer.node_names().record_of(other), "default-fghij");
  EXPECT_EQ(state.find_node(other), nullptr);
  EXPECT_EQ(told.lines.back(), "registered default-fghij");
}

// Cluster API's Machines join untainted: a new Node with a providerID waits while a launch is in flight (a
// NodeClaim without a providerID yet), becomes that NodeClaim's when it says the providerID, and is a node of its
// own once no launch is in flight and none named it.
TEST_F(Observer, AnUntaintedNodeWaitsForTheLaunchesInFlightBeforeItIsANodeOfItsOwn) {
  see(resources::nodeclaims, Change::Added, nodeclaim("pool-a", ""));
  see(resources::nodeclaims, Change::Added, nodeclaim("pool-b", ""));
  see(resources::nodes, Change::Added, hostname_node("machine-1", "kwok://machine-1", /*registered=*/true));
  see(resources::nodes, Change::Added, hostname_node("machine-9", "kwok://machine-9", /*registered=*/true));
  EXPECT_EQ(observer.waiting_nodes(), 2u);
  EXPECT_EQ(state.find_node("machine-1"), nullptr);
  // pool-a's launch answers with machine-1: that Node is its node; machine-9 waits on for pool-b.
  see(resources::nodeclaims, Change::Modified, nodeclaim("pool-a", "kwok://machine-1"));
  EXPECT_EQ(observer.node_names().object_of("pool-a"), "machine-1");
  EXPECT_EQ(observer.waiting_nodes(), 1u);
  EXPECT_EQ(state.find_node("machine-9"), nullptr);
  // pool-b's launch failed and its NodeClaim went: machine-9 was nobody's launch.
  see(resources::nodeclaims, Change::Deleted, nodeclaim("pool-b", ""));
  EXPECT_EQ(observer.waiting_nodes(), 0u);
  ASSERT_NE(state.find_node("machine-9"), nullptr);
  EXPECT_EQ(observer.node_names().record_of("machine-9"), "machine-9");
  // With no launch in flight, a new Node is a node of its own at once.
  see(resources::nodes, Change::Added, hostname_node("machine-10", "kwok://machine-10", /*registered=*/true));
  EXPECT_NE(state.find_node("machine-10"), nullptr);
}

// After a restart the links are found again from the objects: a NodeClaim's status.nodeName (and providerID) names
// its Node, listed after the NodeClaims. A Node that no NodeClaim names is a node of its own, as before.
TEST_F(Observer, ARestartFindsEachNodeClaimsNodeAgainAndLeavesOtherNodesTheirOwn) {
  see(resources::nodeclaims, Change::Listed, nodeclaim("default-abcde", "kwok://default-abcde", kHost));
  json worker = hostname_node("worker-1", "aws:///us-east-1a/i-0123456789abcdef0", true);
  worker["metadata"]["labels"].erase("karpenter.sh/nodepool");
  see(resources::nodes, Change::Listed, worker);
  see(resources::nodes, Change::Listed, hostname_node(kHost, "kwok://default-abcde", true));
  see(resources::pods, Change::Listed, pod("web-1", kHost));
  see(resources::pods, Change::Listed, pod("web-2", "worker-1"));

  ASSERT_NE(state.find_node("default-abcde"), nullptr);
  EXPECT_EQ(state.find_node("default-abcde")->phase, state::NodePhase::Ready);
  EXPECT_EQ(state.find_node(kHost), nullptr);
  EXPECT_EQ(state.find_node("default-abcde")->busy, 1);
  const state::NodeRecord* own = state.find_node("worker-1");
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->nodepool, "");
  EXPECT_EQ(own->busy, 1);
  EXPECT_FALSE(observer.node_names().linked("worker-1"));
  EXPECT_EQ(state.nodes().size(), 2u);

  // The Node listed no more is gone, under the NodeClaim's name; the NodeClaim's deletion then ends the link.
  observer.relist_started(resources::nodes);
  see(resources::nodes, Change::Listed, worker);
  observer.relist_done(resources::nodes, now);
  EXPECT_EQ(state.find_node("default-abcde")->phase, state::NodePhase::Terminated);
  EXPECT_TRUE(observer.node_names().linked("default-abcde"));
  see(resources::nodeclaims, Change::Deleted, nodeclaim("default-abcde", "kwok://default-abcde", kHost));
  EXPECT_FALSE(observer.node_names().linked("default-abcde"));
}

}  // namespace
}  // namespace scalewright::cluster
