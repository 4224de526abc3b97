#include "sim/promql_subset.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include <fmt/format.h>

namespace scalewright::sim {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<PromQuery> parse() {
    PromQuery q;
    std::string word = identifier();
    if (auto agg = aggregation(word)) {
      q.aggregation = *agg;
      skip_space();
      if (text_.substr(pos_).starts_with("by") || text_.substr(pos_).starts_with("without")) {
        return fail("grouping (by/without) is not supported");
      }
      if (!expect('(')) return fail(fmt::format("expected \"(\" after {}", word));
      word = identifier();
    }
    if (auto fn = function(word)) {
      q.function = *fn;
      if (!expect('(')) return fail(fmt::format("expected \"(\" after {}", word));
      word = identifier();
    }
    if (aggregation(word) || function(word)) return fail(fmt::format("{} is not supported at this position", word));
    q.metric = word;
    if (peek() == '{' && !matchers(q)) return error_;
    if (q.metric.empty()) {
      auto name = std::find_if(q.matchers.begin(), q.matchers.end(),
                               [](const LabelMatcher& m) { return m.name == "__name__"; });
      if (name == q.matchers.end() || name->op != LabelMatcher::Op::Equal) return fail("expected a metric name");
      q.metric = name->value;
      q.matchers.erase(name);
    }
    if (q.function != PromQuery::Function::None) {
      if (!expect('[')) return fail("expected a range such as [2m] after the series selector");
      std::size_t end = text_.find(']', pos_);
      if (end == std::string_view::npos) return fail("unterminated range");
      Result<Duration> range = parse_duration(text_.substr(pos_, end - pos_));
      if (!range || range->count() <= 0) return fail("invalid range");
      q.range = *range;
      pos_ = end + 1;
      if (!expect(')')) return fail("expected \")\"");
    } else if (peek() == '[') {
      return fail("a range vector needs rate, irate or increase around it");
    }
    if (q.aggregation != PromQuery::Aggregation::None) {
      skip_space();
      if (text_.substr(pos_).starts_with("by") || text_.substr(pos_).starts_with("without")) {
        return fail("grouping (by/without) is not supported");
      }
      if (!expect(')')) return fail("expected \")\"");
    }
    skip_space();
    if (pos_ != text_.size()) return fail("unexpected text");
    return q;
  }

 private:
  static std::optional<PromQuery::Aggregation> aggregation(std::string_view w) {
    if (w == "sum") return PromQuery::Aggregation::Sum;
    if (w == "avg") return PromQuery::Aggregation::Avg;
    if (w == "min") return PromQuery::Aggregation::Min;
    if (w == "max") return PromQuery::Aggregation::Max;
    if (w == "count") return PromQuery::Aggregation::Count;
    return std::nullopt;
  }
  static std::optional<PromQuery::Function> function(std::string_view w) {
    if (w == "rate") return PromQuery::Function::Rate;
    if (w == "irate") return PromQuery::Function::Irate;
    if (w == "increase") return PromQuery::Function::Increase;
    return std::nullopt;
  }

  bool matchers(PromQuery& q) {
    expect('{');
    while (true) {
      if (expect('}')) return true;
      LabelMatcher m;
      m.name = identifier();
      if (m.name.empty()) return set_error("expected a label name");
      skip_space();
      std::string_view rest = text_.substr(pos_);
      if (rest.starts_with("=~")) {
        m.op = LabelMatcher::Op::Regex;
      } else if (rest.starts_with("!~")) {
        m.op = LabelMatcher::Op::NotRegex;
      } else if (rest.starts_with("!=")) {
        m.op = LabelMatcher::Op::NotEqual;
      } else if (rest.starts_with("=")) {
        m.op = LabelMatcher::Op::Equal;
      } else {
        return set_error("expected =, !=, =~ or !~ after label " + m.name);
      }
      pos_ += m.op == LabelMatcher::Op::Equal ? 1 : 2;
      skip_space();
      if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\'')) {
        return set_error("expected a quoted value for label " + m.name);
      }
      const char quote = text_[pos_++];
      std::size_t end = text_.find(quote, pos_);
      if (end == std::string_view::npos) return set_error("unterminated string");
      m.value = std::string(text_.substr(pos_, end - pos_));
      pos_ = end + 1;
      if (m.op == LabelMatcher::Op::Regex || m.op == LabelMatcher::Op::NotRegex) {
        try {
          m.pattern = std::make_shared<const std::regex>(m.value);
        } catch (const std::regex_error&) {
          return set_error("invalid regular expression " + m.value);
        }
      }
      q.matchers.push_back(std::move(m));
      if (!expect(',') && peek() != '}') return set_error("expected \",\" or \"}\"");
    }
  }

  std::string identifier() {
    skip_space();
    std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
                                   text_[pos_] == ':')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }
  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  char peek() {
    skip_space();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool expect(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  bool set_error(std::string why) {
    error_ = Error{fmt::format("query \"{}\" is outside what the simulator answers: {} at offset {}", text_, why, pos_)};
    return false;
  }
  Error fail(std::string why) {
    set_error(std::move(why));
    return error_;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  Error error_{""};
};

bool matches(const LabelMatcher& m, const Series& s) {
  std::string value;
  for (const auto& [k, v] : s.labels) {
    if (k == m.name) value = v;
  }
  switch (m.op) {
    case LabelMatcher::Op::Equal: return value == m.value;
    case LabelMatcher::Op::NotEqual: return value != m.value;
    case LabelMatcher::Op::Regex: return std::regex_match(value, *m.pattern);
    case LabelMatcher::Op::NotRegex: return !std::regex_match(value, *m.pattern);
  }
  return false;
}

// The value of one series at `now`, or nothing when the function has too few samples in its range.
std::optional<double> series_value(const PromQuery& q, const std::vector<std::pair<Instant, double>>& samples,
                                   Instant now) {
  auto last = std::upper_bound(samples.begin(), samples.end(), now,
                               [](Instant t, const std::pair<Instant, double>& s) { return t < s.first; });
  if (last == samples.begin()) return std::nullopt;
  if (q.function == PromQuery::Function::None) return (last - 1)->second;
  auto first = std::lower_bound(samples.begin(), last, now - q.range,
                                [](const std::pair<Instant, double>& s, Instant t) { return s.first <= t; });
  if (last - first < 2) return std::nullopt;
  if (q.function == PromQuery::Function::Irate) first = last - 2;
  const auto& [t0, v0] = *first;
  const auto& [t1, v1] = *(last - 1);
  const double per_second = (v1 - v0) * 1000.0 / static_cast<double>((t1 - t0).count());
  if (q.function == PromQuery::Function::Increase) return per_second * static_cast<double>(q.range.count()) / 1000.0;
  return per_second;
}

}  // namespace

Result<PromQuery> parse_promql(std::string_view text) { return Parser(text).parse(); }

Result<std::vector<double>> evaluate(const PromQuery& query, const std::vector<Series>& series, Instant now) {
  std::vector<double> values;
  for (const Series& s : series) {
    bool selected = std::any_of(s.labels.begin(), s.labels.end(), [&](const auto& label) {
      return label.first == "__name__" && label.second == query.metric;
    });
    for (const LabelMatcher& m : query.matchers) selected = selected && matches(m, s);
    if (!selected || s.samples == nullptr) continue;
    if (std::optional<double> v = series_value(query, *s.samples, now)) values.push_back(*v);
  }
  if (query.aggregation == PromQuery::Aggregation::None || values.empty()) return values;
  double result = 0;
  switch (query.aggregation) {
    case PromQuery::Aggregation::None: break;
    case PromQuery::Aggregation::Sum:
    case PromQuery::Aggregation::Avg:
      for (double v : values) result += v;
      if (query.aggregation == PromQuery::Aggregation::Avg) result /= static_cast<double>(values.size());
      break;
    case PromQuery::Aggregation::Min: result = *std::min_element(values.begin(), values.end()); break;
    case PromQuery::Aggregation::Max: result = *std::max_element(values.begin(), values.end()); break;
    case PromQuery::Aggregation::Count: result = static_cast<double>(values.size()); break;
  }
  return std::vector<double>{result};
}

}  // namespace scalewright::sim
