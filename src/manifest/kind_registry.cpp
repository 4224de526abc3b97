#include "manifest/kind_registry.h"

#include <algorithm>

#include "cloud/aws/ec2nodeclass.h"
#include "cloud/clusterapi/scalable_manifest.h"
#include "manifest/autoscaling_decoder.h"
#include "manifest/kinds.h"
#include "manifest/nodepool_decoder.h"
#include "manifest/scenario_decoder.h"
#include "manifest/pod_decoder.h"

namespace scalewright::manifest {
namespace {

// A kind whose objects decode alone, without knowing where they were read.
using ContextFreeDecoder = void (*)(const Field& object, ManifestSet& out);
KindDecoder context_free(ContextFreeDecoder decode) {
  return [decode](const Field& object, const DecodeContext&, ManifestSet& out) { decode(object, out); };
}

KindDecoder workload_decoder(WorkloadKind kind) {
  return [kind](const Field& object, const DecodeContext&, ManifestSet& out) {
    out.workloads.push_back(decode_workload(object, kind));
  };
}

KindRegistry make_builtin_registry() {
  KindRegistry kinds;
  kinds.add({"", "Node", {"v1"},
             context_free([](const Field& o, ManifestSet& out) { out.nodes.push_back(decode_node(o)); })});
  kinds.add({"", "Pod", {"v1"},
             context_free([](const Field& o, ManifestSet& out) { out.pods.push_back(decode_pod(o)); })});
  kinds.add({"", "Namespace", {"v1"},
             context_free([](const Field& o, ManifestSet& out) { out.namespaces.push_back(decode_namespace(o)); })});
  kinds.add({"", "ConfigMap", {"v1"},
             context_free([](const Field& o, ManifestSet& out) { out.config_maps.push_back(decode_config_map(o)); })});
  kinds.add({"apps", "Deployment", {"v1"}, context_free([](const Field& o, ManifestSet& out) {
               Workload deployment = decode_workload(o, WorkloadKind::Deployment);
               if (std::optional<ClusterAutoscalerDeployment> ca = as_cluster_autoscaler(o, deployment)) {
                 out.warnings.push_back("runs Cluster Autoscaler (container " + ca->container +
                                        "): Scalewright takes its place with its flags; its pod is not simulated");
                 out.cluster_autoscaler_deployments.push_back(std::move(*ca));
                 return;
               }
               out.workloads.push_back(std::move(deployment));
             })});
  kinds.add({"apps", "ReplicaSet", {"v1"}, workload_decoder(WorkloadKind::ReplicaSet)});
  kinds.add({"apps", "StatefulSet", {"v1"}, workload_decoder(WorkloadKind::StatefulSet)});
  kinds.add({"apps", "DaemonSet", {"v1"}, workload_decoder(WorkloadKind::DaemonSet)});
  kinds.add({"batch", "Job", {"v1"}, workload_decoder(WorkloadKind::Job)});
  kinds.add({"policy", "PodDisruptionBudget", {"v1", "v1beta1"}, context_free([](const Field& o, ManifestSet& out) {
               out.pod_disruption_budgets.push_back(decode_pod_disruption_budget(o));
             })});
  kinds.add({"scheduling.k8s.io", "PriorityClass", {"v1"}, context_free([](const Field& o, ManifestSet& out) {
               out.priority_classes.push_back(decode_priority_class(o));
             })});
  kinds.add({"karpenter.sh", "NodePool", {"v1", "v1beta1"},
             context_free([](const Field& o, ManifestSet& out) { out.nodepools.push_back(decode_nodepool(o)); })});
  // The providers' node classes, each decoded in its provider's folder.
  kinds.add({std::string(cloud::aws::kGroup), std::string(cloud::aws::kKind), {"v1", "v1beta1"},
             context_free([](const Field& o, ManifestSet& out) {
               out.node_classes.push_back(cloud::aws::decode_ec2nodeclass(o, out.warnings));
             })});
  // Cluster API's scalable objects, decoded as Cluster Autoscaler's clusterapi provider reads them: its node groups
  // when the scenario's CA runs with --cloud-provider=clusterapi.
  for (auto kind : {cloud::clusterapi::ScalableKind::MachineDeployment, cloud::clusterapi::ScalableKind::MachineSet,
                    cloud::clusterapi::ScalableKind::MachinePool}) {
    kinds.add({std::string(cloud::clusterapi::kDefaultGroup), std::string(cloud::clusterapi::to_string(kind)),
               cloud::clusterapi::scalable_versions(), [kind](const Field& o, const DecodeContext&, ManifestSet& out) {
                 out.cluster_api_objects.push_back(cloud::clusterapi::decode_scalable_object(o, kind));
               }});
  }
  kinds.add({"karpenter.sh", "Provisioner", {"v1alpha5"},
             context_free([](const Field& o, ManifestSet& out) { out.nodepools.push_back(decode_provisioner(o)); })});
  kinds.add({"autoscaling", "HorizontalPodAutoscaler", {"v2", "v2beta2", "v1"},
             context_free([](const Field& o, ManifestSet& out) {
               out.horizontal_pod_autoscalers.push_back(decode_horizontal_pod_autoscaler(o));
             })});
  kinds.add({"keda.sh", "ScaledObject", {"v1alpha1"}, context_free([](const Field& o, ManifestSet& out) {
               out.scaled_objects.push_back(decode_scaled_object(o, out.warnings));
             })});
  kinds.add({"scalewright.dev", "Scenario", {"v1alpha1"},
             [](const Field& o, const DecodeContext& context, ManifestSet& out) {
               out.scenarios.push_back(decode_scenario(o, context, out.warnings));
             }});
  return kinds;
}

}  // namespace

void KindRegistry::add(KindEntry entry) {
  auto same = [&](const KindEntry& e) { return e.group == entry.group && e.kind == entry.kind; };
  auto existing = std::find_if(entries_.begin(), entries_.end(), same);
  if (existing != entries_.end()) {
    *existing = std::move(entry);
  } else {
    entries_.push_back(std::move(entry));
  }
}

const KindEntry* KindRegistry::find(std::string_view group, std::string_view kind) const {
  for (const KindEntry& entry : entries_) {
    if (entry.group == group && entry.kind == kind) return &entry;
  }
  return nullptr;
}

const KindRegistry& KindRegistry::builtin() {
  static const KindRegistry registry = make_builtin_registry();
  return registry;
}

}  // namespace scalewright::manifest
