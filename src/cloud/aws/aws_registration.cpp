#include "cloud/aws/aws_registration.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <set>
#include <thread>

#include "cloud/aws/account_catalog.h"
#include "cloud/aws/asg_node_groups.h"
#include "cloud/aws/auto_scaling_api.h"
#include "cloud/aws/aws_environment.h"
#include "cloud/aws/credentials.h"
#include "cloud/aws/ec2_provider.h"
#include "cloud/aws/ec2nodeclass_controller.h"
#include "cloud/aws/eks_cluster.h"
#include "cloud/aws/endpoints.h"
#include "cloud/aws/instance_types.h"
#include "cloud/aws/interruption.h"
#include "cloud/aws/shared_config.h"
#include "kube/event_sink.h"
#include "manifest/meta_decoder.h"
#include "net/retry.h"
#include "nodegroups/options.h"
#include "ops/metrics.h"

namespace scalewright::cloud::aws {
namespace {

constexpr std::string_view kClusterName = "--cluster-name";
constexpr std::string_view kClusterEndpoint = "--cluster-endpoint";
constexpr std::string_view kClusterCaBundle = "--cluster-ca-bundle";
constexpr std::string_view kServiceCidr = "--cluster-service-cidr";
constexpr std::string_view kInterruptionQueue = "--interruption-queue";

// "1.26" from the API server's /version (gitVersion "v1.26.1", or major and minor): the AMI aliases' version.
Result<std::string> kubernetes_version(const kube::ApiClient& client) {
  kube::KubeResult<nlohmann::json> version = client.get("/version");
  if (!version) return Error{"reading the API server's version: " + version.error().describe()};
  std::string major = version->value("major", "");
  std::string minor = version->value("minor", "");
  while (!minor.empty() && !std::isdigit(static_cast<unsigned char>(minor.back()))) minor.pop_back();  // "26+"
  if (major.empty() || minor.empty()) return Error{"the API server's /version names no major and minor version"};
  return major + "." + minor;
}

// How often the catalog is read from the account again (Karpenter's instance type and pricing controllers: 12 h).
constexpr std::chrono::hours kCatalogRefresh{12};

// Reads the region's catalog from the account, each source data/aws/'s where its call is denied or fails, and says
// where each part came from.
Result<Catalog> read_catalog(const AwsClient& ec2, const AwsClient* pricing, const std::filesystem::path& data_dir,
                             const std::string& region) {
  CatalogOptions options;
  options.region = region;
  CatalogSources sources;
  Result<Catalog> catalog = catalog_from_account(ec2, pricing, data_dir, options, &sources);
  if (!catalog) return Error{"the account's catalog: " + catalog.error().message};
  for (const CatalogSource* source :
       {&sources.instance_types, &sources.zones, &sources.offerings, &sources.spot_prices, &sources.on_demand_prices}) {
    spdlog::info("catalog: {}", source->describe());
  }
  spdlog::info("catalog: {} instance types in {}", catalog->size(), region);
  return catalog;
}

// Instances launched for this cluster that no NodeClaim owns and that are older than this are terminated
// (Karpenter's garbage collection): a controller that stopped between CreateFleet and writing the NodeClaim's
// status leaves one.
constexpr std::chrono::seconds kGarbageAge{30};

class RunningAws final : public RunningProvider {
 public:
  RunningAws(const kube::ApiClient& client, std::unique_ptr<AwsClient> ec2, std::unique_ptr<AwsClient> ssm,
             std::unique_ptr<AwsClient> autoscaling, std::unique_ptr<AwsClient> iam,
             std::unique_ptr<AwsClient> pricing, std::filesystem::path data_dir, const std::string& region,
             Catalog catalog, Ec2ProviderOptions options)
      : client_(client),
        cluster_name_(options.cluster.name),
        region_(region),
        data_dir_(std::move(data_dir)),
        ec2_(std::move(ec2)),
        pricing_(std::move(pricing)),
        ssm_(std::move(ssm)),
        autoscaling_(std::move(autoscaling)),
        iam_(std::move(iam)),
        instance_profiles_(*iam_, cluster_name_, region),
        provider_(*ec2_, *ssm_, std::move(catalog), std::move(options)),
        events_(client, "karpenter.k8s.aws", "scalewright"),
        node_classes_(client, provider_, events_) {
    provider_.use_instance_profiles(&instance_profiles_);
  }
  ~RunningAws() override { stop(); }

  CloudProvider& cloud() override { return provider_; }
  NodeGroupProvider& node_groups() override {
    if (groups_) return *groups_;
    return no_groups_;
  }
  std::optional<Result<std::vector<nodegroups::NodeGroup>>> node_groups_found(
      const nodegroups::AutoscalerOptions& flags) const override {
    std::vector<CloudNodeGroup> found;
    if (groups_) {
      CloudResult<std::vector<CloudNodeGroup>> read = groups_->cloud_node_groups();
      if (read) {
        found = std::move(*read);
      } else {
        spdlog::error("reading the Auto Scaling groups: {}", read.error().message);
      }
    }
    return discover_node_groups(found, flags, provider_.catalog());
  }

  std::optional<Error> use_auto_scaling_groups(const nodegroups::AutoscalerOptions& options) {
    auto_scaling_api_ = std::make_unique<AutoScalingApi>(*autoscaling_, ec2_.get());
    AsgNodeGroupsSettings settings;
    settings.catalog = &provider_.catalog();
    Result<std::unique_ptr<AsgNodeGroups>> groups = AsgNodeGroups::create(*auto_scaling_api_, options, settings);
    if (!groups) return groups.error();
    groups_ = std::move(*groups);
    if (std::optional<CloudError> failed = groups_->refresh()) return Error{failed->message};
    return std::nullopt;
  }

  // Notices from the SQS queue EventBridge sends EC2's and AWS Health's events to, polled while this replica leads.
  void use_interruption_queue(std::unique_ptr<AwsClient> sqs, std::string queue, InstanceNotices notices) {
    sqs_ = std::move(sqs);
    queue_ = std::move(queue);
    notices_ = std::move(notices);
  }

  std::optional<Error> start(const std::stop_token& stop) override {
    (void)stop;
    if (sqs_) {
      Result<std::unique_ptr<SqsInterruptionPoller>> poller = SqsInterruptionPoller::start(*sqs_, queue_, notices_);
      if (!poller) return Error{std::string(kInterruptionQueue) + " " + queue_ + ": " + poller.error().message};
      poller_ = std::move(*poller);
    }
    node_classes_.start();
    garbage_collector_ = std::jthread([this](std::stop_token s) { collect_garbage(s); });
    catalog_refresher_ = std::jthread([this](std::stop_token s) { refresh_catalog(s); });
    return std::nullopt;
  }

  void stop() override {
    poller_.reset();
    node_classes_.stop();
    for (std::jthread* thread : {&garbage_collector_, &catalog_refresher_}) {
      if (!thread->joinable()) continue;
      thread->request_stop();
      thread->join();
    }
    events_.flush();
  }

  Ec2Provider& provider() { return provider_; }
  // Where each EC2NodeClass that resolves to something else is told (the loop: drift looks again).
  void report_node_class_changes_to(NodeClassChanges changes) { node_classes_.report_changes_to(std::move(changes)); }

 private:
  // Every 10 s for the first 20 passes, then every 2 min, as Karpenter's garbage collection runs; idle launch
  // templates are looked for every 2 min (they go after 5 idle minutes), not at every pass, to spare the calls.
  void collect_garbage(const std::stop_token& stop) {
    constexpr std::chrono::minutes kTemplateSweep{2};
    auto last_sweep = std::chrono::steady_clock::now();
    for (int pass = 1; !stop.stop_requested(); ++pass) {
      net::sleep_unless_stopped(pass <= 20 ? std::chrono::seconds(10) : std::chrono::seconds(120), stop);
      if (stop.stop_requested()) return;
      collect_once();
      if (const auto now = std::chrono::steady_clock::now(); now - last_sweep >= kTemplateSweep) {
        last_sweep = now;
        if (std::optional<CloudError> failed = provider_.delete_idle_launch_templates(now)) {
          spdlog::warn("garbage collection: deleting idle launch templates: {}", failed->message);
        }
      }
    }
  }

  // The account's types, offerings and prices, read again every 12 h; the engine takes the new prices at its next
  // pass (Ec2Provider::refresh_catalog). A failed read keeps the prices held, and is tried again next time.
  void refresh_catalog(const std::stop_token& stop) {
    while (!stop.stop_requested()) {
      net::sleep_unless_stopped(kCatalogRefresh, stop);
      if (stop.stop_requested()) return;
      Result<Catalog> fresh = read_catalog(*ec2_, pricing_.get(), data_dir_, region_);
      if (!fresh) {
        spdlog::warn("refreshing the catalog: {}; the prices held are kept", fresh.error().message);
        continue;
      }
      provider_.refresh_catalog(std::move(*fresh));
    }
  }

  void collect_once() {
    kube::KubeResult<kube::ListResult> claims = client_.list("/apis/karpenter.sh/v1/nodeclaims", 500);
    if (!claims) {
      spdlog::warn("garbage collection: listing NodeClaims: {}", claims.error().describe());
      return;
    }
    std::set<std::string> names, provider_ids;
    for (const nlohmann::json& claim : claims->items) {
      names.insert(claim["metadata"].value("name", ""));
      provider_ids.insert(claim.value("status", nlohmann::json::object()).value("providerID", ""));
    }
    AwsResult<std::vector<Ec2Instance>> instances =
        Ec2Api(*ec2_).describe_instances({{"tag-key", {std::string(karpenter_tags::nodepool)}},
                                          {"tag:" + std::string(karpenter_tags::cluster_name), {cluster_name_}},
                                          {"instance-state-name", {"pending", "running", "stopping", "stopped"}}});
    if (!instances) {
      spdlog::warn("garbage collection: listing instances: {}", instances.error().describe());
      return;
    }
    const auto now = std::chrono::system_clock::now();
    std::vector<std::string> leaked;
    for (const Ec2Instance& instance : *instances) {
      if (provider_ids.contains(provider_id(instance.zone, instance.id))) continue;
      const std::string claim = instance.tag(karpenter_tags::nodeclaim);
      if (!claim.empty() && names.contains(claim)) continue;  // its NodeClaim will take it (adoption)
      // Young, or of an age it cannot tell: its launch may be under way (the NodeClaim's status not written yet).
      const std::optional<std::int64_t> launched = manifest::parse_rfc3339(instance.launch_time);
      if (!launched || now - std::chrono::system_clock::time_point(std::chrono::seconds(*launched)) < kGarbageAge) {
        continue;
      }
      leaked.push_back(instance.id);
    }
    if (leaked.empty()) return;
    for (const std::string& id : leaked) {
      spdlog::info("garbage collection: instance {} has no NodeClaim: terminating it", id);
    }
    if (AwsResult<bool> done = Ec2Api(*ec2_).terminate_instances(leaked); !done) {
      spdlog::warn("garbage collection: terminating {} instances: {}", leaked.size(), done.error().describe());
    }
  }

 private:
  const kube::ApiClient& client_;
  std::string cluster_name_;
  std::string region_;
  std::filesystem::path data_dir_;
  std::unique_ptr<AwsClient> ec2_;
  std::unique_ptr<AwsClient> pricing_;  // null where the Price List API serves no prices for the region
  std::unique_ptr<AwsClient> ssm_;
  std::unique_ptr<AwsClient> autoscaling_;
  std::unique_ptr<AwsClient> iam_;
  InstanceProfiles instance_profiles_;
  Ec2Provider provider_;
  kube::EventSink events_;
  Ec2NodeClassController node_classes_;
  std::unique_ptr<AutoScalingApi> auto_scaling_api_;
  std::unique_ptr<AsgNodeGroups> groups_;
  NoNodeGroups no_groups_;
  std::unique_ptr<AwsClient> sqs_;  // outlives the poller
  std::string queue_;
  InstanceNotices notices_;
  std::unique_ptr<SqsInterruptionPoller> poller_;
  std::jthread garbage_collector_;
  std::jthread catalog_refresher_;
};

Result<std::unique_ptr<RunningProvider>> make_aws(ProviderContext& context) {
  const std::string cluster_name = context.flag(kClusterName);
  if (cluster_name.empty()) {
    return Error{std::string(kClusterName) +
                 " is required with --cloud-provider aws: the EKS cluster's name, as Karpenter's CLUSTER_NAME"};
  }
  const AwsEnvironment environment = AwsEnvironment::from_process();
  Result<SharedConfig> shared = load_shared_config(environment);
  if (!shared) return Error{"AWS configuration: " + shared.error().message};
  std::string region = context.catalog.region();
  if (std::optional<ResolvedSetting> configured = resolve_region(environment, *shared)) {
    if (configured->value != region) {
      return Error{fmt::format("AWS's region is {} ({}) but the catalog's is {} (--region): pass --region {}",
                               configured->value, configured->source, region, configured->value)};
    }
  }
  Result<std::shared_ptr<CredentialsProvider>> credentials = default_credentials_chain(environment, *shared);
  if (!credentials) return Error{"AWS credentials: " + credentials.error().message};
  std::shared_ptr<CredentialsProvider> chain = *credentials;
  CredentialsSource source = [chain] { return chain->credentials(); };

  auto make_client = [&](const AwsService& service) -> Result<std::unique_ptr<AwsClient>> {
    Result<ResolvedEndpoint> endpoint = resolve_endpoint(service, region, environment, *shared);
    if (!endpoint) return endpoint.error();
    spdlog::info("AWS {}: {} ({})", service.signing_name, endpoint->url, endpoint->source);
    AwsClientOptions options;
    options.before_retry = [](const AwsError& error, std::chrono::milliseconds wait) {
      spdlog::warn("{}: retrying in {} ms", error.describe(), wait.count());
    };
    return AwsClient::create(service, endpoint->signing_region, endpoint->url, source, std::move(options));
  };
  Result<std::unique_ptr<AwsClient>> ec2 = make_client(kEc2);
  if (!ec2) return ec2.error();
  Result<std::unique_ptr<AwsClient>> ssm = make_client(kSsm);
  if (!ssm) return ssm.error();
  Result<std::unique_ptr<AwsClient>> autoscaling = make_client(kAutoScaling);
  if (!autoscaling) return autoscaling.error();
  Result<std::unique_ptr<AwsClient>> iam = make_client(kIam);
  if (!iam) return iam.error();

  // The catalog from the account (its types, zones, offerings and prices), each source the data's where its call
  // is denied or fails.
  std::unique_ptr<AwsClient> pricing;
  if (price_list_serves(region)) {
    Result<std::unique_ptr<AwsClient>> made = make_client(kPricing);
    if (!made) return made.error();
    pricing = std::move(*made);
  }
  Result<Catalog> catalog = read_catalog(**ec2, pricing.get(), context.data_dir, region);
  if (!catalog) return catalog.error();

  // What nodes join with: the flags', else EKS's (DescribeCluster), else the kubeconfig's.
  Result<std::unique_ptr<AwsClient>> eks = make_client(kEks);
  if (!eks) return eks.error();
  const JoinSettings join = join_settings(
      cluster_name, {context.flag(kClusterEndpoint), context.flag(kClusterCaBundle), context.flag(kServiceCidr)}, **eks,
      context.client.transport().endpoint());
  if (join.describe_failed) {
    spdlog::warn(
        "eks:DescribeCluster {} failed, so what no flag gives comes from the kubeconfig: nodes join {} (unreachable "
        "from a node if it is the in-cluster kubernetes.default.svc: pass {}), service CIDR {}: {}",
        cluster_name, join.cluster.endpoint, kClusterEndpoint, join.cluster.service_cidr,
        join.describe_failed->describe());
  } else if (join.described) {
    spdlog::info("eks:DescribeCluster {}: nodes join {}, service CIDR {} (where no flag says otherwise)", cluster_name,
                 join.cluster.endpoint, join.cluster.service_cidr);
  }
  Ec2ProviderOptions options;
  options.cluster = join.cluster;
  Result<std::string> version = kubernetes_version(context.client);
  if (!version) return version.error();
  options.cluster.kubernetes_version = *version;

  auto running = std::make_unique<RunningAws>(context.client, std::move(*ec2), std::move(*ssm), std::move(*autoscaling),
                                              std::move(*iam), std::move(pricing), context.data_dir, region,
                                              std::move(*catalog), options);
  running->report_node_class_changes_to(context.node_class_changes);
  if (const std::string queue = context.flag(kInterruptionQueue); !queue.empty()) {
    Result<std::unique_ptr<AwsClient>> sqs = make_client(kSqs);
    if (!sqs) return sqs.error();
    running->use_interruption_queue(std::move(*sqs), queue, context.notices);
  }
  if (context.cluster_autoscaler != nullptr) {
    if (std::optional<Error> refused = running->use_auto_scaling_groups(*context.cluster_autoscaler)) {
      return *refused;
    }
  }
  const Ec2Provider& provider = running->provider();
  context.metrics.counter_function("scalewright_aws_create_fleet_calls_total",
                                   "CreateFleet calls made (identical launches are one call).",
                                   [&provider] { return static_cast<double>(provider.fleet_calls()); });
  return std::unique_ptr<RunningProvider>(std::move(running));
}

}  // namespace

ProviderRegistration aws_registration() {
  ProviderRegistration r;
  r.name = "aws";
  r.summary = "EC2 instances for NodePools (Karpenter's AWS provider) and Auto Scaling groups for node groups";
  r.flags = {
      {std::string(kClusterName),
       "aws: the EKS cluster's name (Karpenter's CLUSTER_NAME); instances are tagged with it", ""},
      {std::string(kClusterEndpoint),
       "aws: the API server endpoint nodes join (default: eks:DescribeCluster's, else the kubeconfig's server)", ""},
      {std::string(kClusterCaBundle),
       "aws: the cluster's CA bundle, base64 PEM, for nodes to join (default: eks:DescribeCluster's, else the "
       "kubeconfig's)",
       ""},
      {std::string(kServiceCidr),
       "aws: the cluster's service CIDR, for AL2023's nodeadm (default: eks:DescribeCluster's, else " +
           std::string(kDefaultServiceCidr) + ")",
       ""},
      {std::string(kInterruptionQueue),
       "aws: the SQS queue EventBridge sends spot interruptions and other EC2 events to (empty: none)", ""},
  };
  // It watches the EC2NodeClasses and writes their status, lists NodeClaims for its garbage collection, and writes
  // Events about the classes (the controller's own rules cover Events).
  r.rbac = {"karpenter.k8s.aws/ec2nodeclasses: get, list, watch", "karpenter.k8s.aws/ec2nodeclasses/status: patch",
            "karpenter.sh/nodeclaims: list"};
  r.adopt_autoscaler_options = adopt_autoscaler_options;
  r.make = make_aws;
  return r;
}

}  // namespace scalewright::cloud::aws
