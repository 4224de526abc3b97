#pragma once
// The inputs bench/ shares with the Cluster Autoscaler and Karpenter comparisons
// (shared/bench/PEER-WORKLOADS.md): a SplitMix64 stream, the m5.xlarge-like node template, and the generators.
#include <cstdint>
#include <string>
#include <vector>

#include "api/node.h"
#include "api/pod.h"
#include "api/random.h"
#include "cloud/instance_type.h"

namespace scalewright::bench {

// The peer workloads' stream is the simulator's own generator (SplitMix64); index() is PEER-WORKLOADS.md's
// `next() % 5`.
class SplitMix64 : public Random {
 public:
  using Random::Random;
  std::size_t index() { return static_cast<std::size_t>(next() % 5); }
};

inline constexpr std::int64_t kMiB = 1024LL * 1024;

// m5.xlarge-like: 4000m, 16 GiB, 110 pods, capacity == allocatable, Ready, no taints.
Node template_node(const std::string& name, const std::string& group, const std::string& zone = "zone-a");

Pod pod_with(const std::string& name, std::int64_t cpu_milli, std::int64_t memory, const std::string& owner_kind,
             const std::string& owner_name);

// (a)'s pending pod i of a stream: cpu [100,250,500,1000,2000][ci] m, memory [128,512,1024,2048,4096][mi] MiB,
// drawn cpu index first. `ci` and `mi` are returned for owners that group pods by shape.
struct PendingShape {
  std::size_t ci = 0;
  std::size_t mi = 0;
  std::int64_t cpu_milli = 0;
  std::int64_t memory = 0;
};
PendingShape next_pending_shape(SplitMix64& rng);

// (a)'s first `count` pending pods (seed 1), without owners (each its own scheduling unit, as the file's
// estimator input has them).
std::vector<Pod> workload_a(std::size_t count);

// Issue [11]'s scenario: `count` pods in three Deployments (half web 250m/512Mi, 30 % api 2 cpu/2Gi, 20 % cache
// 500m/8Gi), each owned by its Deployment's ReplicaSet.
std::vector<Pod> three_deployments(std::size_t count);

// (b) Scale-up: 1,000 nodes of 30 pods (133m / 512Mi, owner ReplicaSet existing-rs) in groups ng-0..ng-4 (node j
// in ng-<j%5>), and 500 pending pods drawn with seed 2, owned by ReplicaSet pending-rs-<ci>-<mi>.
struct ScaleUpCluster {
  std::vector<Node> nodes;
  std::vector<std::vector<Pod>> pods_by_node;
  std::vector<Pod> pending;
};
ScaleUpCluster scale_up_cluster();

// (c) Scale-down: `nodes` nodes of 30 pods each, seed 3: every fourth node is "low" (under 0.5 utilization).
struct ScaleDownCluster {
  std::vector<Node> nodes;
  std::vector<std::vector<Pod>> pods_by_node;
};
ScaleDownCluster scale_down_cluster(std::size_t nodes);

// What a set of pods asks of the nodes that hold them, summed.
struct Demand {
  double cpu_milli = 0;
  double memory = 0;  // bytes
  double pods = 0;
};
// A lower bound on the $/h of any set of `types` (at `prices`, one per type) whose allocatable cpu, memory and pod
// slots cover `demand`: the LP relaxation, min Σ price·x over x ≥ 0 with Σ allocatable·x ≥ demand for each of the
// three, solved exactly (an optimum sits at a basis of at most three types, each of which is tried). No real packing
// beats it: it lets nodes be fractional and a pod be split across nodes.
struct CostBound {
  double per_hour = 0;
  std::string mix;  // the optimum's types and their fractional counts: "588.6 c6a.2xlarge + 56.9 r5a.2xlarge"
};
CostBound cost_lower_bound(const Demand& demand, const std::vector<const cloud::InstanceType*>& types,
                           const std::vector<double>& prices);

}  // namespace scalewright::bench
