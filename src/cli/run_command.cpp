#include "cli/run_command.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <random>
#include <nlohmann/json.hpp>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <thread>

#include "api/timestamp.h"
#include "cli/cluster_connection.h"
#include "cli/data_dir.h"
#include "cloud/aws/instance_types.h"
#include "cloud/catalog.h"
#include "cloud/kwok/kwok_provider.h"
#include "cli/cloud_providers.h"
#include "cluster/dry_run_cloud.h"
#include "cluster/metered_cloud.h"
#include "cluster/runtime.h"
#include "controllers/cluster_autoscaler_controller.h"
#include "kube/api_client.h"
#include "kube/event_sink.h"
#include "kube/kubeconfig.h"
#include "kube/leader_election.h"
#include "manifest/scenario_decoder.h"
#include "net/http_transport.h"
#include "cloud/aws/auto_scaling_groups.h"
#include "config/cluster_autoscaler_flags.h"
#include "config/feature_gates.h"
#include "config/priority_expander.h"
#include "ops/metrics.h"
#include "ops/ops_server.h"
#include "ops/process_metrics.h"

namespace scalewright::cli {
namespace {

// One JSON object per line: time, level, logger and message, as log collectors read them.
class JsonLogFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const nlohmann::json line = {
        {"time", format_micro_time(std::chrono::time_point_cast<std::chrono::system_clock::duration>(msg.time))},
        {"level", std::string(spdlog::level::to_string_view(msg.level).data(),
                              spdlog::level::to_string_view(msg.level).size())},
        {"logger", std::string(msg.logger_name.data(), msg.logger_name.size())},
        {"message", std::string(msg.payload.data(), msg.payload.size())}};
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override { return std::make_unique<JsonLogFormatter>(); }
};

void configure_logging(const RunOptions& options) {
  auto logger = std::make_shared<spdlog::logger>("scalewright", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  if (options.log_format == "json") {
    logger->set_formatter(std::make_unique<JsonLogFormatter>());
  } else {
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%eZ %^%l%$ %v", spdlog::pattern_time_type::utc);
  }
  logger->set_level(spdlog::level::from_str(options.log_level));
  logger->flush_on(spdlog::level::info);
  spdlog::set_default_logger(logger);
}

std::string pod_namespace() {
  std::ifstream file("/var/run/secrets/kubernetes.io/serviceaccount/namespace");
  std::string namespace_;
  if (file && std::getline(file, namespace_) && !namespace_.empty()) return namespace_;
  return "default";
}

// The metrics, named as Karpenter's and Cluster Autoscaler's where they mean the same.
void register_metrics(ops::MetricsRegistry& registry, const cluster::ClusterRuntime& runtime,
                      const kube::EventSink& events, const std::atomic<bool>& leading) {
  ops::register_process_metrics(registry);
  const cluster::RuntimeCounters& counters = runtime.counters();
  const cluster::KubernetesWriter::Counts& writes = runtime.writer().counts();
  auto read = [](const auto& value) { return [&value] { return static_cast<double>(value.load()); }; };
  registry.counter_function("karpenter_nodeclaims_created_total", "Number of nodeclaims created in total.",
                            read(writes.nodeclaims_created));
  registry.counter_function("karpenter_nodes_terminated_total", "Number of nodes terminated in total.",
                            read(writes.nodes_deleted));
  registry.counter_function("karpenter_nodes_eviction_requests_total", "The number of eviction requests.",
                            read(writes.evictions));
  registry.counter_function("scalewright_pods_nominated_total",
                            "Pods nominated to capacity planned for them (a NodeClaim in flight, or a node with room).",
                            read(writes.pods_nominated));
  registry.gauge_function("karpenter_cluster_state_node_count", "Current count of nodes in cluster state.",
                          read(counters.nodes));
  registry.gauge_function("karpenter_cluster_state_synced",
                          "Returns 1 if cluster state is synced and 0 otherwise.",
                          [&runtime] { return runtime.synced() ? 1.0 : 0.0; });
  registry.gauge_function("cluster_autoscaler_unschedulable_pods_count",
                          "Number of unschedulable pods in the cluster.", read(counters.pending_pods));
  registry.gauge_function("scalewright_leader", "1 while this replica leads and acts, else 0.",
                          [&leading] { return leading.load() ? 1.0 : 0.0; });
  registry.counter_function("scalewright_informer_deliveries_total",
                            "Objects and list boundaries delivered by the informers.", read(counters.deliveries));
  registry.counter_function("scalewright_objects_unreadable_total",
                            "Objects left out of the cluster state because they could not be read.",
                            read(counters.unreadable_objects));
  registry.counter_function("scalewright_api_errors_total", "Kubernetes API requests of the controllers that failed.",
                            read(writes.api_errors));
  registry.counter_function("scalewright_events_dropped_total",
                            "Events not written because the API server could not keep up.",
                            [&events] { return static_cast<double>(events.dropped()); });
}

// Every answer of the API server counted as client-go counts them; a refusal by RBAC logged as an error, since
// it means the role the controller runs under lacks a rule it needs (deploy/helm/scalewright/files).
net::TransportOptions observed_requests(ops::MetricsRegistry& registry) {
  ops::CounterFamily& requests = registry.counter(
      "rest_client_requests_total", "Number of HTTP requests, partitioned by status code and method.",
      {"code", "method"});
  net::TransportOptions options;
  options.on_answer = [&requests](std::string_view method, std::string_view path, int status) {
    requests.with({status == 0 ? "<error>" : std::to_string(status), std::string(method)}).inc();
    if (status == 403) spdlog::error("forbidden: {} {}: the controller's RBAC role does not allow it", method, path);
  };
  return options;
}

// Cluster Autoscaler's flags and the groups they name.
struct ClusterAutoscalerConfig {
  nodegroups::AutoscalerOptions flags;
  std::vector<nodegroups::NodeGroup> groups;
};

// Cluster Autoscaler's flags, read before anything connects, as the provider's CA takes them; nullopt when no flag
// of CA's was given, unless the provider finds its groups without one (Cluster API's annotations).
Result<std::optional<nodegroups::AutoscalerOptions>> read_cluster_autoscaler_flags(
    const RunOptions& options, const cloud::ProviderRegistration& provider) {
  if (options.cluster_autoscaler_flags.empty() && options.auto_scaling_groups.empty() &&
      !provider.node_groups_without_flags) {
    return std::optional<nodegroups::AutoscalerOptions>();
  }
  Result<nodegroups::AutoscalerOptions> flags = config::parse_autoscaler_flags(options.cluster_autoscaler_flags);
  if (!flags) {
    // What scalewright run did not know went to CA's parser: say that it is neither's.
    const std::string& message = flags.error().message;
    if (message.starts_with("unknown flag")) {
      return Error{message + " (not a flag of scalewright run nor of Cluster Autoscaler)"};
    }
    return Error{"Cluster Autoscaler's " + message};
  }
  if (flags->nodes.empty() && flags->auto_discovery.empty() && !provider.node_groups_without_flags) {
    return Error{"no node group to scale: Cluster Autoscaler's flags need --nodes=MIN:MAX:NAME or "
                 "--node-group-auto-discovery"};
  }
  std::random_device seed;
  flags->random_seed = (std::uint64_t{seed()} << 32) | seed();
  if (provider.adopt_autoscaler_options) {
    if (std::optional<Error> refused = provider.adopt_autoscaler_options(*flags)) {
      return Error{"Cluster Autoscaler's " + refused->message};
    }
  }
  return std::optional<nodegroups::AutoscalerOptions>(std::move(*flags));
}

// The groups kwok plays for CA's flags, read before anything connects: kwok plays them as AWS's Auto Scaling groups
// (their tags read as CA's AWS provider reads them). A group no file defines and no instance type names fails here.
Result<std::vector<nodegroups::NodeGroup>> played_node_groups(const RunOptions& options,
                                                              const nodegroups::AutoscalerOptions& flags,
                                                              const cloud::Catalog& catalog) {
  std::vector<CloudNodeGroup> defined;
  if (!options.auto_scaling_groups.empty()) {
    Result<std::vector<CloudNodeGroup>> loaded = manifest::load_auto_scaling_groups(options.auto_scaling_groups);
    if (!loaded) return Error{"--auto-scaling-groups: " + loaded.error().message};
    defined = std::move(*loaded);
  }
  std::vector<CloudNodeGroup> defined_and_named =
      cloud::kwok_auto_scaling_groups(flags.nodes, std::move(defined), catalog);
  Result<std::vector<nodegroups::NodeGroup>> groups =
      cloud::aws::discover_node_groups(defined_and_named, flags, catalog);
  if (!groups) {
    if (!options.auto_scaling_groups.empty()) {
      return Error{"--auto-scaling-groups " + options.auto_scaling_groups + ": " + groups.error().message};
    }
    return Error{groups.error().message +
                 " (name an instance type, or define the group in a file given with --auto-scaling-groups)"};
  }
  return std::move(*groups);
}

// CA's loop over those groups, with the priority expander's priorities from the cluster (a ConfigMap of CA's
// namespace) when that expander is asked for.
Result<controllers::ClusterAutoscalerLoop> cluster_autoscaler_loop(ClusterAutoscalerConfig config,
                                                                   const kube::ApiClient& client) {
  std::optional<std::string> priorities;
  const std::vector<std::string>& expanders = config.flags.expanders;
  if (std::find(expanders.begin(), expanders.end(), "priority") != expanders.end()) {
    kube::KubeResult<nlohmann::json> found =
        client.get("/api/v1/namespaces/kube-system/configmaps/cluster-autoscaler-priority-expander");
    if (found) {
      const nlohmann::json data = found->value("data", nlohmann::json::object());
      if (data.contains("priorities") && data["priorities"].is_string()) priorities = data["priorities"];
    } else if (!found.error().is_not_found()) {
      return Error{"ConfigMap kube-system/cluster-autoscaler-priority-expander: " + found.error().describe()};
    }
  }
  const std::string flags_origin = "Cluster Autoscaler's flags";
  Result<std::optional<nodegroups::PriorityConfig>> priority_config =
      config::priority_expander_config(config.flags.expanders, priorities);
  if (!priority_config) return Error{flags_origin + ": " + priority_config.error().message};
  return controllers::ClusterAutoscalerLoop::create(std::move(config.flags), std::move(config.groups),
                                                    std::move(*priority_config), flags_origin);
}

}  // namespace

int run_controller(const RunOptions& options, std::ostream& err) {
  // SIGTERM and SIGINT are taken by one thread that asks everything to stop; every other thread is created with
  // them blocked.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  // A connection the API server closed must be an error of that request, not the end of the process.
  ::signal(SIGPIPE, SIG_IGN);

  configure_logging(options);
  const cloud::ProviderRegistration* registration = cloud_providers().find(options.cloud_provider);
  if (registration == nullptr) {
    std::string known;
    for (const std::string& name : cloud_providers().names()) known += (known.empty() ? "" : ", ") + name;
    err << "error: --cloud-provider: " << options.cloud_provider << " is not supported (" << known << " are)\n";
    return 1;
  }
  Result<Duration> batch_idle = parse_duration(options.batch_idle_duration);
  Result<Duration> batch_max = parse_duration(options.batch_max_duration);
  for (const auto& [flag, value] : {std::pair{"--batch-idle-duration", &batch_idle},
                                    std::pair{"--batch-max-duration", &batch_max}}) {
    if (!*value) {
      err << "error: " << flag << ": " << value->error().message << "\n";
      return 1;
    }
  }
  Result<FeatureGates> feature_gates = config::parse_feature_gates(options.feature_gates);
  if (!feature_gates) {
    err << "error: --feature-gates: " << feature_gates.error().message << "\n";
    return 1;
  }
  Result<std::filesystem::path> data_dir = find_data_dir(options.data_dir);
  if (!data_dir) {
    err << "error: " << data_dir.error().message << "\n";
    return 1;
  }
  cloud::aws::CatalogOptions catalog_options;
  catalog_options.region = options.region;
  Result<cloud::Catalog> catalog = cloud::aws::load_catalog(*data_dir, catalog_options);
  if (!catalog) {
    err << "error: --region " << options.region << ": " << catalog.error().message << "\n";
    return 1;
  }
  Result<std::optional<nodegroups::AutoscalerOptions>> ca_flags = read_cluster_autoscaler_flags(options, *registration);
  if (!ca_flags) {
    err << "error: " << ca_flags.error().message << "\n";
    return 1;
  }
  // A provider that plays node groups (kwok) is given them; one with groups of its own finds them once made.
  std::optional<ClusterAutoscalerConfig> ca_config;
  if (*ca_flags && registration->plays_node_groups) {
    Result<std::vector<nodegroups::NodeGroup>> groups = played_node_groups(options, **ca_flags, *catalog);
    if (!groups) {
      err << "error: " << groups.error().message << "\n";
      return 1;
    }
    ca_config = ClusterAutoscalerConfig{**ca_flags, std::move(*groups)};
  } else if (*ca_flags && !options.auto_scaling_groups.empty()) {
    err << "error: --auto-scaling-groups defines the groups kwok plays; provider " << registration->name
        << " reads its own\n";
    return 1;
  }
  ops::MetricsRegistry registry;
  Result<kube::ApiClient> client = connect(options.kubeconfig, options.context, observed_requests(registry));
  if (!client) {
    err << "error: " << client.error().message << "\n";
    return 1;
  }
  std::optional<controllers::ClusterAutoscalerLoop> node_groups;
  if (ca_config) {
    Result<controllers::ClusterAutoscalerLoop> loop =
        cluster_autoscaler_loop(std::move(*ca_config), *client);
    if (!loop) {
      err << "error: " << loop.error().message << "\n";
      return 1;
    }
    node_groups.emplace(std::move(*loop));
  }

  const std::string identity = kube::default_identity();
  std::vector<cloud::PlayedGroupSpec> played_groups;
  if (node_groups) {
    for (const nodegroups::NodeGroup& group : node_groups->groups()) {
      played_groups.push_back(controllers::played_group(group));
    }
  }
  // What the cloud says of its instances (the AWS interruption queue), kept until the runtime takes them.
  cluster::InstanceNoticeInbox notices;
  // The node classes the provider re-resolved to something else, kept until the runtime takes them.
  cluster::NodeClassChangeInbox node_class_changes;
  cloud::ProviderContext provider_context{*client, std::move(*catalog), options.provider_flags, registry,
                                          std::move(played_groups)};
  provider_context.notices = notices.sender();
  provider_context.node_class_changes = node_class_changes.sender();
  if (*ca_flags) provider_context.cluster_autoscaler = &**ca_flags;
  provider_context.data_dir = *data_dir;
  provider_context.connect = [&registry](const std::string& kubeconfig) {
    return connect(kubeconfig, "", observed_requests(registry));
  };
  Result<std::unique_ptr<cloud::RunningProvider>> provider = registration->make(provider_context);
  if (!provider) {
    err << "error: " << provider.error().message << "\n";
    return 1;
  }
  if (*ca_flags && !registration->plays_node_groups) {
    // The groups as the cloud has them (an Auto Scaling group's bounds, instance type and tags; a Cluster API
    // object's annotations), read as that cloud's CA reads them.
    Result<std::vector<nodegroups::NodeGroup>> groups =
        (*provider)->node_groups_found(**ca_flags).value_or(std::vector<nodegroups::NodeGroup>{});
    if (!groups) {
      err << "error: " << groups.error().message << "\n";
      return 1;
    }
    Result<controllers::ClusterAutoscalerLoop> loop =
        cluster_autoscaler_loop(ClusterAutoscalerConfig{**ca_flags, std::move(*groups)}, *client);
    if (!loop) {
      err << "error: " << loop.error().message << "\n";
      return 1;
    }
    node_groups.emplace(std::move(*loop));
  }
  // Every call of the port measured; under --dry-run, the measured provider is only read.
  cluster::MeteredCloud metered_cloud((*provider)->cloud(), (*provider)->node_groups(), registration->name, registry);
  cluster::DryRunCloud dry_run_cloud(metered_cloud, metered_cloud);
  cloud::CloudProvider& cloud =
      options.dry_run ? static_cast<cloud::CloudProvider&>(dry_run_cloud) : metered_cloud;
  cloud::NodeGroupProvider& cloud_node_groups =
      options.dry_run ? static_cast<cloud::NodeGroupProvider&>(dry_run_cloud) : metered_cloud;
  kube::EventSink events(*client, "scalewright", identity);
  ops::Histogram& pass_seconds =
      registry
          .histogram("scalewright_controller_pass_duration_seconds",
                     "How long one pass of the controllers took (observations applied, decisions made and carried out).",
                     {}, ops::exponential_buckets(0.0001, 4, 10))
          .with();
  ops::Histogram& pod_to_nodeclaim_seconds =
      registry
          .histogram("scalewright_pod_to_nodeclaim_seconds",
                     "From the moment a pending pod needs capacity (the watch shows it Unschedulable, or the node "
                     "it was planned onto came up without it) to the sending of the create call of the NodeClaim "
                     "launched for it, batch window included.",
                     {}, ops::exponential_buckets(0.001, 2, 16))
          .with();
  ops::Histogram& first_pending_to_nodeclaim_seconds =
      registry
          .histogram("scalewright_pod_first_pending_to_nodeclaim_seconds",
                     "From a pending pod's first arrival as Unschedulable to the create call of the NodeClaim "
                     "launched for it, the time it waited on capacity planned before included.",
                     {}, ops::exponential_buckets(0.001, 2, 16))
          .with();
  cluster::RuntimeOptions runtime_options;
  runtime_options.observe_pod_to_nodeclaim_seconds = [&](double since_needed, double since_arrival) {
    pod_to_nodeclaim_seconds.observe(since_needed);
    first_pending_to_nodeclaim_seconds.observe(since_arrival);
  };
  runtime_options.batch_window = {*batch_idle, *batch_max};
  runtime_options.dry_run = options.dry_run;
  runtime_options.feature_gates = *feature_gates;
  runtime_options.observe_pass_seconds = [&pass_seconds](double seconds) { pass_seconds.observe(seconds); };
  std::stop_source stop;
  std::atomic<bool> provider_failed{false};
  if (!options.dry_run) {
    // The provider runs only while this replica leads: a standby renews no Lease and starts no pod.
    runtime_options.on_start_acting = [&provider, &stop, &provider_failed] {
      if (std::optional<Error> failed = (*provider)->start(stop.get_token())) {
        if (stop.stop_requested()) return;  // asked to stop while the API server was away: not a failure
        spdlog::error("{}", failed->message);
        provider_failed = true;
        stop.request_stop();
      }
    };
  }
  cluster::ClusterRuntime runtime(*client, cloud, cloud_node_groups, events, runtime_options);
  runtime.take_notices_from(notices);
  runtime.take_node_class_changes_from(node_class_changes);
  if (node_groups) runtime.run_node_groups(std::move(*node_groups));
  std::atomic<bool> leading{!options.leader_elect};
  register_metrics(registry, runtime, events, leading);
  // Alive while the loop turns (it passes at least once a second); ready once the state has synced.
  ops::OpsServer ops_server(
      registry,
      [&runtime] {
        const auto last = std::chrono::steady_clock::time_point(
            std::chrono::steady_clock::duration(runtime.counters().last_pass_steady_ns.load()));
        if (runtime.counters().passes == 0 || std::chrono::steady_clock::now() - last < std::chrono::seconds(30)) {
          return ops::ProbeResult::healthy();
        }
        return ops::ProbeResult::failing("the controller loop has not turned for 30 s");
      },
      [&runtime] {
        return runtime.synced() ? ops::ProbeResult::healthy()
                                : ops::ProbeResult::failing("the cluster state has not synced yet");
      });
  if (options.metrics_bind_address != "0") {
    Result<int> port = ops_server.start(options.metrics_bind_address);
    if (!port) {
      err << "error: --metrics-bind-address: " << port.error().message << "\n";
      return 1;
    }
    spdlog::info("serving /metrics, /healthz and /readyz on port {}", *port);
  }
  runtime.start_informers();

  std::atomic<bool> signalled{false};
  std::jthread signals([&stop, &signalled, stop_signals] {
    int signal = 0;
    sigwait(&stop_signals, &signal);
    if (stop.stop_requested()) return;  // woken at the end of a run that stopped for another reason
    signalled = true;
    spdlog::info("signal {}: stopping", signal == SIGTERM ? "SIGTERM" : "SIGINT");
    stop.request_stop();
  });

  std::jthread elector_thread;
  if (options.leader_elect) {
    kube::LeaderElectionConfig election;
    election.lease_namespace =
        options.leader_election_namespace.empty() ? pod_namespace() : options.leader_election_namespace;
    election.lease_name = options.leader_election_id;
    election.identity = identity;
    Result<kube::LeaderElector> elector = kube::LeaderElector::create(*client, election);
    if (!elector) {
      err << "error: leader election: " << elector.error().message << "\n";
      return 1;
    }
    elector_thread = std::jthread([&, elector = std::move(*elector)]() mutable {
      elector.run([&] { return stop.stop_requested(); },
                  [&] {
                    spdlog::info("leader election: {} leads", identity);
                    leading = true;
                  },
                  [&] {
                    spdlog::info("leader election: {} no longer leads", identity);
                    leading = false;
                  });
    });
  }
  spdlog::info("scalewright {} started as {} (dry run: {})", "0.1.0", identity, options.dry_run);
  runtime.run(stop.get_token(), [&] { return leading.load(); });
  const bool lost = !stop.stop_requested();
  stop.request_stop();
  if (!signalled) pthread_kill(signals.native_handle(), SIGTERM);  // the signal thread's sigwait returns
  if (elector_thread.joinable()) elector_thread.join();  // releases the Lease
  events.flush();
  (*provider)->stop();
  spdlog::info("stopped{}", lost ? ": leadership lost" : provider_failed ? ": the provider failed" : "");
  return lost || provider_failed ? 1 : 0;
}

}  // namespace scalewright::cli
