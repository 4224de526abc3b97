// The eviction subresource's rules as both node models apply them: a PodDisruptionBudget's status, whether a pod is
// evicted now, the order and grace of a drain's evictions.
#include "eviction/eviction.h"

#include <gtest/gtest.h>

#include "fixtures.h"

namespace scalewright::eviction {
namespace {

using namespace fixtures;

std::int32_t disruptions_allowed(const PodDisruptionBudget& pdb, const std::vector<const Pod*>& pods) {
  return pdb_budget(pdb, pods).disruptions_allowed;
}

TEST(PdbBudget, DisruptionsAllowedIsCurrentHealthyMinusDesiredHealthy) {
  std::vector<std::shared_ptr<const Pod>> owned = {make_pod("web-1"), make_pod("web-2"), make_pod("web-3"),
                                                   make_pod("api-1", "ReplicaSet", "default", "api")};
  std::vector<const Pod*> pods;
  for (const auto& p : owned) pods.push_back(p.get());
  PodDisruptionBudget b = pdb("default", "web");
  b.max_unavailable = IntOrPercent{1, false};  // 3 expected, 2 desired healthy, 3 healthy -> 1
  EXPECT_EQ(disruptions_allowed(b, pods), 1);
  b.max_unavailable.reset();
  b.min_available = IntOrPercent{2, false};  // 3 - 2 = 1
  EXPECT_EQ(disruptions_allowed(b, pods), 1);
  b.min_available = IntOrPercent{50, true};  // 50 % of 3 rounds up to 2: 3 - 2 = 1
  EXPECT_EQ(disruptions_allowed(b, pods), 1);
  b.min_available = IntOrPercent{3, false};  // 3 - 3 = 0
  EXPECT_EQ(disruptions_allowed(b, pods), 0);

  // One of the three not Ready: maxUnavailable 1 wants 2 healthy and has 2 -> 0.
  auto unready = with(owned[2], [](Pod& p) { p.status.conditions.push_back({"Ready", "False", ""}); });
  pods[2] = unready.get();
  b.min_available.reset();
  b.max_unavailable = IntOrPercent{1, false};
  EXPECT_EQ(disruptions_allowed(b, pods), 0);
}

TEST(PdbBudget, AnEvictedPodLeavesTheCountAndItsPendingReplacementIsNotHealthyYet) {
  PodDisruptionBudget b = pdb("default", "web");
  b.max_unavailable = IntOrPercent{1, false};
  auto evicted = with(make_pod("web-1"), [](Pod& p) { p.meta.deletion_timestamp = 60; });
  auto replacement = with(make_pod("web-4"), [](Pod& p) { p.status.phase = PodPhase::Pending; });
  auto web2 = make_pod("web-2"), web3 = make_pod("web-3");
  // web-1 terminating, web-4 not scheduled yet: 3 expected (web-2, web-3, web-4), 2 desired, 2 healthy -> 0.
  EXPECT_EQ(disruptions_allowed(b, {evicted.get(), web2.get(), web3.get(), replacement.get()}), 0);
  // web-4 bound to a node: 3 healthy -> 1 again.
  auto bound = with(replacement, [](Pod& p) { p.spec.node_name = "node-b"; });
  EXPECT_EQ(disruptions_allowed(b, {evicted.get(), web2.get(), web3.get(), bound.get()}), 1);
}


TEST(PdbBudget, AnEmptySelectorCountsEveryPodOfItsNamespaceAndNoSelectorNone) {
  auto web1 = make_pod("web-1"), web2 = make_pod("web-2"), api = make_pod("api-1", "ReplicaSet", "default", "api");
  auto cart = make_pod("cart-1", "ReplicaSet", "shop", "cart");
  const std::vector<const Pod*> pods = {web1.get(), web2.get(), api.get(), cart.get()};
  PodDisruptionBudget all = pdb("default", "web");
  all.selector = LabelSelector{};
  all.min_available = IntOrPercent{2, false};
  // default's 3 pods (not shop's cart-1), all healthy: 3 - 2 = 1.
  const PdbBudget counted = pdb_budget(all, pods);
  EXPECT_EQ(counted.current_healthy, 3);
  EXPECT_EQ(counted.desired_healthy, 2);
  EXPECT_EQ(counted.disruptions_allowed, 1);
  all.selector.reset();
  EXPECT_EQ(pdb_budget(all, pods).current_healthy, 0);
  EXPECT_EQ(pdb_budget(all, pods).disruptions_allowed, 0);
}

TEST(MayEvict, IfHealthyBudgetEvictsAPodThatIsNotReadyOnlyWhileTheBudgetHasItsDesiredHealthyPods) {
  UnhealthyCase c;
  PodDisruptionBudget b = pdb("default", "web");
  b.min_available = IntOrPercent{3, false};  // 2 healthy < 3 desired
  EXPECT_EQ(may_evict(*c.web3, c.budgets(b)).outcome, EvictionOutcome::RefusedByBudget);
  b.min_available.reset();
  b.max_unavailable = IntOrPercent{1, false};  // 3 - 1 = 2 desired, 2 healthy: 0 allowed, yet 2 >= 2
  const std::vector<PdbBudget> budgets = c.budgets(b);
  ASSERT_EQ(budgets[0].disruptions_allowed, 0);
  const EvictionVerdict unready = may_evict(*c.web3, budgets);
  EXPECT_EQ(unready.outcome, EvictionOutcome::Evicted);
  EXPECT_FALSE(unready.spends);
  EXPECT_EQ(may_evict(*c.web1, budgets).outcome, EvictionOutcome::RefusedByBudget);
}

TEST(MayEvict, APodNotRunningOrBeingDeletedIsEvictedWhateverItsBudgets) {
  const std::vector<PdbBudget> none_left = {budget(pdb("default", "web"), 0)};
  auto starting = ready(with(make_pod("web-4"),
                             [](Pod& p) {
                               p.status.phase = PodPhase::Pending;
                               p.spec.node_name = "node-a";
                             }),
                        "False");
  auto unscheduled = with(make_pod("web-5"), [](Pod& p) { p.status.phase = PodPhase::Pending; });
  auto deleting = with(make_pod("web-1"), [](Pod& p) { p.meta.deletion_timestamp = 60; });
  for (const auto& pod : {starting, unscheduled, deleting}) {
    const EvictionVerdict verdict = may_evict(*pod, none_left);
    EXPECT_EQ(verdict.outcome, EvictionOutcome::Evicted) << pod->meta.name;
    EXPECT_FALSE(verdict.spends) << pod->meta.name;
  }
  EXPECT_EQ(may_evict(*make_pod("web-1"), none_left).outcome, EvictionOutcome::RefusedByBudget);
  // A bound pod still Pending with no Ready condition is a simulated one (or one its kubelet has not reported):
  // it runs, and its budget holds it.
  auto simulated = with(make_pod("web-6"), [](Pod& p) {
    p.status.phase = PodPhase::Pending;
    p.spec.node_name = "node-a";
  });
  EXPECT_EQ(may_evict(*simulated, none_left).outcome, EvictionOutcome::RefusedByBudget);
}

TEST(EvictionOrder, LowPriorityFirstAndGracePeriodCapped) {
  auto critical = with(make_pod("critical"), [](Pod& p) { p.spec.priority = 2000000000; });
  auto low = with(make_pod("low"), [](Pod& p) { p.spec.priority = -10; });
  auto plain = make_pod("plain");
  auto order = eviction_order({critical, plain, low});
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0]->meta.name, "low");
  EXPECT_EQ(order[1]->meta.name, "plain");
  EXPECT_EQ(order[2]->meta.name, "critical");

  EXPECT_EQ(eviction_grace_period_seconds(*plain, 600), 30);  // unset: Kubernetes' 30 s
  auto slow = with(plain, [](Pod& p) { p.spec.termination_grace_period_seconds = 3600; });
  EXPECT_EQ(eviction_grace_period_seconds(*slow, 600), 600);
}


}  // namespace
}  // namespace scalewright::eviction
