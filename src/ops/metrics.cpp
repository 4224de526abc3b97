#include "ops/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace scalewright::ops {
namespace {

bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// [a-zA-Z_:][a-zA-Z0-9_:]*, the data model's metric name.
bool valid_metric_name(std::string_view name) {
  if (name.empty() || !(is_name_start(name[0]) || name[0] == ':')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_name_start(c) || is_digit(c) || c == ':'; });
}

// [a-zA-Z_][a-zA-Z0-9_]*, and names beginning with "__" are reserved for Prometheus itself.
bool valid_label_name(std::string_view name) {
  if (name.empty() || !is_name_start(name[0]) || name.starts_with("__")) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_name_start(c) || is_digit(c); });
}

// Length of the well-formed UTF-8 sequence at text[i] (no overlongs, surrogates or code points past U+10FFFF),
// or 0 when it is not one.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char c = byte(i);
  if (c < 0x80) return 1;
  std::size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (length == 0 || c > 0xF4 || c == 0xC0 || c == 0xC1 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  unsigned char next = byte(i + 1);
  if (c == 0xE0 && next < 0xA0) return 0;   // overlong
  if (c == 0xED && next >= 0xA0) return 0;  // UTF-16 surrogate
  if (c == 0xF0 && next < 0x90) return 0;   // overlong
  if (c == 0xF4 && next >= 0x90) return 0;  // past U+10FFFF
  return length;
}

bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) return false;
    i += length;
  }
  return true;
}

// Prometheus rejects a whole scrape over one label value that is not UTF-8, and label values are data (object
// names, reasons), not code: each invalid byte becomes U+FFFD instead of an error.
std::string to_valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

// HELP text escapes backslash and newline; label values also escape the double quote.
void append_escaped(std::string& out, std::string_view text, bool quote) {
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
}

std::string_view type_name(MetricType type) {
  switch (type) {
    case MetricType::kCounter: return "counter";
    case MetricType::kGauge: return "gauge";
    case MetricType::kHistogram: return "histogram";
  }
  return "untyped";
}

void append_header(std::string& out, const FamilyBase& family) {
  out += "# HELP ";
  out += family.name();
  out += ' ';
  append_escaped(out, family.help(), false);
  out += "\n# TYPE ";
  out += family.name();
  out += ' ';
  out += type_name(family.type());
  out += '\n';
}

// One line: name{label="value",...,le="bound"} value. `le` is empty except on histogram buckets.
void append_sample(std::string& out, std::string_view name, const LabelNames& names, const LabelValues& values,
                   std::string_view le, double value) {
  out += name;
  if (!names.empty() || !le.empty()) {
    out += '{';
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (i > 0) out += ',';
      out += names[i];
      out += "=\"";
      append_escaped(out, values[i], true);
      out += '"';
    }
    if (!le.empty()) {
      if (!names.empty()) out += ',';
      out += "le=\"";
      out += le;
      out += '"';
    }
    out += '}';
  }
  out += ' ';
  out += format_value(value);
  out += '\n';
}

void append_samples(std::string& out, const FamilyBase& family, const LabelValues& values, const Counter& counter) {
  append_sample(out, family.name(), family.label_names(), values, {}, counter.value());
}

void append_samples(std::string& out, const FamilyBase& family, const LabelValues& values, const Gauge& gauge) {
  append_sample(out, family.name(), family.label_names(), values, {}, gauge.value());
}

void append_samples(std::string& out, const FamilyBase& family, const LabelValues& values,
                    const Histogram& histogram) {
  Histogram::Snapshot s = histogram.snapshot();
  std::string bucket = family.name() + "_bucket";
  for (std::size_t i = 0; i < s.upper_bounds.size(); ++i) {
    append_sample(out, bucket, family.label_names(), values, format_value(s.upper_bounds[i]),
                  static_cast<double>(s.cumulative[i]));
  }
  append_sample(out, bucket, family.label_names(), values, "+Inf", static_cast<double>(s.count));
  append_sample(out, family.name() + "_sum", family.label_names(), values, {}, s.sum);
  append_sample(out, family.name() + "_count", family.label_names(), values, {}, static_cast<double>(s.count));
}

// A counter or gauge whose value a function reads when the registry renders.
class FunctionFamily final : public FamilyBase {
 public:
  FunctionFamily(std::string name, std::string help, MetricType type, std::function<double()> read)
      : FamilyBase(std::move(name), std::move(help), type, {}, {}), read_(std::move(read)) {}
  bool function_backed() const override { return true; }
  void render(std::string& out) const override {
    append_header(out, *this);
    append_sample(out, name(), {}, {}, {}, read_());
  }

 private:
  std::function<double()> read_;
};

std::string describe(const FamilyBase& family) {
  std::string out = fmt::format("{}{} with labels [{}]", family.function_backed() ? "function-backed " : "",
                                type_name(family.type()), fmt::join(family.label_names(), ", "));
  if (family.type() == MetricType::kHistogram) {
    out += fmt::format(" and buckets [{}]", fmt::join(family.upper_bounds(), ", "));
  }
  return out;
}

// Names, label names, help and buckets are code, not data: anything wrong with them is a programming error.
void validate(std::string_view name, std::string_view help, const LabelNames& labels, MetricType type,
              const std::vector<double>& upper_bounds) {
  if (!valid_metric_name(name)) {
    throw std::logic_error(fmt::format("metric name \"{}\" is not [a-zA-Z_:][a-zA-Z0-9_:]*", name));
  }
  if (!valid_utf8(help)) throw std::logic_error(fmt::format("metric {}: help is not UTF-8", name));
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (!valid_label_name(labels[i])) {
      throw std::logic_error(
          fmt::format("metric {}: label name \"{}\" is not [a-zA-Z_][a-zA-Z0-9_]* without a leading __", name,
                      labels[i]));
    }
    if (std::find(labels.begin(), labels.begin() + static_cast<std::ptrdiff_t>(i), labels[i]) !=
        labels.begin() + static_cast<std::ptrdiff_t>(i)) {
      throw std::logic_error(fmt::format("metric {}: label name \"{}\" given twice", name, labels[i]));
    }
    if (type == MetricType::kHistogram && labels[i] == "le") {
      throw std::logic_error(fmt::format("metric {}: a histogram cannot have a label named le", name));
    }
  }
  for (std::size_t i = 0; i < upper_bounds.size(); ++i) {
    if (!std::isfinite(upper_bounds[i]) || (i > 0 && !(upper_bounds[i] > upper_bounds[i - 1]))) {
      throw std::logic_error(fmt::format("metric {}: bucket bounds [{}] are not finite and strictly increasing",
                                         name, fmt::join(upper_bounds, ", ")));
    }
  }
}

std::vector<std::string> sample_names(const FamilyBase& family) {
  if (family.type() != MetricType::kHistogram) return {family.name()};
  return {family.name(), family.name() + "_bucket", family.name() + "_sum", family.name() + "_count"};
}

}  // namespace

std::string format_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  // Every integer up to 2^53 is exact in a double, so a count is written as the count (and -0 as 0, as Go does).
  constexpr double kExactIntegers = 9007199254740992.0;
  if (std::trunc(value) == value && std::fabs(value) <= kExactIntegers) {
    return std::to_string(static_cast<std::int64_t>(value));
  }
  // Go's strconv 'g' with the shortest digits: %e when the decimal exponent is < -4 or >= 6, else %f; C++'s
  // shortest to_chars writes the same digits, and its scientific form has Go's "e+06" exponent too.
  char buffer[64];
  auto scientific = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::scientific);
  std::string_view text(buffer, static_cast<std::size_t>(scientific.ptr - buffer));
  std::string_view exponent_text = text.substr(text.find('e') + 1);
  if (!exponent_text.empty() && exponent_text[0] == '+') exponent_text.remove_prefix(1);
  int exponent = 0;
  std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
  if (exponent < -4 || exponent >= 6) return std::string(text);
  auto fixed = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed);
  return std::string(buffer, fixed.ptr);
}

void Counter::inc(double delta) {
  if (delta < 0) throw std::logic_error(fmt::format("counter increased by {}: a value that falls is a gauge", delta));
  value_.fetch_add(delta, std::memory_order_relaxed);
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)), counts_(upper_bounds_.size() + 1, 0) {}

void Histogram::observe(double value) {
  // The first bound >= value: `le` is inclusive. NaN compares false with everything, so it is placed by hand.
  std::size_t bucket = std::isnan(value)
                           ? upper_bounds_.size()
                           : static_cast<std::size_t>(std::lower_bound(upper_bounds_.begin(), upper_bounds_.end(),
                                                                       value) -
                                                      upper_bounds_.begin());
  std::lock_guard lock(mutex_);
  ++counts_[bucket];
  sum_ += value;
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.upper_bounds = upper_bounds_;
  std::lock_guard lock(mutex_);
  s.cumulative.reserve(counts_.size());
  for (std::uint64_t count : counts_) {
    s.count += count;
    s.cumulative.push_back(s.count);
  }
  s.sum = sum_;
  return s;
}

std::vector<double> default_buckets() { return {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}; }

std::vector<double> exponential_buckets(double start, double factor, int count) {
  if (!(start > 0) || !(factor > 1) || count < 1) {
    throw std::logic_error(
        fmt::format("exponential_buckets({}, {}, {}): needs start > 0, factor > 1, count >= 1", start, factor, count));
  }
  std::vector<double> bounds;
  bounds.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i, start *= factor) bounds.push_back(start);
  return bounds;
}

template <typename Metric>
Family<Metric>::Family(std::string name, std::string help, MetricType type, LabelNames label_names,
                       std::vector<double> upper_bounds)
    : FamilyBase(std::move(name), std::move(help), type, std::move(label_names), std::move(upper_bounds)) {
  // A family without labels is one value, written from the start (0 until it changes).
  if (this->label_names().empty()) children_.emplace(LabelValues{}, make());
}

template <typename Metric>
std::unique_ptr<Metric> Family<Metric>::make() const {
  if constexpr (std::is_same_v<Metric, Histogram>) {
    return std::make_unique<Histogram>(upper_bounds());
  } else {
    return std::make_unique<Metric>();
  }
}

template <typename Metric>
Metric& Family<Metric>::with(const LabelValues& values) {
  if (values.size() != label_names().size()) {
    throw std::logic_error(fmt::format("metric {} has labels [{}] but was given {} value(s): [{}]", name(),
                                       fmt::join(label_names(), ", "), values.size(), fmt::join(values, ", ")));
  }
  bool clean = std::all_of(values.begin(), values.end(), [](const std::string& v) { return valid_utf8(v); });
  std::lock_guard lock(mutex_);
  auto it = clean ? children_.find(values) : children_.end();
  if (it == children_.end()) {
    LabelValues key = values;
    if (!clean) {
      for (auto& value : key) value = to_valid_utf8(value);
    }
    it = children_.try_emplace(std::move(key)).first;
    if (!it->second) it->second = make();
  }
  return *it->second;
}

template <typename Metric>
void Family<Metric>::render(std::string& out) const {
  // Children are never removed and map nodes never move, so the pointers outlive the lock; reading each value is
  // the child's own business (atomics, or the histogram's mutex).
  std::vector<std::pair<const LabelValues*, const Metric*>> children;
  {
    std::lock_guard lock(mutex_);
    children.reserve(children_.size());
    for (const auto& [values, child] : children_) children.emplace_back(&values, child.get());
  }
  if (children.empty()) return;
  append_header(out, *this);
  for (const auto& [values, child] : children) append_samples(out, *this, *values, *child);
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

FamilyBase& MetricsRegistry::adopt(std::unique_ptr<FamilyBase> candidate) {
  std::lock_guard lock(mutex_);
  if (auto it = families_.find(candidate->name()); it != families_.end()) {
    const FamilyBase& existing = *it->second;
    bool same = !existing.function_backed() && !candidate->function_backed() &&
                existing.type() == candidate->type() && existing.label_names() == candidate->label_names() &&
                existing.upper_bounds() == candidate->upper_bounds();
    if (same && existing.help() == candidate->help()) return *it->second;
    throw std::logic_error(fmt::format("metric {} registered twice: as a {}{}, then as a {}{}", existing.name(),
                                       describe(existing), same ? " and help \"" + existing.help() + "\"" : "",
                                       describe(*candidate), same ? " and help \"" + candidate->help() + "\"" : ""));
  }
  std::vector<std::string> names = sample_names(*candidate);
  for (const auto& sample : names) {
    if (auto owner = sample_names_.find(sample); owner != sample_names_.end()) {
      throw std::logic_error(fmt::format("metric {} would write series {}, which metric {} already writes",
                                         candidate->name(), sample, owner->second));
    }
  }
  for (const auto& sample : names) sample_names_.emplace(sample, candidate->name());
  FamilyBase& family = *candidate;
  families_.emplace(family.name(), std::move(candidate));
  return family;
}

CounterFamily& MetricsRegistry::counter(const std::string& name, const std::string& help, const LabelNames& labels) {
  validate(name, help, labels, MetricType::kCounter, {});
  // adopt() returns an existing family only when it has the same type and is not function-backed: a CounterFamily.
  return static_cast<CounterFamily&>(
      adopt(std::unique_ptr<CounterFamily>(new CounterFamily(name, help, MetricType::kCounter, labels, {}))));
}

GaugeFamily& MetricsRegistry::gauge(const std::string& name, const std::string& help, const LabelNames& labels) {
  validate(name, help, labels, MetricType::kGauge, {});
  return static_cast<GaugeFamily&>(
      adopt(std::unique_ptr<GaugeFamily>(new GaugeFamily(name, help, MetricType::kGauge, labels, {}))));
}

HistogramFamily& MetricsRegistry::histogram(const std::string& name, const std::string& help,
                                            const LabelNames& labels, std::vector<double> upper_bounds) {
  // A trailing +Inf is implied by the format; Go's client accepts it in the list and drops it, and so do we.
  if (!upper_bounds.empty() && upper_bounds.back() == std::numeric_limits<double>::infinity()) {
    upper_bounds.pop_back();
  }
  validate(name, help, labels, MetricType::kHistogram, upper_bounds);
  return static_cast<HistogramFamily&>(adopt(std::unique_ptr<HistogramFamily>(
      new HistogramFamily(name, help, MetricType::kHistogram, labels, std::move(upper_bounds)))));
}

void MetricsRegistry::gauge_function(const std::string& name, const std::string& help, std::function<double()> read) {
  validate(name, help, {}, MetricType::kGauge, {});
  adopt(std::make_unique<FunctionFamily>(name, help, MetricType::kGauge, std::move(read)));
}

void MetricsRegistry::counter_function(const std::string& name, const std::string& help,
                                       std::function<double()> read) {
  validate(name, help, {}, MetricType::kCounter, {});
  adopt(std::make_unique<FunctionFamily>(name, help, MetricType::kCounter, std::move(read)));
}

std::string MetricsRegistry::render() const {
  // Families are never removed: render outside the registry lock, so a function-backed value may itself register
  // or update metrics without deadlocking.
  std::vector<const FamilyBase*> families;
  {
    std::lock_guard lock(mutex_);
    families.reserve(families_.size());
    for (const auto& [name, family] : families_) families.push_back(family.get());
  }
  std::string out;
  for (const FamilyBase* family : families) family->render(out);
  return out;
}

}  // namespace scalewright::ops
