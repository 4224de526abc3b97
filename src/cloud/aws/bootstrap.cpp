#include "cloud/aws/bootstrap.h"

#include <fmt/format.h>

#include <array>

namespace scalewright::cloud::aws {
namespace {

constexpr std::string_view kBoundary = "//";

// "key=value,...", the kubelet's --node-labels.
std::string node_labels(const Labels& labels) {
  std::string out;
  for (const auto& [key, value] : labels) {
    if (!kubelet_may_set(key.str())) continue;
    out += fmt::format("{}{}={}", out.empty() ? "" : ",", key.str(), value.str());
  }
  return out;
}

// "key=value:Effect,...", the kubelet's --register-with-taints.
std::string register_taints(const std::vector<Taint>& taints) {
  std::string out;
  for (const Taint& taint : taints) {
    out += fmt::format("{}{}{}{}:{}", out.empty() ? "" : ",", taint.key, taint.value.empty() ? "" : "=", taint.value,
                       to_string(taint.effect));
  }
  return out;
}

std::string kubelet_flags(const Labels& labels, const std::vector<Taint>& taints) {
  std::string flags;
  if (std::string l = node_labels(labels); !l.empty()) flags += "--node-labels=" + l;
  if (std::string t = register_taints(taints); !t.empty())
    flags += (flags.empty() ? "" : " ") + ("--register-with-taints=" + t);
  return flags;
}

std::string mime_part(std::string_view content_type, std::string_view body) {
  return fmt::format("--{}\nContent-Type: {}\n\n{}{}", kBoundary, content_type, body, body.ends_with('\n') ? "" : "\n");
}

std::string mime(const std::vector<std::string>& parts) {
  std::string out = fmt::format("MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary=\"{}\"\n\n", kBoundary);
  for (const std::string& part : parts) out += part + "\n";
  return out + fmt::format("--{}--\n", kBoundary);
}

// The class's own user data as a MIME part: a NodeConfig of nodeadm's, or a script.
std::string user_part(const std::string& user_data) {
  const bool node_config = user_data.find("kind: NodeConfig") != std::string::npos;
  return mime_part(node_config ? "application/node.eks.aws" : "text/x-shellscript; charset=\"us-ascii\"", user_data);
}

std::string al2023(const EC2NodeClassSpec& spec, const ClusterIdentity& cluster, const Labels& labels,
                   const std::vector<Taint>& taints) {
  std::string config = fmt::format(
      "apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster:\n    name: {}\n"
      "    apiServerEndpoint: {}\n    certificateAuthority: {}\n    cidr: {}\n",
      cluster.name, cluster.endpoint, cluster.certificate_authority, cluster.service_cidr);
  if (spec.kubelet.max_pods)
    config += fmt::format("  kubelet:\n    config:\n      maxPods: {}\n", *spec.kubelet.max_pods);
  if (std::string flags = kubelet_flags(labels, taints); !flags.empty()) {
    if (!spec.kubelet.max_pods) config += "  kubelet:\n";
    config += "    flags:\n";
    if (std::string l = node_labels(labels); !l.empty()) config += fmt::format("    - --node-labels={}\n", l);
    if (std::string t = register_taints(taints); !t.empty()) {
      config += fmt::format("    - --register-with-taints={}\n", t);
    }
  }
  std::vector<std::string> parts;
  if (spec.user_data) parts.push_back(user_part(*spec.user_data));
  parts.push_back(mime_part("application/node.eks.aws", config));
  return mime(parts);
}

std::string al2(const EC2NodeClassSpec& spec, const ClusterIdentity& cluster, const Labels& labels,
                const std::vector<Taint>& taints) {
  std::string script = fmt::format(
      "#!/bin/bash -xe\nexec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1\n"
      "/etc/eks/bootstrap.sh '{}' --apiserver-endpoint '{}' --b64-cluster-ca '{}'",
      cluster.name, cluster.endpoint, cluster.certificate_authority);
  if (std::string flags = kubelet_flags(labels, taints); !flags.empty()) {
    script += fmt::format(" \\\n--kubelet-extra-args '{}'", flags);
  }
  std::vector<std::string> parts;
  if (spec.user_data) parts.push_back(user_part(*spec.user_data));
  parts.push_back(mime_part("text/x-shellscript; charset=\"us-ascii\"", script + "\n"));
  return mime(parts);
}

std::string bottlerocket(const EC2NodeClassSpec& spec, const ClusterIdentity& cluster, const Labels& labels,
                         const std::vector<Taint>& taints) {
  // The class's settings first, ours after: TOML tables may not repeat, so a user's [settings.kubernetes] keys
  // other than these stay theirs.
  std::string out = spec.user_data ? *spec.user_data + "\n" : "";
  out +=
      fmt::format("[settings.kubernetes]\ncluster-name = \"{}\"\napi-server = \"{}\"\ncluster-certificate = \"{}\"\n",
                  cluster.name, cluster.endpoint, cluster.certificate_authority);
  if (spec.kubelet.max_pods) out += fmt::format("max-pods = {}\n", *spec.kubelet.max_pods);
  std::string node_label_table;
  for (const auto& [key, value] : labels) {
    if (kubelet_may_set(key.str())) node_label_table += fmt::format("\"{}\" = \"{}\"\n", key.str(), value.str());
  }
  if (!node_label_table.empty()) out += "\n[settings.kubernetes.node-labels]\n" + node_label_table;
  if (!taints.empty()) {
    out += "\n[settings.kubernetes.node-taints]\n";
    for (const Taint& taint : taints) {
      out += fmt::format("\"{}\" = [\"{}:{}\"]\n", taint.key, taint.value, to_string(taint.effect));
    }
  }
  return out;
}

std::string windows(const EC2NodeClassSpec& spec, const ClusterIdentity& cluster, const Labels& labels,
                    const std::vector<Taint>& taints) {
  std::string out = "<powershell>\n";
  if (spec.user_data) out += *spec.user_data + "\n";
  out += fmt::format(
      "[string]$EKSBootstrapScriptFile = \"$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1\"\n"
      "& $EKSBootstrapScriptFile -EKSClusterName '{}' -APIServerEndpoint '{}' -Base64ClusterCA '{}'",
      cluster.name, cluster.endpoint, cluster.certificate_authority);
  if (std::string flags = kubelet_flags(labels, taints); !flags.empty()) {
    out += fmt::format(" -KubeletExtraArgs '{}'", flags);
  }
  return out + " 3>&1 4>&1 5>&1 6>&1\n</powershell>\n";
}

}  // namespace

bool kubelet_may_set(std::string_view label) {
  const std::string_view domain = label.substr(0, label.find('/') == std::string_view::npos ? 0 : label.find('/'));
  const bool restricted_domain = domain == "kubernetes.io" || domain.ends_with(".kubernetes.io") ||
                                 domain == "k8s.io" || domain.ends_with(".k8s.io");
  if (!restricted_domain) return true;
  if (domain == "node.kubernetes.io" || domain.ends_with(".node.kubernetes.io") || domain == "kubelet.kubernetes.io" ||
      domain.ends_with(".kubelet.kubernetes.io")) {
    return true;
  }
  constexpr std::array<std::string_view, 6> kWellKnown = {
      "kubernetes.io/hostname",        "kubernetes.io/arch",          "kubernetes.io/os",
      "topology.kubernetes.io/region", "topology.kubernetes.io/zone", "node.kubernetes.io/instance-type"};
  return std::find(kWellKnown.begin(), kWellKnown.end(), label) != kWellKnown.end();
}

std::string node_user_data(const EC2NodeClassSpec& spec, const ClusterIdentity& cluster, const Labels& labels,
                           const std::vector<Taint>& taints) {
  switch (spec.ami_family) {
    case AmiFamily::AL2023:
      return al2023(spec, cluster, labels, taints);
    case AmiFamily::AL2:
      return al2(spec, cluster, labels, taints);
    case AmiFamily::Bottlerocket:
      return bottlerocket(spec, cluster, labels, taints);
    case AmiFamily::Windows2019:
    case AmiFamily::Windows2022:
    case AmiFamily::Windows2025:
      return windows(spec, cluster, labels, taints);
    case AmiFamily::Custom:
      break;
  }
  return spec.user_data.value_or("");
}

}  // namespace scalewright::cloud::aws
