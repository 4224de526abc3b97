// scalingModifiers formulas: precedence, conditionals and the errors a user sees.
#include "workloads/formula.h"

#include <gtest/gtest.h>

namespace scalewright::workloads {
namespace {

double eval(std::string_view text, const std::map<std::string, double>& values = {}) {
  Result<Formula> f = Formula::parse(text);
  EXPECT_TRUE(f.ok()) << (f.ok() ? "" : f.error().message);
  if (!f.ok()) return -12345;
  Result<double> v = f->evaluate(values);
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  return v.ok() ? *v : -12345;
}

std::string parse_error(std::string_view text) {
  Result<Formula> f = Formula::parse(text);
  return f.ok() ? "" : f.error().message;
}

std::string eval_error(std::string_view text, const std::map<std::string, double>& values = {}) {
  Result<Formula> f = Formula::parse(text);
  if (!f.ok()) return "parse: " + f.error().message;
  Result<double> v = f->evaluate(values);
  return v.ok() ? "" : v.error().message;
}

TEST(Formula, ArithmeticPrecedence) {
  EXPECT_DOUBLE_EQ(eval("1 + 2 * 3"), 7);
  EXPECT_DOUBLE_EQ(eval("(1 + 2) * 3"), 9);
  EXPECT_DOUBLE_EQ(eval("10 - 4 - 3"), 3);  // left to right
  EXPECT_DOUBLE_EQ(eval("12 / 4 / 3"), 1);
  EXPECT_DOUBLE_EQ(eval("7 % 4 + 1"), 4);
  EXPECT_DOUBLE_EQ(eval("-2 * 3"), -6);
  EXPECT_DOUBLE_EQ(eval("- (2 + 3) * 2"), -10);
  EXPECT_DOUBLE_EQ(eval("2 - -3"), 5);
  EXPECT_DOUBLE_EQ(eval("1.5e2 + 0.5"), 150.5);
}

TEST(Formula, TriggerNamesAreVariables) {
  std::map<std::string, double> v = {{"queue", 40}, {"rps", 12.5}, {"trig_one", 2}};
  EXPECT_DOUBLE_EQ(eval("(queue + rps * 2) / 2", v), 32.5);
  EXPECT_DOUBLE_EQ(eval("trig_one * 3", v), 6);
  Result<Formula> f = Formula::parse("queue + rps + queue");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->names(), (std::vector<std::string>{"queue", "rps"}));
}

TEST(Formula, ComparisonsAndConditional) {
  std::map<std::string, double> v = {{"a", 5}, {"b", 12}};
  EXPECT_DOUBLE_EQ(eval("a > 3 ? b : 0", v), 12);
  EXPECT_DOUBLE_EQ(eval("a >= 6 ? b : 0", v), 0);
  // Arithmetic binds tighter than comparison, comparison tighter than ?:.
  EXPECT_DOUBLE_EQ(eval("a + 1 == 6 ? 1 : 2", v), 1);
  EXPECT_DOUBLE_EQ(eval("a < b && b < 20 ? 1 : 0", v), 1);
  EXPECT_DOUBLE_EQ(eval("a > b || a != 5 ? 1 : 0", v), 0);
  EXPECT_DOUBLE_EQ(eval("not (a > b) and true ? 3 : 4", v), 3);
  // Nested conditionals group to the right.
  EXPECT_DOUBLE_EQ(eval("a > 10 ? 1 : a > 4 ? 2 : 3", v), 2);
}

TEST(Formula, ParseErrorsQuoteTheFormulaAndColumn) {
  EXPECT_EQ(parse_error("1 +"), "invalid formula \"1 +\" at column 4: unexpected end of formula");
  EXPECT_NE(parse_error("max(a, b)").find("function calls (\"max(\") are not supported"), std::string::npos);
  EXPECT_NE(parse_error("a ?? 0").find("\"??\" is not supported"), std::string::npos);
  EXPECT_NE(parse_error("a ** 2").find("\"**\" is not supported"), std::string::npos);
  EXPECT_NE(parse_error("(a + 1").find("expected \")\""), std::string::npos);
  EXPECT_NE(parse_error("a > 1 ? 2").find("expected \":\""), std::string::npos);
  EXPECT_NE(parse_error("a # b").find("unexpected \"#\""), std::string::npos);
  EXPECT_NE(parse_error("\"x\"").find("strings are not supported"), std::string::npos);
  EXPECT_NE(parse_error("a.b").find("member access"), std::string::npos);
}

TEST(Formula, EvaluationErrors) {
  EXPECT_NE(eval_error("a + missing", {{"a", 1}}).find("no value for \"missing\""), std::string::npos);
  EXPECT_NE(eval_error("a / 0", {{"a", 1}}).find("division by zero"), std::string::npos);
  EXPECT_NE(eval_error("a > 1", {{"a", 2}}).find("yields a boolean"), std::string::npos);
  EXPECT_NE(eval_error("a ? 1 : 2", {{"a", 2}}).find("a number where a boolean is needed"), std::string::npos);
  EXPECT_NE(eval_error("(a > 1) + 1", {{"a", 2}}).find("a boolean where a number is needed"), std::string::npos);
}

}  // namespace
}  // namespace scalewright::workloads
