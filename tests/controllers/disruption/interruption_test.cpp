// Interruption: the node drained at once, its replacement launched beside the drain; its Event names what the cloud
// said (a spot warning by default, the simulator's only kind).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

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

TEST_F(Disruption, AnInterruptionOtherThanASpotWarningIsNamedAsKarpenterNamesItAndDrainsTheNodeAllTheSame) {
  // Four nodes, each running a 5-cpu pod that fits on no other (a replacement, 8 cpus, keeps 3 free beside it), each
  // noticed at 10 s for another reason, at the notice's own time (no deadline is said). Each is drained and replaced
  // at once as a spot interruption is; its Event has karpenter-provider-aws's reason for that kind.
  using Kind = state::InterruptionKind;
  const std::vector<std::pair<std::string, Kind>> noticed = {{"n1", Kind::ScheduledChange},
                                                             {"n2", Kind::Stopping},
                                                             {"n3", Kind::Terminating},
                                                             {"n4", Kind::CapacityReservationInterruption}};
  for (const auto& [name, kind] : noticed) {
    add_node(state, cloud, name, "default");
    run_pod(name + "-web", 5000, name);
  }
  disruption.reconcile();
  clock.advance_to(kStart + 10s);
  for (const auto& [name, kind] : noticed) state.interruption_noticed(*state.find_node(name), kStart + 10s, kind);
  disruption.reconcile();

  EXPECT_THAT(writer.object_events,
              ::testing::IsSupersetOf(
                  {"10s Node n1 InstanceUnhealthy: A scheduled change (maintenance or retirement) is due on the "
                   "instance: its node is drained and replaced",
                   "10s Node n2 InstanceStopping: The instance is stopping: its node is drained and replaced",
                   "10s Node n3 InstanceTerminating: The instance is shutting down: its node is drained and replaced",
                   "10s Node n4 CapacityReservationInstanceInterrupted: The instance's capacity reservation takes it "
                   "back: its node is drained and replaced"}));
  using ::testing::StartsWith;
  const std::string what = " (c.2xlarge zone-a); draining, 1 pod move; replacement launched at once: ";
  EXPECT_THAT(writer.events_of("interruption"),
              ElementsAre(StartsWith("10s scheduled change notice for node n1" + what),
                          StartsWith("10s stopping notice for node n2" + what),
                          StartsWith("10s terminating notice for node n3" + what),
                          StartsWith("10s capacity reservation interruption notice for node n4" + what)));
  EXPECT_THAT(writer.calls_of("node_launched"), ::testing::SizeIs(4));
  EXPECT_THAT(writer.calls_of("evict"),
              ElementsAre("10s evict default/n1-web grace=30s", "10s evict default/n2-web grace=30s",
                          "10s evict default/n3-web grace=30s", "10s evict default/n4-web grace=30s"));
  // Drained, each node goes when its pod has run out its 30 s grace period.
  clock.advance_to(kStart + 40s);
  EXPECT_THAT(writer.calls_of("delete_node"),
              ElementsAre("40s delete_node n1", "40s delete_node n2", "40s delete_node n3", "40s delete_node n4"));
}

}  // namespace
}  // namespace scalewright::controllers
