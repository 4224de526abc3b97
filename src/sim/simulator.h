#pragma once
// The embedded simulator: a deterministic discrete-event loop on a virtual clock. It plays the cluster (a
// ReplicaSet/StatefulSet/Job controller, the DaemonSet controller, kube-scheduler binding pods) and the cloud,
// and runs the engine's decisions (provisioning, emptiness) exactly as a real cluster would receive them. Same
// input and seed, same report.
#include <vector>

#include "api/instant.h"
#include "api/nodepool.h"
#include "api/scenario.h"
#include "cloud/catalog.h"
#include "manifest/manifest.h"
#include "sim/report.h"
#include "sim/timeline_sink.h"

namespace scalewright::sim {

struct SimulationLimits {
  std::size_t max_pods = 1'500'000;  // pods that exist at once (DaemonSet pods included): about 3 GB
  std::size_t max_nodes = 100'000;   // nodes that exist at once (launching, Ready or draining)
};

struct SimulationInput {
  Scenario scenario;
  ManifestSet objects;  // nodes, pods, workloads, NodePools, ... present at t=0
  cloud::Catalog catalog;
  // Times at which to keep Cluster Autoscaler's status report as well as at the end (`simulate --status-at`): the
  // report as CA writes it after its scans up to and including that instant.
  std::vector<Instant> status_at;
  // Told of each timeline entry and of the run's progress while it runs (`simulate` prints them as they come);
  // null: nobody watches. Not owned.
  TimelineSink* timeline_sink = nullptr;
  // The most the run may hold at once. Past either, the run stops there with `SimulationReport::stopped` saying why
  // and the report so far, instead of growing until memory runs out (a runaway autoscaler doubles every 15 s).
  SimulationLimits limits;
  // Keep a record per object: where every pod ran (SimulationReport::pods) and the Events the controllers recorded
  // on objects (SimulationReport::events), for the JSON report and `explain`; a large run printed to the terminal
  // has no use for them.
  bool object_records = true;
};

SimulationReport simulate(SimulationInput input);

}  // namespace scalewright::sim
