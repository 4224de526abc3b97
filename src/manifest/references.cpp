#include "manifest/references.h"

#include <map>
#include <set>
#include <string>
#include <utility>

namespace scalewright {
namespace {

// When a timeline step creates or deletes an object. Steps at one time run in the order written, which is the
// order of `index` among them (the timeline is sorted by time, stably).
struct Change {
  Instant at{};
  std::size_t index = 0;  // in spec.timeline as written
  bool creates = true;
};

// A moment of the run: a time, and the place among that time's steps (none: after all of them).
struct Moment {
  Instant at{};
  std::optional<std::size_t> index;
  bool after(const Change& c) const { return c.at < at || (c.at == at && (!index || c.index < *index)); }
};

std::string nodepool_key(std::string_view name) { return object_key("NodePool", "", name); }

// Which workloads and NodePools exist at a moment: those loaded, and what apply and delete steps change.
class Inventory {
 public:
  Inventory(const ManifestSet& objects, const Scenario* scenario) {
    for (const Workload& w : objects.workloads) {
      loaded_.insert(object_key(to_string(w.kind), w.meta.namespace_, w.meta.name));
    }
    for (const NodePool& p : objects.nodepools) loaded_.insert(nodepool_key(p.meta.name));
    if (scenario == nullptr) return;
    for (const TimelineStep& step : scenario->timeline) {  // in the order they run
      if (step.action == TimelineStep::Action::Delete) {
        const ObjectReference& t = step.target;
        const std::string key = t.kind == "NodePool" ? nodepool_key(t.name) : object_key(t.kind, t.namespace_, t.name);
        changes_[key].push_back({step.at, step.index, false});
      }
      if (step.action != TimelineStep::Action::Apply) continue;
      Result<ManifestSet> applied = decode_applied(step.apply_source, "apply");
      if (!applied) continue;  // refused when the scenario was decoded
      for (const Workload& w : applied->workloads) {
        changes_[object_key(to_string(w.kind), w.meta.namespace_, w.meta.name)].push_back({step.at, step.index});
      }
      for (const NodePool& p : applied->nodepools) changes_[nodepool_key(p.meta.name)].push_back({step.at, step.index});
      applied_.emplace_back(step, std::move(*applied));
    }
  }

  // Why `what` ("Deployment default/web") is not there at `moment`, or nullopt when it is. `when` names who
  // needs it ("this step at 1m0s").
  std::optional<std::string> missing(const std::string& key, const std::string& what, Moment moment,
                                     const std::string& when) const {
    bool exists = loaded_.count(key) > 0;
    const Change* last = nullptr;  // the last change before the moment
    const Change* next = nullptr;  // the first creation after it
    static const std::vector<Change> kNone;
    auto found = changes_.find(key);
    for (const Change& c : found == changes_.end() ? kNone : found->second) {
      if (moment.after(c)) {
        exists = c.creates;
        last = &c;
      } else if (c.creates && next == nullptr) {
        next = &c;
      }
    }
    if (exists) return std::nullopt;
    if (last != nullptr) {
      return "no " + what + " then: spec.timeline[" + std::to_string(last->index) + "] deletes it at " +
             format_duration(since_start(last->at)) + ", before " + when;
    }
    std::string problem = "no " + what + " in the input";
    if (next != nullptr) {
      problem += " (spec.timeline[" + std::to_string(next->index) + "] creates it at " +
                 format_duration(since_start(next->at)) + ", after " + when +
                 (next->at == moment.at ? "; steps at one time run in the order written" : "") + ")";
    }
    return problem;
  }

  const std::vector<std::pair<TimelineStep, ManifestSet>>& applied() const { return applied_; }

 private:
  std::set<std::string, std::less<>> loaded_;
  std::map<std::string, std::vector<Change>, std::less<>> changes_;  // in the order the steps run
  std::vector<std::pair<TimelineStep, ManifestSet>> applied_;
};

// The scale targets of the HPAs and ScaledObjects of `objects`, needed from `at`; `locate` turns a kind, object
// and field into the start of an error line.
template <typename Locate>
std::optional<Error> check_autoscalers(const ManifestSet& objects, const Inventory& inventory, Moment at,
                                       const Locate& locate) {
  auto check = [&](std::string_view kind, const ObjectMeta& meta,
                   const CrossVersionObjectReference& ref) -> std::optional<Error> {
    const std::string when =
        std::string(kind) + "/" + meta.name + " is created at " + format_duration(since_start(at.at));
    if (auto problem = inventory.missing(object_key(ref.kind, meta.namespace_, ref.name),
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

// Karpenter's CRD refuses to make a NodePool static (spec.replicas set) or dynamic (unset) once it exists: an apply
// step that would, or a scale step on a dynamic NodePool (the scale subresource sets spec.replicas), is refused.
template <typename Locate>
std::optional<Error> check_static_transitions(const ManifestSet& objects, const Scenario& scenario,
                                              const Locate& at_scenario) {
  static const std::string kTransition =
      "Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes";
  std::map<std::string, bool> is_static;  // the NodePools there, by name
  for (const NodePool& p : objects.nodepools) is_static.emplace(p.meta.name, p.is_static());
  for (const TimelineStep& step : scenario.timeline) {  // in the order they run
    const std::string path = "spec.timeline[" + std::to_string(step.index) + "]";
    const ObjectReference& t = step.target;
    if (step.action == TimelineStep::Action::Delete && t.kind == "NodePool") is_static.erase(t.name);
    if (step.action == TimelineStep::Action::Scale && t.kind == "NodePool") {
      auto found = is_static.find(t.name);
      if (found != is_static.end() && !found->second) {
        return Error{at_scenario(path + ".scale.name") + ": NodePool " + t.name + " has no spec.replicas: " +
                     kTransition};
      }
    }
    if (step.action != TimelineStep::Action::Apply) continue;
    Result<ManifestSet> applied = decode_manifests(step.apply_source, "apply");
    if (!applied) continue;  // refused when the scenario was decoded
    for (const NodePool& p : applied->nodepools) {
      auto [found, added] = is_static.emplace(p.meta.name, p.is_static());
      if (!added && found->second != p.is_static()) {
        return Error{at_scenario(path + ".apply") + ": " + applied->locate("NodePool", p.meta, "spec.replicas") +
                     ": " + kTransition};
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<Error> check_references(const ManifestSet& objects, const Scenario* scenario) {
  const Inventory inventory(objects, scenario);
  auto loaded = [&](std::string_view kind, const ObjectMeta& meta, std::string_view field) {
    return objects.locate(kind, meta, field);
  };
  // Loaded autoscalers start with the run; they find what the apply steps at 0s create.
  if (auto error = check_autoscalers(objects, inventory, Moment{Instant{}, std::nullopt}, loaded)) return error;
  if (scenario == nullptr) return std::nullopt;

  auto at_scenario = [&](const std::string& field) { return objects.locate("Scenario", scenario->meta, field); };
  for (const TimelineStep& step : scenario->timeline) {
    const std::string path = "spec.timeline[" + std::to_string(step.index) + "]";
    if (step.action == TimelineStep::Action::Scale || step.action == TimelineStep::Action::Load) {
      const ObjectReference& t = step.target;
      const char* action = step.action == TimelineStep::Action::Scale ? "scale" : "load";
      const std::string key = t.kind == "NodePool" ? nodepool_key(t.name) : object_key(t.kind, t.namespace_, t.name);
      if (auto problem =
              inventory.missing(key, t.kind + " " + (t.kind == "NodePool" ? "" : t.namespace_ + "/") + t.name,
                                Moment{step.at, step.index}, "this step at " + format_duration(since_start(step.at)))) {
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
    // An autoscaler applied with its target in the same step finds it.
    if (auto error = check_autoscalers(applied, inventory, Moment{step.at, step.index + 1}, inside)) return error;
  }
  if (auto error = check_static_transitions(objects, *scenario, at_scenario)) return error;
  const std::vector<NodeFailureEvent>& failures = scenario->cloud.faults.node_failures;
  for (std::size_t i = 0; i < failures.size(); ++i) {
    if (failures[i].nodepool.empty()) continue;
    const std::string when = "the failure at " + format_duration(since_start(failures[i].at));
    // Faults at a time run after that time's timeline steps.
    if (auto problem = inventory.missing(nodepool_key(failures[i].nodepool), "NodePool " + failures[i].nodepool,
                                         Moment{failures[i].at, std::nullopt}, when)) {
      return Error{at_scenario("spec.cloud.faults.nodeFailures[" + std::to_string(i) + "].nodePool") + ": " +
                   *problem};
    }
  }
  return std::nullopt;
}

}  // namespace scalewright
