#include "cloud/kwok/kwok_provider.h"

#include <algorithm>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "api/meta.h"
#include "api/nodepool.h"
#include "api/percent_encode.h"
#include "kube/model_json.h"
#include "kube/retry.h"

namespace scalewright::cloud {

using nlohmann::json;

namespace {

constexpr std::string_view kProviderIdPrefix = "kwok://";

// The private DNS suffix of EC2's hostnames in `region`: ec2.internal in us-east-1, <region>.compute.internal in the
// others.
std::string hostname_suffix(const std::string& region) {
  if (region == "us-east-1") return "ec2.internal";
  return region.empty() ? "compute.internal" : region + ".compute.internal";
}

FakeKubeletOptions kubelet_options(const KwokOptions& options) {
  FakeKubeletOptions out;
  out.lease_duration = options.lease_duration;
  out.lease_renew_interval = options.lease_renew_interval;
  return out;
}

}  // namespace

KwokProvider::KwokProvider(const kube::ApiClient& client, Catalog catalog, KwokOptions options)
    : client_(client), catalog_(std::move(catalog)), options_(options), kubelet_(client, kubelet_options(options)) {}

KwokProvider::~KwokProvider() { stop(); }

std::optional<Instance> KwokProvider::instance_of_node(const json& node) const {
  const NodeOffering found = offering_of_node(catalog_, kube::labels_of(node));
  if (found.type == nullptr) return std::nullopt;
  Instance instance;
  instance.node_name = node.value("metadata", json::object()).value("name", "");
  instance.provider_id = node.value("spec", json::object()).value("providerID", "");
  // The instance is what its providerID names; its Node may be named otherwise (--kwok-node-names=hostname).
  instance.id = instance.provider_id.starts_with(kProviderIdPrefix) ? instance.provider_id.substr(kProviderIdPrefix.size())
                                                                     : instance.node_name;
  instance.instance_type = found.type;
  if (found.offering != nullptr) instance.offering = *found.offering;
  return instance;
}

std::optional<Error> KwokProvider::start(const std::stop_token& stop) {
  // The cloud's state is in the cluster: every kwok Node is a running instance, and a NodeClaim launched on kwok
  // whose Node is missing is an instance still booting (its launcher stopped before it registered). Leadership can
  // begin while the API server restarts: the lists wait for it rather than stop the controller.
  const std::string selector = std::string(kKwokNodeLabel) + "=true";
  const std::string nodes_path = "/api/v1/nodes?labelSelector=" + percent_encode(selector);
  kube::KubeResult<kube::ListResult> nodes = kube::retry_while_unavailable<kube::ListResult>(
      "kwok: listing its nodes", [&] { return client_.list(nodes_path, 500); }, stop);
  if (!nodes) return Error{"kwok: listing its nodes: " + nodes.error().describe()};
  kube::KubeResult<kube::ListResult> claims = kube::retry_while_unavailable<kube::ListResult>(
      "kwok: listing NodeClaims", [&] { return client_.list("/apis/karpenter.sh/v1/nodeclaims", 500); }, stop);
  if (!claims && !claims.error().is_not_found()) {
    return Error{"kwok: listing NodeClaims: " + claims.error().describe()};
  }
  std::vector<std::pair<Instance, json>> booting;
  {
    std::lock_guard lock(mutex_);
    for (const json& node : nodes->items) {
      if (std::optional<Instance> instance = instance_of_node(node)) {
        kubelet_.adopt_node(instance->node_name);
        // A node of a group kwok plays is that group's again: how its target is known after a restart.
        if (const std::string group = groups_.group_of(kube::labels_of(node)); !group.empty()) {
          groups_.adopt(group, *instance);
        }
        instances_.emplace(instance->id, std::move(*instance));
      }
    }
    for (const json& claim : claims ? claims->items : std::vector<json>{}) {
      const std::string provider_id = claim.value("status", json::object()).value("providerID", "");
      if (!provider_id.starts_with(kProviderIdPrefix) || claim["metadata"].contains("deletionTimestamp")) continue;
      std::optional<Instance> instance = instance_of_node(claim);
      if (!instance || instances_.contains(instance->id)) continue;
      instance->provider_id = provider_id;
      instance->node_name = node_name_locked(instance->id);
      instances_.emplace(instance->id, *instance);
      booting.emplace_back(std::move(*instance), claim);
    }
  }
  spdlog::info("kwok: {} nodes running, {} booting from an earlier launch", nodes->items.size(), booting.size());
  kubelet_.start();
  for (auto& [instance, claim] : booting) {
    const Labels labels = kube::labels_of(claim);
    std::vector<Taint> taints;
    for (const json& t : claim["spec"].value("taints", json::array())) {
      taints.push_back({t.value("key", ""), t.value("value", ""),
                        parse_taint_effect(t.value("effect", "")).value_or(TaintEffect::NoSchedule)});
    }
    register_node(instance, labels, taints, std::chrono::milliseconds(0));
  }
  return std::nullopt;
}

void KwokProvider::stop() { kubelet_.stop(); }

std::vector<CloudNodeGroup> kwok_auto_scaling_groups(const std::vector<StaticNodeGroup>& nodes_flags,
                                                       std::vector<CloudNodeGroup> defined, const Catalog& catalog) {
  for (const StaticNodeGroup& flag : nodes_flags) {
    const bool known = std::any_of(defined.begin(), defined.end(),
                                   [&](const CloudNodeGroup& g) { return g.name == flag.name; });
    if (known || catalog.find(flag.name) == nullptr) continue;
    CloudNodeGroup group;
    group.name = flag.name;
    group.instance_type = flag.name;
    group.min_size = flag.min_size;
    group.max_size = flag.max_size;
    group.desired_capacity = flag.min_size;
    defined.push_back(std::move(group));
  }
  return defined;
}

// kwok has capacity for every offering: the first one preferred launches.
CloudResult<Created> KwokProvider::create(const CreateRequest& request) {
  if (request.offerings.empty()) return CloudError{ErrorClass::Other, "no offering to launch " + request.name, {}};
  const LaunchOption& option = request.offerings.front();
  Instance instance;
  instance.id = request.name;
  instance.instance_type = option.instance_type;
  instance.offering = *option.offering;
  instance.provider_id = std::string(kProviderIdPrefix) + request.name;
  {
    std::lock_guard lock(mutex_);
    instance.node_name = node_name_locked(request.name);
    instances_[instance.id] = instance;
  }
  register_node(instance, request.labels, request.taints, options_.launch_latency);
  return Created{std::move(instance), option, {}};
}

void KwokProvider::register_node(const Instance& instance, const Labels& request_labels,
                                 const std::vector<Taint>& taints, std::chrono::milliseconds after) {
  const InstanceType& type = *instance.instance_type;
  const bool nodeclaims = request_labels.has(Symbol(karpenter_labels::nodepool));
  KubeletNode node;
  node.name = instance.node_name;
  node.provider_id = instance.provider_id;
  json& labels = node.labels;
  for (const auto& [key, value] : type.labels) labels[key.string()] = value.string();
  // Registered under a hostname, a NodeClaim's node knows its instance only, as a kubelet does: its NodeClaim's labels
  // come with Karpenter's registration.
  if (!nodeclaims || options_.node_names == KwokNodeNames::NodeClaim) {
    for (const auto& [key, value] : request_labels) labels[key.string()] = value.string();
  }
  labels[std::string(well_known::zone)] = instance.offering.zone;
  labels[std::string(karpenter_labels::capacity_type)] = std::string(to_string(instance.offering.capacity_type));
  labels[std::string(well_known::hostname)] = instance.node_name;
  labels[std::string(well_known::os)] = labels.value(std::string(well_known::os), "linux");
  labels[std::string(kKwokNodeLabel)] = "true";
  node.annotations = {{"kwok.x-k8s.io/node", "fake"}};
  node.taints = kube::taints_json(taints);
  // A NodeClaim's node registers with Karpenter's startup taint; the controller removes it once it has synced the
  // node (as Karpenter's registration does).
  if (nodeclaims) node.taints.push_back({{"key", "karpenter.sh/unregistered"}, {"effect", "NoExecute"}});
  node.capacity = type.capacity;
  node.allocatable = type.allocatable;
  node.hostname_address = options_.node_names == KwokNodeNames::Hostname;
  kubelet_.register_node(std::move(node), after);
}

std::string KwokProvider::node_name_locked(const std::string& instance) {
  if (options_.node_names == KwokNodeNames::NodeClaim) return instance;
  const std::string suffix = hostname_suffix(catalog_.region());
  for (;;) {
    const std::uint64_t bits = names_();
    std::string name =
        fmt::format("ip-10-{}-{}-{}.{}", bits % 256, (bits >> 8) % 256, 1 + (bits >> 16) % 254, suffix);
    const bool taken = kubelet_.has_node(name) || std::any_of(instances_.begin(), instances_.end(), [&](const auto& i) {
                         return i.second.node_name == name;
                       });
    if (!taken) return name;
  }
}

std::string KwokProvider::instance_name(const std::string& group) {
  for (;;) {
    std::string name = group + "-";
    for (int i = 0; i < 5; ++i) name += kSafeNameAlphabet[names_() % kSafeNameAlphabet.size()];
    std::lock_guard lock(mutex_);
    if (!instances_.contains(name)) return name;
  }
}

CloudResult<Deleted> KwokProvider::terminate(const std::string& instance_id) {
  groups_.forget(instance_id);
  std::string node_name;
  {
    std::lock_guard lock(mutex_);
    auto found = instances_.find(instance_id);
    if (found == instances_.end()) return not_found(instance_id);
    node_name = found->second.node_name;
    instances_.erase(found);
  }
  kubelet_.remove_node(node_name);
  return Deleted{};
}

CloudResult<Instance> KwokProvider::get(const std::string& instance_id) const {
  std::lock_guard lock(mutex_);
  auto it = instances_.find(instance_id);
  if (it == instances_.end()) return not_found(instance_id);
  return it->second;
}

CloudResult<std::vector<Instance>> KwokProvider::list() const {
  std::lock_guard lock(mutex_);
  std::vector<Instance> out;
  for (const auto& [id, instance] : instances_) out.push_back(instance);
  return out;
}

std::size_t KwokProvider::nodes_created() const { return kubelet_.nodes_registered(); }

std::size_t KwokProvider::pods_started() const { return kubelet_.pods_running(); }

}  // namespace scalewright::cloud
