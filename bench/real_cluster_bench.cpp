// Issue [7]: 1,000 pending pods on a real control plane, measured as Karpenter's performance suite measures itself
// (test/suites/performance: a Deployment created, the wall time until every pod is healthy, < 2 min; the
// controller's heap, < 260 MB, and CPU averaged over the run, < 0.5 cores).
//
// It starts ../shared/k8s/control-plane (kube-apiserver, kube-scheduler, kube-controller-manager v1.26.1), installs
// deploy/crds, starts `scalewright run` (provider kwok) as a child process, applies a broad NodePool (on-demand and
// spot; c, m and r; kwok nodeClassRef) and a Deployment of 1,000 pause pods of Karpenter's "small" shape (900m cpu,
// 3100Mi memory), and measures:
//  - the wall time from the Deployment's creation until every pod is Running and bound (the API polled every
//    500 ms), with when the last pod was created, the first and last NodeClaim, and when every pod was bound;
//  - the NodeClaims: how many, of which instance types and capacity types, and their $/h (data/aws prices);
//  - scaled to 0: the wall time until every NodeClaim and Node of the NodePool is gone;
//  - the controller's CPU seconds (utime + stime, /proc/PID/stat) and peak RSS (VmHWM), read before it exits;
//  - scalewright_pod_to_nodeclaim_seconds from its /metrics (from when a pending pod needed capacity, as it arrived
//    Unschedulable or its planned node came up without it, to its NodeClaim's create call), and
//    scalewright_pod_first_pending_to_nodeclaim_seconds (from its first arrival, the wait on capacity planned before
//    included).
// Then all of it once more with --batch-idle-duration 0s --batch-max-duration 0s: that latency without the batch
// window.
//
//   build/bench/real_cluster_bench [--replicas N] [--keep]
//
// kube-controller-manager's pace (the ReplicaSet controller creates pods in slow-start batches at its client's
// 20 requests/s) and kube-scheduler's (its Unschedulable backoff, binding at 50 requests/s) are part of every wall
// time, as they are in Karpenter's suite.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "api/quantity.h"
#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"
#include "tests/cluster/control_plane_harness.h"

namespace scalewright::bench {
namespace {

using nlohmann::json;
using cluster::testing::ControlPlane;
using cluster::testing::Process;
using Clock = std::chrono::steady_clock;

constexpr const char* kPool = "bench";
constexpr const char* kApp = "small";

// Karpenter's perf suite's NodePool, made for kwok and this catalog: Linux on amd64, on-demand and spot, the c, m
// and r categories of generation > 2 up to 32 vCPU, no limits, empty nodes removed 30 s after they empty and every
// node disruptable at once (the suite's consolidateAfter and 100 % budget). Not 0s: a node launched for pods is
// empty from when it is Ready until kube-scheduler binds them, and with 0s it is removed in that gap (see
// BENCHMARKS.md).
std::string nodepool() {
  return fmt::format(R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: {}
spec:
  template:
    spec:
      nodeClassRef: {{group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}}
      requirements:
      - {{key: kubernetes.io/os, operator: In, values: [linux]}}
      - {{key: kubernetes.io/arch, operator: In, values: [amd64]}}
      - {{key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]}}
      - {{key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}}
      - {{key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"]}}
      - {{key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: ["33"]}}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30s
    budgets:
    - nodes: "100%"
)",
                     kPool);
}

// Karpenter's "small-resource-app": pause pods asking for 900m cpu and 3100Mi memory.
json deployment(int replicas) {
  const json labels = {{"app", kApp}};
  return {{"apiVersion", "apps/v1"},
          {"kind", "Deployment"},
          {"metadata", {{"name", kApp}, {"namespace", "default"}}},
          {"spec",
           {{"replicas", replicas},
            {"selector", {{"matchLabels", labels}}},
            {"template",
             {{"metadata", {{"labels", labels}}},
              {"spec",
               {{"terminationGracePeriodSeconds", 0},
                {"containers",
                 {{{"name", "pause"},
                   {"image", "registry.k8s.io/pause:3.9"},
                   {"resources", {{"requests", {{"cpu", "900m"}, {"memory", "3100Mi"}}}}}}}}}}}}}}};
}

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::vector<json> items(const kube::ApiClient& api, const std::string& path) {
  kube::KubeResult<kube::ListResult> list = api.list(path);
  return list ? std::move(list->items) : std::vector<json>{};
}
std::string pool_selector() { return std::string("?labelSelector=karpenter.sh%2Fnodepool%3D") + kPool; }
std::vector<json> nodeclaims(const kube::ApiClient& api) {
  return items(api, "/apis/karpenter.sh/v1/nodeclaims" + pool_selector());
}
std::vector<json> nodes(const kube::ApiClient& api) { return items(api, "/api/v1/nodes" + pool_selector()); }
std::vector<json> pods(const kube::ApiClient& api) {
  return items(api, std::string("/api/v1/namespaces/default/pods?labelSelector=app%3D") + kApp);
}

// The controller's CPU seconds (utime + stime of /proc/PID/stat) and a field of /proc/PID/status in MiB.
double cpu_seconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return 0;
  std::istringstream fields(line.substr(line.rfind(')') + 2));  // after "pid (comm) "
  std::string field;
  double utime = 0;
  double stime = 0;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state
    if (i == 14) utime = std::stod(field);
    if (i == 15) {
      stime = std::stod(field);
      break;
    }
  }
  return (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}
double status_mib(pid_t pid, const std::string& name) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with(name + ":")) return std::stod(line.substr(name.size() + 1)) / 1024.0;
  }
  return 0;
}

// A histogram of the Prometheus text format: its count, sum and cumulative buckets.
struct Histogram {
  double count = 0;
  double sum = 0;
  std::vector<std::pair<double, double>> buckets;  // (le, cumulative count), +Inf last
  // The upper bound of the bucket holding quantile q: what the histogram can say of it.
  double quantile_bound(double q) const {
    for (const auto& [le, cumulative] : buckets) {
      if (cumulative >= q * count) return le;
    }
    return 0;
  }
};
Histogram histogram(const std::string& metrics, const std::string& name) {
  Histogram h;
  std::istringstream lines(metrics);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with(name + "_count ")) h.count = std::stod(line.substr(name.size() + 7));
    if (line.starts_with(name + "_sum ")) h.sum = std::stod(line.substr(name.size() + 5));
    if (line.starts_with(name + "_bucket{le=\"")) {
      const std::size_t open = name.size() + 12;
      const std::size_t close = line.find('"', open);
      const std::string le = line.substr(open, close - open);
      h.buckets.emplace_back(le == "+Inf" ? 1e300 : std::stod(le), std::stod(line.substr(line.rfind(' ') + 1)));
    }
  }
  return h;
}

// A counter or gauge without labels; 0 when absent.
double counter(const std::string& metrics, const std::string& name) {
  const std::size_t at = metrics.find("\n" + name + " ");
  return at == std::string::npos ? 0 : std::stod(metrics.substr(at + name.size() + 2));
}

struct Sample {
  double cpu = 0;
  Clock::time_point at;
};

class Bench {
 public:
  Bench(ControlPlane& plane, const kube::ApiClient& api, const cloud::Catalog& catalog, int replicas)
      : plane_(plane), api_(api), catalog_(catalog), replicas_(replicas) {}

  // One run: scalewright started with `flags`, the Deployment created, every pod Running, scaled to zero, every
  // node gone. False when something did not happen within the limits (10 minutes each way).
  bool run(const std::string& title, const std::string& log_name, const std::vector<std::string>& flags) {
    std::cout << "\n== " << title << " ==\n";
    std::vector<std::string> argv{"--leader-elect=false", "--metrics-bind-address", "127.0.0.1:0"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    std::unique_ptr<Process> scalewright = plane_.start_scalewright(log_name, argv);
    const std::string log_path = plane_.dir() + "/" + log_name + ".log";
    const int port = cluster::testing::ready_port(*scalewright);
    if (port == 0) {
      std::cerr << "scalewright did not become ready; see " << log_path << "\n";
      return false;
    }
    const pid_t pid = scalewright->pid();
    const Sample started{cpu_seconds(pid), Clock::now()};

    // --- scale up ---
    const Sample up{cpu_seconds(pid), Clock::now()};
    if (kube::KubeResult<json> created = api_.create("/apis/apps/v1/namespaces/default/deployments",
                                                     deployment(replicas_));
        !created) {
      std::cerr << "creating the Deployment: " << created.error().describe() << "\n";
      return false;
    }
    std::optional<Clock::time_point> all_created, all_bound, first_claim, last_claim;
    std::size_t claims_seen = 0;
    const bool running = cluster::testing::eventually(
        [&] {
          const Clock::time_point now = Clock::now();
          const std::vector<json> now_claims = nodeclaims(api_);
          if (!now_claims.empty() && !first_claim) first_claim = now;
          if (now_claims.size() != claims_seen) last_claim = now;
          claims_seen = now_claims.size();
          const std::vector<json> listed = pods(api_);
          if (listed.size() != static_cast<std::size_t>(replicas_)) return false;
          if (!all_created) all_created = now;
          const bool bound = std::all_of(listed.begin(), listed.end(), [](const json& p) {
            return !p["spec"].value("nodeName", "").empty();
          });
          if (!bound) return false;
          if (!all_bound) all_bound = now;
          return std::all_of(listed.begin(), listed.end(),
                             [](const json& p) { return p["status"].value("phase", "") == "Running"; });
        },
        std::chrono::minutes(10), std::chrono::milliseconds(500));
    const Sample at_running{cpu_seconds(pid), Clock::now()};
    if (!running) {
      std::cerr << "not every pod ran within 10 minutes; see " << log_path << "\n";
      return false;
    }
    const std::string metrics = cluster::testing::http_get(port, "/metrics");
    report_scale_up(up, at_running, status_mib(pid, "VmHWM"), all_created, first_claim, last_claim, all_bound);
    std::cout << fmt::format("  NodeClaims created {:.0f}, nodes terminated {:.0f} (karpenter_nodeclaims_created_total, "
                             "karpenter_nodes_terminated_total)\n",
                             counter(metrics, "karpenter_nodeclaims_created_total"),
                             counter(metrics, "karpenter_nodes_terminated_total"));
    for (const char* name :
         {"scalewright_pod_to_nodeclaim_seconds", "scalewright_pod_first_pending_to_nodeclaim_seconds"}) {
      report_histogram(name, histogram(metrics, name));
    }
    report_histogram("scalewright_controller_pass_duration_seconds",
                     histogram(metrics, "scalewright_controller_pass_duration_seconds"));
    std::cout << fmt::format("  pods nominated {:.0f} times (scalewright_pods_nominated_total: to a new NodeClaim, or "
                             "again to capacity planned before)\n",
                             counter(metrics, "scalewright_pods_nominated_total"));

    // --- scale down ---
    const Sample down{cpu_seconds(pid), Clock::now()};
    if (kube::KubeResult<json> scaled =
            api_.merge_patch(std::string("/apis/apps/v1/namespaces/default/deployments/") + kApp,
                             {{"spec", {{"replicas", 0}}}});
        !scaled) {
      std::cerr << "scaling to 0: " << scaled.error().describe() << "\n";
      return false;
    }
    std::optional<Clock::time_point> pods_gone;
    const bool gone = cluster::testing::eventually(
        [&] {
          if (!pods_gone && pods(api_).empty()) pods_gone = Clock::now();
          return nodeclaims(api_).empty() && nodes(api_).empty();
        },
        std::chrono::minutes(10), std::chrono::milliseconds(500));
    const Sample at_gone{cpu_seconds(pid), Clock::now()};
    if (!gone) {
      std::cerr << "NodeClaims or Nodes left 10 minutes after the scale to 0; see " << log_path << "\n";
      return false;
    }
    std::cout << fmt::format("scale to 0: every NodeClaim and Node gone {:.1f} s after the scale, consolidateAfter 30 s "
                             "included (pods gone at {:.1f} s); controller CPU {:.2f} s = {:.3f} cores\n",
                             seconds(at_gone.at - down.at), pods_gone ? seconds(*pods_gone - down.at) : -1.0,
                             at_gone.cpu - down.cpu, (at_gone.cpu - down.cpu) / seconds(at_gone.at - down.at));
    const double hwm = status_mib(pid, "VmHWM");
    const double rss = status_mib(pid, "VmRSS");
    std::cout << fmt::format("controller over the run (ready to all gone, {:.1f} s): CPU {:.2f} s = {:.3f} cores "
                             "averaged; peak RSS (VmHWM) {:.1f} MiB, RSS at the end {:.1f} MiB\n",
                             seconds(at_gone.at - started.at), at_gone.cpu - started.cpu,
                             (at_gone.cpu - started.cpu) / seconds(at_gone.at - started.at), hwm, rss);
    const int exit_status = scalewright->stop(SIGTERM);
    if (exit_status != 0) std::cerr << "scalewright exited " << exit_status << "; see " << log_path << "\n";
    std::string out;
    if (!plane_.kubectl(std::string("delete deployment ") + kApp + " --wait=true", out)) {
      std::cerr << "deleting the Deployment: " << out;
      return false;
    }
    return exit_status == 0;
  }

 private:
  void report_scale_up(const Sample& up, const Sample& at_running, double hwm_mib,
                       const std::optional<Clock::time_point>& created,
                       const std::optional<Clock::time_point>& first_claim,
                       const std::optional<Clock::time_point>& last_claim,
                       const std::optional<Clock::time_point>& bound) {
    auto since = [&](const std::optional<Clock::time_point>& at) { return at ? seconds(*at - up.at) : -1.0; };
    const double wall = seconds(at_running.at - up.at);
    std::cout << fmt::format("scale up: {} pods Running and bound {:.1f} s after the Deployment's creation "
                             "(Karpenter's suite: < 120 s)\n",
                             replicas_, wall);
    std::cout << fmt::format("  all {} pods created by {:.1f} s; first NodeClaim seen {:.1f} s, last {:.1f} s; "
                             "every pod bound {:.1f} s\n",
                             replicas_, since(created), since(first_claim), since(last_claim), since(bound));
    std::cout << fmt::format("  controller CPU {:.2f} s over {:.1f} s = {:.3f} cores averaged (Karpenter's suite: "
                             "< 0.5); peak RSS so far {:.1f} MiB\n",
                             at_running.cpu - up.cpu, wall, (at_running.cpu - up.cpu) / wall, hwm_mib);

    // What was launched: by instance type and capacity type, priced from data/aws.
    std::map<std::string, int> launched;
    double per_hour = 0;
    std::int64_t cpu_allocatable = 0;
    std::int64_t memory_allocatable = 0;
    const std::vector<json> claims = nodeclaims(api_);
    for (const json& claim : claims) {
      const json& labels = claim["metadata"].value("labels", json::object());
      const std::string type = labels.value("node.kubernetes.io/instance-type", "");
      const std::string capacity = labels.value("karpenter.sh/capacity-type", "");
      const std::string zone = labels.value("topology.kubernetes.io/zone", "");
      ++launched[type + " " + capacity];
      if (const cloud::InstanceType* instance = catalog_.find(type)) {
        if (auto capacity_type = cloud::parse_capacity_type(capacity)) {
          if (const cloud::Offering* offering = instance->offering(zone, *capacity_type)) {
            per_hour += offering->price_per_hour;
          }
        }
      }
    }
    for (const json& node : nodes(api_)) {
      const json& allocatable = node["status"].value("allocatable", json::object());
      if (auto cpu = Quantity::parse(allocatable.value("cpu", "0"))) cpu_allocatable += cpu->milli_value();
      if (auto memory = Quantity::parse(allocatable.value("memory", "0"))) memory_allocatable += memory->value();
    }
    std::string types;
    for (const auto& [type, count] : launched) types += fmt::format("{}{} × {}", types.empty() ? "" : ", ", count, type);
    std::cout << fmt::format("  {} NodeClaims ({}), ${:.4f}/h\n", claims.size(), types, per_hour);
    const double cpu_requested = 900.0 * replicas_;
    const double memory_requested = 3100.0 * 1024 * 1024 * replicas_;
    if (cpu_allocatable > 0 && memory_allocatable > 0) {
      std::cout << fmt::format("  requests / allocatable of those nodes: cpu {:.1f} %, memory {:.1f} %\n",
                               100.0 * cpu_requested / static_cast<double>(cpu_allocatable),
                               100.0 * memory_requested / static_cast<double>(memory_allocatable));
    }
  }

  // A histogram's count, mean, quantile bounds and its buckets (pods up to each bound).
  static void report_histogram(const std::string& name, const Histogram& h) {
    if (h.count == 0) {
      std::cout << "  " << name << ": no observation\n";
      return;
    }
    auto ms = [](double seconds) { return seconds > 1e299 ? std::string("+Inf") : fmt::format("{:g}", 1000 * seconds); };
    std::string buckets;
    double previous = -1;
    for (const auto& [le, cumulative] : h.buckets) {
      if (cumulative == previous) continue;  // only the bounds where the count grows
      buckets += fmt::format(" {}:{:.0f}", ms(le), cumulative);
      previous = cumulative;
      if (cumulative >= h.count) break;
    }
    std::cout << fmt::format("  {}: count {:.0f}, mean {:.1f} ms; p50 <= {} ms, p99 <= {} ms; cumulative by bound "
                             "(ms):{}\n",
                             name, h.count, 1000.0 * h.sum / h.count, ms(h.quantile_bound(0.5)),
                             ms(h.quantile_bound(0.99)), buckets);
  }

  ControlPlane& plane_;
  const kube::ApiClient& api_;
  const cloud::Catalog& catalog_;
  int replicas_;
};

int run_bench(int argc, char** argv) {
  int replicas = 1000;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--replicas" && i + 1 < argc) {
      replicas = std::atoi(argv[++i]);
    } else if (arg == "--keep") {
      keep = true;
    } else {
      std::cerr << "usage: real_cluster_bench [--replicas N] [--keep]   (--keep: leave the logs in the control plane's directory)\n";
      return 2;
    }
  }
  if (!ControlPlane::available()) {
    std::cerr << cluster::testing::kControlPlane << " is absent: no control plane to run on\n";
    return 1;
  }
  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(cluster::testing::kSource / "data" / "aws");
  if (!catalog) {
    std::cerr << catalog.error().message << "\n";
    return 1;
  }
  ControlPlane plane;
  const auto up_started = Clock::now();
  std::string error = plane.up("scalewright-bench");
  if (error.empty()) error = plane.install_crds();
  if (!error.empty()) {
    std::cerr << error << "\n";
    plane.down();
    return 1;
  }
  std::cout << fmt::format("control plane up in {:.1f} s ({}), CRDs installed\n", seconds(Clock::now() - up_started),
                           plane.dir());
  Result<kube::ApiClient> api = plane.client();
  std::string out;
  bool ok = api.ok() && plane.apply("nodepool.yaml", nodepool(), out);
  if (!ok) std::cerr << "applying the NodePool: " << out << "\n";
  Bench bench(plane, *api, *catalog, replicas);
  ok = ok && bench.run("default batch window (1 s idle, 10 s at most)", "scalewright-batched", {});
  ok = ok && bench.run("no batch window (--batch-idle-duration 0s --batch-max-duration 0s)", "scalewright-unbatched",
                       {"--batch-idle-duration", "0s", "--batch-max-duration", "0s"});
  return plane.finish(ok, keep);
}

}  // namespace
}  // namespace scalewright::bench

int main(int argc, char** argv) { return scalewright::bench::run_bench(argc, argv); }
