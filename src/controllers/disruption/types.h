#pragma once
// What the disruption controller's rooms share (Karpenter's pkg/controllers/disruption/types.go): the one interface
// every disruption method has, and the poll period they keep.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/duration.h"
#include "api/instant.h"
#include "state/cluster_state.h"

namespace scalewright::controllers {

// How often disruption looks again while something may change (Karpenter's poll period).
inline constexpr Duration kDisruptionPollPeriod{10'000};

// One way of disrupting nodes (Karpenter's disruption.Method). The controller tells every method what changed, asks
// each when it next has a node to disrupt (a pass is run then), and in a pass runs them in its order.
class DisruptionMethod {
 public:
  virtual ~DisruptionMethod() = default;

  // Karpenter's reason for what it disrupts, as its Events say it: Expired, Empty, Drifted, Underutilized.
  virtual std::string_view reason() const = 0;
  // Whether it waits its turn: while a command is in the queue none of these acts, and in a pass the first that
  // disrupts ends the turn (Karpenter's methods, one per pass). Expiration does not: a node's lifetime is up
  // whatever else goes on, and no budget holds it.
  virtual bool takes_turns() const { return true; }

  // After every change, once: what the method keeps of the cluster follows it.
  virtual void look(Instant /*now*/) {}
  // A node changed (or every node, after a NodePool changed): what the method keeps per node follows it.
  virtual void look_at_node(const std::string& /*name*/, Instant /*now*/) {}
  // When it next has a node to disrupt (Karpenter's ShouldDisrupt, over time), if ever.
  virtual std::optional<Instant> next_pass(Instant now) const = 0;
  // A pass: disrupts what is due now (Karpenter's ComputeCommands, and the command's start); true when it disrupted
  // a node, or put a command in the queue.
  virtual bool disrupt(Instant now) = 0;
};

// What a fruitless search and an abandoned command remember of the cluster: while it stays, asking again finds the
// same.
inline std::uint64_t cluster_fingerprint(const state::ClusterState& state) {
  return state.scheduling_changes() ^ (state.capacity_changes() << 32) ^ (state.node_departures() << 48);
}

}  // namespace scalewright::controllers
