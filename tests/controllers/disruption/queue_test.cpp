// The command queue: replacements launched and waited for, then the drains; the next command only after.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture.h"

namespace scalewright::controllers {
namespace {

using namespace disruption_fixtures;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(Consolidation, UnderutilizedNodeIsReplacedOnlyOnceItsReplacementIsReady) {
  // n1 ($0.40/h) runs one 500m pod from 0 s. At 30 s (consolidateAfter) the command is computed, at 45 s checked
  // again and carried out: n1 tainted, a spot c.large launched; n1 is drained only when that node is Ready (60 s),
  // its pod evicted with its 30 s grace period, and n1 goes at 90 s.
  const std::string instance = add_node(state, cloud, "n1", "default").instance_id;
  run_pod("web-0", 500, "n1");
  disruption.reconcile();

  clock.advance_to(kStart + 44'999ms);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.events_of("consolidation-planned"),
              ElementsAre("30s single-node replace 1 node (n1) by one node (c.large, g.xlarge, c.xlarge, ...) from "
                          "$0.0400/h: $0.4000/h → $0.0400/h saves $0.3600/h, 1 pod move; checked again in 15s"));
  clock.advance_to(kStart + 45s);
  EXPECT_THAT(cloud.calls, ElementsAre("launch c.large zone-a spot"));
  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  EXPECT_THAT(writer.calls, ElementsAre("45s taint n1 +karpenter.sh/disrupted", "45s nodeclaim_created " + replacement,
                                        "45s node_launched " + replacement + " c.large zone-a spot"));
  EXPECT_THAT(writer.object_events,
              Contains("45s Node n1 DisruptionTerminating: Disrupting Node: Underutilized/Replace; single-node replace "
                       "1 node (n1) by one node (c.large, g.xlarge, c.xlarge, ...) from $0.0400/h: $0.4000/h → "
                       "$0.0400/h saves $0.3600/h, 1 pod move"));

  clock.advance_to(kStart + 59s);
  disruption.reconcile();  // the replacement is still launching: nothing is evicted
  EXPECT_THAT(writer.calls_of("evict"), IsEmpty());

  clock.advance_to(kStart + 60s);
  state.node_ready(*state.find_node(replacement));
  disruption.reconcile();
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("1m0s evict default/web-0 grace=30s"));
  clock.advance_to(kStart + 90s);
  // (The replacement goes too, empty for 30 s: the fakes have no ReplicaSet controller to recreate web-0 there.)
  EXPECT_THAT(writer.calls_of("delete_node"), Contains("1m30s delete_node n1"));
  EXPECT_FALSE(cloud.get(instance).ok());
}

TEST_F(Consolidation, ANodeThatEmptiesWhileACommandWaitsForItsReplacementGoesWhenTheCommandEnds) {
  // n1's command is carried out at 45 s and waits for its replacement, Ready only at 5m. n2's pod goes at 50 s:
  // n2 is due empty at 1m20s, but one command at a time: nothing goes before n1's drain ends (n1's pod evicted at
  // 5m with its 30 s grace period: 5m30s). (Before, the pass due for n2 found the command under way, did nothing
  // and was due again at once: the clock never moved on.)
  add_node(state, cloud, "n1", "default");
  add_node(state, cloud, "n2", "default");
  run_pod("web-0", 500, "n1");
  run_pod("web-1", 7600, "n2");  // n1's pod does not fit beside it: n1 is replaced, not deleted
  disruption.reconcile();
  clock.advance_to(kStart + 50s);
  const std::string replacement = launched_node();
  ASSERT_FALSE(replacement.empty());
  state.pod_deleted("default/web-1");
  disruption.reconcile();
  clock.advance_to(kStart + 5min);
  EXPECT_THAT(writer.calls_of("delete_node"), IsEmpty());
  state.node_ready(*state.find_node(replacement));
  disruption.reconcile();
  clock.advance_to(kStart + 6min);
  // Then the empty nodes, one per pass (10 % of the 2 nodes left, rounded up): the replacement (empty: the fakes
  // recreate no pod), due since 5m30s, and n2 the pass after.
  EXPECT_THAT(writer.calls_of("delete_node"), ElementsAre("5m30s delete_node n1", "5m30s delete_node " + replacement,
                                                          "5m40s delete_node n2"));
}

}  // namespace
}  // namespace scalewright::controllers
