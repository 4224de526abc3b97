#pragma once
// Peak memory per benchmark: VmHWM is the process's high-water mark, so each benchmark resets it before it
// starts (after handing freed heap back to the kernel); otherwise an earlier, larger run would set every figure.
#include <malloc.h>

#include <fstream>
#include <string>
#include <string_view>

namespace scalewright::bench {

// A field of /proc/self/status in MiB ("VmHWM", "VmRSS"); 0 when it cannot be read.
inline double proc_status_mib(std::string_view field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.size() > field.size() && line.compare(0, field.size(), field) == 0 && line[field.size()] == ':') {
      return std::stod(line.substr(field.size() + 1)) / 1024.0;
    }
  }
  return 0;
}

inline double peak_rss_since_reset_mib() { return proc_status_mib("VmHWM"); }
inline double current_rss_mib() { return proc_status_mib("VmRSS"); }

// Sets the high-water mark back to the current RSS (Linux ≥ 4.0: "5" to /proc/self/clear_refs).
inline void reset_peak_rss() {
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
}

}  // namespace scalewright::bench
