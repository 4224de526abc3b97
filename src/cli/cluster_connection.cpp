#include "cli/cluster_connection.h"

#include <cstdlib>
#include <utility>

#include "kube/kubeconfig.h"

namespace scalewright::cli {

Result<kube::ClusterConfig> cluster_config(const std::string& kubeconfig, const std::string& context) {
  // In a pod without a kubeconfig: its service account, as client-go's rules have it.
  if (kubeconfig.empty() && std::getenv("KUBERNETES_SERVICE_HOST") != nullptr && std::getenv("KUBECONFIG") == nullptr) {
    return kube::in_cluster_config();
  }
  kube::KubeconfigOptions options = kube::KubeconfigOptions::from_environment();
  options.kubeconfig = kubeconfig;
  options.context = context;
  return kube::load_kubeconfig(options);
}

Result<kube::ApiClient> connect(const std::string& kubeconfig, const std::string& context,
                                net::TransportOptions options) {
  Result<kube::ClusterConfig> config = cluster_config(kubeconfig, context);
  if (!config) return config.error();
  Result<kube::ApiClient> client = kube::ApiClient::create(*config, std::move(options));
  if (!client) return client.error();
  if (kube::KubeResult<nlohmann::json> version = client->get("/version"); !version) {
    return Error{"the API server does not answer: " + version.error().describe()};
  }
  return client;
}

}  // namespace scalewright::cli
