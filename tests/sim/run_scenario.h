#pragma once
// Running a scenario given as YAML text on the small round-number catalog (tests/provisioning/fixtures.h), or on one
// of one's own (run_on), and reading its timeline back, for the simulator's tests.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "../provisioning/fixtures.h"
#include "api/instant.h"
#include "manifest/manifest.h"
#include "sim/simulator.h"

namespace scalewright::sim::testing {

// `zones`: how many zones the catalog has (zone-a, zone-b, ...); `status_at`: when to keep Cluster Autoscaler's
// status report as well (SimulationInput::status_at); `sink`: told of the timeline as the run goes; `limits`: the
// run's ceilings.
inline SimulationReport run_on(cloud::Catalog catalog, const std::string& text, std::vector<Instant> status_at = {},
                               TimelineSink* sink = nullptr, SimulationLimits limits = {}) {
  Result<ManifestSet> objects = decode_manifests(text, "test.yaml");
  EXPECT_TRUE(objects.ok()) << (objects.ok() ? "" : objects.error().message);
  if (!objects.ok()) return {};
  ManifestSet set = std::move(*objects);
  Scenario s = set.scenarios.at(0);
  set.scenarios.clear();
  return simulate({std::move(s), std::move(set), std::move(catalog), std::move(status_at), sink, limits, true});
}

inline SimulationReport run(const std::string& text, int zones = 2, std::vector<Instant> status_at = {},
                            TimelineSink* sink = nullptr, SimulationLimits limits = {}) {
  return run_on(provisioning::fixtures::make_catalog(zones), text, std::move(status_at), sink, limits);
}

// A Deployment `name` of `replicas` pods (label app: <name>) asking `cpu` and `memory`; `pod_spec` lines are added to
// the pod template's spec (indented by 6 spaces, e.g. "      nodeSelector: {...}\n").
inline std::string deployment(const std::string& name, int replicas, const std::string& cpu,
                              const std::string& memory = "1Gi", const std::string& pod_spec = "") {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + ", namespace: default}\nspec:\n  replicas: " +
         std::to_string(replicas) + "\n  selector: {matchLabels: {app: " + name +
         "}}\n  template:\n    metadata: {labels: {app: " + name + "}}\n    spec:\n" + pod_spec +
         "      containers:\n      - name: main\n        image: pause\n        resources: {requests: {cpu: \"" + cpu +
         "\", memory: " + memory + "}}\n---\n";
}

// A NodePool "default" for amd64 nodes that removes empty ones after 30 s; the extras are appended to its spec and
// to its template's spec.
inline std::string nodepool(const std::string& extra_spec = "", const std::string& extra_template = "") {
  return R"(
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
)" + extra_template + R"(
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 30s}
)" + extra_spec + "\n---\n";
}

// The timeline entries of one kind, as "t=1m12s message".
inline std::vector<std::string> messages(const SimulationReport& r, std::string_view kind) {
  std::vector<std::string> out;
  for (const TimelineEntry& e : r.timeline) {
    if (e.kind == kind) out.push_back(format_time(e.at) + " " + e.message);
  }
  return out;
}

}  // namespace scalewright::sim::testing
