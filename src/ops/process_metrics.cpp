#include "ops/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace scalewright::ops {
namespace {

std::optional<double> to_number(std::string_view text) {
  double value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::string read_file(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::optional<ProcessStat> read_self_stat() {
  static const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  static const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  // The boot time does not change while we run; reading it once spares a file per scrape.
  static const std::optional<double> boot = parse_boot_time(read_file("/proc/stat"));
  return parse_proc_stat(read_file("/proc/self/stat"), ticks, page, boot.value_or(kNaN));
}

double open_fds() {
  std::error_code error;
  double count = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end; !error && it != end;
       it.increment(error)) {
    ++count;
  }
  return error ? kNaN : count;
}

double max_fds() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return kNaN;
  if (limit.rlim_cur == RLIM_INFINITY) return std::numeric_limits<double>::infinity();
  return static_cast<double>(limit.rlim_cur);
}

}  // namespace

std::optional<ProcessStat> parse_proc_stat(std::string_view text, double ticks_per_second, double page_size,
                                           double boot_time_seconds) {
  // "pid (comm) state ppid ...": comm is free text, so fields are counted from the last ')'.
  auto close = text.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  std::vector<std::string_view> fields;  // fields[0] is field 3 of proc(5), "state"
  std::string_view rest = text.substr(close + 1);
  while (!rest.empty()) {
    auto start = rest.find_first_not_of(" \n");
    if (start == std::string_view::npos) break;
    rest.remove_prefix(start);
    auto length = rest.find_first_of(" \n");
    fields.push_back(rest.substr(0, length));
    rest.remove_prefix(length == std::string_view::npos ? rest.size() : length);
  }
  auto field = [&](int number) { return to_number(fields[static_cast<std::size_t>(number - 3)]); };
  if (fields.size() < 22 || ticks_per_second <= 0) return std::nullopt;
  auto utime = field(14), stime = field(15), starttime = field(22), vsize = field(23), rss = field(24);
  if (!utime || !stime || !starttime || !vsize || !rss) return std::nullopt;
  ProcessStat stat;
  stat.cpu_seconds = (*utime + *stime) / ticks_per_second;
  stat.virtual_memory_bytes = *vsize;
  stat.resident_memory_bytes = *rss * page_size;
  stat.start_time_seconds = boot_time_seconds + *starttime / ticks_per_second;
  return stat;
}

std::optional<double> parse_boot_time(std::string_view proc_stat_text) {
  std::string_view rest = proc_stat_text;
  while (!rest.empty()) {
    auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    if (line.starts_with("btime ")) return to_number(line.substr(6));
  }
  return std::nullopt;
}

void register_process_metrics(MetricsRegistry& registry) {
  auto stat_field = [](double ProcessStat::*member) {
    return [member] {
      auto stat = read_self_stat();
      return stat ? (*stat).*member : kNaN;
    };
  };
  registry.counter_function("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
                            stat_field(&ProcessStat::cpu_seconds));
  registry.gauge_function("process_resident_memory_bytes", "Resident memory size in bytes.",
                          stat_field(&ProcessStat::resident_memory_bytes));
  registry.gauge_function("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                          stat_field(&ProcessStat::virtual_memory_bytes));
  registry.gauge_function("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
                          stat_field(&ProcessStat::start_time_seconds));
  registry.gauge_function("process_open_fds", "Number of open file descriptors.", open_fds);
  registry.gauge_function("process_max_fds", "Maximum number of open file descriptors.", max_fds);
}

}  // namespace scalewright::ops
