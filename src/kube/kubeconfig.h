#pragma once
// Where to find the API server and which credentials to present, resolved the way kubectl (client-go's clientcmd)
// does: a kubeconfig file chosen by --kubeconfig, KUBECONFIG or $HOME/.kube/config and a context in it, or the pod's
// service account when running in a cluster. Every error is a value naming the kubeconfig file and the field
// ("/home/me/.kube/config: contexts[kind].context.cluster: no cluster named \"kind-x\"").
#include <string>

#include "api/result.h"
#include "kube/cluster_config.h"

namespace scalewright::kube {

struct KubeconfigOptions {
  std::string kubeconfig;      // --kubeconfig: this one file, which must exist; wins over everything else
  std::string kubeconfig_env;  // the KUBECONFIG value: files separated by ':', merged (the first to set a key wins)
  std::string home;            // $HOME: $HOME/.kube/config when neither of the above is set
  std::string context;         // --context: this context instead of the files' current-context

  // kubeconfig_env and home from the process environment; kubeconfig and context are left for the caller's flags.
  static KubeconfigOptions from_environment();
};

// The context's cluster and user, with every referenced file (certificate-authority, client-certificate,
// client-key, tokenFile; relative to the kubeconfig that names them) read and every *-data field base64-decoded.
// Refuses what it does not support (exec plugins, auth-provider, basic auth, impersonation, proxy-url,
// tls-server-name) rather than connect without it.
Result<ClusterConfig> load_kubeconfig(const KubeconfigOptions& options);

// A pod's service account: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT with the token, ca.crt and
// namespace under `root`/var/run/secrets/kubernetes.io/serviceaccount/ (tests pass a temporary root).
Result<ClusterConfig> in_cluster_config(const std::string& root = "/");

}  // namespace scalewright::kube
