// The harness that plays Cluster API's controllers (capi_controllers.h), on a real kube-apiserver v1.26.1 with
// Cluster API's real CRDs: v1.10.10 (v1beta1) and v1.14.0 (v1beta2). Each expectation is what Cluster API's own
// controllers leave on the same objects (research capi-azure.md §1.4, §1.7, §3.3), so that the end-to-end tests of
// the clusterapi provider can trust what the harness does.
#include "capi_controllers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "capi_fixture.h"

namespace scalewright::cloud::clusterapi::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

// Waits for `done`, polling; the limit is generous, as nothing here is timed.
bool eventually(const std::function<bool()>& done, seconds limit = seconds(30)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

class CapiControllersOnRealApiServer : public CapiOnRealApiServer {
 protected:
  // Cluster API's release `release` serving `version` (its Machine CRD too), and a namespace of the test's own: each
  // harness plays only its test's namespace.
  void set_up(const std::string& release, const std::string& version) {
    use_release(release, version);
    if (HasFatalFailure()) return;
    api_.emplace(client(config_));
    version_ = version;
    ns_ = unique_name("capi-harness");
    create_namespace(*api_, ns_);
  }

  std::string group_path(const std::string& resource) const {
    return "/apis/cluster.x-k8s.io/" + version_ + "/namespaces/" + ns_ + "/" + resource;
  }
  json get(const std::string& path) const {
    auto got = api_->get(path);
    return got ? *got : json();
  }
  bool not_found(const std::string& path) const {
    auto got = api_->get(path);
    return !got && got.error().is_not_found();
  }
  std::vector<json> list(const std::string& resource) const {
    auto listed = api_->list(group_path(resource));
    return listed ? listed->items : std::vector<json>{};
  }
  void scale(const std::string& md, int replicas) const {
    auto patched =
        api_->merge_patch(group_path("machinedeployments/" + md + "/scale"), {{"spec", {{"replicas", replicas}}}});
    ASSERT_TRUE(patched.ok()) << patched.error().describe();
  }
  // As Cluster Autoscaler marks the Machine of the node it removes: GET, add the annotation, PUT.
  void annotate_for_deletion(const std::string& machine) const {
    json object = get(group_path("machines/" + machine));
    ASSERT_FALSE(object.is_null());
    object["metadata"]["annotations"]["cluster.x-k8s.io/delete-machine"] = "2025-01-01 00:00:00 +0000 UTC";
    auto updated = api_->update(group_path("machines/" + machine), object);
    ASSERT_TRUE(updated.ok()) << updated.error().describe();
  }

  // The Machine is provisioned as Cluster API leaves it: providerID kwok://<name>, a Node of its name that points
  // back at it, status.nodeRef naming that Node, phase Running.
  bool running(const std::string& machine) const {
    json m = get(group_path("machines/" + machine));
    json node = get("/api/v1/nodes/" + machine);
    if (m.is_null() || node.is_null()) return false;
    return m["spec"].value("providerID", "") == "kwok://" + machine &&
           m.value("status", json::object()).value("phase", "") == "Running" &&
           m["status"].value("nodeRef", json::object()).value("name", "") == machine && ready(node);
  }
  static bool ready(const json& node) {
    for (const json& condition : node.value("status", json::object()).value("conditions", json::array())) {
      if (condition.value("type", "") == "Ready") return condition.value("status", "") == "True";
    }
    return false;
  }
  bool all_running(const CapiControllers& harness, const std::string& md, std::size_t count) const {
    std::vector<std::string> machines = harness.machines(md);
    if (machines.size() != count) return false;
    return std::all_of(machines.begin(), machines.end(), [&](const std::string& m) {
      return running(m) && harness.node_of(m) == m;
    });
  }

  CapiControllersOptions options() const {
    CapiControllersOptions out;
    out.namespace_ = ns_;
    out.poll_interval = std::chrono::milliseconds(250);
    return out;
  }

  // Two Machines, then three through /scale, then the annotated one of the first two deleted when /scale lowers
  // the replicas to two: the newest would go without the annotation, so only the annotation picks it.
  void scale_up_then_delete_the_annotated_machine() {
    create_scalable(*api_, version_, ns_,
                    deployment("md-0", {{"capacity.cluster-autoscaler.kubernetes.io/cpu", "4"},
                                        {"capacity.cluster-autoscaler.kubernetes.io/memory", "8Gi"}})
                        .with_replicas(2));
    ASSERT_FALSE(HasFatalFailure());
    json md = get(group_path("machinedeployments/md-0"));
    CapiControllersOptions opts = options();
    opts.instance_type["md-0"] = "kwok-c4-m8";
    CapiControllers harness(*api_, *api_, version_, opts);
    harness.start();

    ASSERT_TRUE(eventually([&] { return all_running(harness, "md-0", 2); }));
    const std::vector<std::string> first = harness.machines("md-0");

    // One MachineSet, owned by the MachineDeployment, following its replicas.
    std::vector<json> sets = list("machinesets");
    ASSERT_EQ(sets.size(), 1u);
    json& ms = sets[0];
    const std::string ms_name = ms["metadata"]["name"];
    EXPECT_TRUE(ms_name.starts_with("md-0-")) << ms_name;
    EXPECT_EQ(ms["metadata"]["labels"]["cluster.x-k8s.io/deployment-name"], "md-0");
    EXPECT_EQ(ms["metadata"]["annotations"]["machinedeployment.clusters.x-k8s.io/revision"], "1");
    ASSERT_EQ(ms["metadata"]["ownerReferences"].size(), 1u);
    EXPECT_EQ(ms["metadata"]["ownerReferences"][0]["kind"], "MachineDeployment");
    EXPECT_EQ(ms["metadata"]["ownerReferences"][0]["uid"], md["metadata"]["uid"]);
    EXPECT_EQ(ms["metadata"]["ownerReferences"][0]["controller"], true);
    EXPECT_EQ(ms["spec"]["replicas"], 2);

    // Each Machine: named after its MachineSet, labelled, owned by it; each Node annotated as Cluster API's Machine
    // controller annotates it, with the group's capacity.
    for (const std::string& name : first) {
      EXPECT_TRUE(name.starts_with(ms_name + "-")) << name;
      EXPECT_EQ(name.size(), ms_name.size() + 6) << name;
      json machine = get(group_path("machines/" + name));
      EXPECT_EQ(machine["metadata"]["labels"]["cluster.x-k8s.io/set-name"], ms_name);
      EXPECT_EQ(machine["metadata"]["labels"]["cluster.x-k8s.io/deployment-name"], "md-0");
      EXPECT_EQ(machine["metadata"]["labels"]["pool"], "md-0");  // the template's: the MD's selector matches it
      EXPECT_EQ(machine["metadata"]["ownerReferences"][0]["uid"], ms["metadata"]["uid"]);
      EXPECT_EQ(machine["spec"]["clusterName"], "purple");
      if (version_ == "v1beta1") {
        EXPECT_EQ(machine["status"]["nodeRef"]["kind"], "Node");
        EXPECT_EQ(machine["status"]["nodeRef"]["apiVersion"], "v1");
      } else {
        EXPECT_EQ(machine["status"]["nodeRef"], json({{"name", name}}));
      }
      json node = get("/api/v1/nodes/" + name);
      EXPECT_EQ(node["spec"]["providerID"], "kwok://" + name);
      json& annotations = node["metadata"]["annotations"];
      EXPECT_EQ(annotations["cluster.x-k8s.io/machine"], name);
      EXPECT_EQ(annotations["cluster.x-k8s.io/cluster-namespace"], ns_);
      EXPECT_EQ(annotations["cluster.x-k8s.io/cluster-name"], "purple");
      EXPECT_EQ(annotations["cluster.x-k8s.io/owner-kind"], "MachineSet");
      EXPECT_EQ(annotations["cluster.x-k8s.io/owner-name"], ms_name);
      json& labels = node["metadata"]["labels"];
      EXPECT_EQ(labels["kubernetes.io/hostname"], name);
      EXPECT_EQ(labels["kubernetes.io/os"], "linux");
      EXPECT_EQ(labels["kubernetes.io/arch"], "amd64");
      EXPECT_EQ(labels["node.kubernetes.io/instance-type"], "kwok-c4-m8");
      EXPECT_EQ(node["status"]["capacity"], json({{"cpu", "4"}, {"memory", "8Gi"}, {"pods", "110"}}));
      EXPECT_EQ(node["status"]["allocatable"], node["status"]["capacity"]);
    }
    EXPECT_TRUE(eventually([&] {
      const json status = get(group_path("machinedeployments/md-0")).value("status", json::object());
      return status.value("replicas", -1) == 2 && status.value("readyReplicas", -1) == 2 &&
             status.value("selector", "") == "pool=md-0";
    }));

    // Up to 3 through the scale subresource.
    scale("md-0", 3);
    ASSERT_TRUE(eventually([&] { return all_running(harness, "md-0", 3); }));
    EXPECT_TRUE(harness.deleted_machines().empty());

    // Down to 2, the second of the first two Machines annotated first.
    const std::string doomed = first[1];
    const std::string kept = first[0];
    annotate_for_deletion(doomed);
    scale("md-0", 2);
    ASSERT_TRUE(eventually([&] { return harness.machines("md-0").size() == 2; }));
    EXPECT_EQ(harness.deleted_machines(), std::vector<std::string>{doomed});
    std::vector<std::string> left = harness.machines("md-0");
    EXPECT_TRUE(std::find(left.begin(), left.end(), kept) != left.end());
    EXPECT_TRUE(std::find(left.begin(), left.end(), doomed) == left.end());
    EXPECT_EQ(harness.node_of(doomed), "");
    EXPECT_TRUE(eventually([&] { return not_found("/api/v1/nodes/" + doomed); }));
    EXPECT_TRUE(not_found(group_path("machines/" + doomed)));
    for (const std::string& name : left) EXPECT_TRUE(running(name)) << name;
    EXPECT_TRUE(eventually([&] {
      return get(group_path("machinedeployments/md-0")).value("status", json::object()).value("replicas", -1) == 2;
    }));
    harness.stop();
  }

  std::optional<kube::ApiClient> api_;
  std::string version_;
  std::string ns_;
};

// --- v1.10.10: v1beta1 (first, so that the suite switches releases once) -----------------------------------------

TEST_F(CapiControllersOnRealApiServer, V1beta1ScaleUpAndTheAnnotatedMachineIsTheOneDeleted) {
  set_up("v1.10.10", "v1beta1");
  ASSERT_FALSE(HasFatalFailure());
  scale_up_then_delete_the_annotated_machine();
}

TEST_F(CapiControllersOnRealApiServer, V1beta1FailedMachinesCarryTheirFailureInStatus) {
  set_up("v1.10.10", "v1beta1");
  ASSERT_FALSE(HasFatalFailure());
  create_scalable(*api_, version_, ns_, deployment("md-bad").with_replicas(1));
  CapiControllers harness(*api_, *api_, version_, options());
  harness.fail_machines("md-bad");
  harness.start();
  ASSERT_TRUE(eventually([&] { return harness.machines("md-bad").size() == 1; }));
  const std::string name = harness.machines("md-bad")[0];
  ASSERT_TRUE(eventually([&] {
    return get(group_path("machines/" + name)).value("status", json::object()).value("phase", "") == "Failed";
  }));
  json machine = get(group_path("machines/" + name));
  EXPECT_EQ(machine["status"]["failureReason"], "CreateError");
  EXPECT_FALSE(machine["status"].value("failureMessage", "").empty());
  EXPECT_FALSE(machine["spec"].contains("providerID"));
  EXPECT_FALSE(machine["status"].contains("nodeRef"));
  EXPECT_EQ(harness.node_of(name), "");
}

// --- v1.14.0: v1beta2 ---------------------------------------------------------------------------------------------

TEST_F(CapiControllersOnRealApiServer, V1beta2ScaleUpAndTheAnnotatedMachineIsTheOneDeleted) {
  set_up("v1.14.0", "v1beta2");
  ASSERT_FALSE(HasFatalFailure());
  scale_up_then_delete_the_annotated_machine();
}

TEST_F(CapiControllersOnRealApiServer, V1beta2PendingMachinesStayPendingUntilProvisioned) {
  set_up("v1.14.0", "v1beta2");
  ASSERT_FALSE(HasFatalFailure());
  create_scalable(*api_, version_, ns_, deployment("md-stuck").with_replicas(1));
  CapiControllersOptions opts = options();
  opts.provision_delay["md-slow"] = std::chrono::hours(1);
  create_scalable(*api_, version_, ns_, deployment("md-slow").with_replicas(1));
  CapiControllers harness(*api_, *api_, version_, opts);
  harness.never_provision("md-stuck");
  harness.start();

  ASSERT_TRUE(eventually([&] {
    return harness.machines("md-stuck").size() == 1 && harness.machines("md-slow").size() == 1;
  }));
  // A few full passes after the Machines exist: still no providerID, nodeRef or Node.
  ASSERT_TRUE(harness.wait_for_passes(4, std::chrono::seconds(30)));
  for (const char* md : {"md-stuck", "md-slow"}) {
    const std::string name = harness.machines(md)[0];
    json machine = get(group_path("machines/" + name));
    EXPECT_FALSE(machine["spec"].contains("providerID")) << md;
    EXPECT_FALSE(machine.value("status", json::object()).contains("nodeRef")) << md;
    EXPECT_EQ(machine["status"]["phase"], "Provisioning") << md;
    EXPECT_TRUE(not_found("/api/v1/nodes/" + name)) << md;
    EXPECT_EQ(harness.node_of(name), "") << md;
  }
  json md_status = get(group_path("machinedeployments/md-stuck"))["status"];
  EXPECT_EQ(md_status["replicas"], 1);
  EXPECT_EQ(md_status["readyReplicas"], 0);

  // Provisioned once the test lets it.
  harness.provision_normally("md-stuck");
  const std::string stuck = harness.machines("md-stuck")[0];
  EXPECT_TRUE(eventually([&] { return running(stuck) && harness.node_of(stuck) == stuck; }));
}

TEST_F(CapiControllersOnRealApiServer, V1beta2AMachineDeletedByAnotherTakesItsNodeAndIsReplaced) {
  set_up("v1.14.0", "v1beta2");
  ASSERT_FALSE(HasFatalFailure());
  create_scalable(*api_, version_, ns_, deployment("md-0").with_replicas(1));
  CapiControllers harness(*api_, *api_, version_, options());
  harness.start();
  ASSERT_TRUE(eventually([&] { return all_running(harness, "md-0", 1); }));
  const std::string first = harness.machines("md-0")[0];
  auto removed = api_->remove(group_path("machines/" + first));
  ASSERT_TRUE(removed.ok()) << removed.error().describe();
  ASSERT_TRUE(eventually([&] {
    std::vector<std::string> machines = harness.machines("md-0");
    return machines.size() == 1 && machines[0] != first && all_running(harness, "md-0", 1);
  }));
  EXPECT_TRUE(eventually([&] { return not_found("/api/v1/nodes/" + first); }));
  EXPECT_EQ(harness.node_of(first), "");
  EXPECT_TRUE(harness.deleted_machines().empty());  // not the harness's deletion
}

TEST_F(CapiControllersOnRealApiServer, V1beta2FailedMachinesKeepTheirFailureUnderDeprecated) {
  set_up("v1.14.0", "v1beta2");
  ASSERT_FALSE(HasFatalFailure());
  create_scalable(*api_, version_, ns_, deployment("md-bad").with_replicas(1));
  CapiControllers harness(*api_, *api_, version_, options());
  harness.fail_machines("md-bad");
  harness.start();
  ASSERT_TRUE(eventually([&] { return harness.machines("md-bad").size() == 1; }));
  const std::string name = harness.machines("md-bad")[0];
  ASSERT_TRUE(eventually([&] {
    return get(group_path("machines/" + name)).value("status", json::object()).value("phase", "") == "Failed";
  }));
  json machine = get(group_path("machines/" + name));
  EXPECT_EQ(machine["status"]["deprecated"]["v1beta1"]["failureReason"], "CreateError");
  EXPECT_FALSE(machine["status"]["deprecated"]["v1beta1"].value("failureMessage", "").empty());
  EXPECT_FALSE(machine["spec"].contains("providerID"));
  EXPECT_EQ(harness.node_of(name), "");
}

TEST_F(CapiControllersOnRealApiServer, V1beta2PausedMachineDeploymentGetsNoMachineSet) {
  set_up("v1.14.0", "v1beta2");
  ASSERT_FALSE(HasFatalFailure());
  create_scalable(*api_, version_, ns_, deployment("md-paused", {{"cluster.x-k8s.io/paused", ""}}).with_replicas(2));
  create_scalable(*api_, version_, ns_, deployment("md-live").with_replicas(1));
  CapiControllers harness(*api_, *api_, version_, options());
  harness.start();
  // md-live's Machine running shows that passes ran over both; a few more, and md-paused still has nothing.
  ASSERT_TRUE(eventually([&] { return all_running(harness, "md-live", 1); }));
  ASSERT_TRUE(harness.wait_for_passes(2, std::chrono::seconds(30)));
  std::vector<json> sets = list("machinesets");
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0]["metadata"]["labels"]["cluster.x-k8s.io/deployment-name"], "md-live");
  EXPECT_TRUE(harness.machines("md-paused").empty());
}

}  // namespace
}  // namespace scalewright::cloud::clusterapi::testing
