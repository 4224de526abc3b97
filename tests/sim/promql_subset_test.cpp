#include "sim/promql_subset.h"

#include <gtest/gtest.h>

namespace scalewright::sim {
namespace {

using std::chrono::seconds;

TEST(PromqlSubset, ParsesTheKedaWalkthroughQuery) {
  Result<PromQuery> q = parse_promql(R"(sum(rate(http_requests_total{app="podinfo", namespace!='test'}[2m])))");
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q->aggregation, PromQuery::Aggregation::Sum);
  EXPECT_EQ(q->function, PromQuery::Function::Rate);
  EXPECT_EQ(q->metric, "http_requests_total");
  EXPECT_EQ(q->range, seconds(120));
  ASSERT_EQ(q->matchers.size(), 2u);
  EXPECT_EQ(q->matchers[0].name, "app");
  EXPECT_EQ(q->matchers[0].value, "podinfo");
  EXPECT_EQ(q->matchers[1].op, LabelMatcher::Op::NotEqual);
}

TEST(PromqlSubset, RejectsWhatItCannotAnswerWithTheReason) {
  for (const auto& [query, why] : std::vector<std::pair<std::string, std::string>>{
           {"sum by (pod) (rate(x[1m]))", "grouping"},
           {"rate(x)", "expected a range"},
           {"x[5m]", "needs rate, irate or increase"},
           {"histogram_quantile(0.9, x)", "unexpected text"},
           {"x{a=b}", "quoted value"},
           {"x{a=~\"(\"}", "invalid regular expression"},
           {"sum(rate(x[2m]))) ", "unexpected text"},
       }) {
    Result<PromQuery> q = parse_promql(query);
    ASSERT_FALSE(q.ok()) << query;
    EXPECT_NE(q.error().message.find(why), std::string::npos) << q.error().message;
    EXPECT_NE(q.error().message.find("outside what the simulator answers"), std::string::npos);
  }
}

TEST(PromqlSubset, RateIsTheCounterIncreaseOverTheSamplesInTheRange) {
  // Samples every 15 s; 20 requests/s until 60 s, then 50/s. At 120 s a 1m range holds the samples at 60..120 s
  // (the one at exactly 60 s is outside, as Prometheus' range is left-open): (4200 - 2700) / 45 s... computed on
  // the samples 75..120: (4200 - 1950) / 45 = 50.
  std::vector<std::pair<Instant, double>> counter;
  double total = 0;
  for (int t = 0; t <= 120; t += 15) {
    counter.emplace_back(Instant(seconds(t)), total);
    total += (t < 60 ? 20 : 50) * 15;
  }
  // counter: 0:0 15:300 30:600 45:900 60:1200 75:1950 90:2700 105:3450 120:4200
  Series a{{{"__name__", "http_requests_total"}, {"app", "web"}}, &counter};
  Series b{{{"__name__", "http_requests_total"}, {"app", "api"}}, &counter};
  auto eval = [&](const std::string& text) {
    Result<PromQuery> q = parse_promql(text);
    EXPECT_TRUE(q.ok());
    Result<std::vector<double>> v = evaluate(*q, {a, b}, Instant(seconds(120)));
    EXPECT_TRUE(v.ok());
    return *v;
  };
  EXPECT_EQ(eval(R"(rate(http_requests_total{app="web"}[1m]))"), std::vector<double>{50});
  EXPECT_EQ(eval(R"(sum(rate(http_requests_total[1m])))"), std::vector<double>{100});
  // 2m: samples 15..120 s: (4200 - 300) / 105 s.
  EXPECT_DOUBLE_EQ(eval(R"(rate(http_requests_total{app="api"}[2m]))").at(0), 3900.0 / 105);
  EXPECT_EQ(eval(R"(increase(http_requests_total{app="web"}[1m]))"), std::vector<double>{3000});
  EXPECT_EQ(eval(R"(irate(http_requests_total{app="web"}[1m]))"), std::vector<double>{50});
  EXPECT_EQ(eval(R"(http_requests_total{app=~"w.*"})"), std::vector<double>{4200});
  EXPECT_EQ(eval(R"(count(http_requests_total))"), std::vector<double>{2});
  EXPECT_TRUE(eval(R"(sum(rate(http_requests_total{app="none"}[1m])))").empty());
}

}  // namespace
}  // namespace scalewright::sim
