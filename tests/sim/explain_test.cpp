// `explain` over a simulated run: the Events the controllers record on objects (why a NodeClaim launched what it
// did, why a pod could not be provisioned, why an HPA scaled) and what `explain` makes of them. Same small catalog
// as simulator_test.cpp (nodes Ready 60 s after launch, batches close 1 s after the last pending pod):
//
//   type       arch   cpu  memory  on-demand  spot      (zones zone-a, zone-b)
//   c.large    amd64   2    4Gi      0.10     0.04
//   c.xlarge   amd64   4    8Gi      0.20     0.08
//   g.xlarge   arm64   4    8Gi      0.16     0.06
//   c.2xlarge  amd64   8   16Gi      0.40     0.16
//   r.2xlarge  amd64   8   64Gi      0.50     0.20
//   m.4xlarge  amd64  16   64Gi      0.80     0.32
#include "sim/explain.h"

#include <gtest/gtest.h>

#include <sstream>
#include <nlohmann/json.hpp>

#include "run_scenario.h"
#include "sim/report.h"

namespace scalewright::sim {
namespace {

std::string pod(const std::string& name, const std::string& cpu) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name +
         ", namespace: default}\nspec:\n  containers:\n  - name: main\n    image: pause\n    resources: {requests: "
         "{cpu: \"" + cpu + "\", memory: 1Gi}}\n---\n";
}

// A NodePool that comes first by weight, for pods that tolerate its taint only.
const std::string kGpuPool = R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: gpu}
spec:
  weight: 100
  template:
    spec:
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      taints:
      - {key: dedicated, value: gpu, effect: NoSchedule}
---
)";

std::string scenario_with_faults(const std::string& faults) {
  return "apiVersion: scalewright.dev/v1alpha1\nkind: Scenario\nmetadata: {name: test}\nspec:\n  duration: 5m\n"
         "  cloud:\n    launchLatency: {min: 60s, max: 60s}\n    faults: {" + faults + "}\n";
}

std::vector<std::string> events(const SimulationReport& r, const std::string& kind, const std::string& name) {
  std::vector<std::string> out;
  for (const ObjectEventAt& e : r.events) {
    if (e.event.kind == kind && e.event.key == name) {
      out.push_back(format_time(e.at) + " " + e.event.reason + ": " + e.event.message);
    }
  }
  return out;
}

std::string explained(const SimulationReport& r, const std::string& object) {
  std::ostringstream out;
  Result<ObjectRef> ref = parse_object_ref(object);
  EXPECT_TRUE(ref.ok());
  std::optional<Error> error = explain(to_json(r), *ref, out);
  EXPECT_FALSE(error) << error->message;
  return out.str();
}

// Pods web-1..3 (1 cpu, 1 GiB each) and "huge" (32 cpu) wait at t=0; the batch closes at 1 s. NodePool gpu comes
// first by weight but its taint keeps every pod out. huge fits no type of default either (16 cpu at most). The web
// pods need cpu=3 memory=3Gi: c.xlarge and up (4 types; c.large has 2 cpu, g.xlarge is arm64). c.xlarge spot
// ($0.08) answers insufficient capacity in both zones, each marked for 3 minutes (to t=3m1s); the next cheapest is
// c.2xlarge spot in zone-a at $0.16, ahead of c.xlarge on-demand and r.2xlarge spot at $0.20.
class ExplainRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    run_ = new SimulationReport(testing::run(
        kGpuPool + testing::nodepool() + pod("web-1", "1") + pod("web-2", "1") + pod("web-3", "1") +
        pod("huge", "32") +
        scenario_with_faults(
            "insufficientCapacity: [{at: 0s, duration: 1h, instanceType: c.xlarge, capacityType: spot}]")));
  }
  static void TearDownTestSuite() { delete run_; }
  static SimulationReport* run_;
};
SimulationReport* ExplainRun::run_ = nullptr;

TEST_F(ExplainRun, TheNodeClaimSaysWhatItWasChosenFromAndWhichCheaperOfferingsWereNotTaken) {
  EXPECT_EQ(events(*run_, "NodeClaim", "default-52cfd"),
            std::vector<std::string>{
                "t=1s Launched: for 3 pods (default/web-1, default/web-2, default/web-3), requesting cpu=3 "
                "memory=3Gi; NodePool default (passed over: nodepool \"gpu\": did not tolerate taint {dedicated: "
                "gpu}); 4 instance types can hold them, cheapest first: c.2xlarge $0.1600, c.xlarge $0.2000, "
                "r.2xlarge $0.2000, m.4xlarge $0.3200; launched c.2xlarge zone-a spot $0.1600/h, the cheapest allowed "
                "offering; cheaper offerings not taken: insufficient capacity, not tried again before t=3m1s (2 "
                "offerings, the cheapest c.xlarge zone-a spot $0.0800/h)"});
  EXPECT_EQ(events(*run_, "Pod", "default/web-2"),
            std::vector<std::string>{"t=1s Nominated: Pod should schedule on: nodeclaim/default-52cfd"});
}

TEST_F(ExplainRun, APodNoNodePoolCanHoldSaysWhatExcludedEach) {
  EXPECT_EQ(events(*run_, "Pod", "default/huge"),
            std::vector<std::string>{
                "t=1s FailedScheduling: Failed to schedule pod, no nodepool can hold the pod: nodepool \"gpu\": did "
                "not tolerate taint {dedicated: gpu}; nodepool \"default\": no instance type has enough resources "
                "(cpu=32 memory=1Gi)"});
  const std::string text = explained(*run_, "pod/huge");
  EXPECT_TRUE(text.starts_with("Pod default/huge\n  created t=0s, never bound")) << text;
  EXPECT_NE(text.find("  t=1s         FailedScheduling (warning): Failed to schedule pod, no nodepool can hold the pod: "
                      "nodepool \"gpu\": did not tolerate taint {dedicated: gpu}\n"
                      "               nodepool \"default\": no instance type has enough resources (cpu=32 "
                      "memory=1Gi)\n"),
            std::string::npos)
      << text;
}

TEST_F(ExplainRun, APodIsExplainedWithTheNodeClaimItRanOn) {
  // Bound when its node is Ready, 60 s after the launch at 1 s.
  EXPECT_EQ(explained(*run_, "pod/web-1"),
            "Pod default/web-1\n"
            "  created t=0s, bound to default-52cfd (NodePool default) at t=1m1s after 1m1s pending\n"
            "\n"
            "  Decisions about it:\n"
            "  t=1s         Nominated: Pod should schedule on: nodeclaim/default-52cfd\n"
            "\n"
            "  NodeClaim default-52cfd, which it ran on:\n"
            "  t=1s         Launched: for 3 pods (default/web-1, default/web-2, default/web-3), requesting cpu=3 "
            "memory=3Gi\n"
            "               NodePool default (passed over: nodepool \"gpu\": did not tolerate taint {dedicated: "
            "gpu})\n"
            "               4 instance types can hold them, cheapest first: c.2xlarge $0.1600, c.xlarge $0.2000, "
            "r.2xlarge $0.2000, m.4xlarge $0.3200\n"
            "               launched c.2xlarge zone-a spot $0.1600/h, the cheapest allowed offering\n"
            "               cheaper offerings not taken: insufficient capacity, not tried again before t=3m1s (2 "
            "offerings, the cheapest c.xlarge zone-a spot $0.0800/h)\n");
}

TEST_F(ExplainRun, ANodeIsExplainedWithItsPodsAndTheTimelineLinesThatNameIt) {
  const std::string text = explained(*run_, "node/default-52cfd");
  EXPECT_TRUE(text.starts_with("Node default-52cfd\n  pods that ran on it: default/web-1, default/web-2, "
                               "default/web-3\n"))
      << text;
  EXPECT_NE(text.find("  Timeline lines that name it:\n  t=1s         launch         NodeClaim default-52cfd launched "
                      "c.2xlarge zone-a spot $0.1600/h for 3 pods\n"),
            std::string::npos)
      << text;
  // nodeclaim/ and node/ name the same machine.
  EXPECT_EQ(explained(*run_, "nodeclaim/default-52cfd"), "NodeClaim" + text.substr(4));
}

TEST_F(ExplainRun, AnObjectTheRunDoesNotKnowIsAnErrorThatNamesTheOnesItHas) {
  std::ostringstream out;
  std::optional<Error> error = explain(to_json(*run_), *parse_object_ref("pod/web-9"), out);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->message, "no Pod default/web-9 in the report; it has default/huge, default/web-1, default/web-2, "
                            "default/web-3");
  error = explain(nlohmann::json{{"timeline", 1}}, *parse_object_ref("pod/web-1"), out);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->message, "not a report of `scalewright simulate --output` (no \"timeline\" and \"pods\")");
  EXPECT_EQ(out.str(), "");
}

TEST(Explain, FieldsOfAnotherTypeInAHandEditedReportReadAsAbsent) {
  const nlohmann::json report = nlohmann::json::parse(R"({"timeline": [{"at_seconds": "soon", "message": 3}],
      "pods": [{"pod": "default/web-1", "node": 5, "created_seconds": "0"}],
      "events": [{"kind": "Pod", "name": "default/web-1", "reason": 7, "message": "Pod should schedule on: node/x"},
                 {"kind": "Pod", "name": 7}]})");
  std::ostringstream out;
  EXPECT_FALSE(explain(report, *parse_object_ref("pod/web-1"), out));
  EXPECT_EQ(out.str(),
            "Pod default/web-1\n"
            "  created t=0s, never bound (pending when the run ended at t=0s, or deleted first)\n"
            "\n"
            "  Decisions about it:\n"
            "  t=0s         : Pod should schedule on: node/x\n");
}

TEST(ExplainObjectRef, KindsAsKubectlNamesThemAndTheDefaultNamespace) {
  EXPECT_EQ(parse_object_ref("pod/web-1")->name, "default/web-1");
  EXPECT_EQ(parse_object_ref("po/shop/web-1")->name, "shop/web-1");
  EXPECT_EQ(parse_object_ref("HPA/php-apache")->kind, "HorizontalPodAutoscaler");
  EXPECT_EQ(parse_object_ref("so/podinfo")->to_string(), "ScaledObject default/podinfo");
  EXPECT_EQ(parse_object_ref("nodes/ng-1")->to_string(), "Node ng-1");
  EXPECT_EQ(parse_object_ref("web-1").error().message,
            "\"web-1\": name an object as KIND/NAME (pod/web-1, pod/NAMESPACE/web-1, node/NAME, nodeclaim/NAME, "
            "nodepool/NAME, hpa/NAME, scaledobject/NAME)");
  EXPECT_EQ(parse_object_ref("deployment/web").error().message,
            "\"deployment/web\": unknown kind \"deployment\"; explain knows pod, node, nodeclaim, nodepool, hpa and "
            "scaledobject");
  EXPECT_EQ(parse_object_ref("node/a/b").error().message, "\"node/a/b\": a Node has no namespace; name it as node/NAME");
}

}  // namespace
}  // namespace scalewright::sim
