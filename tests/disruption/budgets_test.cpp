// NodePool disruption budgets, with dates a reader can check on a calendar: 2024-03-04 is a Monday, 2024-03-08 a
// Friday, 2024-03-09 a Saturday. Schedules are UTC.
#include "disruption/budgets.h"

#include <gtest/gtest.h>

#include "../api/calendar.h"

namespace scalewright::disruption {
namespace {

using namespace std::chrono;
using namespace calendar;

const sys_seconds kMondayNoon = at(kMonday, 12, 0);

DisruptionBudget budget(std::string_view nodes, std::vector<std::string> reasons = {}) {
  const bool percent = nodes.ends_with('%');
  const int value = std::stoi(std::string(nodes.substr(0, nodes.size() - (percent ? 1 : 0))));
  return DisruptionBudget{IntOrPercent{value, percent}, std::move(reasons)};
}

DisruptionBudget scheduled(std::string_view nodes, std::string_view schedule, Duration duration) {
  DisruptionBudget b = budget(nodes);
  Result<CronSchedule> cron = CronSchedule::parse(schedule);
  EXPECT_TRUE(cron.ok()) << (cron.ok() ? "" : cron.error().message);
  if (cron.ok()) b.window = BudgetWindow{*cron, duration};
  return b;
}

NodePool pool_with(std::vector<DisruptionBudget> budgets) {
  NodePool pool;
  pool.meta.name = "default";
  pool.budgets = std::move(budgets);
  return pool;
}

TEST(DisruptionReason, KarpentersSpelling) {
  EXPECT_EQ(to_string(DisruptionReason::Empty), "Empty");
  EXPECT_EQ(to_string(DisruptionReason::Drifted), "Drifted");
  EXPECT_EQ(to_string(DisruptionReason::Underutilized), "Underutilized");
  EXPECT_EQ(parse_disruption_reason("Underutilized"), DisruptionReason::Underutilized);
  EXPECT_FALSE(parse_disruption_reason("underutilized").has_value());
  EXPECT_FALSE(parse_disruption_reason("Expired").has_value());
}

TEST(AllowedDisruptions, DefaultTenPercentRoundsUp) {
  NodePool pool;  // budgets omitted: the CRD's default, one budget of 10%
  ASSERT_EQ(pool.budgets.size(), 1u);
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 25, 0, kMondayNoon), 3);  // 2.5 up
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 5, 0, kMondayNoon), 1);   // 0.5 up: one, not none
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 30, 0, kMondayNoon), 3);  // exactly 3
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 0, 0, kMondayNoon), 0);
}

TEST(AllowedDisruptions, ZeroBlocks) {
  EXPECT_EQ(allowed_disruptions(pool_with({budget("0")}), DisruptionReason::Drifted, 40, 0, kMondayNoon), 0);
  EXPECT_EQ(allowed_disruptions(pool_with({budget("0%")}), DisruptionReason::Drifted, 40, 0, kMondayNoon), 0);
}

TEST(AllowedDisruptions, NodesAlreadyDisruptingAreSubtractedNeverBelowZero) {
  const NodePool pool = pool_with({budget("5")});
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Underutilized, 20, 2, kMondayNoon), 3);  // 5 - 2
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Underutilized, 20, 5, kMondayNoon), 0);
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Underutilized, 20, 7, kMondayNoon), 0);  // not -2
  // 20% of 12 is 2.4, up to 3; one node draining leaves 2.
  EXPECT_EQ(allowed_disruptions(pool_with({budget("20%")}), DisruptionReason::Empty, 12, 1, kMondayNoon), 2);
}

TEST(AllowedDisruptions, MostRestrictiveBudgetWins) {
  const NodePool pool = pool_with({budget("20%"), budget("3")});
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 50, 0, kMondayNoon), 3);  // 10 and 3
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 10, 0, kMondayNoon), 2);  // 2 and 3
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 10, 1, kMondayNoon), 1);  // the minimum, less 1
}

TEST(AllowedDisruptions, BudgetLimitsOnlyTheReasonsItNames) {
  // "0" for Drifted freezes drift only; the unnamed 10% is shared by every reason.
  const NodePool pool = pool_with({budget("0", {"Drifted"}), budget("10%")});
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Drifted, 30, 0, kMondayNoon), 0);
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Underutilized, 30, 0, kMondayNoon), 3);
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 30, 0, kMondayNoon), 3);
  // A budget for [Drifted] alone says nothing about Underutilized: no budget applies.
  const NodePool drift_only = pool_with({budget("1", {"Drifted"})});
  EXPECT_EQ(allowed_disruptions(drift_only, DisruptionReason::Underutilized, 30, 4, kMondayNoon), kUnlimited);
  EXPECT_EQ(allowed_disruptions(drift_only, DisruptionReason::Drifted, 30, 0, kMondayNoon), 1);
  // Two reasons named: both limited.
  const NodePool two = pool_with({budget("2", {"Empty", "Underutilized"})});
  EXPECT_EQ(allowed_disruptions(two, DisruptionReason::Empty, 30, 0, kMondayNoon), 2);
  EXPECT_EQ(allowed_disruptions(two, DisruptionReason::Underutilized, 30, 0, kMondayNoon), 2);
  EXPECT_EQ(allowed_disruptions(two, DisruptionReason::Drifted, 30, 0, kMondayNoon), kUnlimited);
}

TEST(AllowedDisruptions, NoBudgetsIsUnlimited) {
  EXPECT_EQ(allowed_disruptions(pool_with({}), DisruptionReason::Empty, 30, 3, kMondayNoon), kUnlimited);
}

TEST(BudgetActive, WithoutScheduleAlways) {
  EXPECT_TRUE(budget_active(budget("0"), kMondayNoon));
  EXPECT_TRUE(budget_active(budget("0"), at(kSaturday, 3, 0)));
}

TEST(BudgetActive, WeekdaysFromNineForEightHours) {
  const DisruptionBudget b = scheduled("0", "0 9 * * 1-5", 8h);
  EXPECT_FALSE(budget_active(b, at(kMonday, 8, 59, 59)));
  EXPECT_TRUE(budget_active(b, at(kMonday, 9, 0)));  // the minute it fires
  EXPECT_TRUE(budget_active(b, at(kMonday, 16, 59)));
  EXPECT_TRUE(budget_active(b, at(kMonday, 16, 59, 59)));
  EXPECT_FALSE(budget_active(b, at(kMonday, 17, 0)));  // 09:00 + 8h: over
  EXPECT_TRUE(budget_active(b, at(kFriday, 12, 0)));
  EXPECT_FALSE(budget_active(b, at(kSaturday, 9, 0)));
  EXPECT_FALSE(budget_active(b, at(kSaturday, 12, 0)));
}

TEST(BudgetActive, ScheduledZeroBlocksInsideItsWindowOnly) {
  // Business hours freeze: "0" on weekdays 09:00-17:00, 10% otherwise. 40 nodes: 4 outside the window.
  const NodePool pool = pool_with({scheduled("0", "0 9 * * 1-5", 8h), budget("10%")});
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 40, 0, at(kMonday, 9, 0)), 0);
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 40, 0, at(kMonday, 16, 59)), 0);
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 40, 0, at(kMonday, 17, 0)), 4);
  EXPECT_EQ(allowed_disruptions(pool, DisruptionReason::Empty, 40, 0, at(kSaturday, 12, 0)), 4);
}

TEST(BudgetActive, DailyForTenMinutes) {
  const DisruptionBudget b = scheduled("0", "@daily", 10min);
  EXPECT_FALSE(budget_active(b, at(kMonday, 23, 59, 59)));
  EXPECT_TRUE(budget_active(b, at(kTuesday, 0, 0)));
  EXPECT_TRUE(budget_active(b, at(kTuesday, 0, 9, 59)));
  EXPECT_FALSE(budget_active(b, at(kTuesday, 0, 10)));
  EXPECT_FALSE(budget_active(b, at(kTuesday, 12, 0)));
}

TEST(BudgetActive, WindowAcrossMidnight) {
  // Every night 22:00 for 8 hours: until 06:00 the next morning.
  const DisruptionBudget nightly = scheduled("0", "0 22 * * *", 8h);
  EXPECT_FALSE(budget_active(nightly, at(kMonday, 21, 59)));
  EXPECT_TRUE(budget_active(nightly, at(kMonday, 22, 0)));
  EXPECT_TRUE(budget_active(nightly, at(kTuesday, 0, 0)));
  EXPECT_TRUE(budget_active(nightly, at(kTuesday, 5, 59, 59)));
  EXPECT_FALSE(budget_active(nightly, at(kTuesday, 6, 0)));
  // Friday 22:00 for 4 hours runs into Saturday, which the schedule itself does not name.
  const DisruptionBudget friday_night = scheduled("0", "0 22 * * FRI", 4h);
  EXPECT_TRUE(budget_active(friday_night, at(kSaturday, 1, 59)));
  EXPECT_FALSE(budget_active(friday_night, at(kSaturday, 2, 0)));
}

TEST(BudgetActive, DurationLongerThanThePeriodIsAlwaysActive) {
  // Fires hourly, lasts 2 hours: windows overlap, so there is no gap.
  const DisruptionBudget b = scheduled("0", "0 * * * *", 2h);
  EXPECT_TRUE(budget_active(b, at(kMonday, 0, 59, 59)));
  EXPECT_TRUE(budget_active(b, at(kMonday, 13, 30)));
}

TEST(BudgetActive, ScheduleThatNeverFiresIsActiveAsKarpenterReadsIt) {
  // 30 February: robfig/cron finds no time within five years and answers the zero time, which Karpenter's
  // "not after now" takes as active. A "0" budget so scheduled blocks for good, there and here.
  const DisruptionBudget b = scheduled("0", "0 0 30 2 *", 1h);
  EXPECT_TRUE(budget_active(b, kMondayNoon));
  EXPECT_EQ(allowed_disruptions(pool_with({b}), DisruptionReason::Empty, 10, 0, kMondayNoon), 0);
}

}  // namespace
}  // namespace scalewright::disruption
