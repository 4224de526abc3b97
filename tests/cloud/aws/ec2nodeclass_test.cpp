// EC2NodeClass read from the files users write, and the node shapes it gives, checked against Karpenter's formulas
// (karpenter-provider-aws pkg/providers/instancetype/types.go) by hand on three types:
//
//   type        vCPU  memory    ENI-limited pods  NVMe instance store   capacity memory (less 7.5 %; arm64 less 64)
//   m5.large      2   8192 MiB        29                 -               8192 − 615 = 7577 MiB
//   m5d.large     2   8192 MiB        29             75 GB (decimal)     7577 MiB
//   m6g.large     2   8192 MiB        29 (arm64)         -               8128 − 610 = 7518 MiB
//
// The defaults (AL2023, no kubelet settings, no block devices): cpu 2000 − 70 = 1930m; memory 7577 − (11 × 29 + 255
// = 574) − 100 (eviction) = 6903 MiB; pods 29; ephemeral-storage 20Gi − 1Gi − 10 % = 17Gi.
#include "cloud/aws/ec2nodeclass.h"

#include <gtest/gtest.h>

#include "cloud/aws/ec2nodeclass_controller.h"
#include "cloud/aws/instance_types.h"
#include "manifest/manifest.h"
#include "units.h"

namespace scalewright::cloud::aws {
namespace {

InstanceHardware hardware(std::int64_t vcpu, std::int64_t memory_mib, std::int64_t max_pods, std::string arch,
                          std::optional<std::int64_t> nvme_gib = std::nullopt) {
  InstanceHardware hw;
  hw.vcpu = vcpu;
  hw.memory_mib = memory_mib;
  hw.max_pods = max_pods;
  hw.arch = std::move(arch);
  hw.local_nvme_gib = nvme_gib;
  return hw;
}

Catalog three_types() {
  std::vector<Zone> zones{{"us-east-1a", "use1-az1"}};
  std::vector<InstanceType> types{make_instance_type("m5.large", hardware(2, 8192, 29, "amd64")),
                                  make_instance_type("m5d.large", hardware(2, 8192, 29, "amd64", 75)),
                                  make_instance_type("m6g.large", hardware(2, 8192, 29, "arm64"))};
  for (InstanceType& t : types) add_offerings(t, zones, 0.1, 0.04);
  types[0].windows_on_demand = 0.188;  // m5.large; m5d.large has no Windows price here, m6g.large (arm64) none
  return Catalog::from_instance_types("us-east-1", zones, std::move(types));
}

const std::string kHead = R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: nc}
spec:
  role: KarpenterNodeRole-demo
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
)";

// The EC2NodeClass of `spec` (indented as spec's fields), with an al2023 alias unless `spec` names its AMIs.
std::string with_amis(const std::string& spec) {
  return kHead +
         (spec.find("amiSelectorTerms") == std::string::npos ? "  amiSelectorTerms: [{alias: al2023@latest}]\n" : "") +
         spec;
}

NodeClassPtr node_class(const std::string& spec, std::vector<std::string>* warnings = nullptr) {
  Result<ManifestSet> set = decode_manifests(with_amis(spec), "nc.yaml");
  EXPECT_TRUE(set.ok()) << (set.ok() ? "" : set.error().message);
  if (!set.ok() || set->node_classes.size() != 1) return nullptr;
  if (warnings != nullptr) *warnings = set->warnings;
  return set->node_classes[0];
}

struct Shape {
  std::int64_t cpu_milli;
  std::int64_t memory;
  std::int64_t pods;
  std::int64_t ephemeral_storage;
};

Shape allocatable(const Catalog& shaped, std::string_view type) {
  const InstanceType* t = shaped.find(type);
  EXPECT_NE(t, nullptr) << type;
  if (t == nullptr) return {};
  return {t->allocatable.cpu_milli(), t->allocatable.memory(), t->allocatable.pods(),
          t->allocatable.ephemeral_storage()};
}

TEST(EC2NodeClass, ShapesNodesAsKarpentersAwsProviderComputesThem) {
  const Catalog catalog = three_types();
  struct Case {
    std::string spec;
    std::string type;
    Shape expected;
  };
  const Case cases[] = {
      // The defaults: the catalog's own figures.
      {"", "m5.large", {1930, 6903 * kMi, 29, 17 * kGi}},
      {"", "m6g.large", {1930, 6844 * kMi, 29, 17 * kGi}},
      // maxPods 110 on AL2023: 110 pods, but kube-reserved memory still counts the 29 the ENIs allow.
      {"  kubelet: {maxPods: 110}\n", "m5.large", {1930, 6903 * kMi, 110, 17 * kGi}},
      // Bottlerocket counts the pods it takes: 7577 − (11 × 110 + 255 = 1465) − 100 = 6012 MiB.
      {"  amiSelectorTerms: [{alias: bottlerocket@latest}]\n  kubelet: {maxPods: 110}\n", "m5.large",
       {1930, 6012 * kMi, 110, 17 * kGi}},
      // podsPerCore 4: min(4 × 2, 29) = 8 pods; Bottlerocket does not apply it.
      {"  kubelet: {podsPerCore: 4}\n", "m5.large", {1930, 6903 * kMi, 8, 17 * kGi}},
      {"  amiSelectorTerms: [{alias: bottlerocket@latest}]\n  kubelet: {podsPerCore: 4}\n", "m5.large",
       {1930, 6903 * kMi, 29, 17 * kGi}},
      // kubeReserved replaces what it names: cpu 2000 − 200; memory 7577 − 1024 − 100 = 6453 MiB.
      {"  kubelet: {kubeReserved: {cpu: 200m, memory: 1Gi}}\n", "m5.large", {1800, 6453 * kMi, 29, 17 * kGi}},
      // systemReserved comes on top: 6903 − 100 = 6803 MiB, 1930 − 100 = 1830m.
      {"  kubelet: {systemReserved: {cpu: 100m, memory: 100Mi}}\n", "m5.large", {1830, 6803 * kMi, 29, 17 * kGi}},
      // evictionHard: memory 5 % of 7577 MiB = ceil(397253017.6) bytes instead of 100 MiB; nodefs 15 % of 20Gi
      // (3Gi): 20 − 1 − 3 = 16Gi.
      {"  kubelet: {evictionHard: {memory.available: 5%, nodefs.available: 15%}}\n", "m5.large",
       {1930, (7577 - 574) * kMi - 397253018, 29, 16 * kGi}},
      // evictionHard as an amount: 500Mi: 7577 − 574 − 500 = 6503 MiB.
      {"  kubelet: {evictionHard: {memory.available: 500Mi}}\n", "m5.large", {1930, 6503 * kMi, 29, 17 * kGi}},
      // evictionSoft is a warning threshold: it does not bound allocatable.
      {"  kubelet: {evictionSoft: {memory.available: 50%}, evictionSoftGracePeriod: {memory.available: 1m}}\n",
       "m5.large", {1930, 6903 * kMi, 29, 17 * kGi}},
      // The root volume: 100Gi, so 100 − 1 − 10 = 89Gi.
      {"  blockDeviceMappings:\n  - {deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi}}\n",
       "m5.large", {1930, 6903 * kMi, 29, 89 * kGi}},
      // No rootVolume flag: the AMI family's root device; AL2023's is /dev/xvda (50Gi: 50 − 1 − 5 = 44Gi) ...
      {"  blockDeviceMappings:\n  - {deviceName: /dev/xvda, ebs: {volumeSize: 50Gi}}\n", "m5.large",
       {1930, 6903 * kMi, 29, 44 * kGi}},
      // ... so a mapping of another device leaves the default 20Gi; Bottlerocket's is its data volume /dev/xvdb.
      {"  blockDeviceMappings:\n  - {deviceName: /dev/xvdb, ebs: {volumeSize: 50Gi}}\n", "m5.large",
       {1930, 6903 * kMi, 29, 17 * kGi}},
      {"  amiSelectorTerms: [{alias: bottlerocket@latest}]\n  blockDeviceMappings:\n"
       "  - {deviceName: /dev/xvdb, ebs: {volumeSize: 50Gi}}\n",
       "m5.large", {1930, 6903 * kMi, 29, 44 * kGi}},
      // RAID0 over the instance store: m5d.large's 75 GB (75 × 10^9 bytes) less 1Gi and 10 %; m5.large has none and
      // keeps its root volume.
      {"  instanceStorePolicy: RAID0\n", "m5d.large",
       {1930, 6903 * kMi, 29, 75'000'000'000 - kGi - 7'500'000'000}},
      {"  instanceStorePolicy: RAID0\n", "m5.large", {1930, 6903 * kMi, 29, 17 * kGi}},
      // Windows: 110 pods (no ENI limit), kube-reserved for them (1465 MiB), a 50Gi root volume (44Gi left).
      {"  amiSelectorTerms: [{alias: windows2022@latest}]\n", "m5.large", {1930, 6012 * kMi, 110, 44 * kGi}},
  };
  for (const Case& c : cases) {
    NodeClassPtr nc = node_class(c.spec);
    if (nc == nullptr) continue;
    const Shape got = allocatable(nc->shape(catalog), c.type);
    EXPECT_EQ(got.cpu_milli, c.expected.cpu_milli) << c.type << "\n" << c.spec;
    EXPECT_EQ(got.memory, c.expected.memory) << c.type << "\n" << c.spec;
    EXPECT_EQ(got.pods, c.expected.pods) << c.type << "\n" << c.spec;
    EXPECT_EQ(got.ephemeral_storage, c.expected.ephemeral_storage) << c.type << "\n" << c.spec;
  }
}

TEST(EC2NodeClass, AWindowsFamilyRunsAmd64TypesWithAWindowsPriceOnDemandAtThatPrice) {
  NodeClassPtr nc = node_class("  amiSelectorTerms: [{alias: windows2022@latest}]\n");
  ASSERT_NE(nc, nullptr);
  const Catalog shaped = nc->shape(three_types());
  EXPECT_EQ(shaped.find("m6g.large"), nullptr);  // arm64: no Windows AMI
  EXPECT_EQ(shaped.find("m5d.large"), nullptr);  // no Windows price in the region: not offered for Windows
  const InstanceType* m5 = shaped.find("m5.large");
  ASSERT_NE(m5, nullptr);
  EXPECT_EQ(m5->labels.find(Symbol("kubernetes.io/os"))->str(), "windows");
  EXPECT_EQ(m5->labels.find(Symbol("node.kubernetes.io/windows-build"))->str(), "10.0.20348");
  // On demand only, at the Windows price: Windows spot prices are not known.
  ASSERT_EQ(m5->offerings.size(), 1u);
  EXPECT_EQ(m5->offerings[0].capacity_type, CapacityType::OnDemand);
  EXPECT_EQ(m5->offerings[0].price_per_hour, 0.188);
  EXPECT_EQ(shaped.notes(),
            std::vector<std::string>{"EC2NodeClass nc (Windows2022): 1 of the region's 2 amd64 types have a Windows "
                                     "price in us-east-1 and are offered for Windows, on demand only (Windows spot "
                                     "prices are not known); the rest are not offered for it"});
  EXPECT_EQ(nc->reference(), (NodeClassReference{"karpenter.k8s.aws", "EC2NodeClass", "nc"}));
}

TEST(EC2NodeClass, ACelExpressionIsNotAppliedAsWithKarpentersGateOff) {
  std::vector<std::string> warnings;
  NodeClassPtr nc = node_class("  kubelet: {maxPods: \"max_pods * 2\", kubeReserved: {cpu: \"vcpus * 10\"}}\n",
                               &warnings);
  ASSERT_NE(nc, nullptr);
  EXPECT_EQ(allocatable(nc->shape(three_types()), "m5.large").pods, 29);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_EQ(warnings[0], "nc.yaml doc 1 EC2NodeClass/nc: spec.kubelet.maxPods: \"max_pods * 2\" is a CEL expression "
                         "(Karpenter's NodeClassCEL feature gate, off by default): not applied");
}

TEST(EC2NodeClass, EveryUpstreamFieldPassesStrictValidationAndAMisspeltOneIsRefused) {
  // An EC2NodeClass using the fields Karpenter's docs show that shape no node here (networking, identity, tags,
  // metadata options, user data, reservations, the other kubelet and EBS settings): strict field validation accepts
  // them as the CRD does; a misspelt field is refused with its path, as kubectl refuses it.
  const std::string full = R"(  amiSelectorTerms: [{tags: {karpenter.sh/discovery: demo}, owner: self}, {name: my-ami, owner: amazon}]
  amiFamily: AL2023
  associatePublicIPAddress: false
  detailedMonitoring: true
  context: ctx
  tags: {team: a}
  userData: |
    echo hello
  metadataOptions: {httpEndpoint: enabled, httpProtocolIPv6: disabled, httpPutResponseHopLimit: 1, httpTokens: required}
  capacityReservationSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  kubelet: {clusterDNS: [10.0.1.100], cpuCFSQuota: true, evictionMaxPodGracePeriod: 60, maxPods: 110}
  blockDeviceMappings:
  - deviceName: /dev/xvda
    rootVolume: true
    ebs: {volumeSize: 100Gi, volumeType: gp3, iops: 10000, throughput: 125, encrypted: true, deleteOnTermination: true,
          kmsKeyID: "arn:aws:kms:us-east-1:111122223333:key/1"}
)";
  EXPECT_NE(node_class(full), nullptr);
  Result<ManifestSet> misspelt = decode_manifests(with_amis("  detailedMonitorng: true\n"), "nc.yaml");
  ASSERT_FALSE(misspelt.ok());
  EXPECT_EQ(misspelt.error().message, "nc.yaml doc 1 EC2NodeClass/nc: unknown field \"spec.detailedMonitorng\"");
}

TEST(EC2NodeClass, WhatItsCrdAndKarpentersKubeletValidationRefuseIsRefusedNamingTheField) {
  struct Case {
    std::string spec;
    std::string error;
  };
  const std::string at = "nc.yaml doc 1 EC2NodeClass/nc: ";
  const Case cases[] = {
      {"  amiSelectorTerms: [{alias: ubuntu@latest}]\n",
       "spec.amiSelectorTerms[0].alias: family is not supported, must be one of the following: 'al2', 'al2023', "
       "'bottlerocket', 'windows2019', 'windows2022', 'windows2025'"},
      {"  amiSelectorTerms: [{alias: windows2022@2024.01}]\n",
       "spec.amiSelectorTerms[0].alias: windows families may only specify version 'latest'"},
      {"  amiSelectorTerms: [{alias: al2023}]\n",
       "spec.amiSelectorTerms[0].alias: 'alias' is improperly formatted, must match the format 'family@version'"},
      {"  amiSelectorTerms: [{id: ami-0123}]\n",
       "spec.amiFamily: must specify amiFamily if amiSelectorTerms does not contain an alias"},
      {"  amiFamily: Bottlerocket\n  amiSelectorTerms: [{alias: al2023@latest}]\n",
       "spec.amiFamily: if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias"},
      {"  kubelet: {maxPods: -1}\n", "spec.kubelet.maxPods: -1 can't be negative"},
      {"  kubelet: {kubeReserved: {gpu: \"1\"}}\n",
       "spec.kubelet.kubeReserved.gpu: \"gpu\" isn't a reservable resource, must be one of cpu, memory, "
       "ephemeral-storage, pid"},
      {"  kubelet: {evictionHard: {memory.free: 5%}}\n",
       "spec.kubelet.evictionHard.memory.free: \"memory.free\" isn't a valid eviction signal, must be one of "
       "memory.available, nodefs.available, nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available"},
      {"  kubelet: {evictionHard: {memory.available: 150%}}\n",
       "spec.kubelet.evictionHard.memory.available: \"150%\" must be a percentage or a resource quantity"},
      {"  kubelet: {evictionSoft: {memory.available: 5%}}\n",
       "spec.kubelet.evictionSoft.memory.available: has no matching evictionSoftGracePeriod"},
      {"  blockDeviceMappings:\n  - {rootVolume: true, ebs: {volumeSize: 20Gi}}\n"
       "  - {rootVolume: true, ebs: {volumeSize: 30Gi}}\n",
       "spec.blockDeviceMappings: must have only one blockDeviceMappings with rootVolume"},
      {"  blockDeviceMappings:\n  - {deviceName: /dev/xvda, ebs: {volumeSize: 70000Gi}}\n",
       "spec.blockDeviceMappings[0].ebs.volumeSize: must be a whole size in Gi, G, Ti or T up to 59000Gi, 64000G, "
       "58Ti or 64T, got \"70000Gi\""},
      {"  blockDeviceMappings:\n  - {deviceName: /dev/xvda, ebs: {volumeType: gp3}}\n",
       "spec.blockDeviceMappings[0].ebs: snapshotID or volumeSize must be defined"},
      {"  instanceStorePolicy: RAID5\n",
       "spec.instanceStorePolicy: unknown instance store policy \"RAID5\" (expected RAID0)"},
      {"  tags: {karpenter.sh/nodepool: mine}\n",
       "spec.tags.karpenter.sh/nodepool: tag contains a restricted tag matching karpenter.sh/nodepool"},
      {"  tags: {kubernetes.io/cluster/demo: owned}\n",
       "spec.tags.kubernetes.io/cluster/demo: tag contains a restricted tag matching kubernetes.io/cluster/*"},
      {"  metadataOptions: {httpPutResponseHopLimit: 65}\n",
       "spec.metadataOptions.httpPutResponseHopLimit: must be between 1 and 64"},
  };
  for (const Case& c : cases) {
    Result<ManifestSet> set = decode_manifests(with_amis(c.spec), "nc.yaml");
    ASSERT_FALSE(set.ok()) << c.spec;
    EXPECT_EQ(set.error().message, at + c.error) << c.spec;
  }
  // role and instanceProfile: exactly one.
  Result<ManifestSet> both =
      decode_manifests(with_amis("  instanceProfile: KarpenterNodeInstanceProfile\n"), "nc.yaml");
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.error().message, at + "spec: must specify exactly one of ['role', 'instanceProfile']");
}

// What a launch asks AWS for is read as written: the selector terms (or'ed, each term's fields and'ed), the
// identity, the tags and the launch template's settings; Karpenter's defaults where the file is silent.
TEST(EC2NodeClass, WhatALaunchAsksAwsForIsReadAsWritten) {
  const std::string spec = R"(  amiSelectorTerms: [{tags: {team: a}, owner: self}, {name: my-ami, owner: amazon}, {ssmParameter: /my/ami}]
  amiFamily: AL2023
  tags: {team: a, cost-center: "42"}
  userData: |
    echo hello
  metadataOptions: {httpTokens: optional, httpPutResponseHopLimit: 2}
  blockDeviceMappings:
  - deviceName: /dev/xvda
    rootVolume: true
    ebs: {volumeSize: 100Gi, volumeType: gp3, iops: 10000, throughput: 125, encrypted: true}
)";
  Result<ManifestSet> set = decode_manifests(with_amis(spec), "nc.yaml");
  ASSERT_TRUE(set.ok()) << set.error().message;
  const auto& node_class = dynamic_cast<const EC2NodeClass&>(*set->node_classes.at(0)).spec();
  ASSERT_EQ(node_class.subnet_selector_terms.size(), 1u);
  EXPECT_EQ(node_class.subnet_selector_terms[0].tags,
            (std::vector<std::pair<std::string, std::string>>{{"karpenter.sh/discovery", "demo"}}));
  ASSERT_EQ(node_class.ami_selector_terms.size(), 3u);
  EXPECT_EQ(node_class.ami_selector_terms[0].owner, "self");
  EXPECT_EQ(node_class.ami_selector_terms[1].name, "my-ami");
  EXPECT_EQ(node_class.ami_selector_terms[2].ssm_parameter, "/my/ami");
  EXPECT_EQ(node_class.role, "KarpenterNodeRole-demo");
  EXPECT_EQ(node_class.instance_profile, "");
  EXPECT_EQ(node_class.tags, (std::vector<std::pair<std::string, std::string>>{{"team", "a"}, {"cost-center", "42"}}));
  EXPECT_EQ(node_class.user_data, std::optional<std::string>("echo hello\n"));
  EXPECT_EQ(node_class.metadata_options.http_tokens, "optional");
  EXPECT_EQ(node_class.metadata_options.http_put_response_hop_limit, 2);
  EXPECT_EQ(node_class.metadata_options.http_endpoint, "enabled");  // Karpenter's default
  const BlockDeviceMapping& root = node_class.block_device_mappings.at(0);
  EXPECT_EQ(root.volume_size_bytes, std::int64_t{100} << 30);
  EXPECT_EQ(root.volume_type, "gp3");
  EXPECT_EQ(root.iops, 10000);
  EXPECT_EQ(root.encrypted, std::optional<bool>(true));
  EXPECT_EQ(root.delete_on_termination, std::nullopt);

  Result<ManifestSet> alias = decode_manifests(with_amis(""), "nc.yaml");
  ASSERT_TRUE(alias.ok());
  EXPECT_EQ(dynamic_cast<const EC2NodeClass&>(*alias->node_classes.at(0)).spec().ami_selector_terms.at(0).alias,
            "al2023@latest");
}

}  // namespace
}  // namespace scalewright::cloud::aws

namespace scalewright::cloud::aws {
namespace {

// The static drift hash leaves the selector terms out (what they resolve to drifts on its own) and reads the rest
// of the spec, however its keys were written.
TEST(EC2NodeClass, ItsSpecHashLeavesTheSelectorTermsOutAndChangesWithAnythingElse) {
  const nlohmann::json spec = nlohmann::json::parse(R"({
    "role": "KarpenterNodeRole-demo", "userData": "echo hello",
    "amiSelectorTerms": [{"alias": "al2023@latest"}],
    "subnetSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}],
    "securityGroupSelectorTerms": [{"tags": {"karpenter.sh/discovery": "demo"}}]})");
  const std::string hash = ec2nodeclass_hash(spec);
  EXPECT_EQ(hash.size(), 16u);

  nlohmann::json other_selectors = spec;
  other_selectors["amiSelectorTerms"] = {{{"id", "ami-0123456789abcdef0"}}};
  other_selectors["subnetSelectorTerms"] = {{{"id", "subnet-0abc"}}};
  other_selectors["securityGroupSelectorTerms"] = {{{"name", "nodes"}}};
  other_selectors["capacityReservationSelectorTerms"] = {{{"id", "cr-0abc"}}};
  EXPECT_EQ(ec2nodeclass_hash(other_selectors), hash);
  EXPECT_EQ(ec2nodeclass_hash(nlohmann::json::parse(
                R"({"userData": "echo hello", "securityGroupSelectorTerms": [], "role": "KarpenterNodeRole-demo"})")),
            hash);

  nlohmann::json other_user_data = spec;
  other_user_data["userData"] = "echo bye";
  EXPECT_NE(ec2nodeclass_hash(other_user_data), hash);
  nlohmann::json tagged = spec;
  tagged["tags"] = {{"team", "platform"}};
  EXPECT_NE(ec2nodeclass_hash(tagged), hash);
}

}  // namespace
}  // namespace scalewright::cloud::aws
