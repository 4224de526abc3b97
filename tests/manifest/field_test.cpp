// The typed field reader and the helpers kind decoders are built from.
#include "manifest/field.h"

#include <gtest/gtest.h>

#include "manifest/meta_decoder.h"
#include "manifest/selectors.h"

namespace scalewright::manifest {
namespace {

Field root(const std::string& yaml) { return Field(YAML::Load(yaml), ""); }

// The FieldError a call throws, as "path: problem".
template <typename F>
std::string error_of(F&& call) {
  try {
    call();
  } catch (const FieldError& error) {
    return error.path + ": " + error.problem;
  }
  return "no error";
}

TEST(Field, PathsJoinKeysAndListIndices) {
  Field object = root("spec: {containers: [{name: a}, {name: b, resources: {requests: {cpu: 1}}}]}");
  std::vector<std::string> paths;
  object.child("spec").each("containers", [&](const Field& c) {
    paths.push_back(c.child("resources").child("requests").path_of("cpu"));
  });
  EXPECT_EQ(paths, (std::vector<std::string>{"spec.containers[0].resources.requests.cpu",
                                             "spec.containers[1].resources.requests.cpu"}));
}

TEST(Field, AbsentAndNullFieldsGiveTheFallback) {
  Field object = root("a: ~\nb:\n");
  EXPECT_EQ(object.optional_string("a", "x"), "x");
  EXPECT_EQ(object.optional_int32("b", 7), 7);
  EXPECT_EQ(object.optional_int32("missing", 3), 3);
  EXPECT_FALSE(object.quantity("missing").has_value());
  EXPECT_FALSE(object.child("missing").child("deeper").present());
}

TEST(Field, ScalarsOfEachType) {
  Field object = root("s: hello\nn: -42\nbig: 9000000000\nyes: true\nno: False\nq: 1.5Gi\nnum: 8080\n");
  EXPECT_EQ(object.required_string("s"), "hello");
  EXPECT_EQ(object.optional_string("num"), "8080");  // a plain number reads as a string where one is expected
  EXPECT_EQ(object.maybe_int32("n"), -42);
  EXPECT_EQ(object.maybe_int64("big"), 9000000000LL);
  EXPECT_TRUE(object.optional_bool("yes", false));
  EXPECT_FALSE(object.optional_bool("no", true));
  EXPECT_EQ(object.quantity("q")->value(), 1610612736);  // 1.5 * 2^30
}

TEST(Field, WrongTypesNameThePathAndWhatWasFound) {
  Field object = root("n: abc\nq: \"3\"\nm: {a: 1}\nl: [1]\nbig: 9000000000\nb: \"true\"\nx: 1.5.3\n");
  EXPECT_EQ(error_of([&] { object.maybe_int32("n"); }), "n: expected an integer, got \"abc\"");
  EXPECT_EQ(error_of([&] { object.maybe_int32("q"); }), "q: expected an integer, got the string \"3\"");
  EXPECT_EQ(error_of([&] { object.maybe_string("m"); }), "m: expected a string, got a mapping");
  EXPECT_EQ(error_of([&] { object.child("l").child("a"); }), "l: expected a mapping, got a list");
  EXPECT_EQ(error_of([&] { object.each("m", [](const Field&) {}); }), "m: expected a list, got a mapping");
  EXPECT_EQ(error_of([&] { object.maybe_int32("big"); }), "big: expected a 32-bit integer, got \"9000000000\"");
  EXPECT_EQ(error_of([&] { object.optional_bool("b", false); }), "b: expected a boolean, got the string \"true\"");
  EXPECT_EQ(error_of([&] { object.quantity("x"); }), "x: invalid quantity \"1.5.3\"");
  EXPECT_EQ(error_of([&] { object.required_string("missing"); }), "missing: required");
}

TEST(Field, AnAbsentFieldAnswersWithoutThrowingYamlErrors) {
  Field missing = root("a: 1").child("b");
  EXPECT_FALSE(missing.present());
  EXPECT_EQ(missing.path(), "b");
  EXPECT_EQ(missing.describe(), "null");
  EXPECT_EQ(error_of([&] { missing.as_string(); }), "b: expected a string, got null");
}

TEST(Field, ChoiceAcceptsTheNamesAndListsThemWhenWrong) {
  enum class Color { Red, Blue };
  Field object = root("a: Blue\nb: Green\nc: \"\"\n");
  EXPECT_EQ(object.choice("a", "color", {{"Red", Color::Red}, {"Blue", Color::Blue}}, Color::Red), Color::Blue);
  EXPECT_EQ(object.choice("c", "color", {{"Red", Color::Red}, {"Blue", Color::Blue}}, Color::Blue), Color::Blue);
  EXPECT_EQ(error_of([&] { object.choice("b", "color", {{"Red", Color::Red}, {"Blue", Color::Blue}}, Color::Red); }),
            "b: unknown color \"Green\" (expected Red, Blue)");
  EXPECT_EQ(error_of([&] { object.required_choice<Color>("missing", "color", {{"Red", Color::Red}}); }),
            "missing: required");
}

TEST(Field, StringMapKeepsDocumentOrderAndReadsNullAsEmpty) {
  Field object = root("labels: {b: \"2\", a: x, empty: ~}");
  EXPECT_EQ(object.string_map("labels"),
            (std::vector<std::pair<std::string, std::string>>{{"b", "2"}, {"a", "x"}, {"empty", ""}}));
}

TEST(Field, QuoteEscapesQuotesAndBackslashes) { EXPECT_EQ(quote("a\"b\\c"), "\"a\\\"b\\\\c\""); }

TEST(Rfc3339, UtcOffsetsAndFractions) {
  // 2024-03-01: 54 years after 1970 with 13 leap days, plus 31 + 29 days = 19783 days = 1709251200 s.
  EXPECT_EQ(parse_rfc3339("2024-03-01T12:00:00Z"), 1709251200 + 12 * 3600);
  EXPECT_EQ(parse_rfc3339("2024-03-01T12:00:00.123456Z"), 1709251200 + 12 * 3600);
  EXPECT_EQ(parse_rfc3339("2024-03-01T12:00:00+02:00"), 1709251200 + 10 * 3600);
  EXPECT_EQ(parse_rfc3339("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(parse_rfc3339("1969-12-31T23:59:59Z"), -1);
  EXPECT_FALSE(parse_rfc3339("2024-02-30T00:00:00Z").has_value());
  EXPECT_FALSE(parse_rfc3339("2024-03-01 12:00:00Z").has_value());
  EXPECT_FALSE(parse_rfc3339("2024-03-01T12:00:00").has_value());
  EXPECT_FALSE(parse_rfc3339("yesterday").has_value());
}

TEST(Selectors, MatchLabelsBecomeInRequirementsWithOneValue) {
  LabelSelector selector = decode_label_selector(
      root("matchLabels: {app: web}\nmatchExpressions: [{key: tier, operator: NotIn, values: [a, b]}]"));
  EXPECT_EQ(selector, (LabelSelector{{{Symbol("app"), SelectorOperator::In, {Symbol("web")}},
                                      {Symbol("tier"), SelectorOperator::NotIn, {Symbol("a"), Symbol("b")}}}}));
}

TEST(Selectors, OperatorValueCounts) {
  auto requirement = [](const std::string& yaml) { return error_of([&] { decode_node_requirement(root(yaml)); }); };
  EXPECT_EQ(requirement("{key: k, operator: In}"), "values: In needs at least one value");
  EXPECT_EQ(requirement("{key: k, operator: DoesNotExist, values: [a]}"),
            "values: DoesNotExist takes no values, got 1");
  EXPECT_EQ(requirement("{key: k, operator: Lt, values: [a]}"), "values[0]: Lt needs an integer value, got \"a\"");
  EXPECT_EQ(requirement("{key: k, operator: Gt, values: [\"4\"]}"), "no error");
  EXPECT_EQ(requirement("{operator: Exists}"), "key: required");
  EXPECT_EQ(requirement("{key: k}"), "operator: required");
}

TEST(Selectors, LabelSelectorsRejectGtAndLt) {
  const std::string yaml = "matchExpressions: [{key: k, operator: Gt, values: [\"1\"]}]";
  EXPECT_EQ(error_of([&] { decode_label_selector(root(yaml)); }),
            "matchExpressions[0].operator: unsupported operator \"Gt\" in a label selector (expected In, NotIn, "
            "Exists, DoesNotExist)");
}

TEST(Selectors, MatchFieldsTakeMetadataNameOnly) {
  NodeSelectorTerm term =
      decode_node_selector_term(root("matchFields: [{key: metadata.name, operator: In, values: [n1]}]"));
  EXPECT_EQ(term.match_fields,
            (std::vector<LabelRequirement>{{Symbol("metadata.name"), SelectorOperator::In, {Symbol("n1")}}}));
  const std::string bad_field = "matchFields: [{key: spec.x, operator: In, values: [a]}]";
  EXPECT_EQ(error_of([&] { decode_node_selector_term(root(bad_field)); }),
            "matchFields[0].key: unsupported field \"spec.x\" (expected metadata.name)");
}

}  // namespace
}  // namespace scalewright::manifest
