// NodeRepairController through fake ports. The cloud gives a node up when its Ready condition has been Unknown for
// 30 minutes. Five Ready nodes n1..n5 of NodePool "default" (instances i-1..i-5): 20 % of five, rounded up, is one
// node that may be repaired at a time.
#include "controllers/node_repair.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fake_ports.h"

namespace scalewright::controllers {
namespace {

using namespace fakes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::SizeIs;

class NodeRepair : public ::testing::Test, protected FakeCluster {
 protected:
  NodeRepair() {
    cloud.repair_statements = {{"Ready", "Unknown", 30min}};
    for (int i = 1; i <= 5; ++i) {
      state::NodeRecord& node = add_node(state, cloud, "n" + std::to_string(i), "default");
      node.node.conditions.push_back({"Ready", "True", "KubeletReady"});
    }
  }
  // The node's kubelet stops reporting at `since`: the node lifecycle controller sets Ready Unknown.
  void stops_reporting(const std::string& name, Instant since) {
    state::NodeRecord& node = *state.find_node(name);
    node.node.conditions = {{"Ready", "Unknown", "NodeStatusUnknown"}};
    node.condition_since["Ready"] = since;
    state.node_updated(node);
  }
};

TEST_F(NodeRepair, ANodeUnknownForTheProvidersTolerationIsDeletedAndItsInstanceTerminated) {
  NodeRepairController repair(ports, /*enabled=*/true);
  stops_reporting("n1", kStart + 5min);
  clock.advance_to(kStart + 10min);
  repair.reconcile();
  // Due at 5 + 30 = 35 min, not before.
  EXPECT_THAT(clock.pending(), ElementsAre(kStart + 35min));
  clock.advance_to(kStart + 35min - 1ms);
  EXPECT_THAT(writer.calls_of("delete_node"), IsEmpty());
  clock.advance_to(kStart + 35min);
  EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre("35m0s delete_node n1"));
  EXPECT_THAT(cloud.calls, ElementsAre("terminate i-1"));
  ASSERT_THAT(writer.events_of("repair"), SizeIs(1));
  EXPECT_THAT(writer.events_of("repair")[0],
              HasSubstr("node n1 repaired: its Ready condition has been Unknown for 30m0s (NodePool default; the cloud "
                        "provider tolerates 30m0s); deleted without a drain and its instance terminated"));
  EXPECT_THAT(writer.object_events, ElementsAre(HasSubstr("Node n1 Unhealthy: Repairing node: Ready has been Unknown "
                                                          "for 30m0s")));
}

TEST_F(NodeRepair, MoreThanTwentyPercentOfTheNodePoolUnhealthyHoldsTheRepairUntilOneRecovers) {
  NodeRepairController repair(ports, /*enabled=*/true);
  stops_reporting("n1", kStart);
  stops_reporting("n2", kStart);
  clock.advance_to(kStart + 30min);
  repair.reconcile();
  // Two of five unhealthy, one allowed: held, each said once however often the controller looks.
  repair.reconcile();
  EXPECT_THAT(writer.calls_of("delete_node"), IsEmpty());
  EXPECT_THAT(writer.events_of("repair-blocked"),
              ElementsAre(HasSubstr("node n1 not repaired: 2 of the 5 nodes of NodePool default are unhealthy, more "
                                    "than 20 %"),
                          HasSubstr("node n2 not repaired")));
  EXPECT_THAT(writer.object_events, SizeIs(2));

  // n2's kubelet comes back: n1 alone is unhealthy, and is repaired.
  state::NodeRecord& n2 = *state.find_node("n2");
  n2.node.conditions = {{"Ready", "True", "KubeletReady"}};
  state.node_updated(n2);
  clock.advance_to(kStart + 31min);
  repair.reconcile();
  EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre("31m0s delete_node n1"));
}

TEST_F(NodeRepair, OffByDefaultAsUpstreamAndNothingForAProviderWithoutPolicies) {
  stops_reporting("n1", kStart);
  clock.advance_to(kStart + 2h);
  NodeRepairController gate_off(ports, /*enabled=*/false);
  gate_off.reconcile();
  cloud.repair_statements.clear();
  NodeRepairController no_policies(ports, /*enabled=*/true);
  no_policies.reconcile();
  EXPECT_THAT(writer.calls_of("delete_node"), IsEmpty());
  EXPECT_THAT(clock.pending(), IsEmpty());
}

}  // namespace
}  // namespace scalewright::controllers
