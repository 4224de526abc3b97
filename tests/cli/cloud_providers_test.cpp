// Every provider registered for `scalewright run` says the RBAC it needs (its registration's rbac lines,
// "GROUP/RESOURCE: VERB, VERB"); the deployment's ClusterRole, the one copy of the rules that the Helm chart and the
// kustomize base both use, must grant each of them, or the provider fails with Forbidden once installed.
#include "cli/cloud_providers.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "source_dir.h"

namespace scalewright::cli {
namespace {

// (group, resource) -> the verbs the ClusterRole grants on it.
std::map<std::pair<std::string, std::string>, std::set<std::string>> granted() {
  const YAML::Node role = YAML::LoadFile(kSource + "/deploy/helm/scalewright/files/clusterrole.yaml");
  std::map<std::pair<std::string, std::string>, std::set<std::string>> out;
  for (const YAML::Node& rule : role["rules"]) {
    for (const YAML::Node& group : rule["apiGroups"]) {
      for (const YAML::Node& resource : rule["resources"]) {
        for (const YAML::Node& verb : rule["verbs"]) {
          out[{group.as<std::string>(), resource.as<std::string>()}].insert(verb.as<std::string>());
        }
      }
    }
  }
  return out;
}

TEST(CloudProviders, TheDeploymentsClusterRoleGrantsWhatEveryProviderSaysItNeeds) {
  const auto grants = granted();
  ASSERT_FALSE(grants.empty());
  ASSERT_FALSE(cloud_providers().all().empty());
  for (const cloud::ProviderRegistration& provider : cloud_providers().all()) {
    for (const std::string& line : provider.rbac) {
      // "coordination.k8s.io/leases: get, create" or "/nodes: create" (the core group is empty).
      const std::size_t colon = line.find(':');
      ASSERT_NE(colon, std::string::npos) << provider.name << ": " << line;
      const std::string path = line.substr(0, colon);
      const std::size_t slash = path.find('/');
      ASSERT_NE(slash, std::string::npos) << provider.name << ": " << line;
      const std::pair<std::string, std::string> target{path.substr(0, slash), path.substr(slash + 1)};
      const auto found = grants.find(target);
      ASSERT_NE(found, grants.end()) << provider.name << " needs " << line << ": the ClusterRole has no rule for it";
      std::string verbs = line.substr(colon + 1);
      std::size_t at = 0;
      while (at < verbs.size()) {
        std::size_t end = verbs.find(',', at);
        if (end == std::string::npos) end = verbs.size();
        std::string verb = verbs.substr(at, end - at);
        verb.erase(0, verb.find_first_not_of(' '));
        verb.erase(verb.find_last_not_of(' ') + 1);
        EXPECT_TRUE(found->second.contains(verb)) << provider.name << " needs " << line << ": no " << verb;
        at = end + 1;
      }
    }
  }
}

}  // namespace
}  // namespace scalewright::cli
