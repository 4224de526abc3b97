#include "cli/validation.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "cloud/aws/ec2nodeclass.h"
#include "cloud/clusterapi/scalable_manifest.h"
#include "provisioning/instance_types.h"
#include "provisioning/nodeclaim_builder.h"
#include "sim/promql_subset.h"
#include "workloads/keda.h"

namespace scalewright::cli {

std::optional<Error> check_scaled_objects(const ManifestSet& objects, bool simulated) {
  for (const ScaledObject& so : objects.scaled_objects) {
    // KEDA's messages start with the object ("ScaledObject default/q: ..."); the origin names it already.
    const std::string keda_prefix = "ScaledObject " + so.meta.key() + ": ";
    // KEDA's rules as the simulator models its scalers: a trigger type it does not simulate (kafka, say) has
    // rules of its own there, so `check` leaves them to the warning the decoder gives.
    for (std::string problem : simulated ? workloads::scaled_object_problems(so) : std::vector<std::string>{}) {
      if (problem.starts_with(keda_prefix)) problem.erase(0, keda_prefix.size());
      return Error{objects.locate("ScaledObject", so.meta, "") + ": " + problem};
    }
    for (std::size_t i = 0; i < so.triggers.size(); ++i) {
      if (so.triggers[i].type != "prometheus") continue;
      auto query = so.triggers[i].metadata.find("query");
      if (query == so.triggers[i].metadata.end()) continue;  // the decoder refuses it
      const std::string field = "spec.triggers[" + std::to_string(i) + "].metadata.query";
      Result<sim::PromQuery> parsed = sim::parse_promql(query->second);
      if (!parsed) return Error{objects.locate("ScaledObject", so.meta, field) + ": " + parsed.error().message};
      if (simulated && parsed->metric != "http_requests_total") {
        return Error{objects.locate("ScaledObject", so.meta, field) +
                     ": the simulator serves http_requests_total (a request counter per loaded workload), not " +
                     parsed->metric};
      }
    }
  }
  return std::nullopt;
}

std::optional<Error> check_nodepools(const ManifestSet& objects, const cloud::Catalog& catalog) {
  provisioning::InstanceTypeIndex base(catalog, nullptr, Instant{});
  std::map<const cloud::NodeClass*, std::pair<cloud::Catalog, std::unique_ptr<provisioning::InstanceTypeIndex>>> shaped;
  for (const NodePool& pool : objects.nodepools) {
    provisioning::InstanceTypeIndex* index = &base;
    const cloud::Catalog* types = &catalog;
    auto named = std::find_if(objects.node_classes.begin(), objects.node_classes.end(),
                              [&](const cloud::NodeClassPtr& c) { return c->reference() == pool.node_class; });
    if (named != objects.node_classes.end()) {
      auto [it, added] = shaped.try_emplace(named->get());
      if (added) {
        it->second.first = (*named)->shape(catalog);
        it->second.second = std::make_unique<provisioning::InstanceTypeIndex>(it->second.first, nullptr, Instant{});
      }
      types = &it->second.first;
      index = it->second.second.get();
    } else if (pool.node_class.group == cloud::aws::kGroup) {
      continue;
    }
    // The provisioner's own view of the NodePool (provisioning::nodepool_info): the types it could launch.
    if (!provisioning::nodepool_info(pool, *index).types.empty()) continue;
    // None: name the requirement after which nothing is left, the last of the shortest run of them, as written,
    // that already leaves no type.
    NodePool so_far = pool;
    so_far.requirements.clear();
    for (std::size_t r = 0; r < pool.requirements.size(); ++r) {
      so_far.requirements.push_back(pool.requirements[r]);
      if (!provisioning::nodepool_info(so_far, *index).types.empty()) continue;
      const LabelRequirement& requirement = pool.requirements[r].requirement;
      return Error{objects.locate("NodePool", pool.meta,
                                  "spec.template.spec.requirements[" + std::to_string(r) + "]") +
                   ": no instance type of region " + types->region() + " satisfies " +
                   std::string(requirement.key.str()) + " " + ValueSet::from(requirement).to_string() +
                   " together with the requirements before it, so the NodePool could never launch a node"};
    }
  }
  return std::nullopt;
}

namespace {

// KEDA's ParseGVKR and GVKString: an empty apiVersion is apps/v1 and an empty kind Deployment; "apps/v1.Deployment".
std::string target_type(const CrossVersionObjectReference& ref) {
  std::string api = ref.api_version.empty() ? "apps/v1" : ref.api_version;
  if (api.find('/') == std::string::npos) api.insert(0, "/");  // the core group is ""
  return api + "." + (ref.kind.empty() ? "Deployment" : ref.kind);
}

bool same_target(const ObjectMeta& a, const CrossVersionObjectReference& a_ref, const ObjectMeta& b,
                 const CrossVersionObjectReference& b_ref) {
  return a.namespace_ == b.namespace_ && a_ref.name == b_ref.name && target_type(a_ref) == target_type(b_ref);
}

bool annotated(const ObjectMeta& meta, const std::string& key, std::string_view value) {
  auto found = meta.annotations.find(key);
  return found != meta.annotations.end() && found->second == value;
}

// The HPA KEDA made for the ScaledObject (owned by it), or one it takes over: KEDA's own, no conflict.
bool keda_owns(const ScaledObject& so, const HorizontalPodAutoscaler& hpa) {
  if (so.meta.namespace_ != hpa.meta.namespace_) return false;
  for (const OwnerReference& owner : *hpa.meta.owner_references) {
    if (owner.kind == "ScaledObject" && owner.name == so.meta.name) return true;
  }
  return annotated(so.meta, "scaledobject.keda.sh/transfer-hpa-ownership", "true") && so.hpa_name == hpa.meta.name;
}

std::string workload_of(const CrossVersionObjectReference& ref) {
  return "the workload '" + ref.name + "' of type '" + target_type(ref) + "'";
}

// The autoscalers admitted so far, and where each was read.
class AutoscalerTargets {
 public:
  template <typename T>
  struct Entry {
    const T* object;
    std::string place;  // "s.yaml doc 4 HorizontalPodAutoscaler/web"
  };
  using Locate = std::function<std::string(std::string_view kind, const ObjectMeta&, std::string_view field)>;

  // Admits the autoscalers of `objects` (an applied object replaces the one of its namespace and name).
  std::optional<Error> admit(const ManifestSet& objects, const Locate& locate) {
    for (const HorizontalPodAutoscaler& hpa : objects.horizontal_pod_autoscalers) {
      if (auto error = admit_hpa(hpa, locate)) return error;
    }
    for (const ScaledObject& so : objects.scaled_objects) {
      if (auto error = admit_scaled_object(so, locate)) return error;
    }
    return std::nullopt;
  }

 private:
  std::optional<Error> admit_hpa(const HorizontalPodAutoscaler& hpa, const Locate& locate) {
    std::erase_if(hpas_, [&](const auto& e) { return e.object->meta.key() == hpa.meta.key(); });
    const std::string at = locate("HorizontalPodAutoscaler", hpa.meta, "spec.scaleTargetRef.name") + ": ";
    for (const auto& [other, place] : hpas_) {
      if (!same_target(hpa.meta, hpa.scale_target_ref, other->meta, other->scale_target_ref)) continue;
      return Error{at + workload_of(hpa.scale_target_ref) + " is already scaled by the hpa '" + other->meta.name +
                   "' (" + place + "): kube-controller-manager's HPA controller would scale neither "
                   "(AmbiguousSelector: pods controlled by multiple HPAs)"};
    }
    for (const auto& [so, place] : scaled_objects_) {
      if (!conflict(*so, hpa)) continue;
      return Error{at + workload_of(hpa.scale_target_ref) + " is already managed by the ScaledObject '" +
                   so->meta.name + "' (" + place + ")"};
    }
    hpas_.push_back({&hpa, locate("HorizontalPodAutoscaler", hpa.meta, "")});
    return std::nullopt;
  }

  std::optional<Error> admit_scaled_object(const ScaledObject& so, const Locate& locate) {
    std::erase_if(scaled_objects_, [&](const auto& e) { return e.object->meta.key() == so.meta.key(); });
    const std::string at = locate("ScaledObject", so.meta, "spec.scaleTargetRef.name") + ": ";
    for (const auto& [hpa, place] : hpas_) {
      if (!same_target(so.meta, so.scale_target_ref, hpa->meta, hpa->scale_target_ref) || keda_owns(so, *hpa) ||
          annotated(hpa->meta, "validations.keda.sh/hpa-ownership", "false")) {
        continue;
      }
      if (annotated(so.meta, "scaledobject.keda.sh/transfer-hpa-ownership", "true")) {
        return Error{at + "the existing hpa '" + hpa->meta.name + "' for " +
                     workload_of(so.scale_target_ref).substr(4) +
                     " must be specified by name in advanced settings to enable ownership transfer (" + place + ")"};
      }
      return Error{at + workload_of(so.scale_target_ref) + " is already managed by the hpa '" + hpa->meta.name +
                   "' (" + place + ")"};
    }
    for (const auto& [other, place] : scaled_objects_) {
      if (other->meta.namespace_ != so.meta.namespace_) continue;
      if (same_target(so.meta, so.scale_target_ref, other->meta, other->scale_target_ref)) {
        return Error{at + workload_of(so.scale_target_ref) + " is already managed by the ScaledObject '" +
                     other->meta.name + "' (" + place + ")"};
      }
      if (keda_hpa_name(*other) == keda_hpa_name(so)) {
        return Error{locate("ScaledObject", so.meta, "spec.advanced.horizontalPodAutoscalerConfig.name") +
                     ": the HPA '" + keda_hpa_name(so) + "' is already managed by the ScaledObject '" +
                     other->meta.name + "' (" + place + ")"};
      }
    }
    scaled_objects_.push_back({&so, locate("ScaledObject", so.meta, "")});
    return std::nullopt;
  }

  // An HPA admitted after the ScaledObject: KEDA's rule read from the other side.
  static bool conflict(const ScaledObject& so, const HorizontalPodAutoscaler& hpa) {
    return same_target(so.meta, so.scale_target_ref, hpa.meta, hpa.scale_target_ref) && !keda_owns(so, hpa) &&
           !annotated(hpa.meta, "validations.keda.sh/hpa-ownership", "false");
  }

  std::vector<Entry<HorizontalPodAutoscaler>> hpas_;
  std::vector<Entry<ScaledObject>> scaled_objects_;
};

}  // namespace

std::optional<Error> check_autoscaler_targets(const ManifestSet& objects, const Scenario* scenario) {
  AutoscalerTargets targets;
  auto loaded = [&](std::string_view kind, const ObjectMeta& meta, std::string_view field) {
    return objects.locate(kind, meta, field);
  };
  if (auto error = targets.admit(objects, loaded)) return error;
  if (scenario == nullptr) return std::nullopt;
  // Each step's objects are kept until the end: the entries point into them.
  std::vector<ManifestSet> applied;
  applied.reserve(scenario->timeline.size());
  for (const TimelineStep& step : scenario->timeline) {  // in the order they run
    if (step.action != TimelineStep::Action::Apply) continue;
    Result<ManifestSet> decoded = decode_applied(step.apply_source, "apply");
    if (!decoded) continue;  // refused when the scenario was decoded
    applied.push_back(std::move(*decoded));
    const std::string at = objects.locate("Scenario", scenario->meta, "spec.timeline[" + std::to_string(step.index) +
                                                                          "].apply");
    const ManifestSet& set = applied.back();
    auto inside = [&](std::string_view kind, const ObjectMeta& meta, std::string_view field) {
      return at + ": " + set.locate(kind, meta, field);
    };
    if (auto error = targets.admit(set, inside)) return error;
  }
  return std::nullopt;
}

std::vector<std::string> take_out_keda_hpas(ManifestSet& objects) {
  std::vector<std::string> taken;
  std::erase_if(objects.horizontal_pod_autoscalers, [&](const HorizontalPodAutoscaler& hpa) {
    const bool keda = std::any_of(objects.scaled_objects.begin(), objects.scaled_objects.end(),
                                  [&](const ScaledObject& so) { return keda_owns(so, hpa); });
    if (keda) taken.push_back("HorizontalPodAutoscaler " + hpa.meta.key());
    return keda;
  });
  return taken;
}

namespace {

// The field that sets how many pods a workload runs at once.
std::string_view replicas_field(const Workload& workload) {
  return workload.kind == WorkloadKind::Job ? "spec.parallelism" : "spec.replicas";
}

// Counts what `objects` (loaded, or one apply step's) ask for against the limits.
class RunSize {
 public:
  explicit RunSize(const sim::SimulationLimits& limits) : limits_(limits) {}

  // A count that alone is over the pod limit; `where` is the file, object and field.
  std::optional<Error> alone(std::int64_t count, const std::string& where, std::string_view what) const {
    if (count <= static_cast<std::int64_t>(limits_.max_pods)) return std::nullopt;
    return Error{where + ": " + std::to_string(count) + " " + std::string(what) + " are more than the " +
                 std::to_string(limits_.max_pods) + " pods a run holds at once"};
  }

  // Adds `count` pods the input starts with; over the limit, the error names the object that brought it there.
  std::optional<Error> add_pods(std::int64_t count, const std::string& where, std::string_view what) {
    if (auto error = alone(count, where, what)) return error;
    pods_ += count;
    return over(pods_, limits_.max_pods, count, where, what, "pods");
  }

  std::optional<Error> add_nodes(std::int64_t count, const std::string& where, std::string_view what) {
    nodes_ += count;
    return over(nodes_, limits_.max_nodes, count, where, what, "nodes");
  }

 private:
  static std::optional<Error> over(std::int64_t total, std::size_t limit, std::int64_t count, const std::string& where,
                                   std::string_view what, std::string_view unit) {
    if (total <= static_cast<std::int64_t>(limit)) return std::nullopt;
    const std::string these = count == 1 ? "it" : "these " + std::to_string(count) + " " + std::string(what);
    return Error{where + ": with " + these + " the input comes to " + std::to_string(total) + " " +
                 std::string(unit) + ", more than the " + std::to_string(limit) + " a run holds at once"};
  }

  const sim::SimulationLimits& limits_;
  std::int64_t pods_ = 0;
  std::int64_t nodes_ = 0;
};

// The workloads of `objects` and their autoscalers' minimums, each against the limit alone; with `total`, their pods
// added up too. `locate` gives the file and object of a field.
template <typename Locate>
std::optional<Error> count_workloads(const ManifestSet& objects, RunSize& size, bool total, const Locate& locate) {
  for (const Pod& pod : objects.pods) {
    if (pod.is_terminal() || !total) continue;
    if (auto error = size.add_pods(1, locate("Pod", pod.meta, "metadata.name"), "pod")) return error;
  }
  for (const Workload& w : objects.workloads) {
    if (w.kind == WorkloadKind::DaemonSet) continue;  // one pod per node: within the node limit
    const std::string where = locate(to_string(w.kind), w.meta, replicas_field(w));
    if (auto error = total ? size.add_pods(w.replicas, where, "replicas") : size.alone(w.replicas, where, "replicas")) {
      return error;
    }
  }
  // The first sync raises the target to the autoscaler's minimum.
  for (const HorizontalPodAutoscaler& hpa : objects.horizontal_pod_autoscalers) {
    if (auto error = size.alone(hpa.min_replicas.value_or(1),
                                locate("HorizontalPodAutoscaler", hpa.meta, "spec.minReplicas"), "replicas")) {
      return error;
    }
  }
  for (const ScaledObject& so : objects.scaled_objects) {
    if (auto error = size.alone(so.min_replica_count.value_or(0),
                                locate("ScaledObject", so.meta, "spec.minReplicaCount"), "replicas")) {
      return error;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> check_run_size(const ManifestSet& objects, const sim::SimulationLimits& limits) {
  RunSize size(limits);
  auto loaded = [&](std::string_view kind, const ObjectMeta& meta, std::string_view field) {
    return objects.locate(kind, meta, field);
  };
  if (auto error = count_workloads(objects, size, /*total=*/true, loaded)) return error;
  for (const Node& node : objects.nodes) {
    if (auto error = size.add_nodes(1, objects.locate("Node", node.meta, "metadata.name"), "node")) return error;
  }
  // A Cluster API group's replicas are nodes at the start, as an Auto Scaling group's desired capacity.
  for (const cloud::clusterapi::ScalableObjectPtr& scalable : objects.cluster_api_objects) {
    const auto* group = std::get_if<cloud::clusterapi::ClusterApiNodeGroup>(&scalable->decoded);
    if (group == nullptr) continue;
    ObjectMeta meta;
    meta.name = scalable->name;
    meta.namespace_ = scalable->namespace_;
    const std::string at = objects.locate(cloud::clusterapi::to_string(scalable->kind), meta, "spec.replicas");
    if (auto error = size.add_nodes(group->replicas, at, "nodes")) return error;
  }
  for (const Scenario& scenario : objects.scenarios) {
    auto at = [&](const std::string& field) { return objects.locate("Scenario", scenario.meta, field); };
    const std::vector<CloudNodeGroup>& groups = scenario.cloud.node_groups;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      const std::string field = "spec.cloud.autoScalingGroups[" + std::to_string(i) + "].desiredCapacity";
      if (auto error = size.add_nodes(groups[i].desired_capacity, at(field), "nodes")) return error;
    }
    for (const TimelineStep& step : scenario.timeline) {
      const std::string path = "spec.timeline[" + std::to_string(step.index) + "]";
      if (step.action == TimelineStep::Action::Scale) {
        if (auto error = size.alone(step.replicas, at(path + ".scale.replicas"), "replicas")) return error;
      }
      if (step.action != TimelineStep::Action::Apply) continue;
      Result<ManifestSet> applied = decode_applied(step.apply_source, "apply");
      if (!applied) continue;  // refused when the scenario was decoded
      auto inside = [&](std::string_view kind, const ObjectMeta& meta, std::string_view field) {
        return at(path + ".apply") + ": " + applied->locate(kind, meta, field);
      };
      if (auto error = count_workloads(*applied, size, /*total=*/false, inside)) return error;
    }
  }
  return std::nullopt;
}

}  // namespace scalewright::cli
