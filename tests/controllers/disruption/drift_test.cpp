// Drift: drifted nodes replaced oldest first, within the budgets for reason Drifted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/nodepool.h"
#include "fixture.h"

namespace scalewright::controllers {
namespace {

using namespace disruption_fixtures;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TEST_F(Disruption, DriftedNodesAreReplacedOldestFirstWithinABudgetOfOne) {
  // n1 (launched at 0 s) and n2 (at 1 s) run a 5-cpu pod each on 8 cpus, stamped with the NodePool's template
  // hash. At 1 min a label is added to the template: both drift. The budget for Drifted is one node: n1 goes first,
  // replaced by a node launched for its pod (it fits on no other), and is drained once that is Ready; n2 is not
  // touched before n1 is gone.
  NodePool pool = *state.find_nodepool("default");
  pool.budgets = {DisruptionBudget{IntOrPercent{1, false}, {"Drifted"}}};
  state.nodepool_applied(pool);
  for (const char* name : {"n1", "n2"}) {
    state::NodeRecord& node = add_node(state, cloud, name, "default");
    node.nodepool_hash = pool.hash();
    node.nodepool_hash_version = std::string(kNodePoolHashVersion);
    run_pod(std::string(name) + "-web", 5000, name);
  }
  state.find_node("n2")->launched_at = kStart + 1s;
  disruption.reconcile();
  clock.advance_to(kStart + 59s);
  EXPECT_THAT(writer.calls, IsEmpty());

  pool.template_labels.set(Symbol("team"), Symbol("checkout"));
  state.nodepool_applied(pool);
  clock.advance_to(kStart + 1min);
  disruption.reconcile();
  clock.advance_to(kStart + 1min);
  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  EXPECT_THAT(writer.calls_of("taint"), ElementsAre("1m0s taint n1 +karpenter.sh/disrupted"));
  EXPECT_THAT(writer.events_of("drift"),
              ElementsAre("1m0s node n1 drifted (NodePoolDrifted): replaced by " + replacement + ", 1 pod move"));

  clock.advance_to(kStart + 90s);
  state.node_ready(*state.find_node(replacement));
  disruption.reconcile();
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("1m30s evict default/n1-web grace=30s"));
  clock.advance_to(kStart + 2min - 1ms);
  EXPECT_THAT(writer.calls_of("taint"), Not(Contains(HasSubstr("taint n2"))));
  clock.advance_to(kStart + 2min);
  EXPECT_THAT(writer.calls_of("delete_node"), Contains("2m0s delete_node n1"));
  disruption.reconcile();
  clock.advance_to(kStart + 3min);
  EXPECT_THAT(writer.calls_of("taint"), Contains(HasSubstr("taint n2 +karpenter.sh/disrupted")));
}

TEST_F(Disruption, TheProvidersOwnDriftReplacesANodeItsNodePoolStillMatches) {
  // n1 runs a 5-cpu pod, stamped with its NodePool's hash and matching its requirements: not drifted by the
  // NodePool's checks. The provider finds its instance drifted (its node class now launches another AMI); a node
  // class applied makes the drift method look again, and n1 is replaced with the provider's reason.
  NodePool pool = *state.find_nodepool("default");
  state::NodeRecord& node = add_node(state, cloud, "n1", "default");
  node.nodepool_hash = pool.hash();
  node.nodepool_hash_version = std::string(kNodePoolHashVersion);
  run_pod("n1-web", 5000, "n1");
  disruption.reconcile();
  clock.advance_to(kStart + 1min);
  disruption.reconcile();
  EXPECT_THAT(writer.events_of("drift"), IsEmpty());

  cloud.drifted_instances[node.instance_id] = "AMIDrift";
  state.node_class_applied();
  clock.advance_to(kStart + 2min);
  disruption.reconcile();
  clock.advance_to(kStart + 2min);
  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  EXPECT_THAT(writer.events_of("drift"),
              ElementsAre("2m0s node n1 drifted (AMIDrift): replaced by " + replacement + ", 1 pod move"));
}

}  // namespace
}  // namespace scalewright::controllers
