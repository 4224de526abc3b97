#pragma once
// The cloud of `scalewright run --dry-run`: the real provider's catalog, and launches and terminations that are
// logged, not carried out. The controllers decide as they would; nothing is created or deleted.
#include <map>
#include <string>

#include "cloud/cloud_provider.h"

namespace scalewright::cluster {

class DryRunCloud final : public cloud::CloudProvider {
 public:
  explicit DryRunCloud(const cloud::CloudProvider& real) : real_(real) {}

  const cloud::Catalog& catalog() const override { return real_.catalog(); }
  cloud::CloudResult<const cloud::Catalog*> instance_types(const NodePool& pool) const override {
    return real_.instance_types(pool);
  }
  cloud::CloudResult<cloud::Created> create(const cloud::CreateRequest& request) override;
  cloud::CloudResult<cloud::Deleted> terminate(const std::string& instance_id) override;
  cloud::CloudResult<cloud::Instance> get(const std::string& instance_id) const override;
  cloud::CloudResult<std::vector<cloud::Instance>> list() const override;

 private:
  const cloud::CloudProvider& real_;
  std::map<std::string, cloud::Instance> launched_;  // what would be running
};

}  // namespace scalewright::cluster
