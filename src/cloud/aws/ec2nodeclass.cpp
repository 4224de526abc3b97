#include "cloud/aws/ec2nodeclass.h"

#include <algorithm>

#include "cloud/aws/instance_types.h"

namespace scalewright::cloud::aws {
namespace {

constexpr std::int64_t kGi = std::int64_t{1} << 30;

bool is_windows(AmiFamily family) {
  return family == AmiFamily::Windows2019 || family == AmiFamily::Windows2022 || family == AmiFamily::Windows2025;
}

}  // namespace

std::string_view to_string(AmiFamily family) {
  switch (family) {
    case AmiFamily::AL2: return "AL2";
    case AmiFamily::AL2023: return "AL2023";
    case AmiFamily::Bottlerocket: return "Bottlerocket";
    case AmiFamily::Custom: return "Custom";
    case AmiFamily::Windows2019: return "Windows2019";
    case AmiFamily::Windows2022: return "Windows2022";
    case AmiFamily::Windows2025: return "Windows2025";
  }
  return "AL2023";
}

AmiFamilyRules rules_of(AmiFamily family) {
  AmiFamilyRules rules;
  switch (family) {
    case AmiFamily::AL2:
    case AmiFamily::AL2023:
      rules.ephemeral_device = "/dev/xvda";
      break;
    case AmiFamily::Custom:  // Karpenter's default family's flags; the AMI's own devices are unknown
      break;
    case AmiFamily::Bottlerocket:
      rules.eni_limited_kube_reserved = false;
      rules.pods_per_core = false;
      rules.ephemeral_device = "/dev/xvdb";  // its data volume; /dev/xvda (4Gi) holds the OS
      break;
    case AmiFamily::Windows2019:
    case AmiFamily::Windows2022:
    case AmiFamily::Windows2025:
      rules.eni_limited_pods = false;
      rules.eni_limited_kube_reserved = false;
      rules.ephemeral_device = "/dev/sda1";
      rules.ephemeral_default_bytes = 50 * kGi;
      rules.windows_build = family == AmiFamily::Windows2019   ? "10.0.17763"
                            : family == AmiFamily::Windows2022 ? "10.0.20348"
                                                               : "10.0.26100";
      break;
  }
  return rules;
}

std::optional<std::string_view> restricted_tag(std::string_view key) {
  // kubernetes.io/cluster/<cluster>: the cloud controller's ownership tag, which Karpenter sets to "owned".
  constexpr std::string_view cluster_prefix = "kubernetes.io/cluster/";
  if (key.starts_with(cluster_prefix) && key.size() > cluster_prefix.size()) return "kubernetes.io/cluster/*";
  for (std::string_view exact :
       {"karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "karpenter.k8s.aws/ec2nodeclass", "eks:eks-cluster-name"}) {
    if (key == exact) return exact;
  }
  return std::nullopt;
}

std::int64_t ephemeral_storage_bytes(const EC2NodeClassSpec& spec, const InstanceHardware& hardware) {
  if (spec.instance_store_raid0 && hardware.local_nvme_gib) return *hardware.local_nvme_gib * 1'000'000'000;
  const AmiFamilyRules rules = rules_of(spec.ami_family);
  const std::vector<BlockDeviceMapping>& mappings = spec.block_device_mappings;
  if (!mappings.empty()) {
    auto root = std::find_if(mappings.begin(), mappings.end(),
                             [](const BlockDeviceMapping& m) { return m.root_volume; });
    if (root != mappings.end() && root->volume_size_bytes) return *root->volume_size_bytes;
    if (spec.ami_family == AmiFamily::Custom) {
      return mappings.back().volume_size_bytes.value_or(rules.ephemeral_default_bytes);
    }
    auto device = std::find_if(mappings.begin(), mappings.end(),
                               [&](const BlockDeviceMapping& m) { return m.device_name == rules.ephemeral_device; });
    if (device != mappings.end() && device->volume_size_bytes) return *device->volume_size_bytes;
  }
  return rules.ephemeral_default_bytes;
}

AllocatableOptions node_options(const EC2NodeClassSpec& spec, const InstanceHardware& hardware,
                                const AllocatableOptions& base) {
  AllocatableOptions options = base;
  const AmiFamilyRules rules = rules_of(spec.ami_family);
  options.eni_limited_pods = rules.eni_limited_pods;
  options.eni_limited_kube_reserved = rules.eni_limited_kube_reserved;
  options.pods_per_core_honoured = rules.pods_per_core;
  options.ephemeral_storage_bytes = ephemeral_storage_bytes(spec, hardware);
  const KubeletConfiguration& kubelet = spec.kubelet;
  options.max_pods = kubelet.max_pods;
  options.pods_per_core = kubelet.pods_per_core;
  options.kube_reserved = kubelet.kube_reserved;
  options.system_reserved = kubelet.system_reserved;
  if (auto memory = kubelet.eviction_hard.find("memory.available"); memory != kubelet.eviction_hard.end()) {
    options.eviction_memory_available = memory->second;
  }
  if (auto nodefs = kubelet.eviction_hard.find("nodefs.available"); nodefs != kubelet.eviction_hard.end()) {
    options.eviction_nodefs_available = nodefs->second;
  }
  return options;
}

Catalog EC2NodeClass::shape(const Catalog& catalog) const {
  const AmiFamilyRules rules = rules_of(spec_.ami_family);
  const bool windows = is_windows(spec_.ami_family);
  std::vector<InstanceType> types;
  types.reserve(catalog.size());
  std::size_t amd64 = 0;
  for (const InstanceType& type : catalog.instance_types()) {
    if (windows && type.hardware.arch != "amd64") continue;  // Windows AMIs are amd64 only
    ++amd64;
    // A Windows node is billed at the type's Windows (License Included) price; a type without one in the region is
    // not offered for Windows, and Windows spot prices are not known: on demand only.
    if (windows && !type.windows_on_demand) continue;
    InstanceType shaped = type;
    if (type.hardware.vcpu > 0) {
      compute_resources(shaped, node_options(spec_, type.hardware, allocatable_options(catalog)));
    }
    if (windows) {
      shaped.labels.set(Symbol(well_known::os), Symbol("windows"));
      shaped.labels.set(Symbol(well_known::windows_build), Symbol(rules.windows_build));
      std::erase_if(shaped.offerings, [](const Offering& o) { return o.capacity_type != CapacityType::OnDemand; });
      for (Offering& o : shaped.offerings) o.price_per_hour = *type.windows_on_demand;
    }
    types.push_back(std::move(shaped));
  }
  const std::size_t kept = types.size();
  Catalog shaped = Catalog::from_instance_types(catalog.region(), catalog.zones(), std::move(types));
  shaped.set_provider_options(catalog.provider_options());
  for (const std::string& note : catalog.notes()) shaped.add_note(note);
  if (windows) {
    shaped.add_note(std::string(kKind) + " " + meta_.name + " (" + std::string(to_string(spec_.ami_family)) +
                    "): " + std::to_string(kept) + " of the region's " + std::to_string(amd64) +
                    " amd64 types have a Windows price in " + catalog.region() +
                    " and are offered for Windows, on demand only (Windows spot prices are not known); the rest are "
                    "not offered for it");
  }
  return shaped;
}

}  // namespace scalewright::cloud::aws
