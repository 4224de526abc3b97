// The cloud's instance notices taken into the loop: a notice finds the node whose instance it names (by the cloud's
// id or a providerID ending in it) and marks it interrupted at the notice's time on the engine's clock, with what
// the notice said (the earliest notice of a node stands); a rebalance recommendation only gives an Event; a notice
// of an instance no node has does nothing. Notices that come before the loop takes them are kept, in order.
#include "cluster/instance_notices.h"

#include <gtest/gtest.h>

#include <vector>

namespace scalewright::cluster {
namespace {

using Kind = cloud::InstanceNotice::Kind;
using std::chrono::seconds;

const auto kNoticesStart = std::chrono::system_clock::time_point(seconds(1'800'000'000));

state::NodeRecord node_with_instance(const std::string& name, const std::string& instance_id) {
  state::NodeRecord record;
  record.node.meta.name = name;
  record.instance_id = instance_id;
  record.phase = state::NodePhase::Ready;
  return record;
}

TEST(InstanceNotices, ANoticeMarksTheNodeOfItsInstanceInterruptedAtItsTimeAndAnyOtherDoesNothing) {
  state::ClusterState state;
  // A NodeClaim known by its status.providerID, and a node group's instance known by the cloud's id.
  state.node_added(node_with_instance("default-abc", "aws:///us-west-2a/i-0abc"));
  state.node_added(node_with_instance("group-node", "i-0def"));
  const TimeBase time(kNoticesStart);  // the engine's clock starts at kNoticesStart

  struct Case {
    cloud::InstanceNotice notice;
    std::string node;             // found
    std::uint64_t notices_after;  // the state's interruption_notices()
  };
  const std::vector<Case> cases = {
      // The spot warning's time (two minutes after its event): 130 s after the start.
      {{Kind::SpotInterruption, "i-0abc", kNoticesStart + seconds(130), "EC2 Spot Instance Interruption Warning"},
       "default-abc",
       1},
      {{Kind::Stopping, "i-0def", kNoticesStart + seconds(10), "EC2 Instance State-change Notification"},
       "group-node",
       2},
      // Another cluster's instance; an id only a providerID's tail resembles: nothing.
      {{Kind::SpotInterruption, "i-0other", kNoticesStart, "EC2 Spot Instance Interruption Warning"}, "", 2},
      {{Kind::SpotInterruption, "0abc", kNoticesStart, "EC2 Spot Instance Interruption Warning"}, "", 2},
      // A later notice of a node noticed already keeps the earlier time.
      {{Kind::ScheduledChange, "i-0abc", kNoticesStart + seconds(300), "AWS Health Event"}, "default-abc", 3},
      // A rebalance recommendation is an Event only.
      {{Kind::RebalanceRecommendation, "i-0def", kNoticesStart, "EC2 Instance Rebalance Recommendation"},
       "group-node",
       3},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.notice.instance_id + " " + c.notice.source);
    const NoticeTaken taken = take_instance_notice(state, time, c.notice);
    EXPECT_EQ(taken.node, c.node);
    EXPECT_EQ(state.interruption_notices(), c.notices_after);
    EXPECT_EQ(taken.event.has_value(), c.notice.kind == Kind::RebalanceRecommendation);
  }
  EXPECT_EQ(state.find_node("default-abc")->reclaimed_at, Instant(Duration(130'000)));
  EXPECT_EQ(state.find_node("default-abc")->interruption, state::InterruptionKind::SpotInterruption);
  EXPECT_EQ(state.find_node("group-node")->reclaimed_at, Instant(Duration(10'000)));
  EXPECT_EQ(state.find_node("group-node")->interruption, state::InterruptionKind::Stopping);

  const NoticeTaken rebalance = take_instance_notice(
      state, time, {Kind::RebalanceRecommendation, "i-0abc", kNoticesStart, "EC2 Instance Rebalance Recommendation"});
  ASSERT_TRUE(rebalance.event.has_value());
  EXPECT_EQ(rebalance.event->kind, "Node");
  EXPECT_EQ(rebalance.event->key, "default-abc");
  EXPECT_EQ(rebalance.event->type, "Normal");
  EXPECT_EQ(rebalance.event->reason, "SpotRebalanceRecommendation");
  EXPECT_EQ(rebalance.event->message, "Spot rebalance recommendation was triggered");
}

// A spot warning names its node's offering (type, zone, spot) for the launches to avoid, as Karpenter's interruption
// controller marks it unavailable; a scheduled change or a stop does not: the capacity is not being taken back.
TEST(InstanceNotices, ASpotInterruptionNamesItsOfferingForTheLaunchesToAvoid) {
  state::ClusterState state;
  state::NodeRecord spot = node_with_instance("spot-node", "aws:///us-west-2b/i-0aaa");
  spot.instance_type = "m5.xlarge";
  spot.zone = "us-west-2b";
  spot.capacity_type = "spot";
  state.node_added(spot);
  state::NodeRecord other = spot;
  other.node.meta.name = "other-node";
  other.instance_id = "aws:///us-west-2b/i-0bbb";
  state.node_added(other);
  const TimeBase time(kNoticesStart);

  const NoticeTaken warned = take_instance_notice(
      state, time, {Kind::SpotInterruption, "i-0aaa", kNoticesStart, "EC2 Spot Instance Interruption Warning"});
  ASSERT_TRUE(warned.reclaimed_offering.has_value());
  EXPECT_EQ(*warned.reclaimed_offering,
            (provisioning::OfferingKey{"m5.xlarge", "us-west-2b", cloud::CapacityType::Spot}));
  EXPECT_FALSE(
      take_instance_notice(state, time, {Kind::ScheduledChange, "i-0bbb", kNoticesStart, "AWS Health Event"})
          .reclaimed_offering.has_value());
}

TEST(InstanceNotices, TheEarliestNoticeOfANodeStandsWithWhatItSaid) {
  state::ClusterState state;
  state.node_added(node_with_instance("default-abc", "aws:///us-west-2a/i-0abc"));
  const TimeBase time(kNoticesStart);
  using Said = state::InterruptionKind;
  struct Case {
    Kind kind;
    int at;  // seconds after the start
    int reclaimed_at;
    Said said;
  };
  const std::vector<Case> cases = {
      {Kind::Terminating, 60, 60, Said::Terminating},
      {Kind::SpotInterruption, 100, 60, Said::Terminating},    // later: the earlier one stands
      {Kind::ScheduledChange, 30, 30, Said::ScheduledChange},  // earlier: it stands now
      {Kind::Stopping, 30, 30, Said::ScheduledChange},         // as early: the first stands
      {Kind::CapacityReservationInterruption, 20, 20, Said::CapacityReservationInterruption},
      {Kind::SpotInterruption, 5, 5, Said::SpotInterruption},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.at);
    take_instance_notice(state, time, {c.kind, "i-0abc", kNoticesStart + seconds(c.at), ""});
    const state::NodeRecord& node = *state.find_node("default-abc");
    EXPECT_EQ(node.reclaimed_at, Instant(Duration(c.reclaimed_at * 1'000)));
    EXPECT_EQ(node.interruption, c.said);
  }
}

TEST(InstanceNotices, NoticesBeforeTheLoopTakesThemAreKeptAndDeliveredInOrder) {
  InstanceNoticeInbox inbox;
  cloud::InstanceNotices send = inbox.sender();
  send({Kind::SpotInterruption, "i-1", kNoticesStart, ""});
  send({Kind::Stopping, "i-2", kNoticesStart, ""});
  EXPECT_EQ(inbox.kept(), 2u);

  std::vector<std::string> delivered;
  inbox.deliver_to([&](cloud::InstanceNotice notice) { delivered.push_back(notice.instance_id); });
  send({Kind::ScheduledChange, "i-3", kNoticesStart, ""});
  EXPECT_EQ(delivered, (std::vector<std::string>{"i-1", "i-2", "i-3"}));
  EXPECT_EQ(inbox.kept(), 0u);

  // The loop gone: kept again, not delivered to it.
  inbox.deliver_to({});
  send({Kind::ScheduledChange, "i-4", kNoticesStart, ""});
  EXPECT_EQ(delivered.size(), 3u);
  EXPECT_EQ(inbox.kept(), 1u);
}

}  // namespace
}  // namespace scalewright::cluster
