#include "api/nodepool.h"

#include <gtest/gtest.h>

namespace scalewright {
namespace {

TEST(NodePoolHash, PinnedForAFixedTemplate) {
  // Computed apart from this code (FNV-1a 64 of the canonical text, in Python). The labels are interned zz first,
  // so this also checks they are hashed in text order, not in interned order. A change here changes every stamped
  // hash: kNodePoolHashVersion must change with it.
  NodePool pool;
  pool.template_labels = Labels{{"zz-pinned", "1"}, {"aa-pinned", "2"}};
  pool.template_annotations = {{"example.com/owner", "web"}};
  pool.taints = {Taint{"b", "", TaintEffect::NoExecute}, Taint{"a", "x", TaintEffect::NoSchedule}};
  pool.node_class = {"karpenter.k8s.aws", "EC2NodeClass", "default"};
  EXPECT_EQ(pool.hash(), "6bba10173881da6a");
}

}  // namespace
}  // namespace scalewright
