#pragma once
// The standard process metrics, named, typed and described as Prometheus' Go client writes them
// (process_cpu_seconds_total, process_resident_memory_bytes, ...), so existing dashboards and alerts apply. Read
// from /proc when scraped.
#include <optional>
#include <string_view>

#include "ops/metrics.h"

namespace scalewright::ops {

// What /proc/<pid>/stat says about a process, in seconds and bytes.
struct ProcessStat {
  double cpu_seconds = 0;            // utime + stime
  double virtual_memory_bytes = 0;   // vsize
  double resident_memory_bytes = 0;  // rss pages * page size (what /proc/self/statm's second field counts too)
  double start_time_seconds = 0;     // since the Unix epoch: boot time + starttime
};

// Parses the text of /proc/<pid>/stat (the command name may hold spaces and parentheses), with the clock ticks per
// second, page size and boot time (/proc/stat's btime) given so a test can compute the result by hand.
std::optional<ProcessStat> parse_proc_stat(std::string_view text, double ticks_per_second, double page_size,
                                           double boot_time_seconds);
// The "btime" line of /proc/stat: when the machine booted, in seconds since the Unix epoch.
std::optional<double> parse_boot_time(std::string_view proc_stat_text);

// Registers process_cpu_seconds_total, process_resident_memory_bytes, process_virtual_memory_bytes,
// process_start_time_seconds, process_open_fds and process_max_fds for this process. A value /proc cannot give is
// written as NaN rather than failing the scrape.
void register_process_metrics(MetricsRegistry& registry);

}  // namespace scalewright::ops
