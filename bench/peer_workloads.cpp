#include "peer_workloads.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>

namespace scalewright::bench {

Node template_node(const std::string& name, const std::string& group, const std::string& zone) {
  Node node;
  node.meta.name = name;
  node.meta.labels.set(Symbol("kubernetes.io/hostname"), Symbol(name));
  node.meta.labels.set(Symbol("topology.kubernetes.io/zone"), Symbol(zone));
  node.meta.labels.set(Symbol("node.kubernetes.io/instance-type"), Symbol("m5.xlarge"));
  node.meta.labels.set(Symbol("scalewright.io/node-group"), Symbol(group));
  node.capacity.set(Symbol("cpu"), 4000);
  node.capacity.set(Symbol("memory"), 16 * 1024 * kMiB);
  node.capacity.set(Symbol("pods"), 110);
  node.allocatable = node.capacity;
  node.conditions.push_back({"Ready", "True", ""});
  return node;
}

Pod pod_with(const std::string& name, std::int64_t cpu_milli, std::int64_t memory, const std::string& owner_kind,
             const std::string& owner_name) {
  Pod pod;
  pod.meta.name = name;
  pod.meta.namespace_ = "default";
  pod.meta.owner_references.push_back({"apps/v1", owner_kind, owner_name, owner_name + "-uid", true});
  Container c;
  c.name = "app";
  c.requests.set(Symbol("cpu"), cpu_milli);
  c.requests.set(Symbol("memory"), memory);
  pod.spec.containers.push_back(std::move(c));
  return pod;
}

PendingShape next_pending_shape(SplitMix64& rng) {
  static constexpr std::int64_t kCpu[] = {100, 250, 500, 1000, 2000};
  static constexpr std::int64_t kMemMi[] = {128, 512, 1024, 2048, 4096};
  PendingShape shape;
  shape.ci = rng.index();
  shape.mi = rng.index();
  shape.cpu_milli = kCpu[shape.ci];
  shape.memory = kMemMi[shape.mi] * kMiB;
  return shape;
}

std::vector<Pod> workload_a(std::size_t count) {
  SplitMix64 rng(1);
  std::vector<Pod> pods;
  pods.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const PendingShape shape = next_pending_shape(rng);
    Pod pod = pod_with("pending-" + std::to_string(i), shape.cpu_milli, shape.memory, "ReplicaSet", "");
    pod.meta.owner_references.clear();
    pod.meta.uid = pod.meta.name;
    pods.push_back(std::move(pod));
  }
  return pods;
}

std::vector<Pod> three_deployments(std::size_t count) {
  struct Deployment {
    const char* name;
    std::size_t share;  // percent of the pods
    std::int64_t cpu_milli;
    std::int64_t memory;
  };
  static constexpr Deployment kDeployments[] = {
      {"web", 50, 250, 512 * kMiB}, {"api", 30, 2000, 2048 * kMiB}, {"cache", 20, 500, 8192 * kMiB}};
  std::vector<Pod> pods;
  for (const Deployment& d : kDeployments) {
    for (std::size_t i = 0; i < count * d.share / 100; ++i) {
      Pod pod = pod_with(std::string(d.name) + "-" + std::to_string(i), d.cpu_milli, d.memory, "ReplicaSet",
                         std::string(d.name) + "-rs");
      pod.meta.uid = pod.meta.name;
      pods.push_back(std::move(pod));
    }
  }
  return pods;
}

ScaleUpCluster scale_up_cluster() {
  ScaleUpCluster cluster;
  for (std::size_t j = 0; j < 1000; ++j) {
    const std::string group = "ng-" + std::to_string(j % 5);
    cluster.nodes.push_back(template_node(group + "-node-" + std::to_string(j), group));
    std::vector<Pod> pods;
    for (int k = 0; k < 30; ++k) {
      pods.push_back(
          pod_with("p-" + std::to_string(j) + "-" + std::to_string(k), 133, 512 * kMiB, "ReplicaSet", "existing-rs"));
    }
    cluster.pods_by_node.push_back(std::move(pods));
  }
  SplitMix64 rng(2);
  for (std::size_t i = 0; i < 500; ++i) {
    const PendingShape shape = next_pending_shape(rng);
    cluster.pending.push_back(pod_with("pending-" + std::to_string(i), shape.cpu_milli, shape.memory, "ReplicaSet",
                                       "pending-rs-" + std::to_string(shape.ci) + "-" + std::to_string(shape.mi)));
  }
  return cluster;
}

ScaleDownCluster scale_down_cluster(std::size_t count) {
  static constexpr std::int64_t kLowCpu[] = {10, 20, 30, 40, 50};
  static constexpr std::int64_t kLowMemMi[] = {32, 64, 96, 128, 160};
  static constexpr std::int64_t kHighCpu[] = {50, 80, 100, 120, 150};
  static constexpr std::int64_t kHighMemMi[] = {128, 256, 384, 512, 640};
  ScaleDownCluster cluster;
  SplitMix64 rng(3);
  for (std::size_t j = 0; j < count; ++j) {
    std::string group = "ng-" + std::to_string(j % 5);
    cluster.nodes.push_back(template_node(group + "-node-" + std::to_string(j), group));
    std::vector<Pod> pods;
    bool low = j % 4 == 0;
    for (int k = 0; k < 30; ++k) {
      std::size_t ci = rng.index();
      std::size_t mi = rng.index();
      std::int64_t cpu = low ? kLowCpu[ci] : kHighCpu[ci];
      std::int64_t mem = (low ? kLowMemMi[mi] : kHighMemMi[mi]) * kMiB;
      pods.push_back(pod_with("p-" + std::to_string(j) + "-" + std::to_string(k), cpu, mem, "ReplicaSet", "rs"));
    }
    cluster.pods_by_node.push_back(std::move(pods));
  }
  return cluster;
}

CostBound cost_lower_bound(const Demand& demand, const std::vector<const cloud::InstanceType*>& types,
                           const std::vector<double>& prices) {
  // A type another one beats (as much of every resource, for no more) is in no optimum: left out, what remains
  // is small enough to try every basis of one, two and three types.
  struct Option {
    std::array<double, 3> room;  // cpu (m), memory (bytes), pods
    double price;
    const cloud::InstanceType* type;
  };
  std::vector<Option> options;
  for (std::size_t i = 0; i < types.size(); ++i) {
    const ResourceList& a = types[i]->allocatable;
    options.push_back({{static_cast<double>(a.cpu_milli()), static_cast<double>(a.memory()),
                        static_cast<double>(a.pods())},
                       prices[i], types[i]});
  }
  auto beats = [](const Option& a, const Option& b) {
    return a.price <= b.price && a.room[0] >= b.room[0] && a.room[1] >= b.room[1] && a.room[2] >= b.room[2] &&
           (a.price < b.price || a.room != b.room);
  };
  std::vector<Option> kept;
  for (const Option& o : options) {
    if (std::none_of(options.begin(), options.end(), [&](const Option& other) { return beats(other, o); })) {
      kept.push_back(o);
    }
  }
  const std::array<double, 3> need{demand.cpu_milli, demand.memory, demand.pods};
  CostBound best;
  best.per_hour = std::numeric_limits<double>::max();
  auto describe = [](double count, const cloud::InstanceType* type) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f ", count);
    return text + type->name;
  };
  // A candidate basis: counts x of the chosen types, kept when every demand is covered.
  auto consider = [&](const std::vector<std::size_t>& chosen, const std::vector<double>& x) {
    double cost = 0;
    std::array<double, 3> covered{0, 0, 0};
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      if (x[k] < 0) return;
      cost += x[k] * kept[chosen[k]].price;
      for (int r = 0; r < 3; ++r) covered[r] += x[k] * kept[chosen[k]].room[r];
    }
    for (int r = 0; r < 3; ++r) {
      if (covered[r] < need[r] * (1 - 1e-9)) return;
    }
    if (cost >= best.per_hour) return;
    best.per_hour = cost;
    best.mix.clear();
    for (std::size_t k = 0; k < chosen.size(); ++k) {
      if (x[k] > 0) best.mix += (best.mix.empty() ? "" : " + ") + describe(x[k], kept[chosen[k]].type);
    }
  };
  const std::size_t n = kept.size();
  for (std::size_t i = 0; i < n; ++i) {
    double alone = 0;
    for (int r = 0; r < 3; ++r) alone = std::max(alone, need[r] / kept[i].room[r]);
    consider({i}, {alone});
    for (std::size_t j = i + 1; j < n; ++j) {
      for (int r = 0; r < 3; ++r) {  // two of the three demands met exactly
        for (int q = r + 1; q < 3; ++q) {
          const double det = kept[i].room[r] * kept[j].room[q] - kept[j].room[r] * kept[i].room[q];
          if (det == 0) continue;
          consider({i, j}, {(need[r] * kept[j].room[q] - kept[j].room[r] * need[q]) / det,
                            (kept[i].room[r] * need[q] - need[r] * kept[i].room[q]) / det});
        }
      }
      for (std::size_t k = j + 1; k < n; ++k) {  // all three met exactly: Cramer's rule
        const auto& a = kept[i].room;
        const auto& b = kept[j].room;
        const auto& c = kept[k].room;
        auto det3 = [](const std::array<double, 3>& u, const std::array<double, 3>& v, const std::array<double, 3>& w) {
          return u[0] * (v[1] * w[2] - v[2] * w[1]) - v[0] * (u[1] * w[2] - u[2] * w[1]) +
                 w[0] * (u[1] * v[2] - u[2] * v[1]);
        };
        const double det = det3(a, b, c);
        if (det == 0) continue;
        consider({i, j, k}, {det3(need, b, c) / det, det3(a, need, c) / det, det3(a, b, need) / det});
      }
    }
  }
  return best;
}

}  // namespace scalewright::bench
