// Drift of a NodeClaim from its NodePool. The NodePool "default" below launched the node: an m5.large spot
// instance labelled team=web; the NodeClaim was stamped with the hash of the template as it was then.
#include "disruption/drift.h"

#include <gtest/gtest.h>

namespace scalewright::disruption {
namespace {

using namespace std::chrono_literals;

NodePoolRequirement requirement(std::string_view key, SelectorOperator op, std::vector<std::string_view> values) {
  NodePoolRequirement r;
  r.requirement.key = Symbol(key);
  r.requirement.op = op;
  for (std::string_view v : values) r.requirement.values.emplace_back(v);
  return r;
}

NodePool launched_from() {
  NodePool pool;
  pool.meta.name = "default";
  pool.template_labels = Labels{{"team", "web"}};
  pool.template_annotations = {{"example.com/owner", "web-team"}};
  pool.taints = {Taint{"dedicated", "web", TaintEffect::NoSchedule},
                 Taint{"example.com/gpu", "", TaintEffect::NoExecute}};
  pool.startup_taints = {Taint{"node.cilium.io/agent-not-ready", "true", TaintEffect::NoExecute}};
  pool.requirements = {
      requirement("node.kubernetes.io/instance-type", SelectorOperator::In, {"m5.large", "m5.xlarge"}),
      requirement("karpenter.sh/capacity-type", SelectorOperator::In, {"spot", "on-demand"}),
  };
  pool.node_class = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  return pool;
}

const Labels kNodeLabels{{"node.kubernetes.io/instance-type", "m5.large"},
                         {"karpenter.sh/capacity-type", "spot"},
                         {"karpenter.sh/nodepool", "default"},
                         {"team", "web"}};

const std::string kStamped = launched_from().hash();

std::optional<DriftReason> after(void (*change)(NodePool&)) {
  NodePool now = launched_from();
  change(now);
  return drifted(now, kStamped, kNodeLabels);
}

TEST(DriftReason, KarpentersWords) {
  EXPECT_EQ(to_string(DriftReason::NodePoolDrifted), "NodePoolDrifted");
  EXPECT_EQ(to_string(DriftReason::RequirementsDrifted), "RequirementsDrifted");
}

TEST(NodePoolHash, SameTemplateSameHash) {
  EXPECT_EQ(launched_from().hash(), kStamped);
  EXPECT_EQ(kStamped.size(), 16u);
  EXPECT_EQ(drifted(launched_from(), kStamped, kNodeLabels), std::nullopt);
}

TEST(Drift, TemplateMetadataChangesDrift) {
  EXPECT_EQ(after([](NodePool& p) { p.template_labels = Labels{{"team", "api"}}; }), DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { p.template_labels.set(Symbol("tier"), Symbol("gold")); }),
            DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { p.template_annotations["example.com/owner"] = "api-team"; }),
            DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { p.template_annotations.clear(); }), DriftReason::NodePoolDrifted);
}

TEST(Drift, TaintChangesDriftButNotTheirOrder) {
  EXPECT_EQ(after([](NodePool& p) { p.taints.push_back({"spot", "", TaintEffect::NoSchedule}); }),
            DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { p.taints[0].effect = TaintEffect::PreferNoSchedule; }),
            DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { p.taints[0].value = "api"; }), DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { std::swap(p.taints[0], p.taints[1]); }), std::nullopt);
  // A taint moved from taints to startupTaints is a change.
  EXPECT_EQ(after([](NodePool& p) {
              p.startup_taints.push_back(p.taints[1]);
              p.taints.pop_back();
            }),
            DriftReason::NodePoolDrifted);
}

TEST(Drift, StartupTaintChangesDrift) {
  EXPECT_EQ(after([](NodePool& p) { p.startup_taints.clear(); }), DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { p.startup_taints[0].effect = TaintEffect::NoSchedule; }),
            DriftReason::NodePoolDrifted);
}

TEST(Drift, NodeClassExpireAfterAndTerminationGracePeriodDrift) {
  EXPECT_EQ(after([](NodePool& p) { p.node_class.name = "gpu"; }), DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { p.expire_after = Duration(336LL * 3600 * 1000); }), DriftReason::NodePoolDrifted);
  EXPECT_EQ(after([](NodePool& p) { p.expire_after = std::nullopt; }), DriftReason::NodePoolDrifted);  // Never
  EXPECT_EQ(after([](NodePool& p) { p.termination_grace_period = Duration(48LL * 3600 * 1000); }),
            DriftReason::NodePoolDrifted);
}

TEST(Drift, BehaviourFieldsDoNotDrift) {
  EXPECT_EQ(after([](NodePool& p) { p.weight = 50; }), std::nullopt);
  EXPECT_EQ(after([](NodePool& p) {
              p.limits.set(Symbol("cpu"), 100'000);  // 100 cores
              p.limited_resources = {Symbol("cpu")};
            }),
            std::nullopt);
  EXPECT_EQ(after([](NodePool& p) { p.budgets = {DisruptionBudget{IntOrPercent{0, false}, {"Drifted"}}}; }),
            std::nullopt);
  EXPECT_EQ(after([](NodePool& p) { p.consolidate_after = std::nullopt; }), std::nullopt);
  EXPECT_EQ(after([](NodePool& p) { p.consolidation_policy = ConsolidationPolicy::WhenEmpty; }), std::nullopt);
}

TEST(Drift, NodeClaimWithoutAStampedHashIsNotFoundDriftedByTheTemplate) {
  NodePool now = launched_from();
  now.template_labels = Labels{{"team", "api"}};
  EXPECT_EQ(drifted(now, "", kNodeLabels), std::nullopt);
  // Nor one stamped at another hash version (Karpenter's own "v3", say): hashes of two versions do not compare.
  EXPECT_EQ(drifted(now, kStamped, kNodeLabels, "v3"), std::nullopt);
  EXPECT_EQ(drifted(now, kStamped, kNodeLabels, kNodePoolHashVersion), DriftReason::NodePoolDrifted);
}

TEST(Drift, NarrowedRequirementThatExcludesTheNodeDrifts) {
  // m5.large is no longer allowed.
  EXPECT_EQ(after([](NodePool& p) {
              p.requirements[0] = requirement("node.kubernetes.io/instance-type", SelectorOperator::In, {"m5.xlarge"});
            }),
            DriftReason::RequirementsDrifted);
  EXPECT_EQ(after([](NodePool& p) {
              p.requirements[1] = requirement("karpenter.sh/capacity-type", SelectorOperator::NotIn, {"spot"});
            }),
            DriftReason::RequirementsDrifted);
  // Requirements are not in the hash: a NodeClaim without a stamped hash drifts all the same.
  NodePool now = launched_from();
  now.requirements[0] = requirement("node.kubernetes.io/instance-type", SelectorOperator::In, {"c5.large"});
  EXPECT_EQ(drifted(now, "", kNodeLabels), DriftReason::RequirementsDrifted);
}

TEST(Drift, WidenedRequirementDoesNotDrift) {
  EXPECT_EQ(after([](NodePool& p) {
              p.requirements[0] = requirement("node.kubernetes.io/instance-type", SelectorOperator::In,
                                              {"m5.large", "m5.xlarge", "c5.large"});
            }),
            std::nullopt);
  EXPECT_EQ(after([](NodePool& p) {
              p.requirements[0] = requirement("node.kubernetes.io/instance-type", SelectorOperator::Exists, {});
            }),
            std::nullopt);
  EXPECT_EQ(after([](NodePool& p) { p.requirements.clear(); }), std::nullopt);
}

TEST(Drift, RequirementOnALabelTheNodeDoesNotHave) {
  // NotIn and DoesNotExist are satisfied by an absent label.
  EXPECT_EQ(after([](NodePool& p) {
              p.requirements.push_back(
                  requirement("karpenter.k8s.aws/instance-category", SelectorOperator::NotIn, {"t"}));
              p.requirements.push_back(requirement("example.com/forbidden", SelectorOperator::DoesNotExist, {}));
            }),
            std::nullopt);
  // In, Exists and Gt are not.
  EXPECT_EQ(after([](NodePool& p) {
              p.requirements.push_back(
                  requirement("topology.kubernetes.io/zone", SelectorOperator::In, {"us-east-1a"}));
            }),
            DriftReason::RequirementsDrifted);
  EXPECT_EQ(after([](NodePool& p) {
              p.requirements.push_back(requirement("topology.kubernetes.io/zone", SelectorOperator::Exists, {}));
            }),
            DriftReason::RequirementsDrifted);
  EXPECT_EQ(after([](NodePool& p) {
              p.requirements.push_back(
                  requirement("karpenter.k8s.aws/instance-generation", SelectorOperator::Gt, {"2"}));
            }),
            DriftReason::RequirementsDrifted);
}

TEST(Drift, RequirementOnALabelTheNodeHas) {
  Labels labels = kNodeLabels;
  labels.set(Symbol("karpenter.k8s.aws/instance-generation"), Symbol("5"));
  NodePool now = launched_from();
  now.requirements.push_back(requirement("karpenter.k8s.aws/instance-generation", SelectorOperator::Gt, {"2"}));
  EXPECT_EQ(drifted(now, kStamped, labels), std::nullopt);  // 5 > 2
  now.requirements.back() = requirement("karpenter.k8s.aws/instance-generation", SelectorOperator::Gt, {"5"});
  EXPECT_EQ(drifted(now, kStamped, labels), DriftReason::RequirementsDrifted);  // 5 > 5 is false
  now.requirements.back() = requirement("karpenter.k8s.aws/instance-generation", SelectorOperator::DoesNotExist, {});
  EXPECT_EQ(drifted(now, kStamped, labels), DriftReason::RequirementsDrifted);
}

TEST(Drift, TemplateDriftIsReportedBeforeRequirementsDrift) {
  EXPECT_EQ(after([](NodePool& p) {
              p.template_labels = Labels{{"team", "api"}};
              p.requirements[0] = requirement("node.kubernetes.io/instance-type", SelectorOperator::In, {"c5.large"});
            }),
            DriftReason::NodePoolDrifted);
}

}  // namespace
}  // namespace scalewright::disruption
