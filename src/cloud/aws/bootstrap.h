#pragma once
// The user data a node boots with, as Karpenter's AMI families write it: how the AMI's bootstrap joins the node to
// the cluster (AL2023: nodeadm's NodeConfig in a MIME part; AL2: /etc/eks/bootstrap.sh; Bottlerocket: TOML settings;
// Windows: the EKS bootstrap script), with the NodeClaim's labels and taints registered by the kubelet, and the
// EC2NodeClass's own userData kept beside it (before it for shell scripts, merged for Bottlerocket's TOML). A Custom
// family boots with the class's userData alone, as Karpenter leaves it.
#include <string>
#include <vector>

#include "api/labels.h"
#include "api/meta.h"
#include "cloud/aws/ec2nodeclass.h"

namespace scalewright::cloud::aws {

// How a node of this cluster joins it.
struct ClusterIdentity {
  std::string name;                   // the EKS cluster's
  std::string endpoint;               // https://...: the API server's
  std::string certificate_authority;  // base64 PEM, as EKS gives it
  std::string service_cidr;           // 10.100.0.0/16
  std::string kubernetes_version;     // "1.30": the AMI aliases' version
};

// The labels a kubelet may register itself with (the NodeRestriction admission plugin's rule): any outside the
// kubernetes.io and k8s.io domains, and those under node.kubernetes.io, kubelet.kubernetes.io and the well-known
// topology, instance-type, arch and os labels. The others are synced onto the Node when it registers.
bool kubelet_may_set(std::string_view label);

std::string node_user_data(const EC2NodeClassSpec& spec, const ClusterIdentity& cluster, const Labels& labels,
                           const std::vector<Taint>& taints);

}  // namespace scalewright::cloud::aws
