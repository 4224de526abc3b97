#pragma once
// Any provider, measured (Karpenter's cloudprovider/metrics decorator): every call of both ports is timed into
// karpenter_cloudprovider_duration_seconds{method, provider}, and each one that fails is counted into
// karpenter_cloudprovider_errors_total{method, provider, error} by its error class, so a dashboard built for
// Karpenter reads Scalewright's calls to AWS, Azure or kwok alike. The calls are passed through unchanged.
#include <string>

#include "cloud/cloud_provider.h"
#include "cloud/node_group_provider.h"
#include "ops/metrics.h"

namespace scalewright::cluster {

class MeteredCloud final : public cloud::CloudProvider, public cloud::NodeGroupProvider {
 public:
  MeteredCloud(cloud::CloudProvider& inner, cloud::NodeGroupProvider& groups, std::string provider,
               ops::MetricsRegistry& registry);

  const cloud::Catalog& catalog() const override { return inner_.catalog(); }
  cloud::CloudResult<const cloud::Catalog*> instance_types(const NodePool& pool) const override;
  cloud::CloudResult<cloud::Created> create(const cloud::CreateRequest& request) override;
  cloud::CloudResult<cloud::Deleted> terminate(const std::string& instance_id) override;
  cloud::CloudResult<cloud::Instance> get(const std::string& instance_id) const override;
  cloud::CloudResult<std::vector<cloud::Instance>> list() const override;
  cloud::CloudResult<std::string> is_drifted(const cloud::ClaimedInstance& claim) const override;
  // Not a call to the cloud: the provider's constant answer, not metered.
  std::vector<cloud::RepairStatement> repair_policies() const override { return inner_.repair_policies(); }

  cloud::CloudResult<std::int32_t> target_size(const std::string& group) const override;
  cloud::CloudResult<std::vector<cloud::GroupInstance>> increase_size(const std::string& group,
                                                                     std::int32_t delta) override;
  cloud::CloudResult<cloud::Deleted> delete_nodes(const std::string& group,
                                                  const std::vector<std::string>& instance_ids) override;
  cloud::CloudResult<cloud::Deleted> decrease_target_size(const std::string& group, std::int32_t delta) override;
  cloud::CloudResult<std::vector<cloud::GroupInstance>> nodes(const std::string& group) const override;

 private:
  // Times `call` as `method` and counts its error, if any; returns its result.
  template <typename Call>
  auto measure(const char* method, Call&& call) const;

  cloud::CloudProvider& inner_;
  cloud::NodeGroupProvider& groups_;
  std::string provider_;
  ops::HistogramFamily& duration_;
  ops::CounterFamily& errors_;
};

}  // namespace scalewright::cluster
