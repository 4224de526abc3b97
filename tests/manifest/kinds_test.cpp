// Each built-in kind decodes every field the model keeps, with the API server's defaults.
#include <gtest/gtest.h>

#include "decode_helpers.h"

namespace scalewright::testing {
namespace {

Symbol S(const char* text) { return Symbol(text); }

TEST(DecodeNode, MetadataSpecAndStatus) {
  ManifestSet set = decode_ok(R"(
apiVersion: v1
kind: Node
metadata:
  name: n1
  namespace: ignored-for-cluster-scoped-kinds
  labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: zone-a}
spec:
  unschedulable: true
  providerID: aws:///us-east-1a/i-0abc
  taints:
  - {key: dedicated, value: db, effect: NoSchedule}
  - {key: spot, effect: PreferNoSchedule}
status:
  capacity: {cpu: "4", memory: 16Gi, pods: "110", ephemeral-storage: 100Gi, nvidia.com/gpu: "2", hugepages-2Mi: 1Gi}
  allocatable: {cpu: 3920m, memory: 15Gi, pods: "110"}
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady}
)");
  ASSERT_EQ(set.nodes.size(), 1u);
  const Node& node = set.nodes[0];
  EXPECT_EQ(node.meta.name, "n1");
  EXPECT_EQ(node.meta.namespace_, "");
  EXPECT_EQ(node.meta.labels, (Labels{{"kubernetes.io/hostname", "n1"}, {"topology.kubernetes.io/zone", "zone-a"}}));
  EXPECT_TRUE(node.unschedulable);
  EXPECT_EQ(node.provider_id, "aws:///us-east-1a/i-0abc");
  EXPECT_EQ(node.taints, (std::vector<Taint>{{"dedicated", "db", TaintEffect::NoSchedule},
                                             {"spot", "", TaintEffect::PreferNoSchedule}}));
  EXPECT_EQ(node.capacity.cpu_milli(), 4000);
  EXPECT_EQ(node.capacity.memory(), 16 * kGi);
  EXPECT_EQ(node.capacity.pods(), 110);
  EXPECT_EQ(node.capacity.ephemeral_storage(), 100 * kGi);
  EXPECT_EQ(node.capacity.get(S("nvidia.com/gpu")), 2);
  EXPECT_EQ(node.capacity.get(S("hugepages-2Mi")), kGi);
  EXPECT_EQ(node.allocatable.cpu_milli(), 3920);
  EXPECT_EQ(node.allocatable.memory(), 15 * kGi);
  EXPECT_EQ(node.allocatable.get(S("nvidia.com/gpu")), 0);  // allocatable given: no defaulting per resource
  ASSERT_EQ(node.conditions.size(), 1u);
  EXPECT_EQ(node.conditions[0].type, "Ready");
  EXPECT_EQ(node.conditions[0].status, "True");
  EXPECT_EQ(node.conditions[0].reason, "KubeletReady");
  EXPECT_TRUE(node.is_ready());
}

TEST(DecodeNode, AllocatableDefaultsToCapacity) {
  ManifestSet set = decode_ok(R"(
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  capacity: {cpu: 2500m, memory: 512Mi, pods: 29}
)");
  ASSERT_EQ(set.nodes.size(), 1u);
  EXPECT_EQ(set.nodes[0].allocatable.cpu_milli(), 2500);
  EXPECT_EQ(set.nodes[0].allocatable.memory(), 512 * kMi);
  EXPECT_EQ(set.nodes[0].allocatable.pods(), 29);
  EXPECT_FALSE(set.nodes[0].unschedulable);
}

TEST(DecodePod, MetadataContainersTolerationsVolumesAndStatus) {
  ManifestSet set = decode_ok(R"(
apiVersion: v1
kind: Pod
metadata:
  name: api-0
  namespace: shop
  uid: 1234-abcd
  labels: {app: api, tier: backend}
  annotations: {note: hello}
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: api-7d4b9, uid: rs-uid, controller: true}
  - {apiVersion: v1, kind: ConfigMap, name: owner-cm}
  deletionTimestamp: "2024-03-01T12:00:00Z"
spec:
  nodeName: n1
  nodeSelector: {disktype: ssd}
  priority: 100
  priorityClassName: high
  schedulerName: my-scheduler
  restartPolicy: OnFailure
  terminationGracePeriodSeconds: 45
  overhead: {cpu: 100m, memory: 64Mi}
  initContainers:
  - name: init
    image: busybox
    resources: {requests: {cpu: "1"}}
  - name: sidecar
    image: envoy
    restartPolicy: Always
    resources: {requests: {cpu: 200m, memory: 128Mi}}
  containers:
  - name: app
    image: app:1
    resources:
      requests: {cpu: 250m, memory: 1Gi}
      limits: {cpu: "1", memory: 2Gi, nvidia.com/gpu: "1"}
    ports:
    - containerPort: 8080
    - {containerPort: 53, hostPort: 5353, protocol: UDP, hostIP: 10.0.0.1}
  - name: limits-only
    image: x
    resources:
      limits: {cpu: 500m, memory: 256Mi}
  tolerations:
  - {key: dedicated, operator: Equal, value: db, effect: NoSchedule}
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  - {operator: Exists}
  - {key: spot, value: "true"}
  volumes:
  - {name: scratch, emptyDir: {}}
  - {name: data, persistentVolumeClaim: {claimName: data-0}}
  - {name: cfg, configMap: {name: cfg}}
  - {name: host, hostPath: {path: /var/log}}
  - {name: sec, secret: {secretName: s}}
  - {name: proj, projected: {sources: []}}
  - {name: nfs, nfs: {server: x, path: /}}
status:
  phase: Running
  nominatedNodeName: n2
  conditions:
  - {type: PodScheduled, status: "True"}
  - {type: Ready, status: "False", reason: ContainersNotReady}
)");
  ASSERT_EQ(set.pods.size(), 1u);
  const Pod& pod = set.pods[0];
  EXPECT_EQ(pod.meta.name, "api-0");
  EXPECT_EQ(pod.meta.namespace_, "shop");
  EXPECT_EQ(pod.meta.uid, "1234-abcd");
  EXPECT_EQ(pod.meta.labels, (Labels{{"app", "api"}, {"tier", "backend"}}));
  EXPECT_EQ(pod.meta.annotations, (std::map<std::string, std::string>{{"note", "hello"}}));
  EXPECT_EQ(pod.meta.owner_references,
            (std::vector<OwnerReference>{{"apps/v1", "ReplicaSet", "api-7d4b9", "rs-uid", true},
                                         {"v1", "ConfigMap", "owner-cm", "", false}}));
  EXPECT_EQ(pod.meta.deletion_timestamp, 1709294400);  // 19783 days * 86400 + 12 h

  const PodSpec& spec = pod.spec;
  EXPECT_EQ(spec.node_name, "n1");
  EXPECT_EQ(spec.node_selector, (Labels{{"disktype", "ssd"}}));
  EXPECT_EQ(spec.priority, 100);
  EXPECT_EQ(spec.priority_class_name, "high");
  EXPECT_EQ(spec.scheduler_name, "my-scheduler");
  EXPECT_EQ(spec.restart_policy, "OnFailure");
  EXPECT_EQ(spec.termination_grace_period_seconds, 45);
  EXPECT_EQ(spec.overhead.cpu_milli(), 100);
  EXPECT_EQ(spec.overhead.memory(), 64 * kMi);

  ASSERT_EQ(spec.init_containers.size(), 2u);
  EXPECT_EQ(spec.init_containers[0].name, "init");
  EXPECT_EQ(spec.init_containers[0].requests.cpu_milli(), 1000);
  EXPECT_FALSE(spec.init_containers[0].restart_policy.has_value());
  EXPECT_TRUE(spec.init_containers[1].is_sidecar());
  EXPECT_EQ(spec.init_containers[1].requests.memory(), 128 * kMi);

  ASSERT_EQ(spec.containers.size(), 2u);
  const Container& app = spec.containers[0];
  EXPECT_EQ(app.name, "app");
  EXPECT_EQ(app.image, "app:1");
  EXPECT_EQ(app.requests.cpu_milli(), 250);
  EXPECT_EQ(app.requests.memory(), 1073741824);
  EXPECT_EQ(app.limits.cpu_milli(), 1000);
  EXPECT_EQ(app.limits.memory(), 2 * kGi);
  EXPECT_EQ(app.requests.get(S("nvidia.com/gpu")), 1);  // only the limit was set: the request defaults to it
  EXPECT_EQ(app.ports, (std::vector<ContainerPort>{{8080, 0, "TCP", ""}, {53, 5353, "UDP", "10.0.0.1"}}));
  const Container& limits_only = spec.containers[1];
  EXPECT_EQ(limits_only.requests.cpu_milli(), 500);
  EXPECT_EQ(limits_only.requests.memory(), 256 * kMi);

  EXPECT_EQ(spec.tolerations,
            (std::vector<Toleration>{
                {"dedicated", TolerationOperator::Equal, "db", TaintEffect::NoSchedule, std::nullopt},
                {"node.kubernetes.io/not-ready", TolerationOperator::Exists, "", TaintEffect::NoExecute, 300},
                {"", TolerationOperator::Exists, "", std::nullopt, std::nullopt},
                {"spot", TolerationOperator::Equal, "true", std::nullopt, std::nullopt}}));

  std::vector<Volume::Source> sources;
  for (const Volume& volume : spec.volumes) sources.push_back(volume.source);
  EXPECT_EQ(sources, (std::vector<Volume::Source>{Volume::Source::EmptyDir, Volume::Source::PersistentVolumeClaim,
                                                  Volume::Source::ConfigMap, Volume::Source::HostPath,
                                                  Volume::Source::Secret, Volume::Source::Projected,
                                                  Volume::Source::Other}));
  EXPECT_EQ(spec.volumes[1].name, "data");

  EXPECT_EQ(pod.status.phase, PodPhase::Running);
  EXPECT_EQ(pod.status.nominated_node_name, "n2");
  ASSERT_EQ(pod.status.conditions.size(), 2u);
  EXPECT_EQ(pod.status.conditions[1].type, "Ready");
  EXPECT_EQ(pod.status.conditions[1].status, "False");
  EXPECT_EQ(pod.status.conditions[1].reason, "ContainersNotReady");
}

TEST(DecodePod, DefaultsForAMinimalPod) {
  ManifestSet set = decode_ok(pod_with(""));
  ASSERT_EQ(set.pods.size(), 1u);
  const Pod& pod = set.pods[0];
  EXPECT_EQ(pod.meta.namespace_, "default");
  EXPECT_EQ(pod.spec.scheduler_name, "default-scheduler");
  EXPECT_EQ(pod.spec.restart_policy, "Always");
  EXPECT_FALSE(pod.spec.priority.has_value());
  EXPECT_FALSE(pod.spec.termination_grace_period_seconds.has_value());
  EXPECT_FALSE(pod.meta.deletion_timestamp.has_value());
  EXPECT_EQ(pod.status.phase, PodPhase::Pending);
  EXPECT_TRUE(pod.spec.containers[0].requests.is_zero());
  EXPECT_FALSE(pod.spec.affinity.required_node_affinity.has_value());
}

TEST(DecodePod, AffinityAndTopologySpread) {
  ManifestSet set = decode_ok(pod_with(R"(  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: topology.kubernetes.io/zone, operator: In, values: [zone-a, zone-b]}
          - {key: cores, operator: Gt, values: ["4"]}
        - matchFields:
          - {key: metadata.name, operator: NotIn, values: [n3]}
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 30
        preference:
          matchExpressions:
          - {key: disktype, operator: Exists}
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: cache}}
        topologyKey: kubernetes.io/hostname
        namespaces: [shop, cache]
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        podAffinityTerm:
          topologyKey: topology.kubernetes.io/zone
          namespaceSelector: {}
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchExpressions:
          - {key: app, operator: NotIn, values: [web]}
        namespaceSelector: {matchLabels: {team: a}}
        topologyKey: kubernetes.io/hostname
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          labelSelector: {matchLabels: {app: web}}
          topologyKey: topology.kubernetes.io/zone
  topologySpreadConstraints:
  - maxSkew: 2
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {app: p}}
    minDomains: 3
    nodeAffinityPolicy: Ignore
    nodeTaintsPolicy: Honor
    matchLabelKeys: [pod-template-hash]
  - maxSkew: 1
    topologyKey: kubernetes.io/hostname
    whenUnsatisfiable: ScheduleAnyway
)"));
  ASSERT_EQ(set.pods.size(), 1u);
  const Affinity& affinity = set.pods[0].spec.affinity;

  ASSERT_TRUE(affinity.required_node_affinity.has_value());
  EXPECT_EQ(affinity.required_node_affinity->terms,
            (std::vector<NodeSelectorTerm>{
                {{{S("topology.kubernetes.io/zone"), SelectorOperator::In, {S("zone-a"), S("zone-b")}},
                  {S("cores"), SelectorOperator::Gt, {S("4")}}},
                 {}},
                {{}, {{S("metadata.name"), SelectorOperator::NotIn, {S("n3")}}}}}));
  ASSERT_EQ(affinity.preferred_node_affinity.size(), 1u);
  EXPECT_EQ(affinity.preferred_node_affinity[0].weight, 30);
  EXPECT_EQ(affinity.preferred_node_affinity[0].preference.match_expressions,
            (std::vector<LabelRequirement>{{S("disktype"), SelectorOperator::Exists, {}}}));

  ASSERT_EQ(affinity.required_pod_affinity.size(), 1u);
  const PodAffinityTerm& cache = affinity.required_pod_affinity[0];
  EXPECT_EQ(cache.label_selector, (LabelSelector{{{S("app"), SelectorOperator::In, {S("cache")}}}}));
  EXPECT_EQ(cache.namespaces, (std::vector<std::string>{"shop", "cache"}));
  EXPECT_FALSE(cache.namespace_selector.has_value());
  EXPECT_EQ(cache.topology_key, S("kubernetes.io/hostname"));

  ASSERT_EQ(affinity.preferred_pod_affinity.size(), 1u);
  EXPECT_EQ(affinity.preferred_pod_affinity[0].weight, 10);
  const PodAffinityTerm& zone = affinity.preferred_pod_affinity[0].term;
  EXPECT_FALSE(zone.label_selector.has_value());  // absent: matches no pod
  ASSERT_TRUE(zone.namespace_selector.has_value());  // present and empty: every namespace
  EXPECT_TRUE(zone.namespace_selector->empty());

  ASSERT_EQ(affinity.required_pod_anti_affinity.size(), 1u);
  const PodAffinityTerm& anti = affinity.required_pod_anti_affinity[0];
  EXPECT_EQ(anti.label_selector, (LabelSelector{{{S("app"), SelectorOperator::NotIn, {S("web")}}}}));
  EXPECT_EQ(anti.namespace_selector, (LabelSelector{{{S("team"), SelectorOperator::In, {S("a")}}}}));
  ASSERT_EQ(affinity.preferred_pod_anti_affinity.size(), 1u);
  EXPECT_EQ(affinity.preferred_pod_anti_affinity[0].weight, 100);
  EXPECT_EQ(affinity.preferred_pod_anti_affinity[0].term.topology_key, S("topology.kubernetes.io/zone"));

  const auto& spread = set.pods[0].spec.topology_spread_constraints;
  ASSERT_EQ(spread.size(), 2u);
  EXPECT_EQ(spread[0].max_skew, 2);
  EXPECT_EQ(spread[0].topology_key, S("topology.kubernetes.io/zone"));
  EXPECT_EQ(spread[0].when_unsatisfiable, UnsatisfiableConstraintAction::DoNotSchedule);
  EXPECT_EQ(spread[0].label_selector, (LabelSelector{{{S("app"), SelectorOperator::In, {S("p")}}}}));
  EXPECT_EQ(spread[0].min_domains, 3);
  EXPECT_EQ(spread[0].node_affinity_policy, NodeInclusionPolicy::Ignore);
  EXPECT_EQ(spread[0].node_taints_policy, NodeInclusionPolicy::Honor);
  EXPECT_EQ(spread[0].match_label_keys, (std::vector<std::string>{"pod-template-hash"}));
  EXPECT_EQ(spread[1].when_unsatisfiable, UnsatisfiableConstraintAction::ScheduleAnyway);
  EXPECT_FALSE(spread[1].label_selector.has_value());
  EXPECT_FALSE(spread[1].min_domains.has_value());
  EXPECT_EQ(spread[1].node_affinity_policy, NodeInclusionPolicy::Honor);  // defaults
  EXPECT_EQ(spread[1].node_taints_policy, NodeInclusionPolicy::Ignore);
}

TEST(DecodeNamespace, LabelsAndNoNamespaceOfItsOwn) {
  ManifestSet set = decode_ok("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {team: a}}\n");
  ASSERT_EQ(set.namespaces.size(), 1u);
  EXPECT_EQ(set.namespaces[0].meta.name, "shop");
  EXPECT_EQ(set.namespaces[0].meta.namespace_, "");
  EXPECT_EQ(set.namespaces[0].meta.labels, (Labels{{"team", "a"}}));
}

TEST(DecodeWorkload, DeploymentSelectorTemplateAndNamespace) {
  ManifestSet set = decode_ok(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {app: web}}
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
    matchExpressions:
    - {key: tier, operator: In, values: [front]}
  template:
    metadata:
      labels: {app: web, tier: front}
      annotations: {prometheus.io/scrape: "true"}
    spec:
      containers:
      - name: nginx
        image: nginx
        resources: {requests: {cpu: 500m, memory: 256Mi}}
)");
  ASSERT_EQ(set.workloads.size(), 1u);
  const Workload& web = set.workloads[0];
  EXPECT_EQ(web.kind, WorkloadKind::Deployment);
  EXPECT_EQ(web.meta.name, "web");
  EXPECT_EQ(web.meta.namespace_, "shop");
  EXPECT_EQ(web.replicas, 3);
  EXPECT_EQ(web.selector, (LabelSelector{{{S("app"), SelectorOperator::In, {S("web")}},
                                          {S("tier"), SelectorOperator::In, {S("front")}}}}));
  EXPECT_EQ(web.pod_template.meta.namespace_, "shop");
  EXPECT_EQ(web.pod_template.meta.labels, (Labels{{"app", "web"}, {"tier", "front"}}));
  EXPECT_EQ(web.pod_template.meta.annotations.at("prometheus.io/scrape"), "true");
  ASSERT_EQ(web.pod_template.spec.containers.size(), 1u);
  EXPECT_EQ(web.pod_template.spec.containers[0].requests.cpu_milli(), 500);
  EXPECT_EQ(web.pod_template.spec.containers[0].requests.memory(), 256 * kMi);
}

// A workload of `kind` with `spec_extra` in its spec, selecting app=w.
std::string workload(const std::string& api_version, const std::string& kind, const std::string& spec_extra,
                     const std::string& restart_policy = "", const std::string& name = "w") {
  return "apiVersion: " + api_version + "\nkind: " + kind + "\nmetadata: {name: " + name + "}\nspec:\n" + spec_extra +
         R"(  selector: {matchLabels: {app: w}}
  template:
    metadata: {labels: {app: w}}
    spec:
)" + restart_policy + R"(      containers: [{name: c, image: i}]
)";
}

TEST(DecodeWorkload, ReplicaSetStatefulSetAndDaemonSet) {
  ManifestSet set = decode_ok(workload("apps/v1", "ReplicaSet", "") + "---\n" +
                              workload("apps/v1", "StatefulSet", "  replicas: 0\n") + "---\n" +
                              workload("apps/v1", "DaemonSet", ""));
  ASSERT_EQ(set.workloads.size(), 3u);
  EXPECT_EQ(set.workloads[0].kind, WorkloadKind::ReplicaSet);
  EXPECT_EQ(set.workloads[0].replicas, 1);  // default
  EXPECT_EQ(set.workloads[0].meta.namespace_, "default");
  EXPECT_EQ(set.workloads[0].pod_template.meta.namespace_, "default");
  EXPECT_EQ(set.workloads[1].kind, WorkloadKind::StatefulSet);
  EXPECT_EQ(set.workloads[1].replicas, 0);
  EXPECT_EQ(set.workloads[1].pod_management_policy, PodManagementPolicy::OrderedReady);  // the default
  EXPECT_EQ(set.workloads[2].kind, WorkloadKind::DaemonSet);

  EXPECT_EQ(decode_ok(workload("apps/v1", "StatefulSet", "  podManagementPolicy: Parallel\n"))
                .workloads.at(0)
                .pod_management_policy,
            PodManagementPolicy::Parallel);
  EXPECT_EQ(decode_error(workload("apps/v1", "StatefulSet", "  podManagementPolicy: OneByOne\n")),
            "test.yaml doc 1 StatefulSet/w: spec.podManagementPolicy: unknown pod management policy \"OneByOne\" "
            "(expected OrderedReady, Parallel)");
}

TEST(DecodeWorkload, JobRunsMinOfParallelismAndCompletions) {
  const std::string never = "      restartPolicy: Never\n";
  ManifestSet set = decode_ok(workload("batch/v1", "Job", "  parallelism: 5\n  completions: 2\n", never, "a") +
                              "---\n" + workload("batch/v1", "Job", "  completions: 10\n", never, "b") + "---\n" +
                              workload("batch/v1", "Job", "  parallelism: 4\n", never, "c") + "---\n" +
                              workload("batch/v1", "Job", "  parallelism: 0\n", never, "d"));
  ASSERT_EQ(set.workloads.size(), 4u);
  EXPECT_EQ(set.workloads[0].kind, WorkloadKind::Job);
  EXPECT_EQ(set.workloads[0].replicas, 2);  // min(5, 2)
  EXPECT_EQ(set.workloads[1].replicas, 1);  // parallelism defaults to 1
  EXPECT_EQ(set.workloads[2].replicas, 4);  // no completions: parallelism
  EXPECT_EQ(set.workloads[3].replicas, 0);  // a suspended-looking job runs nothing
}

TEST(DecodeWorkload, JobWithoutSelectorGetsTheGeneratedOne) {
  ManifestSet set = decode_ok(R"(
apiVersion: batch/v1
kind: Job
metadata: {name: report, namespace: batch}
spec:
  template:
    metadata: {labels: {team: data}}
    spec:
      restartPolicy: OnFailure
      containers: [{name: c, image: i}]
)");
  ASSERT_EQ(set.workloads.size(), 1u);
  const Workload& job = set.workloads[0];
  EXPECT_EQ(job.pod_template.meta.labels,
            (Labels{{"team", "data"}, {"batch.kubernetes.io/job-name", "report"}, {"job-name", "report"}}));
  EXPECT_EQ(job.selector, (LabelSelector{{{S("batch.kubernetes.io/job-name"), SelectorOperator::In, {S("report")}}}}));
  EXPECT_TRUE(job.selector.matches(job.pod_template.meta.labels));
}

TEST(DecodePodDisruptionBudget, SelectorAndIntOrPercent) {
  ManifestSet set = decode_ok(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web-pdb, namespace: shop}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: web}}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: db-pdb}
spec:
  maxUnavailable: 50%
  selector:
    matchExpressions: [{key: app, operator: Exists}]
)");
  ASSERT_EQ(set.pod_disruption_budgets.size(), 2u);
  const PodDisruptionBudget& web = set.pod_disruption_budgets[0];
  EXPECT_EQ(web.meta.namespace_, "shop");
  EXPECT_EQ(web.selector, (LabelSelector{{{S("app"), SelectorOperator::In, {S("web")}}}}));
  EXPECT_EQ(web.min_available, (IntOrPercent{2, false}));
  EXPECT_FALSE(web.max_unavailable.has_value());
  const PodDisruptionBudget& db = set.pod_disruption_budgets[1];
  EXPECT_EQ(db.meta.namespace_, "default");
  EXPECT_EQ(db.max_unavailable, (IntOrPercent{50, true}));
  EXPECT_FALSE(db.min_available.has_value());
  EXPECT_EQ(db.selector, (LabelSelector{{{S("app"), SelectorOperator::Exists, {}}}}));
}

TEST(DecodePodDisruptionBudget, NoSelectorSelectsNoPodAndAnEmptyOneEveryPodInV1ButNoneInV1beta1) {
  ManifestSet set = decode_ok(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: absent}
spec: {minAvailable: 1}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: null-selector}
spec: {minAvailable: 1, selector: null}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: empty}
spec: {minAvailable: 1, selector: {}}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: beta-empty}
spec: {minAvailable: 1, selector: {}}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: beta-absent}
spec: {minAvailable: 1}
)");
  ASSERT_EQ(set.pod_disruption_budgets.size(), 5u);
  Pod web;
  web.meta.namespace_ = "default";
  web.meta.labels.set(S("app"), S("web"));
  Pod elsewhere = web;
  elsewhere.meta.namespace_ = "shop";
  for (const PodDisruptionBudget& pdb : set.pod_disruption_budgets) {
    const bool selects_all = pdb.meta.name == "empty";
    EXPECT_EQ(pdb.selector.has_value(), selects_all) << pdb.meta.name;
    EXPECT_EQ(pdb.selects(web), selects_all) << pdb.meta.name;
    EXPECT_FALSE(pdb.selects(elsewhere)) << pdb.meta.name;
  }
}

TEST(DecodePodDisruptionBudget, UnhealthyPodEvictionPolicyIfHealthyBudgetUnlessAlwaysAllow) {
  ManifestSet set = decode_ok(R"(
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: default-policy}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: if-healthy}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}, unhealthyPodEvictionPolicy: IfHealthyBudget}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: always}
spec: {maxUnavailable: 1, selector: {matchLabels: {app: web}}, unhealthyPodEvictionPolicy: AlwaysAllow}
)");
  ASSERT_EQ(set.pod_disruption_budgets.size(), 3u);
  EXPECT_EQ(set.pod_disruption_budgets[0].unhealthy_pod_eviction_policy, UnhealthyPodEvictionPolicy::IfHealthyBudget);
  EXPECT_EQ(set.pod_disruption_budgets[1].unhealthy_pod_eviction_policy, UnhealthyPodEvictionPolicy::IfHealthyBudget);
  EXPECT_EQ(set.pod_disruption_budgets[2].unhealthy_pod_eviction_policy, UnhealthyPodEvictionPolicy::AlwaysAllow);
}

TEST(DecodePriorityClass, ValueGlobalDefaultAndPreemptionPolicy) {
  ManifestSet set = decode_ok(R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: batch-low}
value: -10
globalDefault: true
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000000
)");
  ASSERT_EQ(set.priority_classes.size(), 2u);
  EXPECT_EQ(set.priority_classes[0].meta.name, "batch-low");
  EXPECT_EQ(set.priority_classes[0].meta.namespace_, "");
  EXPECT_EQ(set.priority_classes[0].value, -10);
  EXPECT_TRUE(set.priority_classes[0].global_default);
  EXPECT_EQ(set.priority_classes[0].preemption_policy, "Never");
  EXPECT_EQ(set.priority_classes[1].value, 1000000);
  EXPECT_FALSE(set.priority_classes[1].global_default);
  EXPECT_EQ(set.priority_classes[1].preemption_policy, "PreemptLowerPriority");
}

// The API server's ValidatePriorityClass: a user's class is at most 1,000,000,000, so the built-in system classes
// (2,000,000,000 and 2,000,001,000) stay above it; "system-" names are reserved for those, with their values.
TEST(DecodePriorityClass, UserValuesStopAtOneBillionAndSystemNamesAreReserved) {
  auto priority_class = [](const std::string& name, const std::string& value) {
    return "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: " + name + "}\nvalue: " + value +
           "\n";
  };
  EXPECT_EQ(decode_ok(priority_class("high", "1000000000") + "---\n" +
                      priority_class("system-node-critical", "2000001000"))
                .priority_classes.size(),
            2u);
  EXPECT_EQ(decode_error(priority_class("high", "1000000001")),
            "test.yaml doc 1 PriorityClass/high: value: maximum allowed value of a user defined priority is "
            "1000000000, got 1000000001");
  const std::string reserved = ": metadata.name: priority class names with 'system-' prefix are reserved for system "
                               "use only. error: ";
  EXPECT_EQ(decode_error(priority_class("system-foo", "10")),
            "test.yaml doc 1 PriorityClass/system-foo" + reserved + "system-foo is not a known system priority class");
  EXPECT_EQ(decode_error(priority_class("system-cluster-critical", "2000000001")),
            "test.yaml doc 1 PriorityClass/system-cluster-critical" + reserved +
                "value of system-cluster-critical PriorityClass must be 2000000000");
}

}  // namespace
}  // namespace scalewright::testing
