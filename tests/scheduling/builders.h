#pragma once
// Small builders for scheduler tests: nodes and pods with only the fields a test is about.
#include <string>

#include "api/node.h"
#include "api/pod.h"
#include "units.h"

namespace scalewright::testing {


inline Node make_node(const std::string& name, std::int64_t cpu_milli, std::int64_t memory,
                      const std::string& zone = "zone-a", std::int64_t pods = 110) {
  Node node;
  node.meta.name = name;
  node.meta.labels.set(Symbol("kubernetes.io/hostname"), Symbol(name));
  node.meta.labels.set(Symbol("topology.kubernetes.io/zone"), Symbol(zone));
  node.capacity.set(Symbol("cpu"), cpu_milli);
  node.capacity.set(Symbol("memory"), memory);
  node.capacity.set(Symbol("pods"), pods);
  node.allocatable = node.capacity;
  node.conditions.push_back({"Ready", "True", ""});
  return node;
}

inline Pod make_pod(const std::string& name, std::int64_t cpu_milli, std::int64_t memory,
                    const std::string& app = "") {
  Pod pod;
  pod.meta.name = name;
  pod.meta.namespace_ = "default";
  if (!app.empty()) pod.meta.labels.set(Symbol("app"), Symbol(app));
  Container c;
  c.name = "c";
  if (cpu_milli) c.requests.set(Symbol("cpu"), cpu_milli);
  if (memory) c.requests.set(Symbol("memory"), memory);
  pod.spec.containers.push_back(c);
  return pod;
}

inline LabelSelector app_selector(const std::string& app) {
  return LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol(app)}}}};
}

inline PodAffinityTerm app_term(const std::string& app, const std::string& topology_key) {
  PodAffinityTerm term;
  term.label_selector = app_selector(app);
  term.topology_key = Symbol(topology_key);
  return term;
}

}  // namespace scalewright::testing
