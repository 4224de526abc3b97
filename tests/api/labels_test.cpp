// Labels, label requirements with every operator, label selectors and node selectors.
#include "api/labels.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace scalewright {
namespace {

LabelRequirement req(const char* key, SelectorOperator op, std::vector<Symbol> values = {}) {
  return LabelRequirement{Symbol(key), op, std::move(values)};
}

TEST(Labels, SetFindAndOverwrite) {
  Labels labels;
  EXPECT_TRUE(labels.empty());
  labels.set("app", "web");
  labels.set("tier", "frontend");
  ASSERT_NE(labels.find("app"), nullptr);
  EXPECT_EQ(*labels.find("app"), Symbol("web"));
  EXPECT_EQ(labels.find("missing"), nullptr);
  EXPECT_TRUE(labels.has("tier"));
  EXPECT_FALSE(labels.has("missing"));

  labels.set("app", "api");
  EXPECT_EQ(*labels.find("app"), Symbol("api"));
  EXPECT_EQ(labels.size(), 2u);
}

TEST(Labels, EraseRemovesOnlyThatKey) {
  Labels labels{{"app", "web"}, {"tier", "frontend"}};
  labels.erase("app");
  EXPECT_FALSE(labels.has("app"));
  EXPECT_TRUE(labels.has("tier"));
  labels.erase("never-there");
  EXPECT_EQ(labels.size(), 1u);
}

TEST(Labels, InitializerListEqualsSetCallsInAnyOrder) {
  Labels a{{"b", "2"}, {"a", "1"}};
  Labels b;
  b.set("a", "1");
  b.set("b", "2");
  EXPECT_EQ(a, b);
}

TEST(Labels, ContainsAllNeedsEveryKeyWithSameValue) {
  Labels node{{"zone", "a"}, {"arch", "amd64"}, {"os", "linux"}};
  EXPECT_TRUE(node.contains_all(Labels{}));
  EXPECT_TRUE(node.contains_all(Labels{{"zone", "a"}}));
  EXPECT_TRUE(node.contains_all(Labels{{"os", "linux"}, {"zone", "a"}}));
  EXPECT_TRUE(node.contains_all(node));
  EXPECT_FALSE(node.contains_all(Labels{{"zone", "b"}}));                 // wrong value
  EXPECT_FALSE(node.contains_all(Labels{{"zone", "a"}, {"gpu", "yes"}}));  // missing key
  EXPECT_FALSE(Labels{}.contains_all(Labels{{"zone", "a"}}));
}

TEST(SelectorOperatorParse, KnownNamesRoundTrip) {
  for (SelectorOperator op : {SelectorOperator::In, SelectorOperator::NotIn, SelectorOperator::Exists,
                              SelectorOperator::DoesNotExist, SelectorOperator::Gt, SelectorOperator::Lt}) {
    auto parsed = parse_selector_operator(to_string(op));
    ASSERT_TRUE(parsed.has_value()) << to_string(op);
    EXPECT_EQ(*parsed, op);
  }
  EXPECT_EQ(to_string(SelectorOperator::DoesNotExist), "DoesNotExist");
}

TEST(SelectorOperatorParse, UnknownNamesAreNullopt) {
  EXPECT_FALSE(parse_selector_operator("Inn").has_value());
  EXPECT_FALSE(parse_selector_operator("in").has_value());
  EXPECT_FALSE(parse_selector_operator("").has_value());
  EXPECT_FALSE(parse_selector_operator("GreaterThan").has_value());
}

TEST(LabelRequirementMatch, InNeedsPresentLabelWithListedValue) {
  auto r = req("zone", SelectorOperator::In, {"a", "b"});
  EXPECT_TRUE(r.matches(Labels{{"zone", "a"}}));
  EXPECT_TRUE(r.matches(Labels{{"zone", "b"}}));
  EXPECT_FALSE(r.matches(Labels{{"zone", "c"}}));
  EXPECT_FALSE(r.matches(Labels{}));
}

TEST(LabelRequirementMatch, NotInMatchesOtherValuesAndAbsentLabel) {
  auto r = req("zone", SelectorOperator::NotIn, {"a"});
  EXPECT_FALSE(r.matches(Labels{{"zone", "a"}}));
  EXPECT_TRUE(r.matches(Labels{{"zone", "b"}}));
  EXPECT_TRUE(r.matches(Labels{}));
  EXPECT_TRUE(r.matches(Labels{{"other", "a"}}));
}

TEST(LabelRequirementMatch, ExistsAndDoesNotExist) {
  auto exists = req("gpu", SelectorOperator::Exists);
  auto absent = req("gpu", SelectorOperator::DoesNotExist);
  EXPECT_TRUE(exists.matches(Labels{{"gpu", "true"}}));
  EXPECT_TRUE(exists.matches(Labels{{"gpu", ""}}));
  EXPECT_FALSE(exists.matches(Labels{}));
  EXPECT_FALSE(absent.matches(Labels{{"gpu", "true"}}));
  EXPECT_TRUE(absent.matches(Labels{}));
}

TEST(LabelRequirementMatch, GtAndLtCompareAsIntegers) {
  auto gt = req("cores", SelectorOperator::Gt, {"8"});
  EXPECT_TRUE(gt.matches(Labels{{"cores", "16"}}));  // 16 > 8 (as strings "16" < "8")
  EXPECT_TRUE(gt.matches(Labels{{"cores", "9"}}));
  EXPECT_FALSE(gt.matches(Labels{{"cores", "8"}}));
  EXPECT_FALSE(gt.matches(Labels{{"cores", "-10"}}));
  EXPECT_FALSE(gt.matches(Labels{}));

  auto lt = req("cores", SelectorOperator::Lt, {"8"});
  EXPECT_TRUE(lt.matches(Labels{{"cores", "7"}}));
  EXPECT_TRUE(lt.matches(Labels{{"cores", "-3"}}));
  EXPECT_FALSE(lt.matches(Labels{{"cores", "8"}}));
  EXPECT_FALSE(lt.matches(Labels{{"cores", "10"}}));  // 10 > 8 (as strings "10" < "8")
  EXPECT_FALSE(lt.matches(Labels{}));
}

TEST(LabelRequirementMatch, GtLtNeverMatchNonIntegers) {
  auto gt = req("cores", SelectorOperator::Gt, {"1"});
  EXPECT_FALSE(gt.matches(Labels{{"cores", "many"}}));
  EXPECT_FALSE(gt.matches(Labels{{"cores", "2.5"}}));
  EXPECT_FALSE(gt.matches(Labels{{"cores", "5x"}}));
  EXPECT_FALSE(gt.matches(Labels{{"cores", ""}}));
  EXPECT_FALSE(gt.matches(Labels{{"cores", "99999999999999999999"}}));  // beyond int64

  auto bad_bound = req("cores", SelectorOperator::Lt, {"ten"});
  EXPECT_FALSE(bad_bound.matches(Labels{{"cores", "1"}}));
  auto two_bounds = req("cores", SelectorOperator::Gt, {"1", "2"});
  EXPECT_FALSE(two_bounds.matches(Labels{{"cores", "5"}}));
  auto no_bound = req("cores", SelectorOperator::Gt);
  EXPECT_FALSE(no_bound.matches(Labels{{"cores", "5"}}));
}

// strconv.ParseInt(v, 10, 64) accepts one optional sign: "+5" is 5, but "+-5" is an error.
TEST(LabelRequirementMatch, GtLtReadIntegersAsParseIntDoes) {
  auto gt = req("cores", SelectorOperator::Gt, {"4"});
  EXPECT_TRUE(gt.matches(Labels{{"cores", "+5"}}));
  auto lt = req("cores", SelectorOperator::Lt, {"0"});
  EXPECT_FALSE(lt.matches(Labels{{"cores", "+-5"}}));
  EXPECT_FALSE(lt.matches(Labels{{"cores", "-+5"}}));
}

TEST(LabelRequirementMatch, MatchesValueTakesNullForAbsent) {
  auto notin = req("k", SelectorOperator::NotIn, {"v"});
  EXPECT_TRUE(notin.matches_value(nullptr));
  Symbol v("v");
  EXPECT_FALSE(notin.matches_value(&v));
  EXPECT_FALSE(req("k", SelectorOperator::In, {"v"}).matches_value(nullptr));
}

TEST(LabelSelectorMatch, EmptySelectorMatchesEverything) {
  LabelSelector empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_TRUE(empty.matches(Labels{}));
  EXPECT_TRUE(empty.matches(Labels{{"app", "web"}}));
}

TEST(LabelSelectorMatch, RequirementsAreAnded) {
  LabelSelector s{{req("app", SelectorOperator::In, {"web"}), req("tier", SelectorOperator::NotIn, {"db"})}};
  EXPECT_FALSE(s.empty());
  EXPECT_TRUE(s.matches(Labels{{"app", "web"}}));
  EXPECT_TRUE(s.matches(Labels{{"app", "web"}, {"tier", "frontend"}}));
  EXPECT_FALSE(s.matches(Labels{{"app", "web"}, {"tier", "db"}}));
  EXPECT_FALSE(s.matches(Labels{{"tier", "frontend"}}));
}

TEST(NodeSelectorTermMatch, EmptyTermMatchesNoNode) {
  NodeSelectorTerm term;
  EXPECT_FALSE(term.matches(Labels{}, "node-1"));
  EXPECT_FALSE(term.matches(Labels{{"zone", "a"}}, "node-1"));
}

TEST(NodeSelectorTermMatch, ExpressionsAreAnded) {
  NodeSelectorTerm term{{req("zone", SelectorOperator::In, {"a", "b"}), req("arch", SelectorOperator::In, {"arm64"})},
                        {}};
  EXPECT_TRUE(term.matches(Labels{{"zone", "a"}, {"arch", "arm64"}}, "n"));
  EXPECT_FALSE(term.matches(Labels{{"zone", "a"}, {"arch", "amd64"}}, "n"));
  EXPECT_FALSE(term.matches(Labels{{"zone", "c"}, {"arch", "arm64"}}, "n"));
}

TEST(NodeSelectorTermMatch, MatchFieldsMetadataNameIn) {
  NodeSelectorTerm term{{}, {req("metadata.name", SelectorOperator::In, {"node-1", "node-2"})}};
  EXPECT_TRUE(term.matches(Labels{}, "node-1"));
  EXPECT_TRUE(term.matches(Labels{}, "node-2"));
  EXPECT_FALSE(term.matches(Labels{}, "node-3"));

  NodeSelectorTerm not_in{{}, {req("metadata.name", SelectorOperator::NotIn, {"node-1"})}};
  EXPECT_FALSE(not_in.matches(Labels{}, "node-1"));
  EXPECT_TRUE(not_in.matches(Labels{}, "node-3"));
}

TEST(NodeSelectorTermMatch, MatchFieldsOtherThanMetadataNameNeverMatch) {
  NodeSelectorTerm term{{}, {req("metadata.namespace", SelectorOperator::In, {"node-1"})}};
  EXPECT_FALSE(term.matches(Labels{}, "node-1"));
}

TEST(NodeSelectorTermMatch, ExpressionsAndFieldsBothRequired) {
  NodeSelectorTerm term{{req("zone", SelectorOperator::In, {"a"})},
                        {req("metadata.name", SelectorOperator::In, {"node-1"})}};
  EXPECT_TRUE(term.matches(Labels{{"zone", "a"}}, "node-1"));
  EXPECT_FALSE(term.matches(Labels{{"zone", "b"}}, "node-1"));
  EXPECT_FALSE(term.matches(Labels{{"zone", "a"}}, "node-2"));
}

TEST(NodeSelectorMatch, TermsAreOred) {
  NodeSelector selector{{NodeSelectorTerm{{req("zone", SelectorOperator::In, {"a"})}, {}},
                         NodeSelectorTerm{{req("gpu", SelectorOperator::Exists)}, {}}}};
  EXPECT_TRUE(selector.matches(Labels{{"zone", "a"}}, "n"));
  EXPECT_TRUE(selector.matches(Labels{{"zone", "b"}, {"gpu", "t4"}}, "n"));
  EXPECT_FALSE(selector.matches(Labels{{"zone", "b"}}, "n"));
}

TEST(NodeSelectorMatch, EmptyTermInListContributesNothing) {
  NodeSelector selector{{NodeSelectorTerm{}, NodeSelectorTerm{{req("zone", SelectorOperator::In, {"a"})}, {}}}};
  EXPECT_FALSE(selector.matches(Labels{{"zone", "b"}}, "n"));
  EXPECT_TRUE(selector.matches(Labels{{"zone", "a"}}, "n"));
  EXPECT_FALSE(NodeSelector{}.matches(Labels{{"zone", "a"}}, "n"));  // no terms: nothing matches
}

// The one integer reader behind Gt/Lt label values and YAML integers in manifests.
TEST(ParseInteger, OneOptionalSignThenDigitsAndNothingElse) {
  EXPECT_EQ(parse_integer("42"), 42);
  EXPECT_EQ(parse_integer("+42"), 42);
  EXPECT_EQ(parse_integer("-42"), -42);
  EXPECT_EQ(parse_integer("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_integer("9223372036854775808"), std::nullopt);  // overflow
  EXPECT_EQ(parse_integer("+-5"), std::nullopt);
  EXPECT_EQ(parse_integer("--5"), std::nullopt);
  EXPECT_EQ(parse_integer(""), std::nullopt);
  EXPECT_EQ(parse_integer("+"), std::nullopt);
  EXPECT_EQ(parse_integer("5 "), std::nullopt);
  EXPECT_EQ(parse_integer("0x10"), std::nullopt);
}

}  // namespace
}  // namespace scalewright
