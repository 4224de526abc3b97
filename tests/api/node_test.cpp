// Node readiness.
#include "api/node.h"

#include <gtest/gtest.h>

namespace scalewright {
namespace {

TEST(NodeReady, NoReadyConditionCountsAsReady) {
  Node node;
  EXPECT_TRUE(node.is_ready());
  node.conditions.push_back({"MemoryPressure", "False", ""});
  EXPECT_TRUE(node.is_ready());
}

TEST(NodeReady, ReadyConditionStatusDecides) {
  Node node;
  node.conditions.push_back({"Ready", "True", "KubeletReady"});
  EXPECT_TRUE(node.is_ready());
  node.conditions.back().status = "False";
  EXPECT_FALSE(node.is_ready());
  node.conditions.back().status = "Unknown";
  EXPECT_FALSE(node.is_ready());
}

}  // namespace
}  // namespace scalewright
