#include "cloud/aws/eks_cluster.h"

#include <initializer_list>
#include <nlohmann/json.hpp>

#include "cloud/aws/ec2_api.h"
#include "cloud/aws/sigv4.h"

namespace scalewright::cloud::aws {
namespace {

// The string at `path` in `value`; "" where a member is missing or is not what the path needs.
std::string text_at(const nlohmann::json& value, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &value;
  for (const char* key : path) {
    if (!at->is_object() || !at->contains(key)) return "";
    at = &(*at)[key];
  }
  return at->is_string() ? at->get<std::string>() : "";
}

}  // namespace

AwsResult<EksCluster> describe_cluster(const AwsClient& eks, const std::string& name) {
  AwsResult<nlohmann::json> answer =
      eks.rest_json("DescribeCluster", "GET", "/clusters/" + uri_encode(name, false), nullptr);
  if (!answer) return answer.error();
  EksCluster cluster;
  cluster.endpoint = text_at(*answer, {"cluster", "endpoint"});
  cluster.certificate_authority = text_at(*answer, {"cluster", "certificateAuthority", "data"});
  cluster.service_cidr = text_at(*answer, {"cluster", "kubernetesNetworkConfig", "serviceIpv4Cidr"});
  if (cluster.service_cidr.empty()) {
    cluster.service_cidr = text_at(*answer, {"cluster", "kubernetesNetworkConfig", "serviceIpv6Cidr"});
  }
  return cluster;
}

JoinSettings join_settings(const std::string& name, const ClusterFlags& flags, const AwsClient& eks,
                           const net::HttpEndpoint& kube) {
  JoinSettings settings;
  settings.cluster.name = name;
  EksCluster described;
  if (flags.endpoint.empty() || flags.certificate_authority.empty() || flags.service_cidr.empty()) {
    AwsResult<EksCluster> answer = describe_cluster(eks, name);
    if (answer) {
      described = *answer;
      settings.described = true;
    } else {
      settings.describe_failed = answer.error();
    }
  }
  auto first_of = [](std::initializer_list<std::string> candidates) {
    for (const std::string& candidate : candidates) {
      if (!candidate.empty()) return candidate;
    }
    return std::string();
  };
  settings.cluster.endpoint = first_of({flags.endpoint, described.endpoint, kube.base_url});
  settings.cluster.certificate_authority = first_of(
      {flags.certificate_authority, described.certificate_authority, base64(kube.certificate_authority)});
  settings.cluster.service_cidr =
      first_of({flags.service_cidr, described.service_cidr, std::string(kDefaultServiceCidr)});
  return settings;
}

}  // namespace scalewright::cloud::aws
