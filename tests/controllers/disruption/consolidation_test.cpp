// Consolidation: which nodes are candidates, which command a pass takes, and what it says of the nodes it keeps.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixture.h"

namespace scalewright::controllers {
namespace {

using namespace disruption_fixtures;
using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST_F(Consolidation, APodNoNodePoolCanHoldDoesNotHoldConsolidationBack) {
  // "huge" asks 100 cpu, more than any type has: the provisioner says so when its batch closes (1 s), and the pod
  // stays pending, waiting for a change of its own rather than for capacity. n1 is still consolidated at 30 s.
  add_node(state, cloud, "n1", "default");
  run_pod("web-0", 500, "n1");
  add_pod(state, clock, "huge", 100'000);
  provisioning.reconcile();
  disruption.reconcile();
  clock.advance_to(kStart + 2s);
  EXPECT_THAT(writer.object_events, ElementsAre(::testing::HasSubstr("Pod default/huge FailedScheduling")));
  clock.advance_to(kStart + 30s);
  EXPECT_EQ(writer.events_of("consolidation-planned").size(), 1u);
}

TEST_F(Consolidation, ForTheSameSavingTheCommandMovingFewerPodsWins) {
  // Only c.2xlarge on-demand may be launched. n1 (a 500m pod) and n2 (a 1-cpu pod): replacing both by one
  // c.2xlarge saves $0.40/h and moves 2 pods; deleting n1 (its pod onto n2) saves the same and moves 1.
  NodePool pool = *state.find_nodepool("default");
  pool.requirements.push_back({provisioning::fixtures::requirement(well_known::instance_type, SelectorOperator::In,
                                                                   {"c.2xlarge"}),
                               std::nullopt});
  pool.requirements.push_back({provisioning::fixtures::requirement(karpenter_labels::capacity_type,
                                                                   SelectorOperator::In, {"on-demand"}),
                               std::nullopt});
  state.nodepool_applied(std::move(pool));
  add_node(state, cloud, "n1", "default");
  add_node(state, cloud, "n2", "default");
  run_pod("small", 500, "n1");
  run_pod("big", 1000, "n2");
  disruption.reconcile();
  clock.advance_to(kStart + 45s);
  EXPECT_THAT(writer.events_of("consolidation"),
              ElementsAre("45s single-node delete 1 node (n1): $0.4000/h → $0.0000/h saves $0.4000/h, 1 pod move"));
  EXPECT_THAT(writer.calls_of("evict"), ElementsAre("45s evict default/small grace=30s"));
  EXPECT_THAT(cloud.calls, IsEmpty());  // a delete launches nothing
}

TEST_F(Consolidation, DoNotDisruptAndBlockingPdbsKeepANodeAndSaySo) {
  add_node(state, cloud, "n1", "default");
  add_node(state, cloud, "n2", "default");
  Pod annotated = provisioning::fixtures::make_pod("batch", 500, 256 * kMi);
  annotated.meta.annotations["karpenter.sh/do-not-disrupt"] = "true";
  bind_pod(state, clock, *state.pod_created(annotated, "", clock.now()), "n1");
  state::PodRecord& web = add_pod(state, clock, "web-0", 500, "web");
  bind_pod(state, clock, web, "n2");
  allow_no_eviction_of("web");
  disruption.reconcile();
  clock.advance_to(kStart + 2min);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.object_events,
              ElementsAre("30s Node n1 DisruptionBlocked: Pod \"default/batch\" has \"karpenter.sh/do-not-disrupt\" "
                          "annotation",
                          "30s Node n2 DisruptionBlocked: PDB \"default/web\" prevents pod evictions"));
}

TEST_F(Consolidation, ANodeNothingCheaperCanReplaceSaysWhyItStaysOnce) {
  // With on-demand only, c.large ($0.10/h) is the cheapest type that holds 1500m: n1, a c.large running 1500m, is
  // kept, and says why at its first look (30 s), not at every pass after.
  NodePool pool = *state.find_nodepool("default");
  pool.requirements.push_back(
      {LabelRequirement{Symbol("karpenter.sh/capacity-type"), SelectorOperator::In, {Symbol("on-demand")}}, {}});
  state.nodepool_applied(std::move(pool));
  add_node(state, cloud, "n1", "default", true, "c.large");
  run_pod("web-0", 1500, "n1");
  disruption.reconcile();
  clock.advance_to(kStart + 5min);
  EXPECT_THAT(writer.calls, IsEmpty());
  EXPECT_THAT(writer.object_events,
              ElementsAre("30s Node n1 Unconsolidatable: no instance type that holds its pods costs less than "
                          "$0.1000/h"));
}

TEST_F(Consolidation, NodesComingDueOneAfterAnotherAreLookedAtOncePerPollPeriod) {
  // Three c.large on-demand nodes ($0.10/h, the cheapest that holds 1500m) get a 1500m pod at 0 s, 3 s and 6 s: due
  // at 30 s, 33 s and 36 s. Karpenter polls every 10 s: the pass at 30 s takes n1, the next, at 40 s, n2 and n3
  // together (one pass for each node coming due made passes over the whole cluster as many times as it has nodes).
  NodePool pool = *state.find_nodepool("default");
  pool.requirements.push_back(
      {LabelRequirement{Symbol("karpenter.sh/capacity-type"), SelectorOperator::In, {Symbol("on-demand")}}, {}});
  state.nodepool_applied(std::move(pool));
  for (int i = 1; i <= 3; ++i) {
    clock.advance_to(kStart + (i - 1) * 3s);
    const std::string node = "n" + std::to_string(i);
    add_node(state, cloud, node, "default", true, "c.large");
    run_pod("web-" + std::to_string(i), 1500, node);
    disruption.reconcile();
  }
  clock.advance_to(kStart + 5min);
  const std::string why = "Unconsolidatable: no instance type that holds its pods costs less than $0.1000/h";
  EXPECT_THAT(writer.object_events,
              ElementsAre("30s Node n1 " + why, "40s Node n2 " + why, "40s Node n3 " + why));
}

}  // namespace
}  // namespace scalewright::controllers
