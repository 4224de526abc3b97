#pragma once
// KEDA's cron scaler: whether `now` is inside the window between a start and an end schedule.
#include <chrono>

#include "api/cron_schedule.h"
#include "api/result.h"

namespace scalewright::workloads {

// KEDA's cron scaler at `now`: with next_start/next_end the next firing of each schedule strictly after `now`,
// inactive when next_start < next_end (the window opens later), otherwise active. So a window is [start, end): at the
// start minute the next start is a day (or period) away and the end comes first; at the end minute the next start
// comes first.
struct CronWindow {
  bool active = false;
  std::chrono::sys_seconds next_start;
  std::chrono::sys_seconds next_end;
};
Result<CronWindow> cron_window(const CronSchedule& start, const CronSchedule& end, const TimeZone& zone,
                               std::chrono::sys_seconds now);

}  // namespace scalewright::workloads
