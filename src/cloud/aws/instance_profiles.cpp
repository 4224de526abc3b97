#include "cloud/aws/instance_profiles.h"

#include <fmt/format.h>

namespace scalewright::cloud::aws {
namespace {

// The roles a profile holds (at most one, as IAM allows), or NoSuchEntity.
AwsResult<std::vector<std::string>> roles_of(const AwsClient& iam, const std::string& profile) {
  FormParams params;
  params.add("InstanceProfileName", profile);
  AwsResult<XmlAnswer> answer = iam.query("GetInstanceProfile", params);
  if (!answer) return answer.error();
  std::vector<std::string> roles;
  for (const pugi::xml_node& role : list_items(answer->result.child("InstanceProfile"), "Roles")) {
    roles.push_back(child_text(role, "RoleName"));
  }
  return roles;
}

AwsResult<bool> call(const AwsClient& iam, std::string_view action, const std::string& profile,
                     const std::string& role) {
  FormParams params;
  params.add("InstanceProfileName", profile);
  if (!role.empty()) params.add("RoleName", role);
  AwsResult<XmlAnswer> answer = iam.query(action, params);
  if (!answer) return answer.error();
  return true;
}

}  // namespace

std::string InstanceProfiles::name_for(const std::string& node_class) const {
  return fmt::format("{}_{}", cluster_, sha256_hex(region_ + "/" + node_class).substr(0, 16));
}

AwsResult<std::string> InstanceProfiles::ensure(const std::string& node_class, const std::string& role) {
  const std::string profile = name_for(node_class);
  {
    std::lock_guard lock(mutex_);
    if (auto known = ensured_.find(profile); known != ensured_.end() && known->second == role) return profile;
  }
  AwsResult<std::vector<std::string>> roles = roles_of(iam_, profile);
  if (!roles && roles.error().code != "NoSuchEntity") return roles.error();
  if (!roles) {
    FormParams params;
    params.add("InstanceProfileName", profile).add("Path", "/");
    const std::vector<std::pair<std::string, std::string>> tags = {{"kubernetes.io/cluster/" + cluster_, "owned"},
                                                                   {"eks:eks-cluster-name", cluster_},
                                                                   {"karpenter.k8s.aws/ec2nodeclass", node_class},
                                                                   {"topology.kubernetes.io/region", region_}};
    for (std::size_t i = 0; i < tags.size(); ++i) {
      params.add(fmt::format("Tags.member.{}.Key", i + 1), tags[i].first);
      params.add(fmt::format("Tags.member.{}.Value", i + 1), tags[i].second);
    }
    AwsResult<XmlAnswer> created = iam_.query("CreateInstanceProfile", params);
    if (!created && created.error().code != "EntityAlreadyExists") return created.error();
    roles = std::vector<std::string>{};
  }
  bool holds = false;
  for (const std::string& held : *roles) {
    if (held == role) {
      holds = true;
      continue;
    }
    // The class names another role now: the profile takes the new one.
    if (AwsResult<bool> removed = call(iam_, "RemoveRoleFromInstanceProfile", profile, held); !removed) {
      return removed.error();
    }
  }
  if (!holds) {
    if (AwsResult<bool> added = call(iam_, "AddRoleToInstanceProfile", profile, role); !added) return added.error();
  }
  std::lock_guard lock(mutex_);
  ensured_[profile] = role;
  return profile;
}

AwsResult<bool> InstanceProfiles::remove(const std::string& node_class) {
  const std::string profile = name_for(node_class);
  {
    std::lock_guard lock(mutex_);
    ensured_.erase(profile);
  }
  AwsResult<std::vector<std::string>> roles = roles_of(iam_, profile);
  if (!roles) return roles.error().code == "NoSuchEntity" ? AwsResult<bool>(true) : roles.error();
  for (const std::string& role : *roles) {
    if (AwsResult<bool> removed = call(iam_, "RemoveRoleFromInstanceProfile", profile, role); !removed) {
      return removed.error();
    }
  }
  AwsResult<bool> deleted = call(iam_, "DeleteInstanceProfile", profile, "");
  if (!deleted && deleted.error().code != "NoSuchEntity") return deleted.error();
  return true;
}

}  // namespace scalewright::cloud::aws
