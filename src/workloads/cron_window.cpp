#include "workloads/cron_window.h"

#include <optional>
#include <string>

namespace scalewright::workloads {

using std::chrono::sys_seconds;

Result<CronWindow> cron_window(const CronSchedule& start, const CronSchedule& end, const TimeZone& zone,
                               sys_seconds now) {
  std::optional<sys_seconds> next_start = start.next(now, zone);
  if (!next_start) return Error{"cron start \"" + start.spec() + "\" never fires"};
  std::optional<sys_seconds> next_end = end.next(now, zone);
  if (!next_end) return Error{"cron end \"" + end.spec() + "\" never fires"};
  CronWindow window;
  window.next_start = *next_start;
  window.next_end = *next_end;
  window.active = !(*next_start < *next_end && now < *next_start) && now <= *next_end;
  return window;
}

}  // namespace scalewright::workloads
