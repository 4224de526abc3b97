// The snapshot's per-domain tallies stay equal to counting pod by pod, through binds, removals, new nodes and
// fork/revert.
#include "scheduling/snapshot.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "builders.h"

namespace scalewright::scheduling {
namespace {

using testing::app_selector;
using testing::make_node;
using testing::make_pod;

const Symbol kZone("topology.kubernetes.io/zone");

std::map<std::string, std::int64_t> sorted(const std::unordered_map<Symbol, std::int64_t>& counts) {
  std::map<std::string, std::int64_t> out;
  for (const auto& [domain, n] : counts) out[domain.string()] = n;
  return out;
}

PodMatcher web_matcher() {
  PodMatcher m;
  m.selector = app_selector("web");
  m.namespaces = {"default"};
  return m;
}

TEST(SnapshotDomainCounts, FollowBindsRemovalsNodesAndReverts) {
  ClusterSnapshot s;
  NodeId a1 = s.add_node(make_node("a1", 4000, 0, "zone-a"));
  NodeId b1 = s.add_node(make_node("b1", 4000, 0, "zone-b"));
  s.add_pod(make_pod("w1", 100, 0, "web"), a1);
  s.add_pod(make_pod("w2", 100, 0, "web"), a1);
  s.add_pod(make_pod("db", 100, 0, "db"), b1);
  const QueryId web = s.query(web_matcher());
  using Counts = std::map<std::string, std::int64_t>;
  // Registered after the fact: computed from the pods already there; zone-b is present with zero.
  EXPECT_EQ(sorted(s.domain_counts(web, kZone)), (Counts{{"zone-a", 2}, {"zone-b", 0}}));

  s.fork();
  NodeId c1 = s.add_node(make_node("c1", 4000, 0, "zone-c"));
  EXPECT_EQ(sorted(s.domain_counts(web, kZone)), (Counts{{"zone-a", 2}, {"zone-b", 0}, {"zone-c", 0}}));
  s.add_pod(make_pod("w3", 100, 0, "web"), c1);
  s.add_pod(make_pod("w4", 100, 0, "web"), b1);
  EXPECT_EQ(sorted(s.domain_counts(web, kZone)), (Counts{{"zone-a", 2}, {"zone-b", 1}, {"zone-c", 1}}));
  s.remove_node(a1);  // its two web pods go with it, and zone-a has no node left
  EXPECT_EQ(sorted(s.domain_counts(web, kZone)), (Counts{{"zone-b", 1}, {"zone-c", 1}}));
  s.remove_pod("default/w3");
  EXPECT_EQ(sorted(s.domain_counts(web, kZone)), (Counts{{"zone-b", 1}, {"zone-c", 0}}));
  s.revert();
  EXPECT_EQ(sorted(s.domain_counts(web, kZone)), (Counts{{"zone-a", 2}, {"zone-b", 0}}));

  // Two nodes in one zone: the domain lives until the last of them goes.
  NodeId a2 = s.add_node(make_node("a2", 4000, 0, "zone-a"));
  s.add_pod(make_pod("w5", 100, 0, "web"), a2);
  s.remove_node(a1);
  EXPECT_EQ(sorted(s.domain_counts(web, kZone)), (Counts{{"zone-a", 1}, {"zone-b", 0}}));
}

TEST(SnapshotSlots, ANodeRemovedOutsideAForkLeavesItsSlotToTheNextNode) {
  ClusterSnapshot s;
  NodeId a = s.add_node(make_node("a", 4000, 0));
  NodeId b = s.add_node(make_node("b", 4000, 0));
  s.add_pod(make_pod("p", 100, 0), a);
  const std::uint64_t old_serial = s.node(a).serial;
  s.remove_node(a);
  NodeId c = s.add_node(make_node("c", 4000, 0));
  EXPECT_EQ(c, a);  // reused
  EXPECT_EQ(s.nodes().size(), 2u);
  EXPECT_NE(s.node(c).serial, old_serial);
  EXPECT_TRUE(s.node(c).pods.empty());
  EXPECT_EQ(s.find_node("c"), c);
  EXPECT_EQ(s.find_node("a"), kNoNode);
  // Inside a fork nothing is reused (revert undoes an addition by dropping the last slot).
  s.remove_node(b);
  s.fork();
  NodeId d = s.add_node(make_node("d", 4000, 0));
  EXPECT_EQ(d, 2u);  // not b's free slot
  s.remove_node(d);
  NodeId e = s.add_node(make_node("e", 4000, 0));
  EXPECT_EQ(e, 3u);  // nor d's
  s.revert();
  EXPECT_EQ(s.live_node_count(), 1u);
  EXPECT_EQ(s.nodes().size(), 2u);
  EXPECT_EQ(s.find_node("c"), c);
  EXPECT_EQ(s.add_node(make_node("f", 4000, 0)), b);  // after the fork, b's slot serves again
}

TEST(SnapshotRoom, NextWithRoomFollowsPodsNodesAndReverts) {
  ClusterSnapshot s;
  const NodeId a = s.add_node(make_node("a", 1000, 0));
  const NodeId b = s.add_node(make_node("b", 4000, 0));
  const NodeId c = s.add_node(make_node("c", 4000, 0));
  const FirstFitIndex::Room two_cpus{2000, std::numeric_limits<std::int64_t>::min(), 1};
  EXPECT_EQ(s.next_with_room(0, 3, two_cpus), b);
  EXPECT_EQ(s.next_with_room(c + 1, 3, two_cpus), 3u);
  s.fork();
  s.add_pod(make_pod("p", 3000, 0), b);  // b keeps 1000m
  EXPECT_EQ(s.next_with_room(0, 3, two_cpus), c);
  EXPECT_EQ(s.next_with_room(0, c, two_cpus), c);  // none before the end given
  s.remove_node(c);
  EXPECT_EQ(s.next_with_room(0, 3, two_cpus), 3u);
  s.revert();
  EXPECT_EQ(s.next_with_room(0, 3, two_cpus), b);
  // A slot freed outside a fork and taken by a larger node.
  s.remove_node(a);
  EXPECT_EQ(s.add_node(make_node("d", 8000, 0)), a);
  EXPECT_EQ(s.next_with_room(0, 3, FirstFitIndex::Room{6000, std::numeric_limits<std::int64_t>::min(), 1}), a);
  // No pod slot left: passed over whatever its cpu.
  const NodeId e = s.add_node(make_node("e", 64000, 0, "zone-a", 0));
  EXPECT_EQ(s.next_with_room(e, e + 1, two_cpus), e + 1);
}

}  // namespace
}  // namespace scalewright::scheduling
