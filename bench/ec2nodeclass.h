#pragma once
// The EC2NodeClass "default" the benchmarks' NodePools name (nodeClassRef): AL2023 with its defaults, so that nodes
// have the catalog's own shapes. One YAML document, ending with its "---".
#include <string>

namespace scalewright::bench {

inline const std::string kEc2NodeClass = R"(apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole-bench
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: bench}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: bench}}]
---
)";

}  // namespace scalewright::bench
