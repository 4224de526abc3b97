#pragma once
// The cloud of `scalewright run --dry-run`: the real provider's catalog and groups, and launches, terminations and
// group resizes that are logged, not carried out. The controllers decide as they would; nothing is created or
// deleted (a group's raise launches no instance, so no node of it is tracked).
#include <map>
#include <mutex>
#include <string>

#include "cloud/cloud_provider.h"
#include "cloud/node_group_provider.h"

namespace scalewright::cluster {

class DryRunCloud final : public cloud::CloudProvider, public cloud::NodeGroupProvider {
 public:
  DryRunCloud(const cloud::CloudProvider& real, const cloud::NodeGroupProvider& real_groups)
      : real_(real), real_groups_(real_groups) {}

  const cloud::Catalog& catalog() const override { return real_.catalog(); }
  cloud::CloudResult<const cloud::Catalog*> instance_types(const NodePool& pool) const override {
    return real_.instance_types(pool);
  }
  cloud::CloudResult<cloud::Created> create(const cloud::CreateRequest& request) override;
  cloud::CloudResult<cloud::Deleted> terminate(const std::string& instance_id) override;
  cloud::CloudResult<cloud::Instance> get(const std::string& instance_id) const override;
  cloud::CloudResult<std::vector<cloud::Instance>> list() const override;
  cloud::CloudResult<std::string> is_drifted(const cloud::ClaimedInstance& claim) const override {
    return real_.is_drifted(claim);
  }
  std::vector<cloud::RepairStatement> repair_policies() const override { return real_.repair_policies(); }

  cloud::CloudResult<std::int32_t> target_size(const std::string& group) const override {
    return real_groups_.target_size(group);
  }
  cloud::CloudResult<std::vector<cloud::GroupInstance>> increase_size(const std::string& group,
                                                                     std::int32_t delta) override;
  cloud::CloudResult<cloud::Deleted> delete_nodes(const std::string& group,
                                                  const std::vector<std::string>& instance_ids) override;
  cloud::CloudResult<cloud::Deleted> decrease_target_size(const std::string& group, std::int32_t delta) override;
  cloud::CloudResult<std::vector<cloud::GroupInstance>> nodes(const std::string& group) const override {
    return real_groups_.nodes(group);
  }

 private:
  const cloud::CloudProvider& real_;
  const cloud::NodeGroupProvider& real_groups_;
  // What would be running. Launches are made on `run`'s launch workers while the loop terminates and lists.
  mutable std::mutex mutex_;
  std::map<std::string, cloud::Instance> launched_;
};

}  // namespace scalewright::cluster
