// Workload pod expansion: names, owners, labels and namespaces as the controllers set them.
#include "api/workloads.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace scalewright {
namespace {

Workload workload(WorkloadKind kind, const std::string& name, std::int32_t replicas) {
  Workload w;
  w.kind = kind;
  w.meta.name = name;
  w.meta.namespace_ = "shop";
  w.meta.uid = "uid-" + name;
  w.replicas = replicas;
  w.selector = LabelSelector{{LabelRequirement{Symbol("app"), SelectorOperator::In, {Symbol(name)}}}};
  w.pod_template.meta.labels = Labels{{"app", name}, {"tier", "backend"}};
  w.pod_template.meta.namespace_ = "template-namespace";  // overridden by the workload's namespace
  Container c;
  c.name = "main";
  c.requests.set(Symbol("cpu"), 250);
  w.pod_template.spec.containers.push_back(c);
  w.pod_template.spec.node_name = "leftover-node";  // a new pod is never bound
  w.pod_template.status.phase = PodPhase::Running;
  return w;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

TEST(WorkloadKindName, ToString) {
  EXPECT_EQ(to_string(WorkloadKind::Deployment), "Deployment");
  EXPECT_EQ(to_string(WorkloadKind::ReplicaSet), "ReplicaSet");
  EXPECT_EQ(to_string(WorkloadKind::StatefulSet), "StatefulSet");
  EXPECT_EQ(to_string(WorkloadKind::Job), "Job");
  EXPECT_EQ(to_string(WorkloadKind::DaemonSet), "DaemonSet");
}

TEST(DeploymentExpand, OnePodPerReplicaOwnedThroughAReplicaSet) {
  Workload w = workload(WorkloadKind::Deployment, "web", 3);
  auto pods = w.expand_pods();
  ASSERT_EQ(pods.size(), 3u);
  for (const Pod& pod : pods) {
    EXPECT_TRUE(starts_with(pod.meta.name, "web-")) << pod.meta.name;
    EXPECT_EQ(pod.meta.namespace_, "shop");
    EXPECT_TRUE(pod.spec.node_name.empty());
    EXPECT_FALSE(pod.is_bound());
    EXPECT_EQ(pod.status.phase, PodPhase::Pending);
    ASSERT_EQ(pod.meta.owner_references.size(), 1u);
    const OwnerReference* owner = pod.meta.controller();
    ASSERT_NE(owner, nullptr);
    EXPECT_EQ(owner->kind, "ReplicaSet");
    EXPECT_EQ(owner->api_version, "apps/v1");
    EXPECT_TRUE(starts_with(owner->name, "web-")) << owner->name;
    EXPECT_TRUE(starts_with(pod.meta.name, owner->name + "-")) << pod.meta.name;  // <rs>-<suffix>
    EXPECT_FALSE(pod.is_daemonset_pod());
  }
  // All three share one ReplicaSet.
  EXPECT_EQ(pods[0].meta.controller()->name, pods[2].meta.controller()->name);
}

TEST(DeploymentExpand, TemplateLabelsAndSpecKept) {
  Workload w = workload(WorkloadKind::Deployment, "web", 1);
  Pod pod = w.expand_pods().at(0);
  ASSERT_NE(pod.meta.labels.find("app"), nullptr);
  EXPECT_EQ(*pod.meta.labels.find("app"), Symbol("web"));
  ASSERT_NE(pod.meta.labels.find("tier"), nullptr);
  EXPECT_EQ(*pod.meta.labels.find("tier"), Symbol("backend"));
  EXPECT_TRUE(w.selector.matches(pod.meta.labels));
  // The ReplicaSet's name ends in the pod-template-hash label the controller adds.
  const Symbol* hash = pod.meta.labels.find("pod-template-hash");
  ASSERT_NE(hash, nullptr);
  EXPECT_EQ(pod.meta.controller()->name, "web-" + hash->string());
  EXPECT_EQ(pod.effective_requests().cpu_milli(), 250);
}

TEST(DeploymentExpand, NamesAreDeterministicAndDistinct) {
  Workload w = workload(WorkloadKind::Deployment, "web", 50);
  auto first = w.expand_pods();
  auto second = w.expand_pods();
  ASSERT_EQ(first.size(), 50u);
  ASSERT_EQ(second.size(), 50u);
  std::set<std::string> names;
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].meta.name, second[i].meta.name);
    names.insert(first[i].meta.name);
  }
  EXPECT_EQ(names.size(), 50u);
}

TEST(DeploymentExpand, ZeroOrNegativeReplicasGiveNoPods) {
  EXPECT_TRUE(workload(WorkloadKind::Deployment, "web", 0).expand_pods().empty());
  EXPECT_TRUE(workload(WorkloadKind::Deployment, "web", -2).expand_pods().empty());
}

TEST(ReplicaSetExpand, OwnedByTheReplicaSetItself) {
  Workload w = workload(WorkloadKind::ReplicaSet, "cache", 2);
  auto pods = w.expand_pods();
  ASSERT_EQ(pods.size(), 2u);
  for (const Pod& pod : pods) {
    EXPECT_TRUE(starts_with(pod.meta.name, "cache-"));
    ASSERT_NE(pod.meta.controller(), nullptr);
    EXPECT_EQ(pod.meta.controller()->kind, "ReplicaSet");
    EXPECT_EQ(pod.meta.controller()->name, "cache");
  }
  EXPECT_NE(pods[0].meta.name, pods[1].meta.name);
}

TEST(StatefulSetExpand, OrdinalNames) {
  Workload w = workload(WorkloadKind::StatefulSet, "web", 2);
  auto pods = w.expand_pods();
  ASSERT_EQ(pods.size(), 2u);
  EXPECT_EQ(pods[0].meta.name, "web-0");
  EXPECT_EQ(pods[1].meta.name, "web-1");
  for (const Pod& pod : pods) {
    EXPECT_EQ(pod.meta.namespace_, "shop");
    ASSERT_NE(pod.meta.controller(), nullptr);
    EXPECT_EQ(pod.meta.controller()->kind, "StatefulSet");
    EXPECT_EQ(pod.meta.controller()->name, "web");
    EXPECT_TRUE(pod.spec.node_name.empty());
    EXPECT_TRUE(w.selector.matches(pod.meta.labels));
  }
  ASSERT_NE(pods[1].meta.labels.find("statefulset.kubernetes.io/pod-name"), nullptr);
  EXPECT_EQ(*pods[1].meta.labels.find("statefulset.kubernetes.io/pod-name"), Symbol("web-1"));
  EXPECT_EQ(w.make_pod(7).meta.name, "web-7");
}

TEST(JobExpand, ParallelismPodsOwnedByTheJob) {
  Workload w = workload(WorkloadKind::Job, "backup", 4);
  auto pods = w.expand_pods();
  ASSERT_EQ(pods.size(), 4u);
  std::set<std::string> names;
  for (const Pod& pod : pods) {
    EXPECT_TRUE(starts_with(pod.meta.name, "backup-")) << pod.meta.name;
    EXPECT_EQ(pod.meta.namespace_, "shop");
    ASSERT_NE(pod.meta.controller(), nullptr);
    EXPECT_EQ(pod.meta.controller()->kind, "Job");
    EXPECT_EQ(pod.meta.controller()->api_version, "batch/v1");
    EXPECT_EQ(pod.meta.controller()->name, "backup");
    ASSERT_NE(pod.meta.labels.find("job-name"), nullptr);
    EXPECT_EQ(*pod.meta.labels.find("job-name"), Symbol("backup"));
    EXPECT_TRUE(pod.spec.node_name.empty());
    names.insert(pod.meta.name);
  }
  EXPECT_EQ(names.size(), 4u);
  EXPECT_EQ(w.expand_pods()[3].meta.name, pods[3].meta.name);
}

TEST(DaemonSetExpand, ExpandGivesNoPodsButMakePodIsDaemonSetOwned) {
  Workload w = workload(WorkloadKind::DaemonSet, "fluentd", 5);
  EXPECT_TRUE(w.expand_pods().empty());
  Pod pod = w.make_pod(0);
  EXPECT_TRUE(pod.is_daemonset_pod());
  ASSERT_NE(pod.meta.controller(), nullptr);
  EXPECT_EQ(pod.meta.controller()->kind, "DaemonSet");
  EXPECT_EQ(pod.meta.controller()->name, "fluentd");
  EXPECT_TRUE(starts_with(pod.meta.name, "fluentd-"));
  EXPECT_EQ(pod.meta.namespace_, "shop");
  EXPECT_TRUE(pod.spec.node_name.empty());
}

TEST(WorkloadMakePod, ReplacesTemplateOwnersAndDeletion) {
  Workload w = workload(WorkloadKind::StatefulSet, "db", 1);
  w.pod_template.meta.owner_references.push_back({"v1", "Something", "old", "x", true});
  w.pod_template.meta.deletion_timestamp = 12345;
  Pod pod = w.make_pod(0);
  ASSERT_EQ(pod.meta.owner_references.size(), 1u);
  EXPECT_EQ(pod.meta.owner_references[0].kind, "StatefulSet");
  EXPECT_FALSE(pod.meta.deletion_timestamp.has_value());
}

TEST(WorkloadNames, DifferentWorkloadsGetDifferentPodNames) {
  auto a = workload(WorkloadKind::Deployment, "web", 1).expand_pods();
  auto b = workload(WorkloadKind::Deployment, "api", 1).expand_pods();
  EXPECT_NE(a.at(0).meta.name, b.at(0).meta.name);
  EXPECT_NE(a.at(0).meta.uid, b.at(0).meta.uid);
}

// Budgets and PDBs: a percentage of a total, rounded the way the caller asks (Karpenter's budgets round up).
TEST(IntOrPercent, ScaledAgainstATotal) {
  EXPECT_EQ((IntOrPercent{3, false}).scaled(50, true), 3);   // an absolute number ignores the total
  EXPECT_EQ((IntOrPercent{10, true}).scaled(7, true), 1);    // 0.7 rounds up to 1
  EXPECT_EQ((IntOrPercent{10, true}).scaled(7, false), 0);   // or down to 0
  EXPECT_EQ((IntOrPercent{10, true}).scaled(20, true), 2);   // exactly 2
  EXPECT_EQ((IntOrPercent{100, true}).scaled(13, false), 13);
  EXPECT_EQ((IntOrPercent{10, true}).scaled(0, true), 0);
}

}  // namespace
}  // namespace scalewright
