#include "ops/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace scalewright::ops {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(FormatValue, WritesIntegersWithoutExponentAndTheRestAsGoDoes) {
  EXPECT_EQ(format_value(0), "0");
  EXPECT_EQ(format_value(-0.0), "0");
  EXPECT_EQ(format_value(1), "1");
  EXPECT_EQ(format_value(-1), "-1");
  EXPECT_EQ(format_value(42), "42");
  EXPECT_EQ(format_value(1e6), "1000000");
  EXPECT_EQ(format_value(1234567), "1234567");
  EXPECT_EQ(format_value(9007199254740992.0), "9007199254740992");  // 2^53, the last exact integer
  EXPECT_EQ(format_value(1e16), "1e+16");
  EXPECT_EQ(format_value(1e300), "1e+300");
  EXPECT_EQ(format_value(0.1), "0.1");
  EXPECT_EQ(format_value(2.5), "2.5");
  EXPECT_EQ(format_value(-0.005), "-0.005");
  EXPECT_EQ(format_value(0.0001), "0.0001");  // exponent -4: still %f
  EXPECT_EQ(format_value(0.00001), "1e-05");  // exponent -5: %e
  EXPECT_EQ(format_value(1e-7), "1e-07");
  EXPECT_EQ(format_value(123456.5), "123456.5");       // exponent 5: %f
  EXPECT_EQ(format_value(1234567.5), "1.2345675e+06");  // exponent 6: %e
  EXPECT_EQ(format_value(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(format_value(kInf), "+Inf");
  EXPECT_EQ(format_value(-kInf), "-Inf");
  EXPECT_EQ(format_value(std::nan("")), "NaN");
}

TEST(MetricsRegistry, RendersCountersWithLabelsSortedByValueAndEscaped) {
  MetricsRegistry r;
  auto& created = r.counter("karpenter_nodeclaims_created_total",
                            "Number of nodeclaims created in total by Karpenter.", {"nodepool", "reason"});
  created.with({"default", "provisioning"}).inc();
  created.with({"default", "provisioning"}).inc(2);
  created.with({"default", "drift"}).inc(0.5);
  created.with({"a\"b\\c\nd", "x"}).inc();
  EXPECT_EQ(r.render(),
            "# HELP karpenter_nodeclaims_created_total Number of nodeclaims created in total by Karpenter.\n"
            "# TYPE karpenter_nodeclaims_created_total counter\n"
            "karpenter_nodeclaims_created_total{nodepool=\"a\\\"b\\\\c\\nd\",reason=\"x\"} 1\n"
            "karpenter_nodeclaims_created_total{nodepool=\"default\",reason=\"drift\"} 0.5\n"
            "karpenter_nodeclaims_created_total{nodepool=\"default\",reason=\"provisioning\"} 3\n");
}

TEST(MetricsRegistry, RendersFamiliesInNameOrderAndHelpEscaped) {
  MetricsRegistry r;
  auto& pending = r.gauge("scalewright_pending_pods", "Pods waiting for capacity.\nA \\ and a \"quote\".");
  r.counter("scalewright_decisions_total", "Decisions made.").with().inc(7);
  pending.with().set(12);
  pending.with().dec(2);
  pending.with().inc(0.25);
  EXPECT_EQ(r.render(),
            "# HELP scalewright_decisions_total Decisions made.\n"
            "# TYPE scalewright_decisions_total counter\n"
            "scalewright_decisions_total 7\n"
            "# HELP scalewright_pending_pods Pods waiting for capacity.\\nA \\\\ and a \"quote\".\n"
            "# TYPE scalewright_pending_pods gauge\n"
            "scalewright_pending_pods 10.25\n");
}

TEST(MetricsRegistry, WritesAnUnlabelledFamilyAtZeroAndALabelledOneOnlyOnceItHasAChild) {
  MetricsRegistry r;
  r.gauge("nodes", "Nodes.");
  auto& by_pool = r.gauge("nodes_by_pool", "Nodes by pool.", {"nodepool"});
  EXPECT_EQ(r.render(), "# HELP nodes Nodes.\n# TYPE nodes gauge\nnodes 0\n");
  by_pool.with({"default"}).set(-3);
  EXPECT_EQ(r.render(),
            "# HELP nodes Nodes.\n# TYPE nodes gauge\nnodes 0\n"
            "# HELP nodes_by_pool Nodes by pool.\n# TYPE nodes_by_pool gauge\nnodes_by_pool{nodepool=\"default\"} -3\n");
}

// Bounds 0.25, 0.5, 1: observations 0.125 | 0.5 (le is inclusive) | 0.75 | 3 (+Inf), sum 4.375, all exact in binary.
TEST(MetricsRegistry, RendersHistogramBucketsCumulativeWithInfSumAndCount) {
  MetricsRegistry r;
  auto& duration = r.histogram("scalewright_reconcile_duration_seconds", "Reconcile duration.", {"controller"},
                               {0.25, 0.5, 1});
  auto& provisioning = duration.with({"provisioning"});
  for (double v : {0.125, 0.5, 0.75, 3.0}) provisioning.observe(v);
  duration.with({"disruption"}).observe(1);
  EXPECT_EQ(r.render(),
            "# HELP scalewright_reconcile_duration_seconds Reconcile duration.\n"
            "# TYPE scalewright_reconcile_duration_seconds histogram\n"
            "scalewright_reconcile_duration_seconds_bucket{controller=\"disruption\",le=\"0.25\"} 0\n"
            "scalewright_reconcile_duration_seconds_bucket{controller=\"disruption\",le=\"0.5\"} 0\n"
            "scalewright_reconcile_duration_seconds_bucket{controller=\"disruption\",le=\"1\"} 1\n"
            "scalewright_reconcile_duration_seconds_bucket{controller=\"disruption\",le=\"+Inf\"} 1\n"
            "scalewright_reconcile_duration_seconds_sum{controller=\"disruption\"} 1\n"
            "scalewright_reconcile_duration_seconds_count{controller=\"disruption\"} 1\n"
            "scalewright_reconcile_duration_seconds_bucket{controller=\"provisioning\",le=\"0.25\"} 1\n"
            "scalewright_reconcile_duration_seconds_bucket{controller=\"provisioning\",le=\"0.5\"} 2\n"
            "scalewright_reconcile_duration_seconds_bucket{controller=\"provisioning\",le=\"1\"} 3\n"
            "scalewright_reconcile_duration_seconds_bucket{controller=\"provisioning\",le=\"+Inf\"} 4\n"
            "scalewright_reconcile_duration_seconds_sum{controller=\"provisioning\"} 4.375\n"
            "scalewright_reconcile_duration_seconds_count{controller=\"provisioning\"} 4\n");
}

TEST(MetricsRegistry, RendersAHistogramWithoutLabelsAndDropsATrailingInfBound) {
  MetricsRegistry r;
  auto& h = r.histogram("batch_size", "Pods per batch.", {}, {1, 10, kInf});
  h.with().observe(10);
  h.with().observe(11);
  h.with().observe(std::nan(""));  // counted in +Inf only; the sum becomes NaN, as in Go's client
  EXPECT_EQ(r.render(),
            "# HELP batch_size Pods per batch.\n"
            "# TYPE batch_size histogram\n"
            "batch_size_bucket{le=\"1\"} 0\n"
            "batch_size_bucket{le=\"10\"} 1\n"
            "batch_size_bucket{le=\"+Inf\"} 3\n"
            "batch_size_sum NaN\n"
            "batch_size_count 3\n");
}

TEST(MetricsRegistry, EvaluatesFunctionBackedMetricsAtRenderTime) {
  MetricsRegistry r;
  double memory = 1024;
  r.gauge_function("process_resident_memory_bytes", "Resident memory size in bytes.", [&] { return memory; });
  r.counter_function("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                     [] { return 0.75; });
  const std::string before =
      "# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
      "# TYPE process_cpu_seconds_total counter\n"
      "process_cpu_seconds_total 0.75\n"
      "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
      "# TYPE process_resident_memory_bytes gauge\n";
  EXPECT_EQ(r.render(), before + "process_resident_memory_bytes 1024\n");
  memory = 4096;
  EXPECT_EQ(r.render(), before + "process_resident_memory_bytes 4096\n");
}

TEST(MetricsRegistry, ReplacesLabelValueBytesThatAreNotUtf8) {
  MetricsRegistry r;
  auto& c = r.counter("events_total", "Events.", {"reason"});
  c.with({"caf\xC3\xA9"}).inc();  // é, valid
  c.with({"bad\xFF"}).inc();
  EXPECT_EQ(&c.with({"bad\xFF"}), &c.with({"bad\xEF\xBF\xBD"}));  // the same child, under its written name
  EXPECT_EQ(r.render(),
            "# HELP events_total Events.\n# TYPE events_total counter\n"
            "events_total{reason=\"bad\xEF\xBF\xBD\"} 1\n"
            "events_total{reason=\"caf\xC3\xA9\"} 1\n");
}

TEST(MetricsRegistry, ReturnsTheSameFamilyForTheSameRegistration) {
  MetricsRegistry r;
  auto& a = r.counter("x_total", "X.", {"a"});
  auto& b = r.counter("x_total", "X.", {"a"});
  EXPECT_EQ(&a, &b);
  EXPECT_EQ(&a.with({"1"}), &b.with({"1"}));
  auto& h1 = r.histogram("h", "H.", {}, {1, 2});
  EXPECT_EQ(&h1, &r.histogram("h", "H.", {}, {1, 2}));
}

TEST(MetricsRegistry, RejectsConflictingRegistrationsAsProgrammingErrors) {
  MetricsRegistry r;
  r.counter("x_total", "X.", {"a"});
  EXPECT_THROW(r.gauge("x_total", "X.", {"a"}), std::logic_error);
  EXPECT_THROW(r.counter("x_total", "X.", {"b"}), std::logic_error);
  EXPECT_THROW(r.counter("x_total", "X.", {"a", "b"}), std::logic_error);
  EXPECT_THROW(r.counter("x_total", "Other help.", {"a"}), std::logic_error);
  EXPECT_THROW(r.gauge_function("x_total", "X.", [] { return 1.0; }), std::logic_error);
  r.histogram("h", "H.", {}, {1, 2});
  EXPECT_THROW(r.histogram("h", "H.", {}, {1, 3}), std::logic_error);
  EXPECT_THROW(r.counter("h_count", "Would collide with the histogram's count.", {}), std::logic_error);
  r.gauge("g_bucket", "G.");
  EXPECT_THROW(r.histogram("g", "Would collide with g_bucket.", {}, {1}), std::logic_error);
  r.gauge_function("f", "F.", [] { return 1.0; });
  EXPECT_THROW(r.gauge_function("f", "F.", [] { return 1.0; }), std::logic_error);
  try {
    r.gauge("x_total", "X.", {"a"});
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "metric x_total registered twice: as a counter with labels [a], then as a gauge with "
                           "labels [a]");
  }
}

TEST(MetricsRegistry, RejectsInvalidNamesLabelsBucketsAndValues) {
  MetricsRegistry r;
  EXPECT_THROW(r.counter("", "X."), std::logic_error);
  EXPECT_THROW(r.counter("1abc", "X."), std::logic_error);
  EXPECT_THROW(r.counter("a-b", "X."), std::logic_error);
  EXPECT_NO_THROW(r.counter("ns:sub_total", "Colons are allowed in metric names."));
  EXPECT_THROW(r.counter("y", "Y.", {"__reserved"}), std::logic_error);
  EXPECT_THROW(r.counter("y", "Y.", {"a:b"}), std::logic_error);
  EXPECT_THROW(r.counter("y", "Y.", {"a", "a"}), std::logic_error);
  EXPECT_THROW(r.histogram("y", "Y.", {"le"}, {1}), std::logic_error);
  EXPECT_THROW(r.histogram("y", "Y.", {}, {2, 1}), std::logic_error);
  EXPECT_THROW(r.histogram("y", "Y.", {}, {1, 1}), std::logic_error);
  EXPECT_THROW(r.histogram("y", "Y.", {}, {std::nan("")}), std::logic_error);
  EXPECT_THROW(r.counter("y", "not UTF-8 \xFF"), std::logic_error);
  auto& c = r.counter("z_total", "Z.", {"a", "b"});
  EXPECT_THROW(c.with({"only-one"}), std::logic_error);
  EXPECT_THROW(c.with(), std::logic_error);
  EXPECT_THROW(c.with({"1", "2"}).inc(-1), std::logic_error);
  EXPECT_EQ(c.with({"1", "2"}).value(), 0);
}

TEST(Buckets, DefaultAndExponentialAreGoClientBuckets) {
  EXPECT_EQ(default_buckets(), (std::vector<double>{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}));
  EXPECT_EQ(exponential_buckets(0.5, 2, 4), (std::vector<double>{0.5, 1, 2, 4}));
  EXPECT_THROW(exponential_buckets(0, 2, 4), std::logic_error);
  EXPECT_THROW(exponential_buckets(1, 1, 4), std::logic_error);
  EXPECT_THROW(exponential_buckets(1, 2, 0), std::logic_error);
}

// 8 threads x 20000 updates each, through with() every time so children are created concurrently too; every
// increment is an integer, so the totals are exact: 160000 per series.
TEST(MetricsRegistry, CountsExactlyUnderConcurrentUpdates) {
  MetricsRegistry r;
  auto& counter = r.counter("ops_total", "Ops.", {"kind"});
  auto& gauge = r.gauge("level", "Level.");
  auto& histogram = r.histogram("sizes", "Sizes.", {"kind"}, {1, 2});
  constexpr int kThreads = 8;
  constexpr int kUpdates = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kUpdates; ++i) {
        counter.with({"a"}).inc();
        counter.with({t % 2 == 0 ? "even" : "odd"}).inc(2);
        gauge.with().inc();
        gauge.with().dec(0.5);
        histogram.with({"a"}).observe(i % 3);  // 0, 1, 2 in turn: le=1 twice, le=2 once per three
        if (i % 1000 == 0) (void)r.render();   // scrapes race with updates
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(counter.with({"a"}).value(), kThreads * kUpdates);
  EXPECT_EQ(counter.with({"even"}).value(), kThreads / 2 * kUpdates * 2);
  EXPECT_EQ(counter.with({"odd"}).value(), kThreads / 2 * kUpdates * 2);
  EXPECT_EQ(gauge.with().value(), kThreads * kUpdates * 0.5);
  auto s = histogram.with({"a"}).snapshot();
  // Per thread, i = 0..19999: i % 3 == 0 for 6667 values, == 1 for 6667, == 2 for 6666.
  EXPECT_EQ(s.cumulative, (std::vector<std::uint64_t>{kThreads * 13334, kThreads * 20000, kThreads * 20000}));
  EXPECT_EQ(s.count, static_cast<std::uint64_t>(kThreads * kUpdates));
  EXPECT_EQ(s.sum, kThreads * (6667 * 1 + 6666 * 2));
}

}  // namespace
}  // namespace scalewright::ops
