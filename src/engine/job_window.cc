#include "engine/job_window.h"

#include <cmath>

namespace aegis {

int WindowSide(double ts, bool exact, bool zoned, const Job& job, const WindowOptions& o) {
  if (std::isnan(ts)) return 0;  // no time: it may belong to the job
  const double slack = o.clock_skew_s + (zoned ? 0.0 : o.zoneless_s);
  if (exact && !std::isnan(job.started_at) && ts + slack < job.started_at) return -1;
  if (!std::isnan(job.ended_at) && ts - slack > job.ended_at) return 1;
  return 0;
}

bool OutsideJobWindow(const LogEvent& ev, const Job& job, const WindowOptions& o) {
  const int first = WindowSide(ev, job, o);
  if (first == 0 || ev.count <= 1) return first != 0;
  // Records of one event share the kind of their times (logs/event_aggregate.h).
  return WindowSide(ev.LatestTs(), ev.ts_exact, ev.ts_zoned, job, o) == first;
}

}  // namespace aegis
