#pragma once
// A small explicit catalog with round numbers, and builders for the pods, nodes and NodePools the provisioning
// tests are about.
//
//   type          arch   cpu  memory  on-demand  spot
//   c.large       amd64   2    4Gi      0.10     0.04
//   c.xlarge      amd64   4    8Gi      0.20     0.08
//   g.xlarge      arm64   4    8Gi      0.16     0.06
//   c.2xlarge     amd64   8   16Gi      0.40     0.16
//   r.2xlarge     amd64   8   64Gi      0.50     0.20
//   m.4xlarge     amd64  16   64Gi      0.80     0.32
//
// Allocatable equals capacity (110 pods); every type is offered on-demand and spot in every zone.
#include <string>
#include <string_view>
#include <vector>

#include "api/nodepool.h"
#include "cloud/aws/labels.h"
#include "api/pod.h"
#include "api/workloads.h"
#include "cloud/catalog.h"
#include "provisioning/provisioner.h"
#include "scheduling/snapshot.h"
#include "units.h"

namespace scalewright::provisioning::fixtures {

inline constexpr std::int64_t kCpu = 1000;  // millicores

inline cloud::InstanceType make_type(const std::string& name, const std::string& arch, std::int64_t cpu,
                                     std::int64_t memory_gi, double on_demand, double spot,
                                     const std::vector<cloud::Zone>& zones) {
  cloud::InstanceType t;
  t.name = name;
  const std::string family = name.substr(0, name.find('.'));
  t.labels.set(Symbol(well_known::instance_type), Symbol(name));
  t.labels.set(Symbol(well_known::arch), Symbol(arch));
  t.labels.set(Symbol(well_known::os), Symbol("linux"));
  t.labels.set(Symbol(cloud::aws::labels::instance_family), Symbol(family));
  t.labels.set(Symbol(cloud::aws::labels::instance_cpu), Symbol(std::to_string(cpu)));
  t.capacity.set(resource_names::cpu(), cpu * kCpu);
  t.capacity.set(resource_names::memory(), memory_gi * kGi);
  t.capacity.set(resource_names::pods(), 110);
  t.allocatable = t.capacity;
  for (const cloud::Zone& z : zones) {
    t.offerings.push_back({z.name, z.zone_id, cloud::CapacityType::OnDemand, on_demand,
                           cloud::PriceSource::OnDemandList, true});
    t.offerings.push_back({z.name, z.zone_id, cloud::CapacityType::Spot, spot, cloud::PriceSource::SpotEstimate,
                           true});
  }
  return t;
}

inline std::vector<cloud::Zone> zones(int count) {
  std::vector<cloud::Zone> out;
  for (int i = 0; i < count; ++i) {
    const char letter = static_cast<char>('a' + i);
    out.push_back({std::string("zone-") + letter, std::string("az") + std::to_string(i + 1)});
  }
  return out;
}

inline cloud::Catalog make_catalog(int zone_count = 2) {
  const std::vector<cloud::Zone> z = zones(zone_count);
  std::vector<cloud::InstanceType> types{
      make_type("c.large", "amd64", 2, 4, 0.10, 0.04, z),     make_type("c.xlarge", "amd64", 4, 8, 0.20, 0.08, z),
      make_type("g.xlarge", "arm64", 4, 8, 0.16, 0.06, z),    make_type("c.2xlarge", "amd64", 8, 16, 0.40, 0.16, z),
      make_type("r.2xlarge", "amd64", 8, 64, 0.50, 0.20, z),  make_type("m.4xlarge", "amd64", 16, 64, 0.80, 0.32, z),
  };
  return cloud::Catalog::from_instance_types("test-region", z, std::move(types));
}

inline Pod make_pod(const std::string& name, std::int64_t cpu_milli, std::int64_t memory,
                    const std::string& app = "") {
  Pod pod;
  pod.meta.name = name;
  pod.meta.namespace_ = "default";
  pod.meta.uid = "uid-" + name;
  if (!app.empty()) pod.meta.labels.set(Symbol("app"), Symbol(app));
  Container c;
  c.name = "main";
  c.requests.set(resource_names::cpu(), cpu_milli);
  c.requests.set(resource_names::memory(), memory);
  pod.spec.containers.push_back(c);
  return pod;
}

inline std::vector<Pod> make_pods(const std::string& prefix, int count, std::int64_t cpu_milli, std::int64_t memory,
                                  const std::string& app = "") {
  std::vector<Pod> out;
  for (int i = 0; i < count; ++i) out.push_back(make_pod(prefix + "-" + std::to_string(i), cpu_milli, memory, app));
  return out;
}

inline LabelRequirement requirement(std::string_view key, SelectorOperator op,
                                    const std::vector<std::string>& values) {
  LabelRequirement r;
  r.key = Symbol(key);
  r.op = op;
  for (const std::string& v : values) r.values.emplace_back(v);
  return r;
}

inline NodePool make_nodepool(const std::string& name, std::int32_t weight = 0) {
  NodePool np;
  np.meta.name = name;
  np.weight = weight;
  return np;
}

inline void require(NodePool& np, std::string_view key, SelectorOperator op, const std::vector<std::string>& values,
                    std::optional<std::int32_t> min_values = std::nullopt) {
  np.requirements.push_back({requirement(key, op, values), min_values});
}

inline void limit(NodePool& np, Symbol resource, std::int64_t amount) {
  np.limits.set(resource, amount);
  np.limited_resources.push_back(resource);
}

inline void require_node_affinity(Pod& pod, const std::vector<LabelRequirement>& expressions) {
  NodeSelectorTerm term;
  term.match_expressions = expressions;
  if (!pod.spec.affinity.required_node_affinity) pod.spec.affinity.required_node_affinity = NodeSelector{};
  pod.spec.affinity.required_node_affinity->terms.push_back(term);
}

inline PodAffinityTerm app_term(const std::string& app, std::string_view topology_key) {
  PodAffinityTerm term;
  term.label_selector = LabelSelector{{requirement("app", SelectorOperator::In, {app})}};
  term.topology_key = Symbol(topology_key);
  return term;
}

inline TopologySpreadConstraint spread(const std::string& app, std::string_view topology_key,
                                       UnsatisfiableConstraintAction action =
                                           UnsatisfiableConstraintAction::DoNotSchedule) {
  TopologySpreadConstraint c;
  c.max_skew = 1;
  c.topology_key = Symbol(topology_key);
  c.when_unsatisfiable = action;
  c.label_selector = LabelSelector{{requirement("app", SelectorOperator::In, {app})}};
  return c;
}

inline Workload make_daemonset(const std::string& name, std::int64_t cpu_milli, std::int64_t memory) {
  Workload ds;
  ds.kind = WorkloadKind::DaemonSet;
  ds.meta.name = name;
  ds.meta.namespace_ = "kube-system";
  ds.pod_template = make_pod(name, cpu_milli, memory, name);
  ds.pod_template.meta.namespace_ = "kube-system";
  ds.selector = LabelSelector{{requirement("app", SelectorOperator::In, {name})}};
  return ds;
}

inline Node make_node(const std::string& name, std::int64_t cpu, std::int64_t memory_gi,
                      const std::string& zone = "zone-a") {
  Node node;
  node.meta.name = name;
  node.meta.labels.set(Symbol(well_known::hostname), Symbol(name));
  node.meta.labels.set(Symbol(well_known::zone), Symbol(zone));
  node.meta.labels.set(Symbol(well_known::arch), Symbol("amd64"));
  node.capacity.set(resource_names::cpu(), cpu * kCpu);
  node.capacity.set(resource_names::memory(), memory_gi * kGi);
  node.capacity.set(resource_names::pods(), 110);
  node.allocatable = node.capacity;
  node.conditions.push_back({"Ready", "True", ""});
  return node;
}

// Everything a plan needs, owned in one place.
struct Fixture {
  cloud::Catalog catalog = make_catalog();
  scheduling::ClusterSnapshot cluster;
  UnavailableOfferings unavailable;
  ProvisioningInput input;

  Fixture() { input.nodepools.push_back(make_nodepool("default")); }

  ProvisioningPlan plan() {
    input.cluster = &cluster;
    input.catalog = &catalog;
    input.unavailable = &unavailable;
    return plan_provisioning(input);
  }
};

inline std::vector<std::string> type_names(const NewNodeClaim& claim) {
  std::vector<std::string> out;
  for (const cloud::InstanceType* t : claim.instance_types) out.push_back(t->name);
  return out;
}

inline std::string label(const NewNodeClaim& claim, std::string_view key) {
  const Symbol* value = claim.labels.find(Symbol(key));
  return value ? value->string() : std::string();
}

}  // namespace scalewright::provisioning::fixtures
