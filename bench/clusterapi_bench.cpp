// Issue [14]: `scalewright run --cloud-provider clusterapi` with 100 MachineDeployments on a real control plane
// (../shared/k8s/control-plane, Cluster API v1.14.0's CRDs, deploy/'s CRDs and RBAC): from pending pods to the
// /scale PATCH, and the API requests Cluster API's objects cost per scale-up and per scale-down, for node groups
// (Cluster Autoscaler's model) and for a NodePool whose ClusterAPINodeClass selects the same MachineDeployments.
//
// No Cluster API controller is built here: the end-to-end tests' harness plays the MachineSet and Machine controllers
// and an infrastructure provider (tests/cloud/clusterapi/capi_controllers.h). The requests on cluster.x-k8s.io are
// read from kube-apiserver's own apiserver_request_total (by verb, resource and subresource), less the harness's,
// which its client counts: what is left is the controller's.
//
//   build/bench/clusterapi_bench [--deployments N] [--pods P] [--keep]
//
// Each run: the controller started and left 20 s alone (its requests then are its idle cost), a Deployment of P
// 1-cpu pods applied (2-cpu nodes: P/2 of them, all of the cheapest MachineDeployment), every pod Running, then the
// Deployment scaled to 0 and every Machine gone.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "tests/cloud/clusterapi/capi_controllers.h"
#include "tests/cluster/control_plane_harness.h"
#include "tests/cluster/pending_pods_watch.h"

namespace scalewright::bench {
namespace {

using nlohmann::json;
using cluster::testing::ControlPlane;
using cluster::testing::Process;
using Clock = std::chrono::steady_clock;

constexpr const char* kNamespace = "bench";
constexpr const char* kApp = "capi-web";
constexpr const char* kCapiCrds = SCALEWRIGHT_SOURCE_DIR "/../shared/crds/cluster-api/v1.14.0";

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// (verb, resource, subresource): how kube-apiserver's apiserver_request_total counts a request.
using RequestKey = std::tuple<std::string, std::string, std::string>;
using RequestCounts = std::map<RequestKey, double>;

RequestCounts minus(const RequestCounts& after, const RequestCounts& before) {
  RequestCounts out;
  for (const auto& [key, n] : after) {
    auto was = before.find(key);
    const double delta = n - (was == before.end() ? 0 : was->second);
    if (delta > 0) out[key] = delta;
  }
  return out;
}

double total(const RequestCounts& counts) {
  double sum = 0;
  for (const auto& [key, n] : counts) sum += n;
  return sum;
}

std::string describe(const RequestCounts& counts) {
  std::string out;
  for (const auto& [key, n] : counts) {
    const auto& [verb, resource, subresource] = key;
    out += fmt::format("{}{} {}{} {:.0f}", out.empty() ? "" : ", ", verb, resource,
                       subresource.empty() ? "" : "/" + subresource, n);
  }
  return out.empty() ? "none" : out;
}

// kube-apiserver's apiserver_request_total for group cluster.x-k8s.io, summed over codes and versions.
RequestCounts apiserver_requests(const ControlPlane& plane) {
  RequestCounts out;
  std::string metrics;
  if (!plane.kubectl("get --raw /metrics", metrics)) return out;
  static const std::regex line(R"(^apiserver_request_total\{(.*)\} ([0-9.e+]+)$)");
  static const std::regex label(R"re((\w+)="([^"]*)")re");
  std::istringstream lines(metrics);
  std::string text;
  while (std::getline(lines, text)) {
    std::smatch m;
    if (!std::regex_match(text, m, line)) continue;
    std::map<std::string, std::string> labels;
    const std::string all = m[1];
    for (auto it = std::sregex_iterator(all.begin(), all.end(), label); it != std::sregex_iterator(); ++it) {
      labels[(*it)[1]] = (*it)[2];
    }
    if (labels["group"] != "cluster.x-k8s.io") continue;
    out[{labels["verb"], labels["resource"], labels["subresource"]}] += std::stod(m[2]);
  }
  return out;
}

// The harness's own requests on cluster.x-k8s.io, counted as kube-apiserver counts them (a GET of a collection is a
// LIST), from its client's answers.
class HarnessRequests {
 public:
  net::TransportOptions options() {
    net::TransportOptions options;
    options.on_answer = [this](std::string_view method, std::string_view path, int) { count(method, path); };
    return options;
  }
  RequestCounts counts() const {
    std::lock_guard lock(mutex_);
    return counts_;
  }

 private:
  void count(std::string_view method, std::string_view path) {
    path = path.substr(0, path.find('?'));
    constexpr std::string_view kPrefix = "/apis/cluster.x-k8s.io/";
    if (!path.starts_with(kPrefix)) return;
    std::vector<std::string> parts;
    std::istringstream segments{std::string(path.substr(kPrefix.size()))};
    for (std::string s; std::getline(segments, s, '/');) parts.push_back(s);
    // version [namespaces NS] resource [name [subresource]]
    std::size_t at = 1;
    if (parts.size() > 2 && parts[1] == "namespaces") at = 3;
    if (parts.size() <= at) return;
    const std::string resource = parts[at];
    const bool collection = parts.size() == at + 1;
    const std::string subresource = parts.size() > at + 2 ? parts[at + 2] : "";
    std::string verb(method);
    if (verb == "GET" && collection) verb = "LIST";
    std::lock_guard lock(mutex_);
    counts_[{verb, resource, subresource}] += 1;
  }

  mutable std::mutex mutex_;
  RequestCounts counts_;
};

std::string machine_deployment(int index, double price) {
  const std::string name = fmt::format("md-{:03d}", index);
  return fmt::format(R"(apiVersion: cluster.x-k8s.io/v1beta2
kind: MachineDeployment
metadata:
  name: {0}
  namespace: {1}
  labels: {{karpenter: "yes"}}
  annotations:
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: "0"
    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: "20"
    capacity.cluster-autoscaler.kubernetes.io/cpu: "2"
    capacity.cluster-autoscaler.kubernetes.io/memory: 4Gi
    capacity.cluster-autoscaler.kubernetes.io/labels: node.kubernetes.io/instance-type=type-{0}
    scalewright.dev/price-per-hour: "{2:.3f}"
spec:
  clusterName: bench
  replicas: 0
  selector: {{matchLabels: {{pool: {0}}}}}
  template:
    metadata: {{labels: {{pool: {0}}}}}
    spec:
      clusterName: bench
      bootstrap: {{dataSecretName: ""}}
      infrastructureRef: {{apiGroup: infrastructure.cluster.x-k8s.io, kind: DockerMachineTemplate, name: {0}}}
)",
                     name, kNamespace, price);
}

std::string deployment(int replicas, const std::string& node_selector) {
  return fmt::format(R"(apiVersion: apps/v1
kind: Deployment
metadata: {{name: {0}, namespace: default}}
spec:
  replicas: {1}
  selector: {{matchLabels: {{app: {0}}}}}
  template:
    metadata: {{labels: {{app: {0}}}}}
    spec:
      nodeSelector: {{{2}}}
      terminationGracePeriodSeconds: 0
      containers:
      - name: pause
        image: registry.k8s.io/pause:3.9
        resources: {{requests: {{cpu: "1"}}}}
)",
                     kApp, replicas, node_selector);
}

// When the first MachineDeployment's spec.replicas went above 0, by this process's wall clock, from a watch of its own.
class FirstRaise {
 public:
  explicit FirstRaise(const kube::ApiClient& api)
      : watcher_([this, &api](std::stop_token stop) {
          const std::string path = std::string("/apis/cluster.x-k8s.io/v1beta2/namespaces/") + kNamespace +
                                   "/machinedeployments";
          while (!stop.stop_requested()) {
            api.watch(path, {},
                      [this](std::string_view, json& md) {
                        if (md.value("spec", json::object()).value("replicas", 0) > 0) {
                          std::lock_guard lock(mutex_);
                          if (!at_) at_ = wall_now();
                        }
                        return true;
                      },
                      stop);
            if (!stop.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
          }
        }) {}
  ~FirstRaise() {
    watcher_.request_stop();
    watcher_.join();
  }
  std::optional<double> at() const {
    std::lock_guard lock(mutex_);
    return at_;
  }

 private:
  mutable std::mutex mutex_;
  std::optional<double> at_;
  std::jthread watcher_;
};

class Bench {
 public:
  // `counted`: the harness's client, whose requests are told from the controller's; the bench reads through it too.
  Bench(ControlPlane& plane, const kube::ApiClient& counted, HarnessRequests& harness, int pods)
      : plane_(plane), admin_(counted), harness_(harness), pods_(pods) {}

  // kube-apiserver's count less the harness's, per key, signed: the window's difference of two such is the
  // controller's. The server's count is read between two of the harness's that agree (no harness request answered
  // meanwhile), so that neither side counts a request the other does not yet.
  RequestCounts controller_requests() const {
    RequestCounts out;
    for (int attempt = 0; attempt < 50; ++attempt) {
      const RequestCounts harness = harness_.counts();
      out = apiserver_requests(plane_);
      if (harness_.counts() != harness) continue;
      for (const auto& [key, n] : harness) out[key] -= n;
      return out;
    }
    std::cerr << "the harness never paused for a consistent count\n";
    return out;
  }

  int replicas_total() const {
    auto listed = admin_.list(std::string("/apis/cluster.x-k8s.io/v1beta2/namespaces/") + kNamespace +
                              "/machinedeployments");
    int sum = 0;
    if (listed) {
      for (const json& md : listed->items) sum += md.value("spec", json::object()).value("replicas", 0);
    }
    return sum;
  }
  std::size_t machines() const {
    auto listed = admin_.list(std::string("/apis/cluster.x-k8s.io/v1beta2/namespaces/") + kNamespace + "/machines");
    return listed ? listed->items.size() : 0;
  }
  bool pods_running() const {
    auto listed = admin_.list(std::string("/api/v1/namespaces/default/pods?labelSelector=app%3D") + kApp);
    if (!listed || listed->items.size() != static_cast<std::size_t>(pods_)) return false;
    return std::all_of(listed->items.begin(), listed->items.end(),
                       [](const json& p) { return p.value("status", json::object()).value("phase", "") == "Running"; });
  }

  bool run(const std::string& title, const std::string& log_name, const std::vector<std::string>& flags,
           const std::string& node_selector) {
    std::cout << "\n== " << title << " ==\n";
    std::vector<std::string> argv{"--leader-elect=false", "--metrics-bind-address", "127.0.0.1:0",
                                  "--cloud-provider", "clusterapi"};
    argv.insert(argv.end(), flags.begin(), flags.end());
    const RequestCounts before_start = controller_requests();
    std::unique_ptr<Process> scalewright = plane_.start_scalewright(log_name, argv);
    const std::string log_path = plane_.dir() + "/" + log_name + ".log";
    const int port = cluster::testing::ready_port(*scalewright);
    if (port == 0) {
      std::cerr << "scalewright did not become ready; see " << log_path << "\n";
      return false;
    }
    const RequestCounts at_ready = controller_requests();
    std::cout << fmt::format("start (discovery, the groups and templates read): {:.0f} requests: {}\n",
                             total(minus(at_ready, before_start)), describe(minus(at_ready, before_start)));
    const auto idle_from = Clock::now();
    std::this_thread::sleep_for(std::chrono::seconds(20));
    const RequestCounts idle_end = controller_requests();
    const double idle_seconds = seconds(Clock::now() - idle_from);
    std::cout << fmt::format("idle {:.1f} s: {:.0f} requests ({:.2f}/s): {}\n", idle_seconds,
                             total(minus(idle_end, at_ready)), total(minus(idle_end, at_ready)) / idle_seconds,
                             describe(minus(idle_end, at_ready)));

    // --- scale up ---
    auto api = plane_.client();
    if (!api) return false;
    cluster::testing::PendingPodsWatch pending(*api, "default", std::string("app=") + kApp);
    FirstRaise raise(admin_);
    const RequestCounts up_from = controller_requests();
    const auto up_at = Clock::now();
    const double applied = wall_now();
    std::string out;
    if (!plane_.apply("capi-web.yaml", deployment(pods_, node_selector), out)) {
      std::cerr << "applying the Deployment: " << out;
      return false;
    }
    if (!cluster::testing::eventually([&] { return pods_running(); }, std::chrono::minutes(5),
                                      std::chrono::milliseconds(250))) {
      std::cerr << "not every pod ran within 5 minutes; see " << log_path << "\n";
      return false;
    }
    const double up_wall = seconds(Clock::now() - up_at);
    const RequestCounts up = minus(controller_requests(), up_from);
    const int nodes = replicas_total();
    const std::optional<double> last_pending = pending.last_unschedulable();
    const std::optional<double> raised = raise.at();
    std::cout << fmt::format("scale up: {} pods Running {:.1f} s after the apply, on {} new nodes\n", pods_, up_wall,
                             nodes);
    if (raised) {
      std::cout << fmt::format("  first /scale PATCH seen {:.3f} s after the apply", *raised - applied);
      if (last_pending) {
        std::cout << fmt::format(", {:.3f} s after the last pod was seen unschedulable ({} pods seen so)",
                                 *raised - *last_pending, pending.unschedulable());
      }
      std::cout << "\n";
    }
    std::cout << fmt::format("  requests on cluster.x-k8s.io until every pod ran: {:.0f} ({:.2f} per node): {}\n",
                             total(up), nodes > 0 ? total(up) / nodes : 0.0, describe(up));

    // --- scale down ---
    const RequestCounts down_from = controller_requests();
    const auto down_at = Clock::now();
    if (!plane_.kubectl(std::string("scale deployment ") + kApp + " --replicas 0", out)) {
      std::cerr << "scaling to 0: " << out;
      return false;
    }
    if (!cluster::testing::eventually([&] { return replicas_total() == 0 && machines() == 0; },
                                      std::chrono::minutes(5), std::chrono::milliseconds(250))) {
      std::cerr << "Machines left 5 minutes after the scale to 0; see " << log_path << "\n";
      return false;
    }
    const RequestCounts down = minus(controller_requests(), down_from);
    std::cout << fmt::format("scale down: every Machine gone {:.1f} s after the scale to 0\n",
                             seconds(Clock::now() - down_at));
    std::cout << fmt::format("  requests on cluster.x-k8s.io: {:.0f} ({:.2f} per node): {}\n", total(down),
                             nodes > 0 ? total(down) / nodes : 0.0, describe(down));
    const int exit_status = scalewright->stop(SIGTERM);
    if (exit_status != 0) std::cerr << "scalewright exited " << exit_status << "; see " << log_path << "\n";
    if (!plane_.kubectl(std::string("delete deployment ") + kApp + " --wait=true", out)) return false;
    return exit_status == 0;
  }

 private:
  ControlPlane& plane_;
  const kube::ApiClient& admin_;
  HarnessRequests& harness_;
  int pods_;
};

int run_bench(int argc, char** argv) {
  int deployments = 100;
  int pods = 10;
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--deployments" && i + 1 < argc) {
      deployments = std::atoi(argv[++i]);
    } else if (arg == "--pods" && i + 1 < argc) {
      pods = std::atoi(argv[++i]);
    } else if (arg == "--keep") {
      keep = true;
    } else {
      std::cerr << "usage: clusterapi_bench [--deployments N] [--pods P] [--keep]\n";
      return 2;
    }
  }
  if (!ControlPlane::available()) {
    std::cerr << cluster::testing::kControlPlane << " is absent: no control plane to run on\n";
    return 1;
  }
  ControlPlane plane;
  std::string error = plane.up("scalewright-capi-bench");
  std::string out;
  if (error.empty()) error = plane.install_crds();
  if (error.empty() && (!plane.kubectl(std::string("create -f ") + kCapiCrds, out) ||
                        !plane.kubectl("wait --for condition=established --timeout=60s "
                                       "crd/machinedeployments.cluster.x-k8s.io crd/machines.cluster.x-k8s.io "
                                       "crd/clusterapinodeclasses.karpenter.cluster.x-k8s.io",
                                       out))) {
    error = "installing Cluster API's CRDs: " + out;
  }
  if (error.empty()) error = plane.run_as_service_account();
  if (error.empty() && !plane.kubectl(std::string("create namespace ") + kNamespace, out)) error = out;
  // The cheapest first: md-000 at $0.100/h, each next one $0.001 dearer.
  std::string objects;
  for (int i = 0; i < deployments && error.empty(); ++i) {
    objects += (i == 0 ? "" : "---\n") + machine_deployment(i, 0.1 + 0.001 * i);
  }
  if (error.empty() && !plane.apply("deployments.yaml", objects, out)) error = "the MachineDeployments: " + out;
  if (!error.empty()) {
    std::cerr << error << "\n";
    plane.down();
    return 1;
  }
  HarnessRequests counted;
  Result<kube::ApiClient> harness_api = kube::ApiClient::create(plane.config(), counted.options());
  if (!harness_api) return 1;
  std::cout << fmt::format("{} MachineDeployments (2 cpu, 4 GiB nodes, $0.100-{:.3f}/h), {} pods of 1 cpu\n",
                           deployments, 0.1 + 0.001 * (deployments - 1), pods);
  cloud::clusterapi::testing::CapiControllersOptions options;
  options.namespace_ = kNamespace;
  options.poll_interval = std::chrono::milliseconds(1000);  // fewer of its requests beside the controller's
  cloud::clusterapi::testing::CapiControllers capi(*harness_api, *harness_api, "v1beta2", options);
  capi.start();
  // Its first passes make a MachineSet per MachineDeployment: done before any count. kube-controller-manager's
  // garbage collector then verifies each MachineSet's owner (a GET of each MachineDeployment) once its monitors see
  // the new resources (its discovery every 30 s): left to happen before the first window too.
  capi.wait_for_passes(3, std::chrono::seconds(120));
  std::this_thread::sleep_for(std::chrono::seconds(45));
  Bench bench(plane, *harness_api, counted, pods);
  bool ok = false;
  // Whatever ends a run, the control plane goes down after it: its processes would outlive the bench.
  try {
    ok = bench.run("node groups (Cluster Autoscaler's model, --expander=price)", "scalewright-node-groups",
                   {"--node-group-auto-discovery=clusterapi:namespace=" + std::string(kNamespace),
                    "--expander=price", "--scale-down-unneeded-time=10s", "--scale-down-delay-after-add=0s"},
                   "");
    ok = ok && plane.apply("pool.yaml", R"(apiVersion: karpenter.cluster.x-k8s.io/v1alpha1
kind: ClusterAPINodeClass
metadata: {name: bench}
spec:
    scalableResourceSelector: {matchLabels: {karpenter: "yes"}}
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: bench}
spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.cluster.x-k8s.io, kind: ClusterAPINodeClass, name: bench}
        requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
    disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 10s}
)",
                           out);
    // The MachineDeployments' annotations make them node groups too: the NodePool run finds them in another namespace.
    ok = ok && bench.run("a NodePool over the same MachineDeployments (ClusterAPINodeClass)", "scalewright-nodepool",
                         {"--node-group-auto-discovery=clusterapi:namespace=no-groups-here"},
                         "karpenter.sh/nodepool: bench");
  } catch (const std::exception& e) {
    std::cerr << "the bench failed: " << e.what() << "\n";
    ok = false;
  }
  capi.stop();
  return plane.finish(ok, keep);
}

}  // namespace
}  // namespace scalewright::bench

int main(int argc, char** argv) { return scalewright::bench::run_bench(argc, argv); }
