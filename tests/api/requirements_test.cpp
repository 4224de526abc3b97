// ValueSet and RequirementSet: Karpenter-style requirement algebra.
#include "api/requirements.h"

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <set>
#include <string>

#include <gtest/gtest.h>

namespace scalewright {

// Readable failure messages: "In {a, b}" rather than the object's bytes.
static void PrintTo(const ValueSet& s, std::ostream* out) {
  *out << s.to_string() << (s.allows_absent() ? " (absent allowed)" : "");
}

namespace {

using Values = std::set<std::string>;

const std::string kZone = "topology.kubernetes.io/zone";
const std::string kArch = "kubernetes.io/arch";

TEST(ValueSetBasics, AnyAllowsEveryValueButNotAbsence) {
  ValueSet s = ValueSet::any();
  EXPECT_TRUE(s.allows("a"));
  EXPECT_TRUE(s.allows(""));
  EXPECT_FALSE(s.is_empty());
  EXPECT_FALSE(s.allows_absent());
  EXPECT_TRUE(s.is_complement());
  EXPECT_EQ(s.to_string(), "Exists");
}

TEST(ValueSetBasics, NoneAllowsNothingButAbsence) {
  ValueSet s = ValueSet::none();
  EXPECT_FALSE(s.allows("a"));
  EXPECT_TRUE(s.is_empty());
  EXPECT_TRUE(s.allows_absent());
  EXPECT_EQ(s.to_string(), "DoesNotExist");
}

TEST(ValueSetBasics, OfAllowsExactlyItsValues) {
  ValueSet s = ValueSet::of({"a", "b"});
  EXPECT_TRUE(s.allows("a"));
  EXPECT_TRUE(s.allows("b"));
  EXPECT_FALSE(s.allows("c"));
  EXPECT_FALSE(s.is_complement());
  EXPECT_EQ(s.values(), (Values{"a", "b"}));
  EXPECT_FALSE(s.is_empty());
  EXPECT_FALSE(s.allows_absent());
  EXPECT_EQ(s.to_string(), "In {a, b}");
  EXPECT_TRUE(ValueSet::of({}).is_empty());
}

TEST(ValueSetBasics, AllButAllowsEverythingElseAndAbsence) {
  ValueSet s = ValueSet::all_but({"a"});
  EXPECT_FALSE(s.allows("a"));
  EXPECT_TRUE(s.allows("b"));
  EXPECT_TRUE(s.is_complement());
  EXPECT_FALSE(s.is_empty());
  EXPECT_TRUE(s.allows_absent());
  EXPECT_EQ(s.to_string(), "NotIn {a}");
}

TEST(ValueSetBasics, GreaterThanAndLessThanAllowIntegersInRange) {
  ValueSet gt = ValueSet::greater_than(4);
  EXPECT_TRUE(gt.allows("5"));
  EXPECT_TRUE(gt.allows("100"));
  EXPECT_FALSE(gt.allows("4"));
  EXPECT_FALSE(gt.allows("-7"));
  EXPECT_FALSE(gt.allows("x"));
  EXPECT_FALSE(gt.allows_absent());
  EXPECT_FALSE(gt.is_empty());
  EXPECT_EQ(gt.to_string(), "Gt 4");

  ValueSet lt = ValueSet::less_than(5);
  EXPECT_TRUE(lt.allows("4"));
  EXPECT_TRUE(lt.allows("-3"));
  EXPECT_FALSE(lt.allows("5"));
  EXPECT_FALSE(lt.allows("five"));
  EXPECT_FALSE(lt.allows_absent());
  EXPECT_EQ(lt.to_string(), "Lt 5");
}

TEST(ValueSetIntersect, InWithInKeepsCommonValues) {
  ValueSet s = ValueSet::of({"a", "b"}).intersect(ValueSet::of({"b", "c"}));
  EXPECT_FALSE(s.is_complement());
  EXPECT_EQ(s.values(), (Values{"b"}));
  EXPECT_EQ(s, ValueSet::of({"b"}));
  EXPECT_FALSE(s.allows_absent());
}

TEST(ValueSetIntersect, InWithNotInSameValueIsEmpty) {
  ValueSet s = ValueSet::of({"a"}).intersect(ValueSet::all_but({"a"}));
  EXPECT_TRUE(s.is_empty());
  EXPECT_FALSE(s.allows("a"));
  EXPECT_FALSE(s.allows_absent());
  ValueSet t = ValueSet::all_but({"a"}).intersect(ValueSet::of({"a", "b"}));  // either order
  EXPECT_EQ(t.values(), (Values{"b"}));
  EXPECT_FALSE(t.is_complement());
}

TEST(ValueSetIntersect, NotInWithNotInExcludesTheUnion) {
  ValueSet s = ValueSet::all_but({"a"}).intersect(ValueSet::all_but({"b"}));
  EXPECT_TRUE(s.is_complement());
  EXPECT_EQ(s.values(), (Values{"a", "b"}));
  EXPECT_FALSE(s.allows("a"));
  EXPECT_FALSE(s.allows("b"));
  EXPECT_TRUE(s.allows("c"));
  EXPECT_TRUE(s.allows_absent());
  EXPECT_EQ(s, ValueSet::all_but({"a", "b"}));
}

TEST(ValueSetIntersect, ExistsIsTheIdentity) {
  EXPECT_EQ(ValueSet::any().intersect(ValueSet::of({"a"})), ValueSet::of({"a"}));
  EXPECT_EQ(ValueSet::of({"a"}).intersect(ValueSet::any()), ValueSet::of({"a"}));
  EXPECT_EQ(ValueSet::any().intersect(ValueSet::any()), ValueSet::any());
  // Exists ∩ NotIn: the label must now be present.
  ValueSet s = ValueSet::any().intersect(ValueSet::all_but({"a"}));
  EXPECT_FALSE(s.allows("a"));
  EXPECT_TRUE(s.allows("b"));
  EXPECT_FALSE(s.allows_absent());
}

TEST(ValueSetIntersect, GtAndLtWithNoIntegerBetweenIsEmpty) {
  ValueSet s = ValueSet::greater_than(4).intersect(ValueSet::less_than(5));  // 4 < n < 5: none
  EXPECT_TRUE(s.is_empty());
  EXPECT_FALSE(s.allows("4"));
  EXPECT_FALSE(s.allows("5"));
  EXPECT_FALSE(s.allows_absent());
}

TEST(ValueSetIntersect, GtAndLtWithOneIntegerBetween) {
  ValueSet s = ValueSet::greater_than(4).intersect(ValueSet::less_than(6));  // only 5
  EXPECT_FALSE(s.is_empty());
  EXPECT_TRUE(s.allows("5"));
  EXPECT_FALSE(s.allows("4"));
  EXPECT_FALSE(s.allows("6"));
  EXPECT_EQ(s.to_string(), "Gt 4 and Lt 6");
}

TEST(ValueSetIntersect, TighterBoundWins) {
  ValueSet s = ValueSet::greater_than(2).intersect(ValueSet::greater_than(7)).intersect(ValueSet::less_than(20))
                   .intersect(ValueSet::less_than(9));
  EXPECT_EQ(s.to_string(), "Gt 7 and Lt 9");
  EXPECT_TRUE(s.allows("8"));
  EXPECT_FALSE(s.allows("7"));
  EXPECT_FALSE(s.allows("9"));
}

TEST(ValueSetIntersect, GtFiltersFiniteSetToIntegersAboveBound) {
  ValueSet s = ValueSet::greater_than(4).intersect(ValueSet::of({"5", "x", "3"}));
  EXPECT_FALSE(s.is_complement());
  EXPECT_EQ(s.values(), (Values{"5"}));
  EXPECT_TRUE(s.allows("5"));
  EXPECT_FALSE(s.allows("x"));
  EXPECT_FALSE(s.is_empty());
  ValueSet t = ValueSet::of({"5", "x", "3"}).intersect(ValueSet::greater_than(4));
  EXPECT_EQ(t.values(), (Values{"5"}));
}

TEST(ValueSetIntersect, NotInWithBoundsKeepsBoth) {
  ValueSet s = ValueSet::all_but({"6"}).intersect(ValueSet::greater_than(4));
  EXPECT_TRUE(s.allows("5"));
  EXPECT_FALSE(s.allows("6"));
  EXPECT_TRUE(s.allows("7"));
  EXPECT_FALSE(s.allows("4"));
  EXPECT_FALSE(s.allows_absent());  // Gt needs the label
  EXPECT_EQ(s.to_string(), "NotIn {6} and Gt 4");
}

TEST(ValueSetAbsence, OnlyNotInAndDoesNotExistAllowAbsentLabel) {
  EXPECT_TRUE(ValueSet::all_but({"a"}).allows_absent());
  EXPECT_TRUE(ValueSet::none().allows_absent());
  EXPECT_FALSE(ValueSet::any().allows_absent());
  EXPECT_FALSE(ValueSet::of({"a"}).allows_absent());
  EXPECT_FALSE(ValueSet::greater_than(1).allows_absent());
  EXPECT_FALSE(ValueSet::less_than(1).allows_absent());

  EXPECT_TRUE(ValueSet::all_but({"a"}).intersect(ValueSet::none()).allows_absent());
  EXPECT_TRUE(ValueSet::none().intersect(ValueSet::all_but({"a"})).allows_absent());
  EXPECT_TRUE(ValueSet::none().intersect(ValueSet::none()).allows_absent());
  EXPECT_TRUE(ValueSet::all_but({"a"}).intersect(ValueSet::all_but({"b"})).allows_absent());
  EXPECT_FALSE(ValueSet::all_but({"a"}).intersect(ValueSet::any()).allows_absent());
  EXPECT_FALSE(ValueSet::all_but({"a"}).intersect(ValueSet::of({"b"})).allows_absent());
  EXPECT_FALSE(ValueSet::none().intersect(ValueSet::of({"a"})).allows_absent());
  EXPECT_FALSE(ValueSet::none().intersect(ValueSet::any()).allows_absent());
}

TEST(ValueSetFrom, EachOperator) {
  auto from = [](SelectorOperator op, std::vector<Symbol> values) {
    return ValueSet::from(LabelRequirement{Symbol("k"), op, std::move(values)});
  };
  EXPECT_EQ(from(SelectorOperator::In, {"a", "b"}), ValueSet::of({"a", "b"}));
  EXPECT_EQ(from(SelectorOperator::NotIn, {"a"}), ValueSet::all_but({"a"}));
  EXPECT_EQ(from(SelectorOperator::Exists, {}), ValueSet::any());
  EXPECT_EQ(from(SelectorOperator::DoesNotExist, {}), ValueSet::none());
  EXPECT_EQ(from(SelectorOperator::Gt, {"4"}), ValueSet::greater_than(4));
  EXPECT_EQ(from(SelectorOperator::Lt, {"-2"}), ValueSet::less_than(-2));
}

TEST(ValueSetFrom, GtLtWithoutOneIntegerAllowNothing) {
  auto from = [](SelectorOperator op, std::vector<Symbol> values) {
    return ValueSet::from(LabelRequirement{Symbol("k"), op, std::move(values)});
  };
  for (const ValueSet& s : {from(SelectorOperator::Gt, {"four"}), from(SelectorOperator::Lt, {"1", "2"}),
                            from(SelectorOperator::Gt, {})}) {
    EXPECT_TRUE(s.is_empty());
    EXPECT_FALSE(s.allows_absent());
    EXPECT_FALSE(s.allows("3"));
  }
}

// A pod's nodeAffinity `Gt ["+5"]` is valid (apiserver validates it with strconv.ParseInt, which accepts a plus
// sign), and LabelRequirement::matches reads it as 5; the requirement algebra must agree.
TEST(ValueSetFrom, GtBoundWithPlusSignIsAnInteger) {
  ValueSet s = ValueSet::from(LabelRequirement{Symbol("k"), SelectorOperator::Gt, {Symbol("+5")}});
  EXPECT_TRUE(s.allows("6"));
  EXPECT_FALSE(s.allows("5"));
  EXPECT_FALSE(s.is_empty());
  EXPECT_EQ(s, ValueSet::greater_than(5));
}

// "True when no value at all is allowed": 4 < n < 6 leaves only 5, and NotIn {5} removes it.
TEST(ValueSetEmptiness, NotInRemovingTheOnlyIntegerInRangeIsEmpty) {
  ValueSet s = ValueSet::all_but({"5"}).intersect(ValueSet::greater_than(4)).intersect(ValueSet::less_than(6));
  ASSERT_FALSE(s.allows("5"));
  EXPECT_TRUE(s.is_empty());
}

// Lt INT64_MIN admits no integer at all, so with any Gt bound the set is empty. Run in a child process: the
// emptiness check may overflow (INT64_MIN - 1), which the sanitizer build turns into an abort.
TEST(ValueSetEmptiness, LtMostNegativeIntegerWithGtIsEmpty) {
  EXPECT_EXIT(
      {
        ValueSet s = ValueSet::greater_than(0).intersect(ValueSet::less_than(std::numeric_limits<std::int64_t>::min()));
        std::exit(s.is_empty() ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

// No int64 is greater than INT64_MAX or less than INT64_MIN, so each bound alone already admits nothing.
TEST(ValueSetEmptiness, BoundsAdmittingNoInt64AreEmpty) {
  EXPECT_TRUE(ValueSet::greater_than(std::numeric_limits<std::int64_t>::max()).is_empty());
  EXPECT_TRUE(ValueSet::less_than(std::numeric_limits<std::int64_t>::min()).is_empty());
}

TEST(RequirementSetBuild, FromLabelsPinsEachKeyToItsValue) {
  RequirementSet r = RequirementSet::from_labels(Labels{{"topology.kubernetes.io/zone", "a"}, {"kubernetes.io/arch", "arm64"}});
  EXPECT_EQ(r.keys().size(), 2u);
  ASSERT_NE(r.find(kZone), nullptr);
  EXPECT_EQ(*r.find(kZone), ValueSet::of({"a"}));
  EXPECT_TRUE(r.allows(kZone, "a"));
  EXPECT_FALSE(r.allows(kZone, "b"));
  EXPECT_TRUE(r.allows(kArch, "arm64"));
  EXPECT_TRUE(r.allows("unmentioned", "anything"));  // keys not named allow every value
  EXPECT_FALSE(r.has("unmentioned"));
  EXPECT_FALSE(r.unsatisfiable());
}

TEST(RequirementSetBuild, FromTermAndsExpressionsOnTheSameKey) {
  NodeSelectorTerm term{{LabelRequirement{Symbol(kZone), SelectorOperator::In, {"a", "b"}},
                         LabelRequirement{Symbol(kZone), SelectorOperator::NotIn, {"a"}},
                         LabelRequirement{Symbol(kArch), SelectorOperator::Exists, {}}},
                        {}};
  RequirementSet r = RequirementSet::from_term(term);
  ASSERT_NE(r.find(kZone), nullptr);
  EXPECT_EQ(r.find(kZone)->values(), (Values{"b"}));
  EXPECT_FALSE(r.find(kZone)->is_complement());
  EXPECT_TRUE(r.allows(kZone, "b"));
  EXPECT_FALSE(r.allows(kZone, "a"));
  ASSERT_NE(r.find(kArch), nullptr);
  EXPECT_EQ(*r.find(kArch), ValueSet::any());
}

TEST(RequirementSetBuild, AddNarrowsExistingKey) {
  RequirementSet r;
  r.add(kZone, ValueSet::of({"a", "b", "c"}));
  r.add(LabelRequirement{Symbol(kZone), SelectorOperator::NotIn, {"c"}});
  EXPECT_EQ(r.find(kZone)->values(), (Values{"a", "b"}));
  EXPECT_EQ(r.to_string(), "topology.kubernetes.io/zone In {a, b}");
}

TEST(RequirementSetIntersect, UnionOfKeysIntersectionOfValues) {
  RequirementSet a;
  a.add(kZone, ValueSet::of({"a", "b"}));
  RequirementSet b;
  b.add(kZone, ValueSet::of({"b", "c"}));
  b.add(kArch, ValueSet::of({"amd64"}));
  RequirementSet both = a.intersect(b);
  EXPECT_EQ(both.keys().size(), 2u);
  EXPECT_EQ(*both.find(kZone), ValueSet::of({"b"}));
  EXPECT_EQ(*both.find(kArch), ValueSet::of({"amd64"}));
  EXPECT_FALSE(both.unsatisfiable());
  // a itself is unchanged
  EXPECT_EQ(*a.find(kZone), ValueSet::of({"a", "b"}));
  EXPECT_FALSE(a.has(kArch));
}

TEST(RequirementSetCompatibility, DisjointInSetsAreIncompatibleNamingTheKey) {
  RequirementSet pod;
  pod.add(kZone, ValueSet::of({"zone-a"}));
  RequirementSet pool;
  pool.add(kZone, ValueSet::of({"zone-b", "zone-c"}));
  auto reason = pod.incompatibility(pool);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason, "key \"topology.kubernetes.io/zone\": In {zone-a} conflicts with In {zone-b, zone-c}");
  EXPECT_FALSE(pod.compatible(pool));
  EXPECT_FALSE(pool.compatible(pod));
}

TEST(RequirementSetCompatibility, OverlappingSetsAreCompatible) {
  RequirementSet pod;
  pod.add(kZone, ValueSet::of({"a", "b"}));
  RequirementSet pool;
  pool.add(kZone, ValueSet::of({"b", "c"}));
  EXPECT_FALSE(pod.incompatibility(pool).has_value());
  EXPECT_TRUE(pod.compatible(pool));
}

TEST(RequirementSetCompatibility, KeysOnlyOnOneSideAreCompatible) {
  RequirementSet pod;
  pod.add(kZone, ValueSet::of({"a"}));
  RequirementSet pool;
  pool.add(kArch, ValueSet::of({"amd64"}));
  EXPECT_TRUE(pod.compatible(pool));
  EXPECT_TRUE(pool.compatible(pod));
  EXPECT_TRUE(pod.compatible(RequirementSet{}));
  EXPECT_TRUE(RequirementSet{}.compatible(pod));
}

TEST(RequirementSetCompatibility, NotInAndDoesNotExistAreCompatible) {
  RequirementSet pod;
  pod.add("gpu", ValueSet::all_but({"a100"}));
  RequirementSet pool;
  pool.add("gpu", ValueSet::none());
  EXPECT_TRUE(pod.compatible(pool));  // a node without the label satisfies both
  EXPECT_TRUE(pool.compatible(pod));
}

TEST(RequirementSetCompatibility, ExistsAndDoesNotExistAreIncompatible) {
  RequirementSet pod;
  pod.add("gpu", ValueSet::any());
  RequirementSet pool;
  pool.add("gpu", ValueSet::none());
  EXPECT_FALSE(pod.compatible(pool));
}

TEST(RequirementSetCompatibility, PodNeedingArmAgainstAmdOnlyNodePool) {
  RequirementSet pod;
  pod.add(LabelRequirement{Symbol(kZone), SelectorOperator::In, {"us-east-1a"}});
  pod.add(LabelRequirement{Symbol(kArch), SelectorOperator::In, {"arm64"}});
  RequirementSet pool;
  pool.add(LabelRequirement{Symbol(kZone), SelectorOperator::In, {"us-east-1a", "us-east-1b"}});
  pool.add(LabelRequirement{Symbol(kArch), SelectorOperator::In, {"amd64"}});

  auto reason = pod.incompatibility(pool);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(*reason, "key \"kubernetes.io/arch\": In {arm64} conflicts with In {amd64}");
  EXPECT_TRUE(pod.intersect(pool).unsatisfiable());

  RequirementSet arm_pool = pool;
  arm_pool.add(kArch, ValueSet::any());  // still amd64 only
  EXPECT_FALSE(pod.compatible(arm_pool));
  RequirementSet both_arch;
  both_arch.add(kZone, ValueSet::of({"us-east-1a", "us-east-1b"}));
  both_arch.add(kArch, ValueSet::of({"amd64", "arm64"}));
  EXPECT_TRUE(pod.compatible(both_arch));
  EXPECT_EQ(*pod.intersect(both_arch).find(kZone), ValueSet::of({"us-east-1a"}));
}

TEST(RequirementSetSatisfiable, EmptyKeyThatMustExistIsUnsatisfiable) {
  RequirementSet r;
  EXPECT_FALSE(r.unsatisfiable());
  r.add(kZone, ValueSet::of({"a"}));
  EXPECT_FALSE(r.unsatisfiable());
  r.add(kZone, ValueSet::of({"b"}));
  EXPECT_TRUE(r.unsatisfiable());
  EXPECT_FALSE(r.allows(kZone, "a"));
  EXPECT_FALSE(r.allows(kZone, "b"));
}

TEST(RequirementSetSatisfiable, DoesNotExistIsSatisfiedByAbsence) {
  RequirementSet r;
  r.add("gpu", ValueSet::none());
  EXPECT_FALSE(r.unsatisfiable());
  EXPECT_FALSE(r.allows("gpu", "a100"));
  r.add("gpu", ValueSet::all_but({"t4"}));
  EXPECT_FALSE(r.unsatisfiable());
  r.add("cores", ValueSet::greater_than(4));
  r.add("cores", ValueSet::less_than(5));
  EXPECT_TRUE(r.unsatisfiable());
}

}  // namespace
}  // namespace scalewright
