#pragma once
// Where the Kubernetes API server is and how to prove who we are to it: what a kubeconfig context or a pod's
// service account resolves to, with every file already read, so the HTTP client needs nothing else.
#include <string>

#include "net/http_transport.h"

namespace scalewright::kube {

struct ClusterConfig {
  std::string server;                  // "https://127.0.0.1:6443" (no trailing slash)
  std::string certificate_authority;   // PEM; empty: the system's trust store
  bool insecure_skip_tls_verify = false;  // only when the kubeconfig says so
  std::string client_certificate;      // PEM; empty: no client certificate
  std::string client_key;              // PEM
  std::string bearer_token;            // empty: none
  std::string bearer_token_file;       // re-read when set (projected service-account tokens rotate)
  std::string namespace_;              // the context's namespace, or the service account's; "default" if none
  // Where it came from, for messages: "kubeconfig /path (context kind)" or "in-cluster".
  std::string source;
};

// The API server as the HTTP transport reaches it: its TLS, "Accept: application/json", and the bearer token (the
// token file read afresh for every request).
net::HttpEndpoint http_endpoint(const ClusterConfig& config);

}  // namespace scalewright::kube
