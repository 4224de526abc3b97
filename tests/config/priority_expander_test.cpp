// The priority expander's ConfigMap as users keep it, read into the engine's PriorityConfig.
#include "config/priority_expander.h"

#include <gtest/gtest.h>

namespace scalewright::config {
namespace {

using nodegroups::PriorityConfig;

TEST(PriorityExpander, ReadsAWholeConfigMap) {
  const char* manifest = R"(apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-autoscaler-priority-expander
  namespace: kube-system
data:
  priorities: |-
    10:
      - .*t2\.large.*
    50:
      - .*m5\.large.*
)";
  Result<PriorityConfig> config = parse_priority_config(manifest);
  ASSERT_TRUE(config.ok()) << config.error().message;
  ASSERT_EQ(config->tiers.size(), 2u);
  EXPECT_EQ(config->tiers[0].patterns, std::vector<std::string>{".*m5\\.large.*"});
}

TEST(PriorityExpander, ErrorsAreValues) {
  EXPECT_NE(parse_priority_config("high:\n  - .*\n").error().message.find("\"high\" is not an integer"),
            std::string::npos);
  EXPECT_NE(parse_priority_config("10: ng-a\n").error().message.find("must hold a list"), std::string::npos);
  EXPECT_NE(parse_priority_config("10:\n  - '['\n").error().message.find("invalid regex \"[\""), std::string::npos);
  EXPECT_FALSE(parse_priority_config("- a\n- b\n").ok());
  EXPECT_FALSE(parse_priority_config("10: [a\n").ok());
}

}  // namespace
}  // namespace scalewright::config
