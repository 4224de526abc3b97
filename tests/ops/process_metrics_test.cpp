#include "ops/process_metrics.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cmath>
#include <sstream>
#include <string>

namespace scalewright::ops {
namespace {

// The command name holds spaces and parentheses; fields 14/15 (utime 250, stime 150 ticks), 22 (starttime 12345
// ticks), 23 (vsize), 24 (rss 2560 pages).
constexpr const char* kStat =
    "4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 150 0 0 20 0 8 0 12345 104857600 2560 "
    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

TEST(ProcessMetrics, ParsesProcStatAfterTheLastParenthesis) {
  auto stat = parse_proc_stat(kStat, 100, 4096, 1700000000);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->cpu_seconds, 4);                        // (250 + 150) / 100
  EXPECT_EQ(stat->virtual_memory_bytes, 104857600);       // 100 MiB
  EXPECT_EQ(stat->resident_memory_bytes, 10485760);       // 2560 * 4096 = 10 MiB
  EXPECT_DOUBLE_EQ(stat->start_time_seconds, 1700000123.45);  // boot + 12345 / 100
}

TEST(ProcessMetrics, RefusesATruncatedOrGarbledStat) {
  EXPECT_FALSE(parse_proc_stat("4242 (x) S 1 2 3", 100, 4096, 0).has_value());
  EXPECT_FALSE(parse_proc_stat("no parenthesis", 100, 4096, 0).has_value());
  std::string garbled = kStat;
  garbled.replace(garbled.find(" 250 "), 5, " x50 ");
  EXPECT_FALSE(parse_proc_stat(garbled, 100, 4096, 0).has_value());
}

TEST(ProcessMetrics, ReadsBootTimeFromProcStat) {
  EXPECT_EQ(parse_boot_time("cpu  1 2 3\nintr 5\nbtime 1700000000\nprocesses 9\n"), 1700000000);
  EXPECT_FALSE(parse_boot_time("cpu  1 2 3\n").has_value());
}

// The value of `name`'s one sample in a rendered registry, or NaN.
double sample(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  }
  return std::nan("");
}

TEST(ProcessMetrics, RegistersTheGoClientsProcessMetricsForThisProcess) {
  MetricsRegistry r;
  register_process_metrics(r);
  std::string text = r.render();
  EXPECT_NE(text.find("# HELP process_cpu_seconds_total Total user and system CPU time spent in seconds.\n"
                      "# TYPE process_cpu_seconds_total counter\n"),
            std::string::npos);
  EXPECT_NE(text.find("# TYPE process_resident_memory_bytes gauge\n"), std::string::npos);
  EXPECT_GT(sample(text, "process_resident_memory_bytes"), 0);
  EXPECT_GT(sample(text, "process_virtual_memory_bytes"), sample(text, "process_resident_memory_bytes"));
  EXPECT_GE(sample(text, "process_cpu_seconds_total"), 0);
  EXPECT_GT(sample(text, "process_start_time_seconds"), 1e9);  // after 2001: an epoch time, not uptime
  EXPECT_GE(sample(text, "process_open_fds"), 3);              // stdin, stdout, stderr at least
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(sample(text, "process_max_fds"), static_cast<double>(limit.rlim_cur));
}

}  // namespace
}  // namespace scalewright::ops
