#pragma once
// The API server a command talks to, found as kubectl and client-go find it: --kubeconfig, else $KUBECONFIG, else
// ~/.kube/config, with --context instead of its current-context; in a pod without any of them, its service account.
#include <string>

#include "api/result.h"
#include "kube/api_client.h"
#include "kube/cluster_config.h"
#include "net/http_transport.h"

namespace scalewright::cli {

Result<kube::ClusterConfig> cluster_config(const std::string& kubeconfig, const std::string& context);

// A client of that API server, once it has answered GET /version; the error says which step failed.
Result<kube::ApiClient> connect(const std::string& kubeconfig, const std::string& context,
                                net::TransportOptions options = {});

}  // namespace scalewright::cli
