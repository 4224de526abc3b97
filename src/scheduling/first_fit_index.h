#pragma once
// First fit over many bins: the provisioner's open NodeClaims, kube-scheduler's walk over a snapshot's nodes. A pod
// tries the bins in order from a position and stops at the first that takes it; with thousands of bins, most of them
// without room for the pod, walking them all made a batch cost pods × bins. This tree keeps, for every range of
// bins, the most cpu, memory and pod slots any of them has left, so that the walk skips every range where no bin can
// have room (a necessary test: the most of each resource may come from different bins, and the bin itself still
// decides).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "api/resources.h"

namespace scalewright::scheduling {

class FirstFitIndex {
 public:
  // What a bin has left, or what a pod needs of it (the lowest value: nothing asked of that resource).
  struct Room {
    std::int64_t cpu_milli = std::numeric_limits<std::int64_t>::min();
    std::int64_t memory = std::numeric_limits<std::int64_t>::min();
    std::int64_t pods = std::numeric_limits<std::int64_t>::min();
  };

  // Bin `i`'s room (bins are numbered from 0; a new one may be set past the end). A default Room, which nothing
  // fits, takes a closed bin out of every walk.
  void set(std::size_t i, const Room& room);
  // The first bin at or after `from` whose room may hold `need`; size() when none.
  std::size_t next(std::size_t from, const Room& need) const;
  // The same for a pod's requests, each resource asked as it is (a zero cpu request needs 0 cpu left).
  std::size_t next(std::size_t from, const ResourceList& requests) const {
    return next(from, Room{requests.cpu_milli(), requests.memory(), requests.pods()});
  }
  std::size_t size() const { return size_; }

 private:
  static bool holds(const Room& room, const Room& need) {
    return need.cpu_milli <= room.cpu_milli && need.memory <= room.memory && need.pods <= room.pods;
  }
  std::size_t search(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from, const Room& need) const;

  std::size_t size_ = 0;
  std::size_t leaves_ = 0;   // a power of two, at least size_
  std::vector<Room> tree_;  // heap order: node 1 is the root, node n's children are 2n and 2n + 1
};

}  // namespace scalewright::scheduling
