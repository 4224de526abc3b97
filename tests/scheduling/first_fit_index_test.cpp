// The first-fit index over open NodeClaims or a snapshot's nodes: where a pod's walk stops first.
#include "scheduling/first_fit_index.h"

#include <gtest/gtest.h>

namespace scalewright::scheduling {
namespace {

ResourceList pod(std::int64_t cpu_milli, std::int64_t memory_mib) {
  ResourceList r;
  r.set(Symbol("cpu"), cpu_milli);
  r.set(Symbol("memory"), memory_mib * 1024 * 1024);
  r.set(Symbol("pods"), 1);
  return r;
}

FirstFitIndex::Room room(std::int64_t cpu_milli, std::int64_t memory_mib, std::int64_t pods = 10) {
  return {cpu_milli, memory_mib * 1024 * 1024, pods};
}

TEST(FirstFitIndex, StopsAtTheFirstClaimFromThePositionOnWithRoomForEveryResource) {
  FirstFitIndex index;
  EXPECT_EQ(index.next(0, pod(100, 100)), 0U);  // empty: nothing to walk
  index.set(0, room(500, 4096));
  index.set(1, room(2000, 512));   // cpu but no memory for a 1000m/1Gi pod
  index.set(2, room(1000, 1024));  // exactly enough
  index.set(3, room(4000, 8192));
  EXPECT_EQ(index.size(), 4U);
  EXPECT_EQ(index.next(0, pod(1000, 1024)), 2U);  // claim 1's cpu and claim 0's memory do not make a fit
  EXPECT_EQ(index.next(3, pod(1000, 1024)), 3U);
  EXPECT_EQ(index.next(0, pod(100, 100)), 0U);
  EXPECT_EQ(index.next(1, pod(4001, 100)), 4U);   // none: size()
  EXPECT_EQ(index.next(9, pod(100, 100)), 4U);
}

TEST(FirstFitIndex, AClosedClaimIsPassedOverAndRoomCanShrinkOrGrow) {
  FirstFitIndex index;
  for (std::size_t i = 0; i < 3; ++i) index.set(i, room(1000, 1024));
  index.set(0, {});                   // closed
  index.set(1, room(1000, 1024, 0));  // no pod slot left
  EXPECT_EQ(index.next(0, pod(500, 512)), 2U);
  index.set(1, room(1000, 1024, 1));
  EXPECT_EQ(index.next(0, pod(500, 512)), 1U);
}

TEST(FirstFitIndex, GrowsPastItsLeavesKeepingWhatItHeld) {
  FirstFitIndex index;
  for (std::size_t i = 0; i < 1000; ++i) index.set(i, room(100, 100));
  index.set(700, room(8000, 32768));
  index.set(5000, room(16000, 65536));  // far past the end: the claims between have no room yet
  EXPECT_EQ(index.size(), 5001U);
  EXPECT_EQ(index.next(0, pod(4000, 16384)), 700U);
  EXPECT_EQ(index.next(701, pod(4000, 16384)), 5000U);
  EXPECT_EQ(index.next(0, pod(50, 50)), 0U);
  EXPECT_EQ(index.next(1000, pod(50, 50)), 5000U);
}

}  // namespace
}  // namespace scalewright::scheduling
