#include "nodegroups/drainability.h"

#include <gtest/gtest.h>

#include <functional>

namespace scalewright::nodegroups {
namespace {

std::shared_ptr<const Pod> make_pod(const std::string& name, const std::string& owner_kind = "ReplicaSet",
                                    const std::string& ns = "default", const std::string& app = "web") {
  Pod pod;
  pod.meta.name = name;
  pod.meta.namespace_ = ns;
  pod.meta.labels.set(Symbol("app"), Symbol(app));
  if (!owner_kind.empty()) pod.meta.owner_references.push_back({"apps/v1", owner_kind, "owner", "owner-uid", true});
  pod.status.phase = PodPhase::Running;
  return std::make_shared<const Pod>(std::move(pod));
}

std::shared_ptr<const Pod> with(std::shared_ptr<const Pod> base, const std::function<void(Pod&)>& edit) {
  Pod pod = *base;
  edit(pod);
  return std::make_shared<const Pod>(std::move(pod));
}

PodDisruptionBudget pdb(const std::string& ns, const std::string& app) {
  PodDisruptionBudget b;
  b.meta.name = app + "-pdb";
  b.meta.namespace_ = ns;
  b.selector = LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol(app)}}}};
  return b;
}

DrainPlan drain(std::vector<std::shared_ptr<const Pod>> pods, std::vector<PdbBudget> pdbs = {},
                DrainOptions options = {}) {
  return plan_drain(pods, pdbs, options, Duration{0});
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
  EXPECT_TRUE(drain({dns}, {PdbBudget{pdb("kube-system", "kube-dns"), 1}}).drainable());
  // A PDB of the same name in another namespace does not cover it.
  EXPECT_FALSE(drain({dns}, {PdbBudget{pdb("default", "kube-dns"), 1}}).drainable());
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
  EXPECT_TRUE(drain({make_pod("web-1")}, {PdbBudget{pdb("default", "web"), 1}}).drainable());
  EXPECT_TRUE(drain({make_pod("web-1"), make_pod("web-2")}, {PdbBudget{pdb("default", "web"), 1}}).drainable());
  DrainPlan none = drain({make_pod("api-1", "ReplicaSet", "default", "api"), make_pod("web-1"), make_pod("web-2")},
                         {PdbBudget{pdb("default", "web"), 0}});
  ASSERT_FALSE(none.drainable());
  EXPECT_EQ(none.blocking->reason, BlockingPodReason::NotEnoughPdb);
  EXPECT_EQ(none.blocking->message, "not enough pod disruption budget to move default/web-1");
  // Pods the PDB does not select are not limited by it.
  EXPECT_TRUE(drain({make_pod("api-1", "ReplicaSet", "default", "api")}, {PdbBudget{pdb("default", "web"), 0}})
                  .drainable());
}

TEST(Drainability, DisruptionsAllowedIsCurrentHealthyMinusDesiredHealthy) {
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

TEST(Drainability, AnEvictedPodLeavesTheCountAndItsPendingReplacementIsNotHealthyYet) {
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

TEST(Drainability, APodDeletedLongerThanItsGracePeriodAndThirtySecondsIsLeftOut) {
  // Deleted at 100 s with the default 30 s grace period: still counted up to 160 s, left out after.
  auto deleted = with(make_pod("web-1"), [](Pod& p) { p.meta.deletion_timestamp = 100; });
  EXPECT_FALSE(is_long_terminating(*deleted, Duration{160'000}));
  EXPECT_TRUE(is_long_terminating(*deleted, Duration{160'001}));
  EXPECT_FALSE(is_long_terminating(*make_pod("web-2"), Duration{1'000'000}));
  auto slow = with(deleted, [](Pod& p) { p.spec.termination_grace_period_seconds = 600; });
  EXPECT_FALSE(is_long_terminating(*slow, Duration{700'000}));
  EXPECT_TRUE(is_long_terminating(*slow, Duration{730'001}));

  EXPECT_EQ(plan_drain({deleted}, {}, {}, Duration{160'000}).pods_to_move.size(), 1u);
  EXPECT_TRUE(plan_drain({deleted}, {}, {}, Duration{161'000}).pods_to_move.empty());
}

TEST(Drainability, ScaleDownDisabledAnnotationOnTheNode) {
  Node node;
  EXPECT_FALSE(scale_down_disabled(node));
  node.meta.annotations[std::string(kScaleDownDisabledAnnotation)] = "true";
  EXPECT_TRUE(scale_down_disabled(node));
  node.meta.annotations[std::string(kScaleDownDisabledAnnotation)] = "false";
  EXPECT_FALSE(scale_down_disabled(node));
}

TEST(Drainability, EvictionOrderLowPriorityFirstAndGracePeriodCapped) {
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
}  // namespace scalewright::nodegroups
