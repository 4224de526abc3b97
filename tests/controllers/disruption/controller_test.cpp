// The controller's own step: at every pass, the karpenter.sh/disrupted taint of a node no command is disrupting
// (one a leader that stopped mid-command left behind) comes off, as Karpenter's disruption controller takes it off.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture.h"

namespace scalewright::controllers {
namespace {

using namespace disruption_fixtures;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(Disruption, ADisruptedTaintNoCommandExplainsIsTakenOffAtTheFirstPass) {
  // n1 runs web-0 and carries karpenter.sh/disrupted from a leader that stopped; nothing else is due (its NodePool
  // consolidates only empty nodes), so the pass at 0 s is for the taint alone, and nothing follows it.
  state::NodeRecord& n1 = add_node(state, cloud, "n1", "default");
  run_pod("web-0", 500, "n1");
  n1.node.taints.push_back(disrupted_taint());
  state.node_updated(n1);
  disruption.reconcile();

  clock.advance_to(kStart + 0s);
  EXPECT_THAT(writer.calls, ElementsAre("0s taint n1 -karpenter.sh/disrupted"));
  EXPECT_THAT(state.find_node("n1")->node.taints, IsEmpty());
  EXPECT_THAT(writer.events_of("disrupted-taint-removed"),
              ElementsAre("0s node n1 carried karpenter.sh/disrupted with no command disrupting it; taint removed"));

  disruption.reconcile();
  clock.advance_to(kStart + 1h);
  EXPECT_THAT(writer.calls, ElementsAre("0s taint n1 -karpenter.sh/disrupted"));
}

TEST_F(Consolidation, TheTaintOfANodeTheQueuedCommandIsDisruptingStays) {
  // As in UnderutilizedNodeIsReplacedOnlyOnceItsReplacementIsReady: at 45 s n1 is tainted and its replacement
  // launched. At 50 s n2 comes with a taint no command explains: the pass then takes n2's off and leaves n1's, whose
  // command waits for its replacement.
  add_node(state, cloud, "n1", "default");
  run_pod("web-0", 500, "n1");
  disruption.reconcile();
  clock.advance_to(kStart + 45s);
  ASSERT_THAT(writer.calls_of("taint"), ElementsAre("45s taint n1 +karpenter.sh/disrupted"));

  clock.advance_to(kStart + 50s);
  state::NodeRecord& n2 = add_node(state, cloud, "n2", "default");
  n2.node.taints.push_back(disrupted_taint());
  state.node_updated(n2);
  disruption.reconcile();
  clock.advance_to(kStart + 50s);
  EXPECT_THAT(writer.calls_of("taint"),
              ElementsAre("45s taint n1 +karpenter.sh/disrupted", "50s taint n2 -karpenter.sh/disrupted"));
  EXPECT_EQ(state.find_node("n1")->node.taints.size(), 1u);
}

}  // namespace
}  // namespace scalewright::controllers
