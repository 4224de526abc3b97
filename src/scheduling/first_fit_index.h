#pragma once
// First fit over many open NodeClaims. A pod tries the batch's claims in the order they were opened and joins the
// first that takes it; with thousands of claims, most of them without room for the pod, walking them all made a
// batch cost pods × claims. This tree keeps, for every range of claims, the most cpu, memory and pod slots any of
// them has left, so that the walk skips every range where no claim can have room (a necessary test: the most of
// each resource may come from different claims, and the claim itself still decides).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "api/resources.h"

namespace scalewright::provisioning {

class FirstFitIndex {
 public:
  struct Room {
    std::int64_t cpu_milli = std::numeric_limits<std::int64_t>::min();
    std::int64_t memory = std::numeric_limits<std::int64_t>::min();
    std::int64_t pods = std::numeric_limits<std::int64_t>::min();
  };

  // Claim `i`'s room (claims are numbered from 0 in the order they were opened; a new one is set past the end).
  // A default Room, which nothing fits, takes a closed claim out of every walk.
  void set(std::size_t i, const Room& room);
  // The first claim at or after `from` whose room may hold `requests`; size() when none.
  std::size_t next(std::size_t from, const ResourceList& requests) const;
  std::size_t size() const { return size_; }

 private:
  static bool holds(const Room& room, const ResourceList& requests) {
    return requests.cpu_milli() <= room.cpu_milli && requests.memory() <= room.memory && requests.pods() <= room.pods;
  }
  std::size_t search(std::size_t node, std::size_t lo, std::size_t hi, std::size_t from,
                     const ResourceList& requests) const;

  std::size_t size_ = 0;
  std::size_t leaves_ = 0;   // a power of two, at least size_
  std::vector<Room> tree_;  // heap order: node 1 is the root, node n's children are 2n and 2n + 1
};

}  // namespace scalewright::provisioning
