#include "engine/job_window.h"

#include <cmath>

namespace aegis {

bool OutsideJobWindow(const LogEvent& ev, const Job& job, const WindowOptions& o, std::string_view host) {
  if (std::isnan(ev.ts)) return false;  // no time: it may belong to the job
  const double slack = o.clock_skew_s + (ev.ts_zoned ? 0.0 : o.zoneless_s);
  double start = job.started_at;
  if (!host.empty())
    if (auto it = job.not_before.find(host); it != job.not_before.end() && !(it->second <= start)) start = it->second;
  if (ev.ts_exact && !std::isnan(start) && ev.ts + slack < start) return true;
  if (!std::isnan(job.ended_at) && ev.ts - slack > job.ended_at) return true;
  return false;
}

}  // namespace aegis
