// Spot interruption: the node drained at once, its replacement launched beside the drain.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture.h"

namespace scalewright::controllers {
namespace {

using namespace disruption_fixtures;
using ::testing::Contains;
using ::testing::ElementsAre;

TEST_F(Disruption, SpotInterruptionDrainsAtOnceAndLaunchesTheReplacementBesideTheDrain) {
  // n1 and n2 (c.2xlarge, 8 cpus) run a 5-cpu pod each: n1's pod fits nowhere else. The notice observed at 10 s
  // (an observation in the state, acted on at the reconcile after it) launches
  // what it needs at once (the cheapest fit: c.2xlarge spot, $0.16/h) and evicts it in the same instant, without
  // waiting for the replacement to be Ready; n1 goes when its pod has run out its 30 s grace period.
  add_node(state, cloud, "n1", "default");
  add_node(state, cloud, "n2", "default");
  run_pod("n1-web", 5000, "n1");
  run_pod("n2-web", 5000, "n2");
  disruption.reconcile();
  clock.advance_to(kStart + 10s);
  state.interruption_noticed(*state.find_node("n1"), kStart + 10s + 2min);
  disruption.reconcile();

  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  EXPECT_THAT(cloud.calls, Contains("launch c.2xlarge zone-a spot"));
  EXPECT_THAT(writer.calls, ElementsAre("10s nodeclaim_created " + replacement,
                                        "10s node_launched " + replacement + " c.2xlarge zone-a spot",
                                        "10s taint n1 +karpenter.sh/disrupted", "10s evict default/n1-web grace=30s"));
  EXPECT_THAT(writer.events_of("interruption"),
              ElementsAre("10s spot interruption notice for node n1 (c.2xlarge zone-a), reclaimed in 2m0s; draining, "
                          "1 pod move; replacement launched at once: " + replacement));
  EXPECT_THAT(writer.object_events, Contains("10s Node n1 SpotInterrupted: Spot interruption warning: the instance is "
                                             "reclaimed in 2m0s"));
  clock.advance_to(kStart + 40s);
  EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre("40s delete_node n1"));
  // Acted on once: later reconciles do not say it again.
  disruption.reconcile();
  EXPECT_THAT(writer.events_of("interruption"), ::testing::SizeIs(1));
}

}  // namespace
}  // namespace scalewright::controllers
