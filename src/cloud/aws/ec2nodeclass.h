#pragma once
// Karpenter's EC2NodeClass (karpenter.k8s.aws/v1): what of it shapes a node, and the shapes Karpenter's AWS provider
// computes from it (pkg/providers/instancetype/types.go): the kubelet's maxPods, podsPerCore, kubeReserved,
// systemReserved and evictionHard, the root volume of blockDeviceMappings, instanceStorePolicy RAID0 and the AMI
// family's rules. The rest of it (subnets, security groups, AMIs, roles, tags, user data) is checked as its CRD
// checks it where the shape needs it, and otherwise not read: the simulated cloud has no VPC.
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/meta.h"
#include "cloud/aws/allocatable.h"
#include "cloud/node_class.h"

namespace scalewright::cloud::aws {

inline constexpr std::string_view kGroup = "karpenter.k8s.aws";
inline constexpr std::string_view kKind = "EC2NodeClass";

enum class AmiFamily { AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025 };
std::string_view to_string(AmiFamily family);

// What an AMI family decides of a node's resources (Karpenter's amifamily FeatureFlags and default block devices).
struct AmiFamilyRules {
  bool eni_limited_pods = true;           // SupportsENILimitedPodDensity: else 110 pods
  bool eni_limited_kube_reserved = true;  // UsesENILimitedMemoryOverhead
  bool pods_per_core = true;              // PodsPerCoreEnabled
  std::string ephemeral_device;           // the device pods' storage is on ("" for Custom: unknown)
  std::int64_t ephemeral_default_bytes = std::int64_t{20} << 30;  // its size when no mapping names it
  std::string windows_build;              // node.kubernetes.io/windows-build; empty for Linux families
};
AmiFamilyRules rules_of(AmiFamily family);

struct KubeletConfiguration {
  std::optional<std::int64_t> max_pods;
  std::optional<std::int64_t> pods_per_core;
  std::vector<std::pair<Symbol, std::int64_t>> kube_reserved;  // in each resource's unit
  ResourceList system_reserved;
  // By eviction signal (memory.available, nodefs.available, ...). Only evictionHard bounds allocatable: evictionSoft
  // is a warning threshold, as Karpenter reads it.
  std::map<std::string, EvictionThreshold> eviction_hard;
  std::map<std::string, EvictionThreshold> eviction_soft;
};

struct BlockDeviceMapping {
  std::string device_name;
  std::optional<std::int64_t> volume_size_bytes;
  bool root_volume = false;
  // The rest of its ebs block, passed to the launch template as given (unset: EC2's default).
  std::string volume_type;
  std::optional<bool> encrypted;
  std::optional<bool> delete_on_termination;
  std::optional<std::int64_t> iops;
  std::optional<std::int64_t> throughput;
  std::string kms_key_id;
  std::string snapshot_id;
};

// One term of subnetSelectorTerms, securityGroupSelectorTerms or amiSelectorTerms: the AWS resources matching all
// it sets (tags: every key, with its value, "*" for any), the terms of a list or'ed together.
struct SelectorTerm {
  std::vector<std::pair<std::string, std::string>> tags;
  std::string id;
  std::string name;
  std::string owner;          // AMIs: an account id, "self" or "amazon"
  std::string alias;          // AMIs: "al2023@latest", resolved through SSM's public parameters
  std::string ssm_parameter;  // AMIs: a parameter whose value is an AMI id
};

// The instance metadata service as the node's launch template sets it (Karpenter's defaults: IMDSv2 only, one hop,
// so that pods cannot reach the node's role).
struct MetadataOptions {
  std::string http_endpoint = "enabled";
  std::string http_protocol_ipv6 = "disabled";
  std::int64_t http_put_response_hop_limit = 1;
  std::string http_tokens = "required";
};

struct EC2NodeClassSpec {
  AmiFamily ami_family = AmiFamily::AL2023;
  KubeletConfiguration kubelet;
  std::vector<BlockDeviceMapping> block_device_mappings;
  bool instance_store_raid0 = false;  // instanceStorePolicy: RAID0
  // What a launch asks AWS for: where (subnets, security groups), what it boots (AMIs, user data), as whom (a role
  // Karpenter makes an instance profile for, or an instance profile) and how it is tagged.
  std::vector<SelectorTerm> subnet_selector_terms;
  std::vector<SelectorTerm> security_group_selector_terms;
  std::vector<SelectorTerm> ami_selector_terms;
  std::string role;
  std::string instance_profile;
  std::vector<std::pair<std::string, std::string>> tags;
  std::optional<std::string> user_data;
  MetadataOptions metadata_options;
  std::optional<bool> associate_public_ip_address;
  bool detailed_monitoring = false;
};

// The tag keys Karpenter sets itself on what it launches, which an EC2NodeClass's tags may not name (its CRD's
// restricted tag patterns): the pattern `key` matches, or nullopt.
std::optional<std::string_view> restricted_tag(std::string_view key);

// The ephemeral storage of a node of `hardware` under `spec`, as Karpenter computes it: the NVMe instance store
// with RAID0 (decimal GB, as EC2 reports TotalSizeInGB); else the volume of the mapping marked rootVolume; else
// (Custom) the last mapping's; else the mapping of the family's ephemeral device; else the family's default.
std::int64_t ephemeral_storage_bytes(const EC2NodeClassSpec& spec, const InstanceHardware& hardware);

// `base` (the catalog's options) with what `spec` changes for a node of `hardware`.
AllocatableOptions node_options(const EC2NodeClassSpec& spec, const InstanceHardware& hardware,
                                const AllocatableOptions& base);

class EC2NodeClass final : public NodeClass {
 public:
  EC2NodeClass(ObjectMeta meta, EC2NodeClassSpec spec) : meta_(std::move(meta)), spec_(std::move(spec)) {}

  const ObjectMeta& meta() const { return meta_; }
  const EC2NodeClassSpec& spec() const { return spec_; }

  NodeClassReference reference() const override {
    return {std::string(kGroup), std::string(kKind), meta_.name};
  }
  // Each type's capacity, overhead and allocatable from its hardware (a type without hardware facts, as a test's
  // catalog gives them, is kept as it is). A Windows family runs only amd64 types, labelled
  // kubernetes.io/os=windows and node.kubernetes.io/windows-build.
  Catalog shape(const Catalog& catalog) const override;

 private:
  ObjectMeta meta_;
  EC2NodeClassSpec spec_;
};

}  // namespace scalewright::cloud::aws

namespace scalewright::manifest {
class Field;
}

namespace scalewright::cloud::aws {

// Decodes a karpenter.k8s.aws EC2NodeClass (v1, and v1beta1 alike), refusing what its CRD and Karpenter's
// validation of spec.kubelet refuse, through Field's errors. A kubelet value that is a CEL expression (Karpenter's
// NodeClassCEL feature gate, off by default) is not honoured, as with the gate off: it gets a warning in `warnings`.
std::shared_ptr<const EC2NodeClass> decode_ec2nodeclass(const manifest::Field& object,
                                                        std::vector<std::string>& warnings);

}  // namespace scalewright::cloud::aws
