// Object metadata, taints and tolerations.
#include "api/meta.h"

#include <vector>

#include <gtest/gtest.h>

namespace scalewright {
namespace {

Taint taint(const char* key, const char* value, TaintEffect effect = TaintEffect::NoSchedule) {
  Taint t;
  t.key = key;
  t.value = value;
  t.effect = effect;
  return t;
}

Toleration toleration(const char* key, TolerationOperator op, const char* value,
                      std::optional<TaintEffect> effect = std::nullopt) {
  Toleration t;
  t.key = key;
  t.op = op;
  t.value = value;
  t.effect = effect;
  return t;
}

TEST(Toleration, EqualNeedsSameKeyAndValue) {
  auto t = toleration("dedicated", TolerationOperator::Equal, "databases");
  EXPECT_TRUE(t.tolerates(taint("dedicated", "databases")));
  EXPECT_FALSE(t.tolerates(taint("dedicated", "web")));
  EXPECT_FALSE(t.tolerates(taint("gpu", "databases")));
}

TEST(Toleration, ExistsToleratesAnyValueOfTheKey) {
  auto t = toleration("dedicated", TolerationOperator::Exists, "");
  EXPECT_TRUE(t.tolerates(taint("dedicated", "databases")));
  EXPECT_TRUE(t.tolerates(taint("dedicated", "")));
  EXPECT_FALSE(t.tolerates(taint("gpu", "databases")));
}

TEST(Toleration, EmptyKeyWithExistsToleratesEverything) {
  auto t = toleration("", TolerationOperator::Exists, "");
  EXPECT_TRUE(t.tolerates(taint("dedicated", "databases")));
  EXPECT_TRUE(t.tolerates(taint("node.kubernetes.io/unschedulable", "", TaintEffect::NoSchedule)));
  EXPECT_TRUE(t.tolerates(taint("gpu", "", TaintEffect::NoExecute)));
  EXPECT_TRUE(t.tolerates(taint("x", "y", TaintEffect::PreferNoSchedule)));
}

TEST(Toleration, EffectMustMatchWhenGiven) {
  auto no_schedule = toleration("dedicated", TolerationOperator::Equal, "databases", TaintEffect::NoSchedule);
  EXPECT_TRUE(no_schedule.tolerates(taint("dedicated", "databases", TaintEffect::NoSchedule)));
  EXPECT_FALSE(no_schedule.tolerates(taint("dedicated", "databases", TaintEffect::NoExecute)));
  EXPECT_FALSE(no_schedule.tolerates(taint("dedicated", "databases", TaintEffect::PreferNoSchedule)));

  auto any_effect = toleration("dedicated", TolerationOperator::Equal, "databases");
  EXPECT_TRUE(any_effect.tolerates(taint("dedicated", "databases", TaintEffect::NoExecute)));
  EXPECT_TRUE(any_effect.tolerates(taint("dedicated", "databases", TaintEffect::PreferNoSchedule)));

  auto everything_no_execute = toleration("", TolerationOperator::Exists, "", TaintEffect::NoExecute);
  EXPECT_TRUE(everything_no_execute.tolerates(taint("a", "b", TaintEffect::NoExecute)));
  EXPECT_FALSE(everything_no_execute.tolerates(taint("a", "b", TaintEffect::NoSchedule)));
}

TEST(Toleration, DedicatedDatabasesNodeRejectsPlainNginxPod) {
  const Taint dedicated = taint("dedicated", "databases", TaintEffect::NoSchedule);
  const std::vector<Toleration> nginx;  // no tolerations
  EXPECT_FALSE(tolerates_all(nginx, dedicated));

  const std::vector<Toleration> database_pod{
      toleration("dedicated", TolerationOperator::Equal, "databases", TaintEffect::NoSchedule)};
  EXPECT_TRUE(tolerates_all(database_pod, dedicated));
}

TEST(Toleration, AnyMatchingTolerationSuffices) {
  const std::vector<Toleration> tolerations{toleration("gpu", TolerationOperator::Exists, ""),
                                            toleration("dedicated", TolerationOperator::Equal, "databases")};
  EXPECT_TRUE(tolerates_all(tolerations, taint("dedicated", "databases")));
  EXPECT_TRUE(tolerates_all(tolerations, taint("gpu", "a100")));
  EXPECT_FALSE(tolerates_all(tolerations, taint("dedicated", "web")));
}

TEST(Taint, DescribeAsKubeSchedulerPrints) {
  EXPECT_EQ(taint("dedicated", "databases").describe(), "{dedicated: databases}");
  EXPECT_EQ(taint("node.kubernetes.io/unschedulable", "").describe(), "{node.kubernetes.io/unschedulable: }");
}

TEST(TaintEffect, ParseAndPrintRoundTrip) {
  for (TaintEffect e : {TaintEffect::NoSchedule, TaintEffect::PreferNoSchedule, TaintEffect::NoExecute}) {
    auto parsed = parse_taint_effect(to_string(e));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, e);
  }
  EXPECT_EQ(to_string(TaintEffect::PreferNoSchedule), "PreferNoSchedule");
  EXPECT_FALSE(parse_taint_effect("noschedule").has_value());
  EXPECT_FALSE(parse_taint_effect("").has_value());
}

TEST(ObjectMeta, KeyIsNamespaceSlashNameOrJustName) {
  ObjectMeta pod;
  pod.name = "web-1";
  pod.namespace_ = "shop";
  EXPECT_EQ(pod.key(), "shop/web-1");
  ObjectMeta node;
  node.name = "node-a";
  EXPECT_EQ(node.key(), "node-a");
}

TEST(ObjectMeta, ControllerIsTheOwnerMarkedController) {
  ObjectMeta meta;
  EXPECT_EQ(meta.controller(), nullptr);
  meta.owner_references.push_back({"v1", "ConfigMap", "cfg", "u1", false});
  EXPECT_EQ(meta.controller(), nullptr);
  meta.owner_references.push_back({"apps/v1", "ReplicaSet", "web-abc", "u2", true});
  const OwnerReference* c = meta.controller();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->kind, "ReplicaSet");
  EXPECT_EQ(c->name, "web-abc");
  EXPECT_EQ(c, &meta.owner_references[1]);
}

}  // namespace
}  // namespace scalewright
