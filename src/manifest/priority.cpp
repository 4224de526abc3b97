#include "manifest/priority.h"

#include <map>

#include "manifest/field.h"

namespace scalewright::manifest {
namespace {

struct PriorityTable {
  std::map<std::string, std::int32_t, std::less<>> values;
  const PriorityClass* global_default = nullptr;
};

PriorityTable make_table(const std::vector<PriorityClass>& loaded) {
  PriorityTable table;
  for (const PriorityClass& c : builtin_priority_classes()) table.values[c.meta.name] = c.value;
  for (const PriorityClass& c : loaded) {
    table.values[c.meta.name] = c.value;
    if (c.global_default && (!table.global_default || table.global_default->value < c.value)) {
      table.global_default = &c;
    }
  }
  return table;
}

// The problem with the spec's priorityClassName, or nullopt once spec.priority is resolved.
std::optional<std::string> resolve(PodSpec& spec, const PriorityTable& table) {
  if (spec.priority) return std::nullopt;
  if (spec.priority_class_name.empty()) {
    if (table.global_default) {
      spec.priority_class_name = table.global_default->meta.name;
      spec.priority = table.global_default->value;
    }
    return std::nullopt;
  }
  auto found = table.values.find(spec.priority_class_name);
  if (found == table.values.end()) return "no PriorityClass named " + quote(spec.priority_class_name);
  spec.priority = found->second;
  return std::nullopt;
}

std::string locate(const std::vector<ObjectOrigin>& origins, std::size_t index, std::string fallback,
                   const std::string& field) {
  if (index >= origins.size()) return fallback + ": " + field;
  return origins[index].at(field);
}

}  // namespace

const std::vector<PriorityClass>& builtin_priority_classes() {
  static const std::vector<PriorityClass> classes = [] {
    auto make = [](const char* name, std::int32_t value) {
      PriorityClass c;
      c.meta.name = name;
      c.value = value;
      return c;
    };
    return std::vector<PriorityClass>{make("system-cluster-critical", 2000000000),
                                      make("system-node-critical", 2000001000)};
  }();
  return classes;
}

std::optional<Error> resolve_pod_priorities(ManifestSet& set, const std::vector<ObjectOrigin>& pod_origins,
                                            const std::vector<ObjectOrigin>& workload_origins) {
  PriorityTable table = make_table(set.priority_classes);
  for (std::size_t i = 0; i < set.pods.size(); ++i) {
    Pod& pod = set.pods[i];
    if (std::optional<std::string> problem = resolve(pod.spec, table)) {
      return Error{locate(pod_origins, i, "Pod/" + pod.meta.name, "spec.priorityClassName") + ": " + *problem};
    }
  }
  for (std::size_t i = 0; i < set.workloads.size(); ++i) {
    Workload& workload = set.workloads[i];
    if (std::optional<std::string> problem = resolve(workload.pod_template.spec, table)) {
      std::string fallback = std::string(to_string(workload.kind)) + "/" + workload.meta.name;
      return Error{locate(workload_origins, i, fallback, "spec.template.spec.priorityClassName") + ": " + *problem};
    }
  }
  return std::nullopt;
}

}  // namespace scalewright::manifest
