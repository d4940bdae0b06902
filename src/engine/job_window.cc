#include "engine/job_window.h"

#include <cmath>

namespace aegis {

bool OutsideJobWindow(const LogEvent& ev, const Job& job, const WindowOptions& o) {
  if (std::isnan(ev.ts)) return false;  // no time: it may belong to the job
  const double slack = o.clock_skew_s + (ev.ts_zoned ? 0.0 : o.zoneless_s);
  if (ev.ts_exact && !std::isnan(job.started_at) && ev.ts + slack < job.started_at) return true;
  if (!std::isnan(job.ended_at) && ev.ts - slack > job.ended_at) return true;
  return false;
}

}  // namespace aegis
