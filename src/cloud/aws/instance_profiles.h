#pragma once
// The instance profiles Karpenter's AWS provider makes for an EC2NodeClass that names a `role` (its
// instanceprofile provider): one per class and cluster, named `<cluster>_<hash of region and class>`, tagged as the
// cluster's, holding the class's role (replaced when the class names another), and deleted with the class. An
// instance launches with a profile, not a role: this is what lets a Karpenter user's EC2NodeClass apply unchanged.
#include <map>
#include <mutex>
#include <string>

#include "cloud/aws/aws_client.h"

namespace scalewright::cloud::aws {

class InstanceProfiles {
 public:
  // `iam` outlives this.
  InstanceProfiles(const AwsClient& iam, std::string cluster, std::string region)
      : iam_(iam), cluster_(std::move(cluster)), region_(std::move(region)) {}

  // The profile's name for node class `node_class`: "<cluster>_<16 hex digits>", the same on every run.
  std::string name_for(const std::string& node_class) const;
  // Makes the class's profile when it is missing, and gives it `role` (alone); its name.
  AwsResult<std::string> ensure(const std::string& node_class, const std::string& role);
  // Takes its role out of the class's profile and deletes it; a profile already gone is done.
  AwsResult<bool> remove(const std::string& node_class);

 private:
  const AwsClient& iam_;
  std::string cluster_;
  std::string region_;
  std::mutex mutex_;
  std::map<std::string, std::string> ensured_;  // profile -> the role it is known to hold
};

}  // namespace scalewright::cloud::aws
