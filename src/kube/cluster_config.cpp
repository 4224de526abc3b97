#include "kube/cluster_config.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <sstream>

namespace scalewright::kube {
namespace {

// A token file is read for every request: a projected service-account token is rotated by the kubelet.
Result<std::string> read_bearer_token(const std::string& token, const std::string& token_file) {
  if (token_file.empty()) return token;
  std::ifstream in(token_file, std::ios::binary);
  if (!in) return Error{fmt::format("cannot read bearer token file {}", token_file)};
  std::ostringstream text;
  text << in.rdbuf();
  std::string read = text.str();
  while (!read.empty() && std::isspace(static_cast<unsigned char>(read.back()))) read.pop_back();
  if (read.empty()) return Error{fmt::format("bearer token file {} is empty", token_file)};
  return read;
}

}  // namespace

net::HttpEndpoint http_endpoint(const ClusterConfig& config) {
  net::HttpEndpoint endpoint;
  endpoint.base_url = config.server;
  endpoint.certificate_authority = config.certificate_authority;
  endpoint.insecure_skip_tls_verify = config.insecure_skip_tls_verify;
  endpoint.client_certificate = config.client_certificate;
  endpoint.client_key = config.client_key;
  endpoint.headers = {{"Accept", "application/json"}};
  endpoint.authorize = net::bearer_token(
      [token = config.bearer_token, file = config.bearer_token_file] { return read_bearer_token(token, file); });
  endpoint.source = config.source.empty() ? std::string("cluster config") : config.source;
  return endpoint;
}

}  // namespace scalewright::kube
