#include "cli/snapshot_command.h"

#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "api/duration.h"
#include "cli/cluster_connection.h"
#include "cli/data_dir.h"
#include "cloud/aws/instance_types.h"
#include "cli/simulate_command.h"
#include "cli/snapshot_writer.h"
#include "kube/api_client.h"
#include "manifest/priority.h"
#include "net/http_transport.h"

namespace scalewright::cli {
namespace {

using nlohmann::json;

// What is listed, in the order the writer needs it: PriorityClasses before what names them, workloads before the
// autoscalers that scale them. Nodes and NodePools are listed first of all, apart (the region comes from the nodes).
struct Listed {
  std::string_view path;
  std::string_view api_version;
  std::string_view kind;
  bool optional = false;                 // 404: the API (a CRD, an API version) is not served, and the cluster has none
  std::string_view absent_warning = "";  // said when an optional API is not served though clusters usually have it
};
constexpr Listed kNodes{"/api/v1/nodes", "v1", "Node"};
constexpr Listed kNodePools{"/apis/karpenter.sh/v1/nodepools", "karpenter.sh/v1", "NodePool", true};
constexpr Listed kListed[] = {
    {"/api/v1/namespaces", "v1", "Namespace"},
    {"/apis/scheduling.k8s.io/v1/priorityclasses", "scheduling.k8s.io/v1", "PriorityClass"},
    {"/apis/apps/v1/deployments", "apps/v1", "Deployment"},
    {"/apis/apps/v1/replicasets", "apps/v1", "ReplicaSet"},
    {"/apis/apps/v1/statefulsets", "apps/v1", "StatefulSet"},
    {"/apis/apps/v1/daemonsets", "apps/v1", "DaemonSet"},
    {"/apis/batch/v1/jobs", "batch/v1", "Job"},
    {"/api/v1/pods", "v1", "Pod"},
    {"/apis/policy/v1/poddisruptionbudgets", "policy/v1", "PodDisruptionBudget"},
    {"/apis/keda.sh/v1alpha1/scaledobjects", "keda.sh/v1alpha1", "ScaledObject", true},
    // The node classes the NodePools name, where Karpenter's AWS provider runs: without them they launch nothing.
    {"/apis/karpenter.k8s.aws/v1/ec2nodeclasses", "karpenter.k8s.aws/v1", "EC2NodeClass", true},
    {"/apis/autoscaling/v2/horizontalpodautoscalers", "autoscaling/v2", "HorizontalPodAutoscaler", true,
     "autoscaling/v2 is not served (Kubernetes before 1.23): HorizontalPodAutoscalers left out"},
};
// The one ConfigMap the simulator reads: Cluster Autoscaler's priority expander's, from CA's namespace.
constexpr std::string_view kPriorityExpander =
    "/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-priority-expander";
// Items per page: a list of 150,000 pods is never held whole, and each page is a small answer for the server.
constexpr int kPageSize = 500;
constexpr std::string_view kDefaultRegion = "us-east-1";
constexpr std::string_view kRegionLabel = "topology.kubernetes.io/region";

// Hands every item of `listed` to `each`, page by page. A 404 of an optional API lists nothing (with its warning).
std::optional<Error> list_all(const kube::ApiClient& api, const Listed& listed,
                              const std::function<void(json& item)>& each, std::ostream& err) {
  kube::ListOptions options;
  options.limit = kPageSize;
  kube::KubeResult<std::string> listed_to =
      api.list_pages(std::string(listed.path), options, [&](kube::ListPage& page) {
        for (json& item : page.items) each(item);
        return true;
      });
  if (listed_to) return std::nullopt;
  if (listed.optional && listed_to.error().is_not_found()) {
    if (!listed.absent_warning.empty()) err << "warning: " << listed.absent_warning << "\n";
    return std::nullopt;
  }
  return Error{"listing " + std::string(listed.kind) + "s: " + listed_to.error().describe()};
}

// The region most nodes name (the first by name among equals); none: us-east-1.
std::string region_of(const std::vector<json>& nodes) {
  std::map<std::string, int> count;
  for (const json& node : nodes) {
    const json labels = node.value("metadata", json::object()).value("labels", json::object());
    if (auto region = labels.find(kRegionLabel); region != labels.end() && region->is_string()) ++count[*region];
  }
  std::string region(kDefaultRegion);
  int most = 0;
  for (const auto& [name, n] : count) {
    if (n > most) region = name, most = n;
  }
  return region;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// "3 Nodes, 1 NodePool, 12 Pods": in the order written.
std::string counts_text(const std::map<std::string, std::size_t, std::less<>>& written) {
  std::string text;
  for (std::string_view kind : kSnapshotKinds) {
    auto n = written.find(kind);
    if (n == written.end()) continue;
    text +=
        (text.empty() ? "" : ", ") + std::to_string(n->second) + " " + std::string(kind) + (n->second == 1 ? "" : "s");
  }
  return text.empty() ? "no objects" : text;
}

std::vector<std::string> header(const net::HttpEndpoint& server, const SnapshotWriter& writer,
                                const std::string& output) {
  std::vector<std::string> lines{"Snapshot of the cluster at " + server.base_url + " (" + server.source + "), taken " +
                                     utc_now() + " by `scalewright snapshot`.",
                                 "Written: " + counts_text(writer.written()) + "."};
  for (const auto& [what, n] : writer.omitted()) lines.push_back("Left out: " + what + ": " + std::to_string(n) + ".");
  if (!writer.warnings().empty()) {
    lines.push_back("Warnings when it was taken: " + std::to_string(writer.warnings().size()) +
                    " (objects left out that the simulator cannot read or that name one left out; nodes not Ready).");
  }
  lines.push_back("Nodes no NodePool launched are static: they stay, billed at their instance type's price.");
  lines.push_back("Run it: scalewright simulate " + (output.empty() || output == "-" ? std::string("FILE") : output));
  return lines;
}

// The snapshot loaded as `simulate` loads a file and checked as it checks one: what this command writes must run.
std::optional<std::string> load_problem(const std::string& text, const SnapshotOptions& options) {
  Result<ManifestSet> reread = decode_manifests(text, "snapshot");
  if (!reread) return reread.error().message;
  if (std::optional<Error> priority = manifest::resolve_pod_priorities(*reread)) return priority->message;
  std::ostringstream notes;
  if (prepare_run(std::move(*reread), options.name, options.data_dir, notes)) return std::nullopt;
  std::istringstream lines(notes.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("error: ")) return line.substr(7);
  }
  return notes.str();
}

}  // namespace

int run_snapshot(const SnapshotOptions& options, std::ostream& out, std::ostream& err) {
  if (Result<Duration> duration = parse_duration(options.duration); !duration || duration->count() <= 0) {
    err << "error: --duration " << options.duration << ": "
        << (duration ? std::string("must be positive") : duration.error().message) << "\n";
    return 2;
  }
  Result<kube::ApiClient> client = connect(options.kubeconfig, options.context);
  if (!client) {
    err << "error: " << client.error().message << "\n";
    return 1;
  }
  Result<std::filesystem::path> data_dir = find_data_dir(options.data_dir);
  if (!data_dir) {
    err << "error: " << data_dir.error().message << "\n";
    return 1;
  }

  std::vector<json> nodes;
  if (std::optional<Error> failed = list_all(
          *client, kNodes, [&](json& node) { nodes.push_back(std::move(node)); }, err)) {
    err << "error: " << failed->message << "\n";
    return 1;
  }
  SnapshotScenario scenario{options.name, options.duration, region_of(nodes)};
  if (std::optional<Error> unknown = cloud::aws::check_region(*data_dir, scenario.region)) {
    err << "warning: the nodes' region " << scenario.region << " is not in the instance-type data (" << unknown->message
        << "): the scenario runs in " << kDefaultRegion << "\n";
    scenario.region = kDefaultRegion;
  }
  cloud::aws::CatalogOptions catalog_options;
  catalog_options.region = scenario.region;
  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(*data_dir, catalog_options);
  if (!catalog) {
    err << "error: region " << scenario.region << ": " << catalog.error().message << "\n";
    return 1;
  }

  SnapshotWriter writer(&*catalog);
  auto add = [&writer](const Listed& listed) {
    return [&writer, &listed](json& item) { writer.add(listed.api_version, listed.kind, std::move(item)); };
  };
  if (std::optional<Error> failed = list_all(*client, kNodePools, add(kNodePools), err)) {
    err << "error: " << failed->message << "\n";
    return 1;
  }
  for (json& node : nodes) writer.add(kNodes.api_version, kNodes.kind, std::move(node));
  nodes.clear();
  if (kube::KubeResult<json> config_map = client->get(std::string(kPriorityExpander)); config_map) {
    writer.add("v1", "ConfigMap", std::move(*config_map));
  } else if (!config_map.error().is_not_found()) {
    err << "error: reading the ConfigMap kube-system/cluster-autoscaler-priority-expander: "
        << config_map.error().describe() << "\n";
    return 1;
  }
  for (const Listed& listed : kListed) {
    if (std::optional<Error> failed = list_all(*client, listed, add(listed), err)) {
      err << "error: " << failed->message << "\n";
      return 1;
    }
  }

  const std::string text = writer.finish(header(client->transport().endpoint(), writer, options.output), scenario);
  for (const std::string& warning : writer.warnings()) err << "warning: " << warning << "\n";
  if (std::optional<std::string> problem = load_problem(text, options)) {
    err << "error: the snapshot does not load as `scalewright simulate` loads it (a bug in snapshot; please report "
           "it): "
        << *problem << "\n";
    return 1;
  }
  if (options.output.empty() || options.output == "-") {
    out << text;
    return 0;
  }
  std::ofstream file(options.output, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) {
    err << "error: cannot write " << options.output << "\n";
    return 1;
  }
  err << "wrote " << options.output << ": " << counts_text(writer.written()) << " (scenario " << scenario.name
      << ", region " << scenario.region << ", " << scenario.duration << "); run it with: scalewright simulate "
      << options.output << "\n";
  return 0;
}

}  // namespace scalewright::cli
