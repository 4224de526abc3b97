#include "manifest/references.h"

#include <map>
#include <set>
#include <string>
#include <utility>

namespace scalewright {
namespace {

std::string workload_key(std::string_view kind, std::string_view namespace_, std::string_view name) {
  return std::string(kind) + "/" + std::string(namespace_) + "/" + std::string(name);
}

// The first apply step (by time) that creates an object.
struct Creation {
  Duration at{0};
  std::size_t index = 0;  // in spec.timeline as written
};

// Which workloads and NodePools exist at a time: those loaded, and those apply steps create.
class Inventory {
 public:
  Inventory(const ManifestSet& objects, const Scenario* scenario) {
    for (const Workload& w : objects.workloads) {
      loaded_.insert(workload_key(to_string(w.kind), w.meta.namespace_, w.meta.name));
    }
    for (const NodePool& p : objects.nodepools) loaded_.insert(workload_key("NodePool", "", p.meta.name));
    if (scenario == nullptr) return;
    for (const TimelineStep& step : scenario->timeline) {  // in time order, so the first creation is kept
      if (step.action != TimelineStep::Action::Apply) continue;
      Result<ManifestSet> applied = decode_manifests(step.apply_source, "apply");
      if (!applied) continue;  // refused when the scenario was decoded
      for (const Workload& w : applied->workloads) {
        created_.emplace(workload_key(to_string(w.kind), w.meta.namespace_, w.meta.name),
                         Creation{step.at, step.index});
      }
      for (const NodePool& p : applied->nodepools) {
        created_.emplace(workload_key("NodePool", "", p.meta.name), Creation{step.at, step.index});
      }
      applied_.emplace_back(step, std::move(*applied));
    }
  }

  // Why `what` ("Deployment default/web") is not there at `at`, or nullopt when it is. `when` says who needs it
  // ("this step at 1m0s").
  std::optional<std::string> missing(const std::string& key, const std::string& what, Duration at,
                                     const std::string& when) const {
    if (loaded_.count(key)) return std::nullopt;
    auto created = created_.find(key);
    if (created != created_.end() && created->second.at <= at) return std::nullopt;
    std::string problem = "no " + what + " in the input";
    if (created != created_.end()) {
      problem += " (spec.timeline[" + std::to_string(created->second.index) + "] creates it at " +
                 format_duration(created->second.at) + ", after " + when + ")";
    }
    return problem;
  }

  const std::vector<std::pair<TimelineStep, ManifestSet>>& applied() const { return applied_; }

 private:
  std::set<std::string, std::less<>> loaded_;
  std::map<std::string, Creation, std::less<>> created_;
  std::vector<std::pair<TimelineStep, ManifestSet>> applied_;
};

// The scale targets of the HPAs and ScaledObjects of `objects`, needed from `at`; `locate` turns a kind, object
// and field into the start of an error line.
template <typename Locate>
std::optional<Error> check_autoscalers(const ManifestSet& objects, const Inventory& inventory, Duration at,
                                       const Locate& locate) {
  auto check = [&](std::string_view kind, const ObjectMeta& meta,
                   const CrossVersionObjectReference& ref) -> std::optional<Error> {
    const std::string when = std::string(kind) + "/" + meta.name + " is created at " + format_duration(at);
    if (auto problem = inventory.missing(workload_key(ref.kind, meta.namespace_, ref.name),
                                         ref.kind + " " + meta.namespace_ + "/" + ref.name, at, when)) {
      return Error{locate(kind, meta, "spec.scaleTargetRef.name") + ": " + *problem};
    }
    return std::nullopt;
  };
  for (const HorizontalPodAutoscaler& hpa : objects.horizontal_pod_autoscalers) {
    if (auto error = check("HorizontalPodAutoscaler", hpa.meta, hpa.scale_target_ref)) return error;
  }
  for (const ScaledObject& so : objects.scaled_objects) {
    if (auto error = check("ScaledObject", so.meta, so.scale_target_ref)) return error;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> check_references(const ManifestSet& objects, const Scenario* scenario) {
  const Inventory inventory(objects, scenario);
  auto loaded = [&](std::string_view kind, const ObjectMeta& meta, std::string_view field) {
    return objects.locate(kind, meta, field);
  };
  if (auto error = check_autoscalers(objects, inventory, Duration(0), loaded)) return error;
  if (scenario == nullptr) return std::nullopt;

  auto at_scenario = [&](const std::string& field) { return objects.locate("Scenario", scenario->meta, field); };
  for (const TimelineStep& step : scenario->timeline) {
    const std::string path = "spec.timeline[" + std::to_string(step.index) + "]";
    if (step.action == TimelineStep::Action::Scale || step.action == TimelineStep::Action::Load) {
      const ObjectReference& t = step.target;
      const char* action = step.action == TimelineStep::Action::Scale ? "scale" : "load";
      if (auto problem = inventory.missing(workload_key(t.kind, t.namespace_, t.name),
                                           t.kind + " " + t.namespace_ + "/" + t.name, step.at,
                                           "this step at " + format_duration(step.at))) {
        return Error{at_scenario(path + "." + action + ".name") + ": " + *problem};
      }
    }
  }
  // Autoscalers an apply step creates need their targets from that step's time on.
  for (const auto& [step, applied] : inventory.applied()) {
    const std::string path = "spec.timeline[" + std::to_string(step.index) + "].apply";
    auto inside = [&](std::string_view kind, const ObjectMeta& meta, std::string_view field) {
      return at_scenario(path) + ": " + applied.locate(kind, meta, field);
    };
    if (auto error = check_autoscalers(applied, inventory, step.at, inside)) return error;
  }
  const std::vector<NodeFailureEvent>& failures = scenario->cloud.faults.node_failures;
  for (std::size_t i = 0; i < failures.size(); ++i) {
    if (failures[i].nodepool.empty()) continue;
    const std::string when = "the failure at " + format_duration(failures[i].at);
    if (auto problem = inventory.missing(workload_key("NodePool", "", failures[i].nodepool),
                                         "NodePool " + failures[i].nodepool, failures[i].at, when)) {
      return Error{at_scenario("spec.cloud.faults.nodeFailures[" + std::to_string(i) + "].nodePool") + ": " +
                   *problem};
    }
  }
  return std::nullopt;
}

}  // namespace scalewright
