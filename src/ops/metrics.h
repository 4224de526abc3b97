#pragma once
// Metrics for `scalewright run`'s /metrics endpoint, written in the Prometheus text exposition format 0.0.4
// (Debian 12 has no C++ Prometheus client). Families are registered once, by name, with their label names; each
// set of label values is one child, created on first use and kept for the registry's life, so the reference
// with() returns may be cached and updated from any thread:
//
//   MetricsRegistry r;
//   auto& created = r.counter("karpenter_nodeclaims_created_total",
//                             "Number of nodeclaims created in total by Karpenter.", {"nodepool", "reason"});
//   created.with({"default", "provisioning"}).inc();
//   r.histogram("scalewright_reconcile_duration_seconds", "...", {"controller"}, {0.1, 1, 10})
//       .with({"provisioning"}).observe(0.25);
//   std::string text = r.render();
//
// Misuse is a programming error and throws std::logic_error: an invalid name, the same name registered again
// with another type, help or label names, the wrong number of label values, a counter decreased.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace scalewright::ops {

using LabelNames = std::vector<std::string>;
using LabelValues = std::vector<std::string>;

enum class MetricType { kCounter, kGauge, kHistogram };

// A sample value as Prometheus' own Go client writes it (strconv 'g', shortest round-trip: "0.25", "1e-07",
// "1.2345675e+06"; "NaN", "+Inf", "-Inf"), except that integral values up to 2^53 are written as plain integers
// ("1234567", not "1.234567e+06"), so a count reads as the count.
std::string format_value(double value);

// A monotonically increasing value (events, seconds spent). Lock-free.
class Counter {
 public:
  void inc(double delta = 1);  // delta < 0 throws std::logic_error: a counter that goes down is a gauge
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// A value that goes up and down (pending pods, nodes). Lock-free.
class Gauge {
 public:
  void set(double value) { value_.store(value, std::memory_order_relaxed); }
  void inc(double delta = 1) { value_.fetch_add(delta, std::memory_order_relaxed); }
  void dec(double delta = 1) { value_.fetch_sub(delta, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted into buckets by upper bound (inclusive, `le`), with their sum and count. A mutex per
// histogram keeps one scrape's buckets, sum and count from the same set of observations.
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);  // validated by the registry: increasing, finite
  void observe(double value);  // NaN counts in the +Inf bucket only and makes the sum NaN, as in Go's client

  struct Snapshot {
    std::vector<double> upper_bounds;       // without +Inf
    std::vector<std::uint64_t> cumulative;  // one per bound, then +Inf (== count)
    double sum = 0;
    std::uint64_t count = 0;
  };
  Snapshot snapshot() const;

 private:
  const std::vector<double> upper_bounds_;
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> counts_;  // per bucket (not cumulative), the last one +Inf
  double sum_ = 0;
};

// {.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}: the Go client's DefBuckets, for durations in seconds.
std::vector<double> default_buckets();
// start, start*factor, ... (count bounds): Go's ExponentialBuckets. start > 0, factor > 1, count >= 1.
std::vector<double> exponential_buckets(double start, double factor, int count);

class MetricsRegistry;

// What the registry holds per name; render() appends the family's HELP, TYPE and samples.
class FamilyBase {
 public:
  virtual ~FamilyBase() = default;
  const std::string& name() const { return name_; }
  const std::string& help() const { return help_; }
  MetricType type() const { return type_; }
  const LabelNames& label_names() const { return label_names_; }
  const std::vector<double>& upper_bounds() const { return upper_bounds_; }  // histograms' buckets, else empty
  virtual bool function_backed() const { return false; }
  virtual void render(std::string& out) const = 0;

 protected:
  FamilyBase(std::string name, std::string help, MetricType type, LabelNames label_names,
             std::vector<double> upper_bounds)
      : name_(std::move(name)),
        help_(std::move(help)),
        type_(type),
        label_names_(std::move(label_names)),
        upper_bounds_(std::move(upper_bounds)) {}

 private:
  std::string name_;
  std::string help_;
  MetricType type_;
  LabelNames label_names_;
  std::vector<double> upper_bounds_;
};

// One metric name and its children, one per set of label values (in label_names() order).
template <typename Metric>
class Family final : public FamilyBase {
 public:
  // The child for these label values, created at zero on first use; the reference lives as long as the registry.
  // A family without labels has one child: with() or with({}). Label values are data, so bytes that are not UTF-8
  // become U+FFFD rather than an error (Prometheus would refuse the whole page over one).
  Metric& with(const LabelValues& values = {});
  void render(std::string& out) const override;

 private:
  friend class MetricsRegistry;
  Family(std::string name, std::string help, MetricType type, LabelNames label_names,
         std::vector<double> upper_bounds);
  std::unique_ptr<Metric> make() const;

  mutable std::mutex mutex_;
  std::map<LabelValues, std::unique_ptr<Metric>> children_;  // ordered: samples render sorted by label values
};

using CounterFamily = Family<Counter>;
using GaugeFamily = Family<Gauge>;
using HistogramFamily = Family<Histogram>;

class MetricsRegistry {
 public:
  MetricsRegistry() = default;
  MetricsRegistry(const MetricsRegistry&) = delete;
  MetricsRegistry& operator=(const MetricsRegistry&) = delete;

  // Registering a name again with the same type, help and labels (and buckets) returns the same family.
  CounterFamily& counter(const std::string& name, const std::string& help, const LabelNames& labels = {});
  GaugeFamily& gauge(const std::string& name, const std::string& help, const LabelNames& labels = {});
  HistogramFamily& histogram(const std::string& name, const std::string& help, const LabelNames& labels = {},
                             std::vector<double> upper_bounds = default_buckets());

  // A gauge or counter without labels whose value is read at render time (process memory, CPU seconds), on the
  // scraping thread with no registry lock held. A name can be given a function only once.
  void gauge_function(const std::string& name, const std::string& help, std::function<double()> read);
  void counter_function(const std::string& name, const std::string& help, std::function<double()> read);

  // Every family in name order, each child in label-value order; a labelled family with no child yet writes
  // nothing (as Go's client), one without labels always writes its value.
  std::string render() const;

 private:
  // Returns the family already registered under the candidate's name when it is the same, else adds the candidate.
  FamilyBase& adopt(std::unique_ptr<FamilyBase> candidate);

  mutable std::mutex mutex_;
  std::map<std::string, std::unique_ptr<FamilyBase>> families_;
  // Every name a family writes (a histogram's _bucket, _sum, _count too), so two families cannot write one series.
  std::map<std::string, std::string> sample_names_;
};

}  // namespace scalewright::ops
