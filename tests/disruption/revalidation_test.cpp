// The check before acting (src/disruption/revalidation.cpp). The catalog is consolidation_fixture.h's.
#include <gtest/gtest.h>

#include "consolidation_fixture.h"
#include "disruption/consolidation.h"

namespace scalewright::disruption {
namespace {

using namespace consolidation_fixtures;

TEST(Revalidation, ACommandNoLongerTrueIsAbandonedWithWhy) {
  Cluster cluster;
  cluster.node("light", "c.2xlarge", cloud::CapacityType::OnDemand, 2, 1000);
  cluster.node("full", "c.2xlarge", cloud::CapacityType::OnDemand, 6, 1000);
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_TRUE(revalidate(cluster.ready(), result.command->candidates, Decision::Delete).command);
  // A pod bound to "full" in the meantime leaves room for one of light's two.
  cluster.snapshot.add_pod(make_pod("late", 1000, kGi), cluster.input.candidates[1].id);
  Revalidation again = revalidate(cluster.ready(), result.command->candidates, Decision::Delete);
  EXPECT_FALSE(again.command);
  EXPECT_EQ(again.reason, "pod default/light-pod-1 fits on no other node");
}

TEST(Revalidation, ADeleteThatHoldsOnlyByFirstFitIsAbandonedAtItsCheck) {
  // x (4 cpu, 1 used) and y (2 cpu, empty) are not candidates. The sweep, placing on the first node with room,
  // takes a (two 1500m pods: both onto x) and then b (one 2000m pod: onto y). kube-scheduler spreads instead: the
  // 2000m pod goes to x (left 25 % cpu and 75 % memory free, against y's 0 % and 75 %; and x is the better
  // balanced), a 1500m pod then to y, the only node with room, and the other 1500m pod fits nowhere. Checked where
  // kube-scheduler would put them, the command does not hold.
  Cluster cluster;
  holes_for_a_sweep(cluster);
  ConsolidationResult result = consolidate_multi_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(names(cluster.input, *result.command), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(result.command->decision, Decision::Delete);
  Revalidation again = revalidate(cluster.ready(), result.command->candidates, Decision::Delete);
  EXPECT_FALSE(again.command);
  EXPECT_TRUE(again.reason.starts_with("pod default/a-pod-")) << again.reason;
  EXPECT_TRUE(again.reason.ends_with(" fits on no other node")) << again.reason;
}

TEST(Revalidation, ASingleNodeDeleteMustHoldWhicheverEndKubeSchedulerStartsFrom) {
  // e (c.large, empty) and f (c.xlarge, 2500m used) are not candidates; c (c.xlarge) runs a 2000m pod and two of
  // 500m. Largest first, the 2000m pod can go only to e and the two small ones to f: the delete holds, for the search
  // and, placed as kube-scheduler would, for the check. But the evicted pods' replacements come in no chosen order,
  // and kube-scheduler sends each to the node least used after it (e: 25 % against f's 75 %, then 50 % against
  // 75 %): small ones first fill e, and the 2000m pod then finds 1000m free on e and 1500m on f. One pod left
  // pending would launch a node and undo the saving: the check refuses the command.
  Cluster cluster;
  cluster.node("e", "c.large", cloud::CapacityType::OnDemand, 0, 0);
  cluster.node("f", "c.xlarge", cloud::CapacityType::OnDemand, 1, 2500);
  cluster.node("c", "c.xlarge", cloud::CapacityType::OnDemand, 1, 2000);
  Candidate& c = cluster.input.candidates.back();
  for (int i = 0; i < 2; ++i) {
    auto pod = std::make_shared<Pod>(make_pod("c-small-" + std::to_string(i), 500, 1 * kGi));
    pod->spec.node_name = "c";
    cluster.snapshot.add_pod(std::shared_ptr<const Pod>(pod), c.id);
    c.add_pod(pod);
  }
  cluster.input.candidates.erase(cluster.input.candidates.begin(), cluster.input.candidates.begin() + 2);
  ConsolidationResult result = consolidate_single_node(cluster.ready());
  ASSERT_TRUE(result.command);
  EXPECT_EQ(result.command->decision, Decision::Delete);
  EXPECT_EQ(result.command->pods, 3u);
  Revalidation again = revalidate(cluster.ready(), result.command->candidates, Decision::Delete);
  EXPECT_FALSE(again.command);
  EXPECT_EQ(again.reason, "pod default/c-pod-0 would find no node if kube-scheduler took the pods smallest first");
}

}  // namespace
}  // namespace scalewright::disruption
