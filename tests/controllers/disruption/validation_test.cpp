// Validation: a consolidation command checked again 15 s after it was computed.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture.h"

namespace scalewright::controllers {
namespace {

using namespace disruption_fixtures;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(Consolidation, ACommandThatNoLongerHoldsAfterFifteenSecondsIsAbandoned) {
  // Planned at 30 s; a pod bound to n1 at 40 s restarts its consolidateAfter, so at 45 s n1 is no candidate and
  // nothing is done: not even a taint to take off, none was put on before the check.
  add_node(state, cloud, "n1", "default");
  run_pod("web-0", 500, "n1");
  disruption.reconcile();
  clock.advance_to(kStart + 40s);
  run_pod("web-1", 500, "n1");
  disruption.reconcile();
  clock.advance_to(kStart + 45s);
  EXPECT_THAT(writer.events_of("consolidation-abandoned"),
              ElementsAre("45s single-node replace 1 node (n1) by one node (c.large, g.xlarge, c.xlarge, ...) from "
                          "$0.0400/h: $0.4000/h → $0.0400/h saves $0.3600/h, 1 pod move abandoned: node n1 is no "
                          "longer a candidate"));
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(cloud.calls, IsEmpty());
}

TEST_F(Consolidation, ACommandAbandonedAtItsCheckIsNotTriedAgainWhileNothingChanges) {
  // e (c.large, empty) and f (c.xlarge, 2500m used) say do-not-disrupt: they stay, and have room; c (c.xlarge) runs a
  // 2000m pod and two of 500m. At 30 s the search deletes c (largest first its pods fit on e and f); at 45 s the
  // check finds that kube-scheduler, taking the small pods first, would leave the 2000m pod no room, and abandons
  // it. Nothing changes after: c sits out, and the command is not planned again every poll period.
  for (const auto& [name, type] : {std::pair{"e", "c.large"}, std::pair{"f", "c.xlarge"}}) {
    state::NodeRecord& kept = add_node(state, cloud, name, "default", true, type);
    kept.node.meta.annotations["karpenter.sh/do-not-disrupt"] = "true";
    state.node_updated(kept);
  }
  add_node(state, cloud, "c", "default", true, "c.xlarge");
  run_pod("f-big", 2500, "f");
  run_pod("c-big", 2000, "c");
  run_pod("c-small-0", 500, "c");
  run_pod("c-small-1", 500, "c");
  disruption.reconcile();
  clock.advance_to(kStart + 10min);
  ASSERT_EQ(writer.events_of("consolidation-abandoned").size(), 1u);
  EXPECT_THAT(writer.events_of("consolidation-abandoned").front(),
              ::testing::StartsWith("45s single-node delete 1 node (c)"));
  EXPECT_THAT(writer.events_of("consolidation-abandoned").front(),
              ::testing::EndsWith("abandoned: pod default/c-big would find no node if kube-scheduler took the pods "
                                  "smallest first"));
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.events_of("removed"), IsEmpty());
}

}  // namespace
}  // namespace scalewright::controllers
