#pragma once
// What nodes join the cluster with, found as Karpenter's AWS provider finds it at start: the API server's endpoint,
// its certificate authority and the service CIDR from EKS's DescribeCluster (research: aws-provider.md §1.1), unless
// flags give them. A controller in a pod cannot take its own kubeconfig's server for them: kubernetes.default.svc is
// not reachable from a node that has not joined yet.
#include <optional>
#include <string>

#include "cloud/aws/aws_client.h"
#include "cloud/aws/bootstrap.h"
#include "net/http_transport.h"

namespace scalewright::cloud::aws {

// The parts of DescribeCluster's answer nodes join with ("" where it has none).
struct EksCluster {
  std::string endpoint;               // "https://ABC.gr7.us-west-2.eks.amazonaws.com"
  std::string certificate_authority;  // certificateAuthority.data: base64 PEM
  std::string service_cidr;           // kubernetesNetworkConfig's serviceIpv4Cidr, or serviceIpv6Cidr on IPv6
};

// eks:DescribeCluster of cluster `name`: GET /clusters/NAME of `eks`, a client of kEks.
AwsResult<EksCluster> describe_cluster(const AwsClient& eks, const std::string& name);

// The service CIDR nodes join with when neither its flag nor EKS gives one.
inline constexpr std::string_view kDefaultServiceCidr = "10.100.0.0/16";

// What the flags say of the cluster ("": not given).
struct ClusterFlags {
  std::string endpoint;               // --cluster-endpoint
  std::string certificate_authority;  // --cluster-ca-bundle, base64 PEM
  std::string service_cidr;           // --cluster-service-cidr
};

struct JoinSettings {
  ClusterIdentity cluster;  // its kubernetes_version left to the caller
  bool described = false;   // DescribeCluster was asked and answered
  // DescribeCluster's error when it was asked and failed (denied, no such cluster, no answer).
  std::optional<AwsError> describe_failed;
};

// Each setting of cluster `name` from its flag; those no flag gives from DescribeCluster (asked only then), else
// from the kubeconfig (`kube`: its server, and its CA base64-encoded) and kDefaultServiceCidr.
JoinSettings join_settings(const std::string& name, const ClusterFlags& flags, const AwsClient& eks,
                           const net::HttpEndpoint& kube);

}  // namespace scalewright::cloud::aws
