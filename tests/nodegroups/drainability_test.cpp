#include "nodegroups/drainability.h"

#include <gtest/gtest.h>

#include <functional>

#include "../eviction/fixtures.h"

namespace scalewright::nodegroups {
namespace {

// Declared here, not brought in by a using-directive, so that they overload other tests' helpers of the same names
// in this unity build.
using eviction::fixtures::budget;
using eviction::fixtures::make_pod;
using eviction::fixtures::pdb;
using eviction::fixtures::ready;
using eviction::fixtures::UnhealthyCase;
using eviction::fixtures::with;
using eviction::kMirrorPodAnnotation;

DrainPlan drain(std::vector<std::shared_ptr<const Pod>> pods, std::vector<PdbBudget> pdbs = {},
                DrainOptions options = {}) {
  return plan_drain(pods, pdbs, options, Instant{});
}

TEST(Drainability, ReplicatedPodsMoveAndDaemonSetPodsGoWithTheNode) {
  DrainPlan plan = drain({make_pod("web-1"), make_pod("job-1", "Job"), make_pod("db-0", "StatefulSet"),
                          make_pod("fluentd-x", "DaemonSet")});
  ASSERT_TRUE(plan.drainable());
  EXPECT_EQ(plan.pods_to_move.size(), 3u);
  ASSERT_EQ(plan.daemonset_pods.size(), 1u);
  EXPECT_EQ(plan.daemonset_pods[0]->meta.name, "fluentd-x");
}

TEST(Drainability, MirrorAndTerminalPodsAreIgnored) {
  auto mirror = with(make_pod("kube-proxy", "", "kube-system"),
                     [](Pod& p) { p.meta.annotations[std::string(kMirrorPodAnnotation)] = "abc"; });
  auto done = with(make_pod("batch-1", ""), [](Pod& p) { p.status.phase = PodPhase::Succeeded; });
  DrainPlan plan = drain({mirror, done});
  EXPECT_TRUE(plan.drainable());
  EXPECT_TRUE(plan.pods_to_move.empty());
  EXPECT_TRUE(plan.daemonset_pods.empty());
}

TEST(Drainability, PodWithoutControllerIsNotReplicatedUnlessSafeToEvict) {
  DrainPlan plan = drain({make_pod("web-1"), make_pod("bare", "")});
  ASSERT_FALSE(plan.drainable());
  EXPECT_EQ(plan.blocking->reason, BlockingPodReason::NotReplicated);
  EXPECT_EQ(plan.blocking->pod, "default/bare");
  EXPECT_EQ(plan.blocking->message, "default/bare is not replicated");
  EXPECT_EQ(to_string(plan.blocking->reason), "NotReplicated");

  auto safe = with(make_pod("bare", ""),
                   [](Pod& p) { p.meta.annotations[std::string(kSafeToEvictAnnotation)] = "true"; });
  DrainPlan allowed = drain({safe});
  EXPECT_TRUE(allowed.drainable());
  EXPECT_EQ(allowed.pods_to_move.size(), 1u);
}

TEST(Drainability, CustomControllerPodsBlockUnlessAllowed) {
  auto custom = make_pod("argo-rollout-1", "Rollout");
  EXPECT_EQ(drain({custom}).blocking->reason, BlockingPodReason::NotReplicated);
  DrainOptions options;
  options.skip_nodes_with_custom_controller_pods = false;
  EXPECT_TRUE(drain({custom}, {}, options).drainable());
}

TEST(Drainability, LocalStorageBlocksUnlessSafeToEvictOrFlagOff) {
  auto volume = [](const std::string& pod, const std::string& name, Volume::Source source) {
    return with(make_pod(pod), [&](Pod& p) { p.spec.volumes.push_back({name, source}); });
  };
  auto empty_dir = volume("cache-0", "scratch", Volume::Source::EmptyDir);
  auto host_path = volume("logs-0", "varlog", Volume::Source::HostPath);
  auto pvc = volume("db-0", "data", Volume::Source::PersistentVolumeClaim);
  DrainPlan plan = drain({empty_dir});
  ASSERT_FALSE(plan.drainable());
  EXPECT_EQ(plan.blocking->reason, BlockingPodReason::LocalStorageRequested);
  EXPECT_EQ(plan.blocking->message, "pod with local storage present: default/cache-0");
  EXPECT_EQ(drain({host_path}).blocking->reason, BlockingPodReason::LocalStorageRequested);
  EXPECT_TRUE(drain({pvc}).drainable());

  DrainOptions flag_off;
  flag_off.skip_nodes_with_local_storage = false;
  EXPECT_TRUE(drain({empty_dir, host_path}, {}, flag_off).drainable());
  auto safe = with(empty_dir, [](Pod& p) { p.meta.annotations[std::string(kSafeToEvictAnnotation)] = "true"; });
  EXPECT_TRUE(drain({safe}).drainable());
  auto listed = with(empty_dir, [](Pod& p) {
    p.meta.annotations[std::string(kSafeToEvictLocalVolumesAnnotation)] = "tmp,scratch";
  });
  EXPECT_TRUE(drain({listed}).drainable());
}

TEST(Drainability, KubeSystemPodNeedsAPdb) {
  auto dns = make_pod("coredns-1", "ReplicaSet", "kube-system", "kube-dns");
  DrainPlan plan = drain({dns});
  ASSERT_FALSE(plan.drainable());
  EXPECT_EQ(plan.blocking->reason, BlockingPodReason::UnmovableKubeSystemPod);
  EXPECT_EQ(plan.blocking->message,
            "non-daemonset, non-mirrored, non-pdb-assigned kube-system pod present: kube-system/coredns-1");
  EXPECT_TRUE(drain({dns}, {budget(pdb("kube-system", "kube-dns"), 1)}).drainable());
  // A PDB of the same name in another namespace does not cover it.
  EXPECT_FALSE(drain({dns}, {budget(pdb("default", "kube-dns"), 1)}).drainable());
  DrainOptions flag_off;
  flag_off.skip_nodes_with_system_pods = false;
  EXPECT_TRUE(drain({dns}, {}, flag_off).drainable());
}

TEST(Drainability, SafeToEvictFalseBlocks) {
  auto pinned = with(make_pod("web-1"),
                     [](Pod& p) { p.meta.annotations[std::string(kSafeToEvictAnnotation)] = "false"; });
  DrainPlan plan = drain({pinned});
  ASSERT_FALSE(plan.drainable());
  EXPECT_EQ(plan.blocking->reason, BlockingPodReason::NotSafeToEvictAnnotation);
  EXPECT_EQ(plan.blocking->message, "pod annotated as not safe to evict present: default/web-1");
}

TEST(Drainability, PdbMustAllowADisruptionForEachOfItsPods) {
  // Budget 1: the node may go, with one pod or two (the drain evicts the second once the first is replaced);
  // budget 0 blocks it at the first pod the PDB covers.
  EXPECT_TRUE(drain({make_pod("web-1")}, {budget(pdb("default", "web"), 1)}).drainable());
  EXPECT_TRUE(drain({make_pod("web-1"), make_pod("web-2")}, {budget(pdb("default", "web"), 1)}).drainable());
  DrainPlan none = drain({make_pod("api-1", "ReplicaSet", "default", "api"), make_pod("web-1"), make_pod("web-2")},
                         {budget(pdb("default", "web"), 0)});
  ASSERT_FALSE(none.drainable());
  EXPECT_EQ(none.blocking->reason, BlockingPodReason::NotEnoughPdb);
  EXPECT_EQ(none.blocking->message, "not enough pod disruption budget to move default/web-1");
  // Pods the PDB does not select are not limited by it.
  EXPECT_TRUE(drain({make_pod("api-1", "ReplicaSet", "default", "api")}, {budget(pdb("default", "web"), 0)})
                  .drainable());
}

TEST(Drainability, APodDeletedLongerThanItsGracePeriodAndThirtySecondsIsLeftOut) {
  // Deleted at 100 s with the default 30 s grace period: still counted up to 160 s, left out after.
  auto deleted = with(make_pod("web-1"), [](Pod& p) { p.meta.deletion_timestamp = 100; });
  EXPECT_FALSE(is_long_terminating(*deleted, Instant(Duration{160'000})));
  EXPECT_TRUE(is_long_terminating(*deleted, Instant(Duration{160'001})));
  EXPECT_FALSE(is_long_terminating(*make_pod("web-2"), Instant(Duration{1'000'000})));
  auto slow = with(deleted, [](Pod& p) { p.spec.termination_grace_period_seconds = 600; });
  EXPECT_FALSE(is_long_terminating(*slow, Instant(Duration{700'000})));
  EXPECT_TRUE(is_long_terminating(*slow, Instant(Duration{730'001})));

  EXPECT_EQ(plan_drain({deleted}, {}, {}, Instant(Duration{160'000})).pods_to_move.size(), 1u);
  EXPECT_TRUE(plan_drain({deleted}, {}, {}, Instant(Duration{161'000})).pods_to_move.empty());
}

TEST(Drainability, ScaleDownDisabledAnnotationOnTheNode) {
  Node node;
  EXPECT_FALSE(scale_down_disabled(node));
  node.meta.annotations[std::string(kScaleDownDisabledAnnotation)] = "true";
  EXPECT_TRUE(scale_down_disabled(node));
  node.meta.annotations[std::string(kScaleDownDisabledAnnotation)] = "false";
  EXPECT_FALSE(scale_down_disabled(node));
}

TEST(Drainability, APdbWithoutSelectorCoversNoPodAndAnEmptySelectorEveryPodOfItsNamespace) {
  PodDisruptionBudget none = pdb("default", "web");
  none.selector.reset();
  PodDisruptionBudget all = pdb("default", "web");
  all.selector = LabelSelector{};
  auto web = make_pod("web-1"), api = make_pod("api-1", "ReplicaSet", "default", "api");
  auto cart = make_pod("cart-1", "ReplicaSet", "shop", "cart");
  EXPECT_FALSE(none.selects(*web));
  EXPECT_TRUE(all.selects(*web));
  EXPECT_TRUE(all.selects(*api));
  EXPECT_FALSE(all.selects(*cart));

  // Neither allows a disruption: the one without a selector holds no pod, the empty one both pods of default.
  EXPECT_TRUE(drain({web, api}, {budget(none, 0)}).drainable());
  DrainPlan held = drain({api, web}, {budget(all, 0)});
  ASSERT_FALSE(held.drainable());
  EXPECT_EQ(held.blocking->pod, "default/api-1");
  EXPECT_EQ(held.blocking->reason, BlockingPodReason::NotEnoughPdb);
  EXPECT_TRUE(drain({cart}, {budget(all, 0)}).drainable());

  // Nor does a PDB that selects nothing make a kube-system pod movable.
  PodDisruptionBudget system_none = none;
  system_none.meta.namespace_ = "kube-system";
  auto dns = make_pod("coredns-1", "ReplicaSet", "kube-system", "kube-dns");
  EXPECT_EQ(drain({dns}, {budget(system_none, 1)}).blocking->reason, BlockingPodReason::UnmovableKubeSystemPod);
}

TEST(MayEvict, AlwaysAllowEvictsARunningPodThatIsNotReadyWhenTheBudgetAllowsNoDisruption) {
  UnhealthyCase c;
  PodDisruptionBudget b = pdb("default", "web");
  b.min_available = IntOrPercent{3, false};  // 2 healthy - 3 desired: 0 allowed
  b.unhealthy_pod_eviction_policy = UnhealthyPodEvictionPolicy::AlwaysAllow;
  const std::vector<PdbBudget> budgets = c.budgets(b);
  ASSERT_EQ(budgets[0].disruptions_allowed, 0);
  const EvictionVerdict unready = may_evict(*c.web3, budgets);
  EXPECT_EQ(unready.outcome, EvictionOutcome::Evicted);
  EXPECT_EQ(unready.budget, 0u);
  EXPECT_FALSE(unready.spends);
  const EvictionVerdict healthy = may_evict(*c.web1, budgets);
  EXPECT_EQ(healthy.outcome, EvictionOutcome::RefusedByBudget);
  EXPECT_TRUE(healthy.spends);

  // The same pod under a plan: the node may go.
  EXPECT_TRUE(drain({c.web3}, budgets).drainable());
  EXPECT_FALSE(drain({c.web3, c.web1}, budgets).drainable());
}

TEST(MayEvict, APodThatTwoBudgetsCoverIsRefusedHoweverMuchTheyAllow) {
  PodDisruptionBudget all = pdb("default", "all");
  all.selector = LabelSelector{};
  const std::vector<PdbBudget> two = {budget(pdb("default", "web"), 5), budget(all, 5)};
  const EvictionVerdict web = may_evict(*make_pod("web-1"), two);
  EXPECT_EQ(web.outcome, EvictionOutcome::MoreThanOneBudget);
  EXPECT_FALSE(web.budget.has_value());
  EXPECT_FALSE(web.spends);
  // Only `all` covers api-1: it spends that one.
  const EvictionVerdict api = may_evict(*make_pod("api-1", "ReplicaSet", "default", "api"), two);
  EXPECT_EQ(api.outcome, EvictionOutcome::Evicted);
  EXPECT_EQ(api.budget, 1u);
  EXPECT_TRUE(api.spends);
  // A Pending pod is evicted before any budget is looked at.
  auto pending = with(make_pod("web-2"), [](Pod& p) { p.status.phase = PodPhase::Pending; });
  EXPECT_EQ(may_evict(*pending, two).outcome, EvictionOutcome::Evicted);

  DrainPlan plan = drain({make_pod("web-1")}, two);
  ASSERT_FALSE(plan.drainable());
  EXPECT_EQ(plan.blocking->reason, BlockingPodReason::NotEnoughPdb);
  EXPECT_EQ(plan.blocking->message,
            "more than one pod disruption budget covers default/web-1, which the eviction subresource does not "
            "support");
}

}  // namespace
}  // namespace scalewright::nodegroups
