#include "scheduling/equivalence.h"

#include <gtest/gtest.h>

#include "builders.h"

namespace scalewright::scheduling {
namespace {

using testing::make_pod;

TEST(Equivalence, ReplicasWithTheSameConstraintsShareAClassWhateverTheirNames) {
  Pod a = make_pod("web-1", 500, 0, "web");
  Pod b = make_pod("web-2", 500, 0, "web");
  Pod bigger = make_pod("web-3", 1000, 0, "web");
  Pod other_app = make_pod("api-1", 500, 0, "api");
  std::vector<EquivalenceClass> classes = group_equivalent({&a, &b, &bigger, &other_app});
  ASSERT_EQ(classes.size(), 3u);
  EXPECT_EQ(classes[0].members, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(classes[1].members, (std::vector<std::size_t>{2}));
  EXPECT_EQ(classes[2].members, (std::vector<std::size_t>{3}));
}

TEST(Equivalence, TolerationsAndNodeSelectorsSplitStaticClasses) {
  Pod plain = make_pod("a", 100, 0);
  Pod tolerant = make_pod("b", 100, 0);
  Toleration t;
  t.key = "dedicated";
  t.op = TolerationOperator::Exists;
  tolerant.spec.tolerations.push_back(t);
  Pod selective = make_pod("c", 100, 0);
  selective.spec.node_selector.set(Symbol("kubernetes.io/arch"), Symbol("arm64"));
  EXPECT_NE(static_constraints_key(plain), static_constraints_key(tolerant));
  EXPECT_NE(static_constraints_key(plain), static_constraints_key(selective));
  // Requests and labels do not change where a pod may go on its own.
  EXPECT_EQ(static_constraints_key(plain), static_constraints_key(make_pod("d", 4000, 1 << 30, "x")));
}

TEST(Equivalence, SpreadAndAntiAffinitySplitFullClasses) {
  Pod plain = make_pod("a", 100, 0, "web");
  Pod spread = plain;
  TopologySpreadConstraint c;
  c.topology_key = Symbol("topology.kubernetes.io/zone");
  c.label_selector = testing::app_selector("web");
  spread.spec.topology_spread_constraints.push_back(c);
  Pod anti = plain;
  anti.spec.affinity.required_pod_anti_affinity.push_back(testing::app_term("web", "kubernetes.io/hostname"));
  EXPECT_NE(scheduling_key(plain), scheduling_key(spread));
  EXPECT_NE(scheduling_key(plain), scheduling_key(anti));
  EXPECT_NE(scheduling_key(spread), scheduling_key(anti));
}

}  // namespace
}  // namespace scalewright::scheduling
