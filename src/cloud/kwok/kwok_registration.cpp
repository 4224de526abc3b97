#include "cloud/kwok/kwok_registration.h"

#include "api/duration.h"
#include "cloud/aws/auto_scaling_groups.h"
#include "cloud/kwok/kwok_provider.h"
#include "ops/metrics.h"

namespace scalewright::cloud {

namespace {

constexpr std::string_view kLaunchLatencyFlag = "--kwok-launch-latency";
constexpr std::string_view kNodeNamesFlag = "--kwok-node-names";

class RunningKwok final : public RunningProvider {
 public:
  RunningKwok(const kube::ApiClient& client, Catalog catalog, KwokOptions options)
      : provider_(client, std::move(catalog), options) {}
  CloudProvider& cloud() override { return provider_; }
  NodeGroupProvider& node_groups() override { return provider_.node_groups(); }
  std::optional<Error> start(const std::stop_token& stop) override { return provider_.start(stop); }
  void stop() override { provider_.stop(); }
  const KwokProvider& provider() const { return provider_; }
  std::optional<Error> play(PlayedGroupSpec group) { return provider_.node_groups().add(std::move(group)); }

 private:
  KwokProvider provider_;
};

}  // namespace

ProviderRegistration kwok_registration() {
  ProviderRegistration r;
  r.name = "kwok";
  r.plays_node_groups = true;
  r.summary = "Node objects only, kept alive as a kubelet would (no cloud account needed)";
  r.flags = {{std::string(kLaunchLatencyFlag), "kwok: how long a launched node takes to register Ready", "0s"},
             {std::string(kNodeNamesFlag),
              "kwok: what a launched node is named: nodeclaim (its NodeClaim's name) or hostname (as EC2's kubelets "
              "register, ip-10-1-2-3.<region>.compute.internal, tied to its NodeClaim by spec.providerID only)",
              "nodeclaim"}};
  // It plays the cloud and the kubelet: it creates and deletes Nodes and their Leases, and reports its pods Running.
  r.rbac = {"/nodes: create, delete",
            "/nodes/status: patch",
            "coordination.k8s.io/leases: get, create, update, delete",
            "/pods: list, watch, delete",
            "/pods/status: patch",
            "karpenter.sh/nodeclaims: list"};
  // Its groups are played as Auto Scaling groups, their flags taken as CA's AWS provider takes them.
  r.adopt_autoscaler_options = aws::adopt_autoscaler_options;
  r.make = [](ProviderContext& context) -> Result<std::unique_ptr<RunningProvider>> {
    Result<Duration> latency = parse_duration(context.flag(kLaunchLatencyFlag, "0s"));
    if (!latency) return Error{std::string(kLaunchLatencyFlag) + ": " + latency.error().message};
    KwokOptions options;
    options.launch_latency = *latency;
    const std::string naming = context.flag(kNodeNamesFlag, "nodeclaim");
    if (naming == "hostname") {
      options.node_names = KwokNodeNames::Hostname;
    } else if (naming != "nodeclaim") {
      return Error{std::string(kNodeNamesFlag) + ": \"" + naming + "\" is not a way to name nodes (nodeclaim, hostname)"};
    }
    auto running = std::make_unique<RunningKwok>(context.client, std::move(context.catalog), options);
    for (PlayedGroupSpec& group : context.played_groups) {
      if (std::optional<Error> refused = running->play(std::move(group))) return *refused;
    }
    const KwokProvider& provider = running->provider();
    context.metrics.counter_function("karpenter_nodes_created_total",
                                     "Number of nodes created in total by the provider.",
                                     [&provider] { return static_cast<double>(provider.nodes_created()); });
    return std::unique_ptr<RunningProvider>(std::move(running));
  };
  return r;
}

}  // namespace scalewright::cloud
