#include "engine/job_window.h"

#include <cmath>

namespace aegis {

int WindowSide(double ts, bool exact, bool zoned, const Job& job, const WindowOptions& o, std::string_view host) {
  if (std::isnan(ts)) return 0;  // no time: it may belong to the job
  const double slack = o.clock_skew_s + (zoned ? 0.0 : o.zoneless_s);
  double start = job.started_at;
  if (!host.empty())
    if (auto it = job.not_before.find(host); it != job.not_before.end() && !(it->second <= start)) start = it->second;
  if (exact && !std::isnan(start) && ts + slack < start) return -1;
  if (!std::isnan(job.ended_at) && ts - slack > job.ended_at) return 1;
  return 0;
}

bool OutsideJobWindow(const LogEvent& ev, const Job& job, const WindowOptions& o, std::string_view host) {
  const int first = WindowSide(ev, job, o, host);
  if (first == 0 || ev.count <= 1) return first != 0;
  // Records of one event share the kind of their times (logs/event_aggregate.h).
  return WindowSide(ev.LatestTs(), ev.ts_exact, ev.ts_zoned, job, o, host) == first;
}

}  // namespace aegis
